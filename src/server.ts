import cluster from 'node:cluster';
import type { Server, ServerResponse } from 'node:http';
import { Server as NetServer, type AddressInfo } from 'node:net';
import type { Express } from 'express';
import type { Document } from 'openapi-backend';
import type { Logger } from 'pino';
import type { Db } from '../db/connect.js';
import type { Duplex } from 'node:stream';
import { createApp, type ApiApp } from './app.js';
import { Pipeline } from './application/pipeline.js';
import { problemTypeUri } from './application/problems.js';
import type { Config } from './config.js';
import { createDashboardApp } from './dashboard/app.js';
import { createExpressServer } from './http/node-server.js';
import { RateLimitStores } from './http/rate-limits.js';
import { loadDocument } from './document.js';
import { systemClock } from './clock.js';
import { observeServer } from './observability/gauges.js';
import { startMetrics } from './observability/metrics.js';
import { serveMetrics, shareWithPrimary } from './observability/metrics-server.js';
import { createServices, type ServiceOverrides, type Services } from './services/index.js';
import { WebhookThread } from './webhooks/threaded.js';
import { WebhookWorker } from './webhooks/worker.js';

export interface RunningServer {
  server: Server;
  services: Services;
  port: number;
  /** The dashboard's own listener (another origin): its port, and its public URL (DASHBOARD_URL, else localhost). */
  dashboard: { server: Server; port: number; url: string };
  /**
   * Closes both listeners (new connections are refused) and turns readiness 503; open connections keep being served
   * as before. A cluster worker does this first, so that the primary stops handing it connections before any client
   * is asked to reconnect (see main.ts).
   */
  stopAccepting(): void;
  /** Where Prometheus scrapes this process (METRICS_PORT; a cluster worker's primary answers for it): its port. */
  metrics: { port: number } | undefined;
  /** Where this instance sends webhooks: on a thread of its own (PostgreSQL), on the main thread, or not at all. */
  webhookDelivery: 'thread' | 'main thread' | 'off';
  /**
   * Stops accepting and drains: readiness turns 503 at once, every response from now on (and those of requests
   * already in flight) carries `Connection: close`, and it resolves once every connection has ended — after its
   * next answer, or, left idle, after the keep-alive timeout — or `forced` when the shutdown timeout had to cut
   * them. The API and the dashboard drain together.
   */
  drain(): Promise<{ forced: boolean }>;
}

export interface StartOptions {
  beforeListen?: (services: Services) => Promise<unknown>;
  overrides?: ServiceOverrides;
  /**
   * A socket already listening, for the API instead of binding `config.port` (it serves on that socket from then on):
   * a test binds port 0, reads the port the system chose, names it in BASE_URL and hands the socket over, with no
   * moment where the port is free for another process to take.
   */
  apiSocket?: NetServer;
  /** The bundled contract to serve instead of generated/openapi.json (tests of a changed contract: deprecations). */
  document?: Document;
}

interface Listening {
  server: Server;
  stopAccepting(): void;
  drain(): Promise<{ forced: boolean }>;
}

/**
 * How long an idle keep-alive connection stays open (Node's default, pinned: it is announced in `Keep-Alive:
 * timeout=5`, and a stock Node or undici client stops reusing a pooled connection a second or two before it).
 */
const KEEP_ALIVE_TIMEOUT_MS = 5000;

/**
 * What Node's HTTP parser refuses before any handler runs (a control character in a header value, an invalid
 * request line, headers too large) is answered as every other error: an RFC 9457 problem, not a bare 400.
 */
function answerParserError(error: NodeJS.ErrnoException, socket: Duplex, baseUrl: string): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
  const status = tooLarge ? 431 : timedOut ? 408 : 400;
  const body = JSON.stringify({
    type: problemTypeUri('malformed-request', baseUrl),
    title: tooLarge ? 'Request header fields too large' : timedOut ? 'Request timeout' : 'Malformed request',
    status,
    detail: tooLarge
      ? 'The request headers are too large.'
      : timedOut
        ? 'The request was not received in time.'
        : 'The request is not valid HTTP/1.1 (for example a header value with a control character, or an invalid request line).',
  });
  const reason = tooLarge ? 'Request Header Fields Too Large' : timedOut ? 'Request Timeout' : 'Bad Request';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/problem+json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
  );
}

async function listen(app: Express | ApiApp, port: number | NetServer, config: Config): Promise<Listening> {
  const server =
    'rest' in app
      ? createExpressServer(app.app, config.requestTimeoutMs, { prefix: '/v1/', handler: app.rest })
      : createExpressServer(app, config.requestTimeoutMs);
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => answerParserError(error, socket, config.baseUrl));
  const inFlight = new Set<ServerResponse>();
  let draining = false;
  // Ahead of express: every response knows whether the server is draining, whatever handles it.
  server.prependListener('request', (_req, res: ServerResponse) => {
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
    if (draining) res.setHeader('Connection', 'close');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
    if (typeof port === 'number') server.listen(port, config.host);
    else server.listen(port);
  });
  // http.Server#close would also close every idle keep-alive connection (Node 19+), under clients that may be writing
  // their next request on it at that moment: they get ECONNRESET for a request the server never saw. net.Server#close
  // only stops listening, and calls back once every connection has ended.
  let ended: Promise<void> | undefined;
  const stopAccepting = () => (ended ??= new Promise<void>((resolve) => NetServer.prototype.close.call(server, () => resolve())));
  const drain = () =>
    new Promise<{ forced: boolean }>((resolve) => {
      draining = true;
      for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
      let forced = false;
      const force = setTimeout(() => {
        forced = true;
        server.closeAllConnections();
      }, config.shutdownTimeoutMs);
      force.unref();
      // Each connection ends after its next answer (Connection: close) or when it has been idle for the keep-alive
      // timeout (Node closes it then, as it always does; the client has stopped using it a little before).
      void stopAccepting().then(() => {
        clearTimeout(force);
        resolve({ forced });
      });
    });
  return { server, stopAccepting: () => void stopAccepting(), drain };
}

/** No approval of the rehearsal starts later than this after it began: readiness comes within seconds. */
const REHEARSAL_DEADLINE_MS = 3000;

/**
 * Opens the pool's connections with the hot statements prepared (a database that does not answer fails the start, as
 * it always has), then rehearses the approval path on them (services/orders/rehearsal.ts): a rehearsal that fails
 * leaves the service colder, not down, and readiness still asks the database itself.
 */
async function warm(config: Config, db: Db, services: Services, logger: Logger): Promise<void> {
  await db.warm(services.hotStatements());
  if (!db.pool || config.warmUpApprovals === 0) return;
  const started = performance.now();
  try {
    const plan = { approvals: config.warmUpApprovals, connections: db.pool.size, deadlineMs: REHEARSAL_DEADLINE_MS };
    const approvals = await services.rehearseApprovals(plan);
    logger.info({ approvals, ms: Math.round(performance.now() - started) }, 'approval path rehearsed');
  } catch (error) {
    logger.warn({ err: error, ms: Math.round(performance.now() - started) }, 'approval path rehearsal failed');
  }
}

/** The API and the dashboard, in one process over the same services, each on its own port. */
export async function startServer(config: Config, db: Db, logger: Logger, options: StartOptions = {}): Promise<RunningServer> {
  const document = options.document ?? loadDocument();
  // The one owner of the shared counters' Redis connection: the rate limits and the use cases' CPU budget count there.
  const stores = new RateLimitStores(config, logger);
  // Metrics are recorded from the start when METRICS_PORT is set (every recording point asks whether they are).
  const metrics = config.metrics ? startMetrics() : undefined;
  const services = await createServices(config, db, options.overrides, document, stores);
  const { beforeListen } = options;
  await beforeListen?.(services);
  // The docs page links to the dashboard, whose port is known once it listens (DASHBOARD_PORT=0 picks one).
  let dashboardUrl = config.dashboardUrl ?? `http://localhost:${config.dashboardPort}`;
  // One pipeline for every channel: one contract (its validator), one store of Idempotency-Keys (the dashboard sends
  // none: its forms redirect after a POST).
  const pipeline = Pipeline.of(document, config.idempotencyRetentionHours * 3_600_000);
  const app = await createApp(config, services, document, pipeline, logger, stores, () => dashboardUrl);
  const api = await listen(app, options.apiSocket ?? config.port, config);
  let dashboard: Listening;
  try {
    // With PORT=0 (tests) the base URL's port is the one the API was given.
    const apiPort = (api.server.address() as AddressInfo | null)?.port;
    const apiUrl = () => (apiPort ? config.baseUrl.replace(/:0$/, `:${apiPort}`) : config.baseUrl);
    dashboard = await listen(createDashboardApp({ config, services, pipeline, logger, apiUrl }), config.dashboardPort, config);
  } catch (error) {
    api.server.close();
    throw error;
  }
  // Every instance sends webhooks; the queue in the database keeps two from sending the same attempt.
  // On PostgreSQL on a thread of its own (threaded.ts), unless a test's clock drives it (a thread has the system's).
  const workerOptions = { ...config.webhooks, retentionMs: config.eventRetentionDays * 86_400_000 };
  const webhooks =
    config.webhooks.thread && db.open && !options.overrides?.clock
      ? new WebhookThread(db, workerOptions, logger)
      : new WebhookWorker(db.kysely, options.overrides?.clock ?? systemClock, workerOptions, logger);
  // Ready once the database pool holds its connections, each with the approval's statements prepared, the approval
  // path has been rehearsed on them, and the webhook thread has loaded and opened its own, not while the first
  // requests would wait for them.
  try {
    await Promise.all([warm(config, db, services, logger), config.webhooks.deliver ? webhooks.start() : undefined]);
  } catch (error) {
    await webhooks.stop();
    throw error;
  }
  // The pool's waits are requests' from here on, not the warm-up's.
  const unobserve = metrics ? observeServer(metrics, db, stores) : undefined;
  // A cluster worker's metrics are its primary's to serve (main.ts), on the one METRICS_PORT.
  if (metrics && cluster.isWorker) shareWithPrimary(metrics);
  const metricsServer = metrics && !cluster.isWorker ? await serveMetrics(config.metrics!.port, config.metrics!.host, metrics) : undefined;
  services.meta.setAccepting(true);
  // Every instance keeps connected accounts in step with their brokers; a fill is applied once whoever learns of it.
  services.brokerSync.start(config.brokers.reconcileIntervalMs, logger);
  const dashboardPort = (dashboard.server.address() as AddressInfo).port;
  dashboardUrl = config.dashboardUrl ?? `http://localhost:${dashboardPort}`;
  const stopAccepting = () => {
    services.meta.setAccepting(false);
    api.stopAccepting();
    dashboard.stopAccepting();
  };
  const drain = async () => {
    services.meta.setAccepting(false);
    const [results] = await Promise.all([Promise.all([api.drain(), dashboard.drain()]), webhooks.stop(), services.brokerSync.stop()]);
    unobserve?.();
    await Promise.all([services.close(), stores.close(), metricsServer?.close()]);
    return { forced: results.some((r) => r.forced) };
  };
  return {
    server: api.server,
    services,
    port: (api.server.address() as AddressInfo).port,
    dashboard: { server: dashboard.server, port: dashboardPort, url: dashboardUrl },
    stopAccepting,
    drain,
    metrics: metricsServer ? { port: metricsServer.port } : undefined,
    webhookDelivery: !config.webhooks.deliver ? 'off' : webhooks instanceof WebhookThread ? 'thread' : 'main thread',
  };
}
