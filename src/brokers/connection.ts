import { AlpacaBroker } from './alpaca.js';
import type { BrokerPort } from './port.js';

/** The brokers an account can be connected to (besides the built-in paper broker, which needs no connection). */
export const CONNECTABLE_BROKERS = ['alpaca'] as const;
export type ConnectableBroker = (typeof CONNECTABLE_BROKERS)[number];

/** Everything an adapter needs to reach one connected account: where, with which keys, within which deadline. */
export interface BrokerConnectionConfig {
  broker: ConnectableBroker;
  /** A live (real-money) account rather than a paper one: decides the trading and stream URLs below. */
  live: boolean;
  keyId: string;
  /** In clear: only in memory, for the adapter's requests. */
  secretKey: string;
  tradingUrl: string;
  dataUrl: string;
  streamUrl: string;
  timeoutMs: number;
}

/**
 * Makes the port of one connected account. The services hold one per account (`BrokerConnections.portFor`); tests
 * inject their own to reach a stand-in or a fake.
 */
export type BrokerFactory = (accountId: string, connection: BrokerConnectionConfig) => BrokerPort;

/** The adapters of the real brokers: the port of a connected account as the service runs it. */
export const realBrokers: BrokerFactory = (_accountId, connection) => new AlpacaBroker(connection);
