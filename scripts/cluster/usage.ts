// What the cluster's processes cost during `make cluster-test`'s traffic: CPU time by part, read from /proc, so that a
// failure on busy cores can be told apart from one the cluster causes itself.
import { sql } from 'kysely';
import { availableParallelism, loadavg } from 'node:os';
import type { Db } from '../../db/connect.js';
import { processCpuMs } from './processes.js';
import type { Cluster } from './stack.js';

export interface Usage {
  instances: number;
  postgres: Map<number, number>;
  pgbouncer: number;
  haproxy: number;
  test: number;
}

/** CPU time used so far (ms) by the instances, the database's PostgreSQL backends, PgBouncer, HAProxy and this process. */
export async function usage(cluster: Cluster, db: Db, database: string): Promise<Usage> {
  const backends = await sql<{ pid: number }>`select pid from pg_stat_activity where datname = ${database}`.execute(db.kysely);
  const { user, system } = process.cpuUsage();
  return {
    instances: cluster.instances.reduce((sum, instance) => sum + instance.cpuMs(), 0),
    postgres: new Map(backends.rows.map(({ pid }) => [pid, processCpuMs(pid)])),
    pgbouncer: cluster.pooler.process.cpuMs(),
    haproxy: cluster.proxy.process.cpuMs(),
    test: (user + system) / 1000,
  };
}

/** One line: each part's CPU seconds between two readings over `ms`, their sum in cores, and the machine's load. */
export function usageLine(before: Usage, after: Usage, ms: number): string {
  let postgres = 0;
  for (const [pid, used] of after.postgres) postgres += used - (before.postgres.get(pid) ?? 0);
  const parts = {
    instances: after.instances - before.instances,
    PostgreSQL: postgres,
    PgBouncer: after.pgbouncer - before.pgbouncer,
    HAProxy: after.haproxy - before.haproxy,
    'this test (load and receiver)': after.test - before.test,
  };
  const total = Object.values(parts).reduce((a, b) => a + b, 0);
  const shown = Object.entries(parts).map(([part, cpu]) => `${part} ${(cpu / 1000).toFixed(1)} s`);
  return (
    `CPU during the traffic: ${shown.join(', ')}: ${(total / ms).toFixed(2)} of ${availableParallelism()} cores ` +
    `(the machine's load average: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(', ')})`
  );
}
