import cluster, { type Worker } from 'node:cluster';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import { serveAdminSocket } from '../db/admin-socket.js';
import { migrateToLatest, openDatabase, type Db } from '../db/connect.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { DEMO_CREDENTIALS_FILE, demoBanner, seedDemo, type DemoCredentials } from './demo.js';
import { TurnBatchedDestination } from './observability/log-destination.js';
import { serveMetrics } from './observability/metrics-server.js';
import { stopTracing, tracingOn } from './observability/tracing.js';
import { startServer } from './server.js';
import { checkBrokerCredentialsKey } from './services/broker-credentials-key.js';
import { createServices, type Services } from './services/index.js';

const demo = process.argv.includes('--demo');

/** A configuration the service cannot start with: one line naming the variable, exit code 78 (EX_CONFIG). */
function exitOnConfigError(error: unknown): never {
  if (error instanceof ConfigError) {
    console.error(`Configuration error: ${error.message}`);
    process.exit(78);
  }
  throw error;
}

function configOrExit(): Config {
  try {
    // The demo delivers webhooks to receivers on this machine unless told otherwise, and derives a broker credentials
    // key when none is set (a fixed one, which protects nothing: docs/brokers.md).
    return loadConfig(
      demo && process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS === undefined
        ? { ...process.env, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }
        : process.env,
      { deriveBrokerKey: demo },
    );
  } catch (error) {
    exitOnConfigError(error);
  }
}

/** After the migrations: connected accounts' broker keys must open with the configured key, or the service does not start. */
async function checkBrokerKey(config: Config, db: Db): Promise<void> {
  try {
    await checkBrokerCredentialsKey(db.kysely, config.brokers.credentialsKey);
  } catch (error) {
    await db.close();
    exitOnConfigError(error);
  }
}

const open = (config: Config) =>
  openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    timeouts: config.databaseTimeouts,
    preparedStatements: config.databasePreparedStatements,
  });

/** Stops once on the first SIGTERM or SIGINT; a stop that fails is logged and exits 1, never an unhandled rejection. */
function onSignals(logger: Logger, stop: (signal: NodeJS.Signals) => Promise<void>): void {
  let stopping = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      stop(signal).catch((error: unknown) => {
        logger.fatal({ err: error, signal }, 'stopping failed');
        exitAfterLogs(logger, 1);
      });
    });
  }
}

/**
 * Exits once the log lines written so far are out. pino writes asynchronously: a line still waiting for a full pipe
 * (its reader busy) was lost by an immediate exit — the exit flush skips what a write in progress holds — as a
 * cluster's workers lost their last lines under load. Never waits more than 2 s (a reader that is gone).
 */
function exitAfterLogs(logger: Logger, code: number): void {
  setTimeout(() => process.exit(code), 2000).unref();
  logger.flush(() => process.exit(code));
}

/** What a cluster primary and its workers say to each other while stopping (the phases of a drain). */
const UNREADY = 'ias:unready';
const STOP_ACCEPTING = 'ias:stop-accepting';
const STOPPED_ACCEPTING = 'ias:stopped-accepting';
const isMessage = (message: unknown, kind: string) => (message as { ias?: unknown } | null)?.ias === kind;

function printDemo(config: Config, credentials: DemoCredentials, dashboardUrl: string): void {
  process.stdout.write(
    demoBanner(credentials, { api: config.baseUrl, dashboard: dashboardUrl, file: join(config.dataDir, DEMO_CREDENTIALS_FILE) }),
  );
}

/**
 * SHUTDOWN_DELAY_MS: readiness turns 503 (`unready`) while the listeners keep accepting and serving, for that long,
 * so that a load balancer's health checks take the instance out of rotation before its port closes; no new request
 * then meets a refused connection or a reset from the listen queue. Nothing when it is 0 (the drain starts at once).
 */
async function unreadyFor(config: Config, logger: Logger, signal: NodeJS.Signals, unready: () => void): Promise<void> {
  if (config.shutdownDelayMs === 0) return;
  unready();
  logger.info({ signal, delayMs: config.shutdownDelayMs }, 'not ready; still accepting until load balancers notice');
  await new Promise((resolve) => setTimeout(resolve, config.shutdownDelayMs));
}

/** One process serving the API: migrations, the demo seed when asked, then requests until a signal drains it. */
async function serve(config: Config, logger: Logger, db: Db, prepare: boolean): Promise<void> {
  if (prepare) {
    await migrateToLatest(db.kysely);
    await checkBrokerKey(config, db);
  }
  let credentials: DemoCredentials | undefined;
  const seed = prepare && demo ? async (services: Services) => (credentials = await seedDemo(services, config.dataDir)) : undefined;
  const running = await startServer(config, db, logger, { beforeListen: seed });
  // The operator CLI reaches the embedded database (one session, in this process) through this socket while it runs.
  const admin =
    db.kind === 'embedded' && !config.dataDir.startsWith('memory://')
      ? await serveAdminSocket(db.kysely, config.dataDir, (error) => logger.warn({ err: error }, 'admin socket session failed'))
      : undefined;
  if (cluster.isWorker) {
    // Closing the listeners sends the primary their removal over the IPC channel; the reply follows on the same channel.
    process.on('message', (message) => {
      if (isMessage(message, UNREADY)) running.services.meta.setAccepting(false);
      if (!isMessage(message, STOP_ACCEPTING)) return;
      running.stopAccepting();
      process.send?.({ ias: STOPPED_ACCEPTING });
    });
  }
  // The handlers are in place before anything announces the service: whoever reads "serving" may signal at once.
  onSignals(logger, async (signal) => {
    // A cluster's primary waits SHUTDOWN_DELAY_MS for its workers (supervise), before it signals them.
    if (!cluster.isWorker) await unreadyFor(config, logger, signal, () => running.services.meta.setAccepting(false));
    logger.info({ signal }, 'draining in-flight requests');
    const { forced } = await running.drain();
    if (forced) logger.warn({ timeoutMs: config.shutdownTimeoutMs }, 'shutdown timeout reached; open connections were closed');
    await admin?.close();
    await db.close();
    // The spans of the last requests (the drain's too) are exported before the process ends.
    await stopTracing();
    logger.info('stopped');
    exitAfterLogs(logger, 0);
  });
  if (credentials) printDemo(config, credentials, running.dashboard.url);
  logger.info(
    {
      port: running.port,
      baseUrl: config.baseUrl,
      dashboardPort: running.dashboard.port,
      dashboardUrl: running.dashboard.url,
      database: db.kind,
      tracing: tracingOn(),
    },
    prepare ? 'serving' : 'worker serving',
  );
}

/**
 * WEB_CONCURRENCY > 1: this primary migrates and seeds once, then runs that many workers behind one port
 * (node:cluster), replaces a worker that dies, and passes SIGTERM/SIGINT on to every worker before it exits.
 */
async function supervise(config: Config, logger: Logger): Promise<void> {
  const db = await open(config);
  await migrateToLatest(db.kysely);
  await checkBrokerKey(config, db);
  const credentials = demo ? await seedDemo(await createServices(config, db), config.dataDir) : undefined;
  await db.close();

  let stopping = false;
  let listening = 0;
  // Credentials and URLs are printed once every worker listens, so they can be used the moment they appear, with the
  // ports the workers report (the same for every worker; the system's choice when configured as 0).
  const serving = (ports: { api: number; dashboard: number }) => {
    if (++listening !== config.webConcurrency) return;
    if (credentials) printDemo(config, credentials, config.dashboardUrl ?? `http://localhost:${ports.dashboard}`);
    logger.info(
      { port: ports.api, dashboardPort: ports.dashboard, workers: config.webConcurrency, baseUrl: config.baseUrl, tracing: tracingOn() },
      'serving',
    );
  };
  const fork = () => {
    const worker = cluster.fork();
    // A worker listens twice: the API first, then the dashboard (startServer).
    const ports: number[] = [];
    const onListening = (address: { port: number }) => {
      ports.push(address.port);
      if (ports.length < 2) return;
      worker.off('listening', onListening);
      serving({ api: ports[0]!, dashboard: ports[1]! });
    };
    worker.on('listening', onListening);
  };
  const deaths: number[] = [];
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    const now = Date.now();
    deaths.push(now);
    while (deaths[0]! < now - 60_000) deaths.shift();
    if (deaths.length > 2 * config.webConcurrency + 3) {
      logger.fatal({ deaths: deaths.length }, 'workers keep dying; giving up');
      exitAfterLogs(logger, 1);
      return;
    }
    logger.error({ pid: worker.process.pid, code, signal }, 'worker died; starting a replacement');
    setTimeout(fork, 200);
  });
  for (let i = 0; i < config.webConcurrency; i++) fork();
  // The workers' metrics, added up, on the one METRICS_PORT (each worker records its own: server.ts).
  if (config.metrics) await serveMetrics(config.metrics.port, config.metrics.host, 'cluster');
  onSignals(logger, async (signal) => {
    stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((w) => w !== undefined);
    await unreadyFor(config, logger, signal, () => workers.forEach((worker) => worker.isConnected() && worker.send({ ias: UNREADY })));
    logger.info({ signal }, 'draining every worker');
    await stopAcceptingEverywhere(workers, Math.min(2000, config.shutdownTimeoutMs));
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve) => {
            if (worker.isDead()) return resolve();
            worker.once('exit', () => resolve());
            worker.process.kill(signal);
          }),
      ),
    );
    await stopTracing();
    logger.info('stopped');
    exitAfterLogs(logger, 0);
  });
}

/**
 * The first phase of a cluster's drain: every worker closes its listeners, and once all have, this primary's
 * listening socket is closed (node:cluster closes it with the last worker's). Only then are the workers signalled
 * to drain, which asks every client to reconnect: a reconnecting client is refused (ECONNREFUSED: nothing sent),
 * where a connection the primary accepted for a worker that had just stopped would have been reset mid-request.
 * A worker that does not answer within `waitMs` (busy, or gone) is signalled anyway.
 */
async function stopAcceptingEverywhere(workers: Worker[], waitMs: number): Promise<void> {
  let deadline: NodeJS.Timeout | undefined;
  const answered = workers.map(
    (worker) =>
      new Promise<void>((resolve) => {
        const done = () => {
          worker.off('message', onMessage);
          resolve();
        };
        const onMessage = (message: unknown) => isMessage(message, STOPPED_ACCEPTING) && done();
        if (worker.isDead() || !worker.isConnected()) return resolve();
        worker.on('message', onMessage).once('exit', done);
        worker.send({ ias: STOP_ACCEPTING }, (error) => error && done());
      }),
  );
  await Promise.race([Promise.all(answered), new Promise<void>((resolve) => (deadline = setTimeout(resolve, waitMs)))]);
  clearTimeout(deadline);
}

/** The service's process (main.ts starts it, after tracing when the OTEL_* variables ask for it). */
export async function runProcess(): Promise<void> {
  const config = configOrExit();
  // JSON lines on stdout, written once per turn of the event loop (log-destination.ts); every exit waits for them.
  const logger = pino({ level: config.logLevel }, new TurnBatchedDestination(1));
  if (config.webConcurrency > 1 && cluster.isPrimary) return supervise(config, logger);
  return serve(config, logger, await open(config), cluster.isPrimary);
}
