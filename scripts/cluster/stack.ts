// The cluster of `make cluster` and `make cluster-test`: PostgreSQL and Redis as the machine has them, PgBouncer,
// three instances of the compiled service (dist/src/main.js, as `make run` starts it) and HAProxy in front, each
// process stopped in order by `stop`. Ports follow CLUSTER_PORT (P): the API on P, the dashboard on P+1, HAProxy's
// stats on P+2, PgBouncer on P+3, the instances' API on P+11.. and their dashboards on P+21.. (127.0.0.1 only).
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Managed, waitFor } from './processes.js';
import { poolerAnswers, startPooler, type Pooler } from './pooler.js';
import { startProxy, type Proxy } from './proxy.js';
import { ensureDatabase, ensureFree, ensurePackages, ensurePostgres, ensureRedis } from './system.js';

export interface ClusterOptions {
  port: number;
  database: string;
  adminUrl: string;
  redisUrl: string;
  /** Configuration files and sockets (readable by the accounts PgBouncer and HAProxy run as). */
  runDir: string;
  logDir: string;
  /** The instances' DATA_DIR: the demo client's credentials, kept for the next start. */
  dataDir: string;
  /** Shown as the instances' public URL (BASE_URL); http://localhost:P unless given. */
  baseUrl?: string;
}

export const INSTANCES = 3;
/**
 * Longer than HAProxy takes to see /readyz turn 503 (deploy/haproxy.cfg: within 1 s, then 250 ms later, two in a
 * row), with room for the slow answers of an instance on busy cores: a connection HAProxy still makes once the port
 * has closed would be reset with the request in it.
 */
export const SHUTDOWN_DELAY_MS = 4000;

export class Instance {
  process: Managed | undefined;
  /** CPU time its processes used until they were stopped (the running one's is `cpuMs()`). */
  private usedMs = 0;

  constructor(
    readonly name: string,
    readonly apiPort: number,
    readonly dashboardPort: number,
    private readonly env: NodeJS.ProcessEnv,
    private readonly logFile: string,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.apiPort}`;
  }

  /** Starts it (`--demo`, as `make run`: the first start seeds the demo account) and waits for /readyz. */
  async start(): Promise<void> {
    this.process = new Managed(this.name, {
      command: process.execPath,
      args: ['dist/src/main.js', '--demo'],
      env: this.env,
      log: this.logFile,
      // SHUTDOWN_DELAY_MS, then at most SHUTDOWN_TIMEOUT_MS (10 s) of drain.
      stopTimeoutMs: SHUTDOWN_DELAY_MS + 15_000,
    });
    await waitFor(`${this.name} to be ready`, () => ready(this.url), 60_000, this.process);
  }

  /** SIGTERM: unready, drained, exited. */
  async stop(): Promise<number | string | undefined> {
    const stopping = this.process?.stop();
    this.usedMs += this.process?.cpuMs() ?? 0; // read as it drains: the last few ms of its life are not counted
    return stopping;
  }

  /** CPU time used by every process this instance ran so far, in ms. */
  cpuMs(): number {
    return this.usedMs + (this.process?.cpuMs() ?? 0);
  }
}

async function ready(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) })).status === 200;
  } catch {
    return false;
  }
}

export interface Cluster {
  url: string;
  dashboardUrl: string;
  statsUrl: string;
  /** The instances' DATABASE_URL (through PgBouncer). */
  databaseUrl: string;
  instances: Instance[];
  pooler: Pooler;
  proxy: Proxy;
  redis: Managed | undefined;
  /** Waits until HAProxy sees every instance UP. */
  allUp(timeoutMs?: number): Promise<void>;
  /** Stops everything it started, in order: HAProxy, the instances, PgBouncer, then Redis and PostgreSQL if started here. */
  stop(): Promise<void>;
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const { port } = options;
  const ports = {
    api: port,
    dashboard: port + 1,
    stats: port + 2,
    pgbouncer: port + 3,
    ...Object.fromEntries(
      Array.from({ length: INSTANCES }, (_, i) => [
        [`ias${i + 1}`, port + 11 + i] as const,
        [`ias${i + 1} dashboard`, port + 21 + i] as const,
      ]).flat(),
    ),
  };
  ensurePackages({ haproxy: 'haproxy', pgbouncer: 'pgbouncer' });
  await ensureFree(ports);
  for (const dir of [options.runDir, options.logDir, options.dataDir]) mkdirSync(dir, { recursive: true });
  chmodSync(options.runDir, 0o755); // PgBouncer and HAProxy reach their own folders in it as their own accounts
  const logOf = (name: string) => join(options.logDir, `${name}.log`);
  // What was started, stopped in the reverse order (HAProxy first, PostgreSQL last), also when starting fails halfway.
  const started: (() => Promise<unknown> | void)[] = [];
  const stop = async () => {
    for (const step of started.splice(0).reverse()) await step();
  };
  try {
    started.push(await ensurePostgres(options.adminUrl));
    const redis = await ensureRedis(options.redisUrl, logOf('redis'));
    started.push(() => redis?.stop());
    await ensureDatabase(options.adminUrl, options.database);
    const timeouts = {
      statementTimeoutMs: Number(process.env.DATABASE_STATEMENT_TIMEOUT_MS || 3000),
      idleInTransactionTimeoutMs: Number(process.env.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS || 10_000),
    };
    const pooler = await startPooler({
      adminUrl: options.adminUrl,
      port: ports.pgbouncer,
      dir: join(options.runDir, 'pgbouncer'),
      log: logOf('pgbouncer'),
      ...timeouts,
    });
    started.push(() => pooler.process.stop());
    const databaseUrl = pooler.url(options.database);
    await waitFor('PgBouncer to reach PostgreSQL', () => poolerAnswers(databaseUrl), 10_000, pooler.process);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HOST: '127.0.0.1',
      BASE_URL: options.baseUrl ?? `http://localhost:${ports.api}`,
      DASHBOARD_URL: `http://localhost:${ports.dashboard}`,
      DATABASE_URL: databaseUrl,
      // PgBouncer 1.18 in transaction pooling: no named prepared statements (deploy/pgbouncer.ini).
      DATABASE_PREPARED_STATEMENTS: '0',
      DATABASE_STATEMENT_TIMEOUT_MS: String(timeouts.statementTimeoutMs),
      DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: String(timeouts.idleInTransactionTimeoutMs),
      REDIS_URL: options.redisUrl,
      RATE_LIMIT_REDIS_PREFIX: `ias:${options.database}:rate-limit:`,
      // One proxy in front: the client address is the last X-Forwarded-For entry, the one HAProxy sets.
      TRUST_PROXY: '1',
      SHUTDOWN_DELAY_MS: String(SHUTDOWN_DELAY_MS),
      DATA_DIR: options.dataDir,
      WEB_CONCURRENCY: '1',
      LOG_LEVEL: process.env.LOG_LEVEL || 'info',
    };
    const instances = Array.from({ length: INSTANCES }, (_, i) => {
      const [api, dashboard] = [port + 11 + i, port + 21 + i];
      return new Instance(
        `ias${i + 1}`,
        api,
        dashboard,
        { ...env, PORT: String(api), DASHBOARD_PORT: String(dashboard) },
        logOf(`ias${i + 1}`),
      );
    });
    started.push(() => Promise.all(instances.map((instance) => instance.stop())));
    // The first migrates and seeds the demo account alone; the others find both done.
    await instances[0]!.start();
    await Promise.all(instances.slice(1).map((instance) => instance.start()));
    // HAProxy stops first: its listeners close (new clients are refused rather than answered 503), then the instances drain.
    const proxy = await startProxy({
      apiPort: ports.api,
      dashboardPort: ports.dashboard,
      statsPort: ports.stats,
      instances: instances.map((instance) => ({ api: `127.0.0.1:${instance.apiPort}`, dashboard: `127.0.0.1:${instance.dashboardPort}` })),
      dir: join(options.runDir, 'haproxy'),
      log: logOf('haproxy'),
    });
    started.push(() => proxy.process.stop());
    const allUp = async (timeoutMs = 20_000) => {
      const up = async () => Object.values(await proxy.states()).every((state) => state === 'UP');
      await waitFor('HAProxy to see every instance UP', up, timeoutMs, proxy.process);
    };
    await allUp();
    return {
      url: `http://127.0.0.1:${ports.api}`,
      dashboardUrl: `http://127.0.0.1:${ports.dashboard}`,
      statsUrl: `http://127.0.0.1:${ports.stats}/`,
      databaseUrl,
      instances,
      pooler,
      proxy,
      redis,
      allUp,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Waits until HAProxy sees `name` in a state matching `state` (`/^DOWN/`, `/^UP$/`). */
export async function serverState(cluster: Cluster, name: string, state: RegExp, timeoutMs = 20_000): Promise<void> {
  await waitFor(`HAProxy to see ${name} ${state.source}`, async () => state.test((await cluster.proxy.states())[name] ?? ''), timeoutMs);
}
