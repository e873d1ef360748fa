// The brokers' part of the configuration (src/config.ts): where the Alpaca adapter connects, the key that seals
// connected accounts' secrets, and the deadlines of calls to a broker.
import { hkdfSync } from 'node:crypto';
import { ConfigError, flag, httpUrl, integer, key256, type Env } from './env.js';

/** Where the Alpaca adapter connects for one environment (paper or live): REST, and the order-update stream on it. */
export interface AlpacaEndpoints {
  tradingUrl: string;
  /** `/stream` on the trading URL, over ws:// or wss://. */
  streamUrl: string;
}

export interface BrokersConfig {
  /**
   * The AES-256-GCM key that seals connected accounts' secret keys (BROKER_CREDENTIALS_KEY). Without it, `--demo`
   * and the tests derive a fixed one (`derived`: it protects nothing); otherwise there is none, and no account can
   * be connected.
   */
  credentialsKey: { bytes: Buffer; derived: boolean } | undefined;
  alpaca: {
    paper: AlpacaEndpoints;
    live: AlpacaEndpoints;
    /** Market data (latest trades), the same for paper and live. */
    dataUrl: string;
    /** Whether an account may be connected to a live (real-money) Alpaca account. */
    liveEnabled: boolean;
  };
  /** The deadline of every call to a broker. */
  timeoutMs: number;
  /** How long an approved order may keep trying to reach the broker before it is rejected; never submitted after. */
  submitWindowMs: number;
  /** How often open orders at connected brokers are polled, besides their update streams. */
  reconcileIntervalMs: number;
  /**
   * How soon the broker catalogue (`listBrokers`) served by another instance shows a connection made or removed here:
   * each instance keeps an account's connected broker that long (BROKER_STATUS_CACHE_MS); its own changes show at once.
   */
  statusCacheMs: number;
}

export interface LoadOptions {
  /** `--demo` and the tests: without BROKER_CREDENTIALS_KEY, derive a fixed key (which protects nothing). */
  deriveBrokerKey?: boolean;
}

/**
 * The key `--demo` and the tests seal broker secrets with when none is configured: HKDF-SHA256 over a label written
 * here, the same on every machine. Anyone who reads this file can open what it seals.
 */
export const DERIVED_BROKER_KEY_LABEL = 'investment-automation-service: demo and test broker credentials key; protects nothing';
const derivedBrokerKey = () => Buffer.from(hkdfSync('sha256', DERIVED_BROKER_KEY_LABEL, '', 'broker-credentials', 32));

const alpacaEndpoints = (tradingUrl: string): AlpacaEndpoints => ({
  tradingUrl,
  streamUrl: `${tradingUrl.replace(/^http/i, 'ws')}/stream`,
});

export function brokersConfig(env: Env, options: LoadOptions): BrokersConfig {
  const configured = key256(env, 'BROKER_CREDENTIALS_KEY');
  const timeoutMs = integer(env, 'BROKER_TIMEOUT_MS', 5000, 100, 120_000);
  const submitWindowMs = integer(env, 'BROKER_SUBMIT_WINDOW_MS', 120_000, 1000, 3_600_000);
  if (submitWindowMs < timeoutMs) {
    throw new ConfigError('BROKER_SUBMIT_WINDOW_MS', `must be at least BROKER_TIMEOUT_MS (${timeoutMs}), got ${submitWindowMs}`);
  }
  return {
    credentialsKey: configured
      ? { bytes: configured, derived: false }
      : options.deriveBrokerKey
        ? { bytes: derivedBrokerKey(), derived: true }
        : undefined,
    alpaca: {
      paper: alpacaEndpoints(httpUrl(env, 'ALPACA_PAPER_URL', 'https://paper-api.alpaca.markets')),
      live: alpacaEndpoints(httpUrl(env, 'ALPACA_LIVE_URL', 'https://api.alpaca.markets')),
      dataUrl: httpUrl(env, 'ALPACA_DATA_URL', 'https://data.alpaca.markets'),
      liveEnabled: flag(env, 'ALPACA_LIVE_ENABLED', false),
    },
    timeoutMs,
    submitWindowMs,
    reconcileIntervalMs: integer(env, 'BROKER_RECONCILE_INTERVAL_MS', 30_000, 100, 86_400_000),
    statusCacheMs: integer(env, 'BROKER_STATUS_CACHE_MS', 5000, 0, 60_000),
  };
}
