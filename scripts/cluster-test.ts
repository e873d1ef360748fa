// `make cluster-test`: starts the cluster of `make cluster` (its own ports, database and Redis keys), drives mixed
// traffic through HAProxy at RATE requests a second for at least SECONDS while each instance is restarted in turn
// (SIGTERM, drained, started again, back in rotation), then checks the per-address limit through the proxy, each keyed
// effect once and each webhook once. Prints `N requests, M failed` and each check; exits 1 on any failure.
// CLUSTER_PORT picks its ports (default: the first free block from 18080); CLUSTER_TEST_RATE, CLUSTER_TEST_SECONDS.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { createClient } from 'redis';
import { openDatabase } from '../db/connect.js';
import { loadConfig } from '../src/config.js';
import { createServices } from '../src/services/index.js';
import { Receiver } from '../test/support/webhook-receiver.js';
import { keyedCheck, limitCheck, webhookCheck, type Check } from './cluster/checks.js';
import { answers } from './cluster/processes.js';
import { serverState, startCluster, type Cluster } from './cluster/stack.js';
import { admin } from './cluster/system.js';
import { prepareTraders, Traffic } from './cluster/traffic.js';
import { usage, usageLine } from './cluster/usage.js';

const started = performance.now();
const RATE = Number(process.env.CLUSTER_TEST_RATE || 110);
const SECONDS = Number(process.env.CLUSTER_TEST_SECONDS || 30);
const adminUrl = process.env.CLUSTER_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const redisUrl = process.env.CLUSTER_REDIS_URL || 'redis://127.0.0.1:6379';
const database = `ias_cluster_test_${process.pid}`;
const runDir = mkdtempSync(join(tmpdir(), 'ias-cluster-test-'));
chmodSync(runDir, 0o755); // PgBouncer and HAProxy read their folders in it as their own accounts
const log = (line: string) => process.stdout.write(`${line}\n`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** CLUSTER_PORT, or the first block of ports from 18080 (in steps of 100) where nothing listens. */
async function basePort(): Promise<number> {
  if (process.env.CLUSTER_PORT) return Number(process.env.CLUSTER_PORT);
  for (let base = 18080; base < 19000; base += 100) {
    const used = [0, 1, 2, 3, 11, 12, 13, 21, 22, 23].map((offset) => answers(base + offset));
    if (!(await Promise.all(used)).some(Boolean)) return base;
  }
  throw new Error('no free block of ports from 18080 to 19000; set CLUSTER_PORT');
}

/** Each instance in turn: SIGTERM (unready, drained, exit 0), started again, UP again in HAProxy. */
async function restartEach(cluster: Cluster, lines: string[], failures: string[]): Promise<void> {
  for (const instance of cluster.instances) {
    const t0 = performance.now();
    const code = await instance.stop();
    const stopped = performance.now();
    if (code !== 0) failures.push(`${instance.name} exited with ${code} on SIGTERM`);
    await instance.start();
    const ready = performance.now();
    await serverState(cluster, instance.name, /^UP$/);
    const up = seconds(performance.now() - ready);
    lines.push(
      `${instance.name}: drained and exited ${code} in ${seconds(stopped - t0)}, ready in ${seconds(ready - stopped)}, UP in HAProxy ${up} later`,
    );
    await delay(1000);
  }
}

const port = await basePort();
const receiver = await new Receiver().listen();
let cluster: Cluster | undefined;
let ok = false;
try {
  log(`make cluster-test: the cluster on ${port} (database ${database}, logs in ${runDir}/logs) ...`);
  cluster = await startCluster({
    port,
    database,
    adminUrl,
    redisUrl,
    runDir: join(runDir, 'run'),
    logDir: join(runDir, 'logs'),
    dataDir: join(runDir, 'data'),
  });
  log(
    `  up in ${seconds(performance.now() - started)}: HAProxy on ${port}, instances on ${cluster.instances.map((i) => i.apiPort).join(', ')}`,
  );
  const directUrl = Object.assign(new URL(adminUrl), { pathname: `/${database}` }).toString();
  const db = await openDatabase({ databaseUrl: directUrl, poolSize: 4 });
  const config = loadConfig({
    DATABASE_URL: directUrl,
    BASE_URL: `http://localhost:${port}`,
    LOG_LEVEL: 'silent',
    BCRYPT_COST: '4',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  });
  const services = await createServices(config, db);
  try {
    // Enough proposed orders for every approval a run of up to two and a half minutes sends (3 in 20 requests).
    const perTrader = Math.ceil((RATE * 150 * 3) / 20 / 8);
    const traders = await prepareTraders(services, db, cluster.url, receiver.url, 8, perTrader);
    const traffic = new Traffic(cluster.url, traders);
    const restarts: string[] = [];
    const restartFailures: string[] = [];
    let restarted = false;
    const trafficStarted = performance.now();
    const before = await usage(cluster, db, database);
    const restarting = delay(3000)
      .then(() => restartEach(cluster!, restarts, restartFailures))
      .catch((error: Error) => restartFailures.push(`restart: ${error.message}`))
      .finally(() => (restarted = true));
    await traffic.run(RATE, () => restarted && performance.now() - trafficStarted >= SECONDS * 1000);
    await restarting;
    const trafficMs = performance.now() - trafficStarted;
    const after = await usage(cluster, db, database);
    traffic.close();
    const counts = Object.fromEntries(traffic.counts);
    log(`${traffic.sent} requests, ${traffic.failed} failed`);
    log(
      `  in ${seconds(trafficMs)} (${(traffic.sent / (trafficMs / 1000)).toFixed(0)} requests/s): ${counts.read ?? 0} reads, ` +
        `${counts.approval ?? 0} keyed approvals, ${traffic.replays} replays, ${counts.feasibility ?? 0} feasibility, ${counts.token ?? 0} token requests; ` +
        `at most ${traffic.maxInFlight} in flight`,
    );
    for (const [what, count] of traffic.failures) log(`  failed: ${count} × ${what}`);
    for (const example of traffic.examples) log(`    ${example}`);
    for (const line of restarts) log(`  restart ${line}`);
    for (const failure of restartFailures) log(`  restart failed: ${failure}`);
    const retries = await cluster.proxy.retries();
    log(`  ${usageLine(before, after, trafficMs)}`);
    log(`  HAProxy: ${retries.retries} retries, ${retries.redispatches} redispatches, ${retries.errors} errors toward the instances`);

    const checks: Check[] = [
      {
        name: `at least ${SECONDS} s at ≥ 100 requests/s while each instance restarted`,
        ok: trafficMs >= SECONDS * 1000 && traffic.sent / (trafficMs / 1000) >= 100 && restarts.length === cluster.instances.length,
        detail: `${traffic.sent} requests in ${seconds(trafficMs)}, ${restarts.length} of ${cluster.instances.length} instances restarted`,
      },
      await limitCheck(cluster.url, traders[0]!, 320, config.rateLimitPerMinute),
      await keyedCheck(db, traffic.approvals, traffic.replays),
      await webhookCheck(db, receiver, traders, 30_000),
    ];
    for (const check of checks) log(`${check.ok ? 'ok  ' : 'FAIL'} ${check.name}: ${check.detail}`);
    ok = traffic.failed === 0 && restartFailures.length === 0 && checks.every((check) => check.ok);
  } finally {
    await db.close();
  }
} catch (error) {
  log(`make cluster-test: ${(error as Error).stack ?? String(error)}`);
} finally {
  await cluster?.stop();
  await receiver.close();
  await admin(adminUrl, `drop database if exists ${database} with (force)`).catch((error: Error) =>
    log(`dropping ${database}: ${error.message}`),
  );
  // The run's rate-limit counters (they would expire within a minute anyway).
  const redis = createClient({ url: redisUrl });
  await redis
    .connect()
    .then(async () => {
      for await (const keys of redis.scanIterator({ MATCH: `ias:${database}:*`, COUNT: 1000 })) if (keys.length) await redis.del(keys);
    })
    .catch(() => undefined)
    .finally(() => redis.isOpen && redis.quit());
  if (ok) rmSync(runDir, { recursive: true, force: true });
  else log(`Logs kept in ${runDir}/logs`);
  log(`make cluster-test: ${ok ? 'passed' : 'FAILED'} in ${seconds(performance.now() - started)}`);
  process.exit(ok ? 0 : 1);
}
