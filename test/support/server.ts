import { createServer, type AddressInfo, type Server as NetServer } from 'node:net';
import type { Document } from 'openapi-backend';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { systemClock } from '../../src/clock.js';
import type { ServiceContext } from '../../src/services/context.js';
import type { ServiceOverrides, Services } from '../../src/services/index.js';
import { SimulatedPriceSource } from '../../src/services/market-data.js';
import { Store } from '../../src/services/store.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { ApiClient } from './client.js';

/**
 * A port nothing listens on now. Only for a server that cannot be handed a socket (a redis-server, a child process
 * of another program): between this and its bind another process may take the port, so such a start retries.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** A socket listening on a port the system chose (port 0), kept open: a server started on it has no port race. */
export function listeningSocket(): Promise<{ socket: NetServer; port: number }> {
  return new Promise((resolve, reject) => {
    const socket = createServer();
    socket.once('error', reject);
    socket.listen(0, '127.0.0.1', () => resolve({ socket, port: (socket.address() as AddressInfo).port }));
  });
}

/**
 * Drains a server the suite is the only client of, once the suite is done with it: its idle pooled connections are
 * closed at once instead of waiting for the keep-alive timeout.
 */
export async function drainServer(running: RunningServer | undefined): Promise<void> {
  if (!running) return;
  const drained = running.drain();
  running.server.closeIdleConnections();
  running.dashboard.server.closeIdleConnections();
  await drained;
}

export interface TestServer {
  /** BASE_URL: the issuer, audience and prefix of problem type URIs (the server listens on 127.0.0.1 whatever it says). */
  url: string;
  /** The dashboard's origin (its own port on 127.0.0.1). */
  dashboardUrl: string;
  api: ApiClient;
  services: Services;
  database: TestDatabase;
  running: RunningServer;
  /** What the use cases are bound to, for test set-up that writes below the API (the server's own clock and prices). */
  context: ServiceContext;
  /** Creates an API client on a new account and returns its credentials. */
  createClient(scopes?: string[], email?: string): Promise<{ client_id: string; client_secret: string; account_id: string }>;
  /** A bearer token for a new client (and account unless `email` is given) holding `scopes`. */
  token(scopes?: string[], email?: string): Promise<string>;
  /** Like `token`, with the account and client it belongs to. */
  account(scopes?: string[], email?: string): Promise<{ token: string; accountId: string; clientId: string }>;
  close(): Promise<void>;
}

let accounts = 0;

export async function startTestServer(
  env: Record<string, string> = {},
  overrides: ServiceOverrides = {},
  onQuery?: (sql: string) => void,
  /** A contract to serve instead of generated/openapi.json (a copy with a change, as a partner would see it). */
  document?: Document,
): Promise<TestServer> {
  const database = await createTestDatabase(onQuery);
  const { socket, port } = await listeningSocket();
  const config = loadConfig(
    {
      PORT: String(port),
      HOST: '127.0.0.1',
      BASE_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: 'silent',
      BCRYPT_COST: '4',
      DASHBOARD_PORT: '0',
      // Suites send thousands of requests from one address; the limits have their own tests (rate-limits.test.ts).
      RATE_LIMIT_PER_MINUTE: '1000000',
      TOKEN_RATE_LIMIT_PER_MINUTE: '1000000',
      TOKEN_FAILURE_LIMIT_PER_MINUTE: '1000000',
      TOKEN_CLIENT_FAILURE_LIMIT_PER_MINUTE: '1000000',
      // Refusals answered at once, however many: suites that refuse on purpose send them back to back from one address
      // (the pacing has its own tests: refusal-pacing.test.ts).
      REFUSAL_PACE_PER_SECOND: '0',
      // Deliveries on the main thread, as on the embedded database: a thread for each of the suites' many servers would
      // cost each a start; the webhook thread is tested by webhooks-instances.test.ts and the process tests.
      WEBHOOK_THREAD: 'false',
      // No rehearsal of the approval path before ready: it would cost each of the suites' many servers a second; it has
      // its own tests (warm-up.test.ts), and the process tests start the service as deployed.
      WARM_UP_APPROVALS: '0',
      ...env,
    },
    // Without BROKER_CREDENTIALS_KEY, broker secrets are sealed under the fixed derived key, as with --demo.
    { deriveBrokerKey: true },
  );
  const running = await startServer(config, database.db, pino({ level: config.logLevel }), { overrides, apiSocket: socket, document });
  const url = config.baseUrl;
  const api = new ApiClient(`http://127.0.0.1:${port}`);
  const createClient = async (scopes = ['read', 'write', 'trade', 'mcp'], email?: string) => {
    const client = await running.services.clients.create({ accountEmail: email ?? `holder${++accounts}.${port}@example.com`, scopes });
    return { client_id: client.client_id, client_secret: client.client_secret, account_id: client.account_id };
  };
  const account = async (scopes = ['read', 'write', 'trade', 'mcp'], email?: string) => {
    const client = await createClient(scopes, email);
    const issued = await running.services.tokens.issue({ ...client, generation: 1 }, scopes);
    return { token: issued.access_token, accountId: client.account_id, clientId: client.client_id };
  };
  return {
    url,
    dashboardUrl: `http://127.0.0.1:${running.dashboard.port}`,
    api,
    services: running.services,
    database,
    running,
    context: {
      store: new Store(database.db.kysely),
      clock: overrides.clock ?? systemClock,
      prices: overrides.prices ?? new SimulatedPriceSource(),
      brokers: running.services.brokerConnections,
      config,
    },
    createClient,
    account,
    token: async (scopes?: string[], email?: string) => (await account(scopes, email)).token,
    async close() {
      await drainServer(running);
      await database.drop();
    },
  };
}
