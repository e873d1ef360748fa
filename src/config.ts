import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { DEFAULT_PREPARED_STATEMENTS } from '../db/guarded-pool.js';
import { brokersConfig, type BrokersConfig, type LoadOptions } from './config-brokers.js';
import { ConfigError, decimal, durations, flag, integer, origins, secret, url, type Env } from './env.js';

export { ConfigError };
export { DERIVED_BROKER_KEY_LABEL, type AlpacaEndpoints, type BrokersConfig, type LoadOptions } from './config-brokers.js';

export interface AssistantConfig {
  baseUrl: string;
  apiKey: string | undefined;
  model: string;
  timeoutMs: number;
}

export interface DatabaseTimeoutsConfig {
  connectMs: number;
  queryMs: number;
  statementMs: number;
  idleInTransactionMs: number;
}

export interface Config {
  port: number;
  host: string;
  baseUrl: string;
  databaseUrl: string | undefined;
  /** PostgreSQL only: how long a request waits for the database before it answers 503. */
  databaseTimeouts: DatabaseTimeoutsConfig;
  /** PostgreSQL only: named prepared statements a connection may hold (0: none, for a transaction-pooling PgBouncer). */
  databasePreparedStatements: number;
  dataDir: string;
  redisUrl: string | undefined;
  dashboardPort: number;
  /** The dashboard's public URL when set; its scheme decides Secure (and `__Host-`) session cookies. */
  dashboardUrl: string | undefined;
  /** Leading zero bits a proof-of-work solution needs before an address has failed (it rises after failures). */
  powDifficulty: number;
  /** Failed token requests per client_id and client address a minute; past it that address is refused for that client. */
  tokenFailureLimitPerMinute: number;
  /**
   * Failed token requests per client_id a minute from all addresses; past it only addresses the client obtained a
   * token from lately are checked, the others refused before any secret check.
   */
  tokenClientFailureLimitPerMinute: number;
  /** Key prefix of the rate-limit counters in Redis. */
  rateLimitRedisPrefix: string;
  /** Longest wait for one Redis command of the rate limits; past it the request passes unlimited. */
  rateLimitRedisTimeoutMs: number;
  /** After failures, how long no command is sent to Redis before a probe. */
  rateLimitRedisBreakerMs: number;
  /** How long a stored Idempotency-Key answer is replayed. */
  idempotencyRetentionHours: number;
  /** HMAC key of proof-of-work challenges; when absent one is generated once and kept in the database. */
  challengeSecret: string | undefined;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  rateLimitPerMinute: number;
  /** Refusals (429) answered at once per client address and second before the rest are held (0: never held). */
  refusalPacePerSecond: number;
  tokenRateLimitPerMinute: number;
  webConcurrency: number;
  /** express `trust proxy`: a hop count, or addresses/subnets/names (loopback, uniquelocal, ...); false trusts none. */
  trustProxy: number | string | false;
  bodyLimitBytes: number;
  requestTimeoutMs: number;
  shutdownTimeoutMs: number;
  /** On SIGTERM, how long /readyz says 503 while the listeners still accept (a load balancer takes it out), before the drain. */
  shutdownDelayMs: number;
  tokenTtlSeconds: number;
  /** PKCS#8 PEM of an Ed25519 or P-256 key; when absent a key is generated once and kept in the database. */
  signingKeyPem: string | undefined;
  bcryptCost: number;
  /** bcrypt operations at a time, and how long one waits for its turn before a 503. */
  bcryptConcurrency: number;
  bcryptWaitMs: number;
  /** How long a client's revocation or rotation may take to reach the other instances' token caches. */
  clientStatusCacheMs: number;
  /** Worker threads of this process for heavy computations (goal feasibility), and how many may wait for one. */
  computeThreads: number;
  computeQueueLength: number;
  /** CPU time of heavy computations one client may use a minute, in ms, over every interface and instance. */
  cpuBudgetMsPerMinute: number;
  paperStartingCash: string;
  /** Approvals rehearsed before the service says ready, on PostgreSQL (services/orders/rehearsal.ts); 0: none. */
  warmUpApprovals: number;
  /** How long an approval may be bound to a preview of it (POST /v1/orders/{id}/preview). */
  orderPreviewTtlSeconds: number;
  accountQuotas: QuotaLimits;
  assistant: AssistantConfig | undefined;
  /** Origins besides BASE_URL's whose pages may call /mcp from a browser (serialised origins, `https://app.example`). */
  mcpAllowedOrigins: string[];
  /** How long events are kept (the feed, and what webhooks can still deliver). */
  eventRetentionDays: number;
  webhooks: WebhooksConfig;
  brokers: BrokersConfig;
  /** Where Prometheus metrics are served (src/observability/metrics-server.ts); undefined: none are recorded. */
  metrics: { port: number; host: string } | undefined;
}

/** The quotas per account a minute (src/services/quotas.ts): policy name, what it counts, its setting and default. */
export const ACCOUNT_QUOTAS = {
  ideas: { what: 'idea generations', env: 'ACCOUNT_IDEAS_PER_MINUTE', fallback: 30 },
  policies: { what: 'policy versions', env: 'ACCOUNT_POLICIES_PER_MINUTE', fallback: 10 },
  reports: { what: 'daily report generations', env: 'ACCOUNT_REPORTS_PER_MINUTE', fallback: 30 },
  'webhook-tests': { what: 'webhook test sends', env: 'ACCOUNT_WEBHOOK_TESTS_PER_MINUTE', fallback: 10 },
} as const;
export type QuotaName = keyof typeof ACCOUNT_QUOTAS;
export type QuotaLimits = Record<QuotaName, number>;

export interface WebhooksConfig {
  /** Delays before each retry after the first attempt (which is immediate). */
  retryScheduleMs: number[];
  /** http:// and private, loopback and link-local addresses allowed (development and tests; `--demo` turns it on). */
  allowPrivateNetworks: boolean;
  /** How often an idle instance looks for new events and due deliveries. */
  pollMs: number;
  /** Attempts in flight at once per instance. */
  concurrency: number;
  /** Attempts in flight at once per endpoint, and per account, over every instance: a slow tenant takes no more. */
  perEndpoint: number;
  perAccount: number;
  /** Whether this instance delivers at all (an instance that does not leaves it to the others on the database). */
  deliver: boolean;
  /** On PostgreSQL, deliveries run on a worker thread of their own at a lower CPU priority (WEBHOOK_THREAD); false: on the main thread. */
  thread: boolean;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** The Standard Webhooks retry schedule after the first attempt: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const STANDARD_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,10h';

export function loadConfig(env: Env = process.env, options: LoadOptions = {}): Config {
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const host = env.HOST || '0.0.0.0';
  const baseUrl = url(env, 'BASE_URL', `http://localhost:${port}`)!.replace(/\/+$/, '');
  const databaseUrl = url(env, 'DATABASE_URL');
  if (databaseUrl && !/^postgres(ql)?:/.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL', 'must be a postgres:// or postgresql:// URL');
  }
  const logLevel = (env.LOG_LEVEL || 'info') as Config['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`);
  const rawTrust = env.TRUST_PROXY?.trim();
  const trustProxy = !rawTrust || rawTrust === 'false' ? false : /^\d+$/.test(rawTrust) ? Number(rawTrust) : rawTrust;
  if (rawTrust === 'true')
    throw new ConfigError('TRUST_PROXY', 'trusting every proxy lets any client choose its IP; give a hop count (1) or the proxy addresses');
  const signingKeyPem = env.SIGNING_KEY_PEM || undefined;
  if (signingKeyPem && !signingKeyPem.includes('-----BEGIN PRIVATE KEY-----')) {
    throw new ConfigError('SIGNING_KEY_PEM', 'must be a PKCS#8 PEM private key (Ed25519 or P-256)');
  }
  const webConcurrency = integer(env, 'WEB_CONCURRENCY', 1, 1, 64);
  if (webConcurrency > 1 && !databaseUrl) {
    throw new ConfigError(
      'WEB_CONCURRENCY',
      `the embedded database serves one process; set DATABASE_URL to a PostgreSQL server to run ${webConcurrency} workers`,
    );
  }
  const dashboardUrl = url(env, 'DASHBOARD_URL')?.replace(/\/+$/, '');
  if (dashboardUrl && !/^https?:\/\//.test(dashboardUrl)) throw new ConfigError('DASHBOARD_URL', 'must be an http:// or https:// URL');
  const assistantBaseUrl = url(env, 'ASSISTANT_BASE_URL');
  return {
    port,
    host,
    baseUrl,
    databaseUrl,
    databasePreparedStatements: integer(env, 'DATABASE_PREPARED_STATEMENTS', DEFAULT_PREPARED_STATEMENTS, 0, 10_000),
    databaseTimeouts: {
      connectMs: integer(env, 'DATABASE_CONNECT_TIMEOUT_MS', 2000, 100, 600_000),
      queryMs: integer(env, 'DATABASE_QUERY_TIMEOUT_MS', 4000, 100, 600_000),
      statementMs: integer(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 3000, 100, 600_000),
      idleInTransactionMs: integer(env, 'DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS', 10_000, 100, 600_000),
    },
    dataDir: resolve(env.DATA_DIR || '.data'),
    redisUrl: url(env, 'REDIS_URL'),
    dashboardPort: integer(env, 'DASHBOARD_PORT', 3001, 0, 65535),
    dashboardUrl,
    powDifficulty: integer(env, 'POW_DIFFICULTY', 14, 1, 32),
    idempotencyRetentionHours: integer(env, 'IDEMPOTENCY_RETENTION_HOURS', 24, 1, 720),
    challengeSecret: secret(env, 'CHALLENGE_SECRET'),
    logLevel,
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 300, 1, 1_000_000_000),
    tokenRateLimitPerMinute: integer(env, 'TOKEN_RATE_LIMIT_PER_MINUTE', 30, 1, 1_000_000_000),
    refusalPacePerSecond: integer(env, 'REFUSAL_PACE_PER_SECOND', 10, 0, 1_000_000),
    tokenFailureLimitPerMinute: integer(env, 'TOKEN_FAILURE_LIMIT_PER_MINUTE', 10, 1, 1_000_000_000),
    tokenClientFailureLimitPerMinute: integer(env, 'TOKEN_CLIENT_FAILURE_LIMIT_PER_MINUTE', 100, 1, 1_000_000_000),
    rateLimitRedisPrefix: env.RATE_LIMIT_REDIS_PREFIX || 'ias:rate-limit:',
    rateLimitRedisTimeoutMs: integer(env, 'RATE_LIMIT_REDIS_TIMEOUT_MS', 100, 1, 5000),
    rateLimitRedisBreakerMs: integer(env, 'RATE_LIMIT_REDIS_BREAKER_MS', 5000, 100, 600_000),
    webConcurrency,
    trustProxy,
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 100 * 1024, 1024, 10 * 1024 * 1024),
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', 30_000, 1000, 600_000),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    shutdownDelayMs: integer(env, 'SHUTDOWN_DELAY_MS', 0, 0, 600_000),
    tokenTtlSeconds: 3600,
    signingKeyPem,
    bcryptCost: integer(env, 'BCRYPT_COST', 10, 4, 15),
    // Half the cores (at least one): bcrypt's threads must leave the event loop a core of its own.
    bcryptConcurrency: integer(env, 'BCRYPT_CONCURRENCY', Math.max(1, Math.floor(availableParallelism() / 2)), 1, 64),
    bcryptWaitMs: integer(env, 'BCRYPT_WAIT_MS', 2000, 0, 60_000),
    clientStatusCacheMs: integer(env, 'CLIENT_STATUS_CACHE_MS', 5000, 0, 60_000),
    // The cores this process's share leaves once its event loop has one (each of WEB_CONCURRENCY processes has its
    // own pool), at least one thread: on two cores, one.
    computeThreads: integer(env, 'COMPUTE_THREADS', Math.max(1, Math.floor(availableParallelism() / webConcurrency) - 1), 1, 64),
    computeQueueLength: integer(env, 'COMPUTE_QUEUE_LENGTH', 64, 0, 10_000),
    cpuBudgetMsPerMinute: integer(env, 'CPU_BUDGET_MS_PER_MINUTE', 10_000, 1, 1_000_000_000),
    paperStartingCash: decimal(env, 'PAPER_STARTING_CASH', '100000'),
    warmUpApprovals: integer(env, 'WARM_UP_APPROVALS', 300, 0, 5000),
    orderPreviewTtlSeconds: integer(env, 'ORDER_PREVIEW_TTL_SECONDS', 120, 1, 3600),
    accountQuotas: Object.fromEntries(
      Object.entries(ACCOUNT_QUOTAS).map(([name, quota]) => [name, integer(env, quota.env, quota.fallback, 1, 1_000_000)]),
    ) as QuotaLimits,
    mcpAllowedOrigins: origins(env, 'MCP_ALLOWED_ORIGINS'),
    eventRetentionDays: integer(env, 'EVENT_RETENTION_DAYS', 30, 30, 3650),
    webhooks: {
      retryScheduleMs: durations(env, 'WEBHOOK_RETRY_SCHEDULE', STANDARD_RETRY_SCHEDULE),
      allowPrivateNetworks: flag(env, 'WEBHOOK_ALLOW_PRIVATE_NETWORKS', false),
      pollMs: integer(env, 'WEBHOOK_POLL_MS', 200, 10, 60_000),
      concurrency: integer(env, 'WEBHOOK_CONCURRENCY', 32, 1, 1000),
      perEndpoint: integer(env, 'WEBHOOK_ENDPOINT_CONCURRENCY', 2, 1, 1000),
      perAccount: integer(env, 'WEBHOOK_ACCOUNT_CONCURRENCY', 8, 1, 1000),
      deliver: flag(env, 'WEBHOOK_DELIVERY', true),
      thread: flag(env, 'WEBHOOK_THREAD', true),
    },
    brokers: brokersConfig(env, options),
    metrics: env.METRICS_PORT ? { port: integer(env, 'METRICS_PORT', 0, 0, 65535), host: env.METRICS_HOST || host } : undefined,
    assistant: assistantBaseUrl
      ? {
          baseUrl: assistantBaseUrl.replace(/\/+$/, ''),
          apiKey: env.ASSISTANT_API_KEY || undefined,
          model: env.ASSISTANT_MODEL || 'gpt-4o-mini',
          timeoutMs: integer(env, 'ASSISTANT_TIMEOUT_MS', 20_000, 1000, 120_000),
        }
      : undefined,
  };
}
