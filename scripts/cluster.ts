// `make cluster`: the production layout on this machine, in the foreground (deploy/, docs/operations.md "The cluster").
// PostgreSQL and Redis as the machine has them, PgBouncer, three instances of the compiled service and HAProxy,
// serving on CLUSTER_PORT (8080); Ctrl-C or SIGTERM stops everything it started, in order. An instance that exits
// by itself is started again (as a service manager would); PgBouncer, HAProxy or Redis exiting stops the cluster.
// Settings: CLUSTER_PORT, CLUSTER_DATABASE (ias_cluster, kept between runs), CLUSTER_POSTGRES_URL, CLUSTER_REDIS_URL.
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { startCluster, type Cluster, type Instance } from './cluster/stack.js';

const port = Number(process.env.CLUSTER_PORT || 8080);
const database = process.env.CLUSTER_DATABASE || 'ias_cluster';
const dataDir = resolve('.data', 'cluster');
const log = (line: string) => process.stdout.write(`${line}\n`);

let cluster: Cluster | undefined;
let stopping: Promise<void> | undefined;
const stop = (code: number) => {
  stopping ??= (async () => {
    log('\nStopping: HAProxy, the instances (drained), PgBouncer ...');
    await cluster?.stop();
    log('Stopped.');
    process.exit(code);
  })();
  return stopping;
};
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));

function demoCredentials(): string {
  try {
    const saved = JSON.parse(readFileSync(join(dataDir, 'demo-credentials.json'), 'utf8')) as Record<string, string>;
    return Object.entries(saved)
      .map(([key, value]) => `  ${key.toUpperCase()}=${value}`)
      .join('\n');
  } catch {
    return '  (none saved)';
  }
}

/** An instance that exits without being asked is started again, a second later. */
function supervise(instance: Instance): void {
  const managed = instance.process!;
  void managed.exited.then(async (code) => {
    if (managed.stopped || stopping) return;
    log(`${instance.name} exited (${code}) without being asked; starting it again (log: ${join(logDir, `${instance.name}.log`)})`);
    await delay(1000);
    if (stopping) return;
    try {
      await instance.start();
      supervise(instance);
    } catch (error) {
      log(`${instance.name} did not start again: ${(error as Error).message}`);
    }
  });
}

const logDir = join(dataDir, 'logs');
try {
  log(`Starting the cluster on CLUSTER_PORT=${port} (database ${database}; logs in ${logDir}) ...`);
  cluster = await startCluster({
    port,
    database,
    adminUrl: process.env.CLUSTER_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
    redisUrl: process.env.CLUSTER_REDIS_URL || 'redis://127.0.0.1:6379',
    runDir: join(tmpdir(), `ias-cluster-${port}`),
    logDir,
    dataDir,
  });
} catch (error) {
  log(`The cluster did not start: ${(error as Error).message}`);
  await stop(1);
}
const running = cluster!;
for (const instance of running.instances) supervise(instance);
for (const [name, managed] of [
  ['HAProxy', running.proxy.process],
  ['PgBouncer', running.pooler.process],
  ['Redis', running.redis],
] as const) {
  void managed?.exited.then((code) => {
    if (managed.stopped || stopping) return;
    log(`${name} exited (${code}):\n${managed.tail()}`);
    void stop(1);
  });
}
const replaced = running.pooler.replaced.map((line) => line.split(' =')[0]).join(', ');
log(`
Serving on CLUSTER_PORT=${port}: HAProxy in front of ${running.instances.length} instances (${running.instances.map((i) => i.apiPort).join(', ')}).
  API:        http://localhost:${port}       (BASE_URL of every instance; API=http://localhost:${port} for the README's snippets)
  Dashboard:  http://localhost:${port + 1}
  HAProxy:    ${running.statsUrl} (stats; /metrics for Prometheus)
  PgBouncer:  127.0.0.1:${port + 3} (transaction pooling) -> PostgreSQL, database ${database} (deploy/pgbouncer.ini; set here: ${replaced})
  Redis:      shared rate-limit counters (prefix ias:${database}:rate-limit:)
Demo client and person (the demo account, kept in ${join(dataDir, 'demo-credentials.json')}):
${demoCredentials()}
Logs: ${logDir}/{haproxy,pgbouncer,ias1,ias2,ias3}.log. Ctrl-C stops everything.`);
