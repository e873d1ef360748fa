import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { migrateToLatest, openDatabase, type Db } from '../db/connect.js';
import { startPooler, type Pooler } from '../scripts/cluster/pooler.js';
import { testBackend } from './support/database.js';
import { freePort } from './support/server.js';

const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function admin<T extends pg.QueryResultRow>(statement: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return (await client.query<T>(statement, values)).rows;
  } finally {
    await client.end();
  }
}

const installed = (command: string) => {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

/**
 * The service behind deploy/pgbouncer.ini (transaction pooling, PgBouncer 1.18; `make cluster` runs it the same way):
 * several instances starting together on an empty database, then starting again and again while their pools hold
 * server sessions, all migrate, and no lock is left behind. With the migration lock Kysely takes for a session (before
 * db/migration-lock.ts) the unlock reached another server session than the lock: the next start waited for the lock
 * until statement_timeout cancelled its migrations.
 */
describe('migrations through a transaction-pooling PgBouncer', () => {
  const name = `ias_test_pgbouncer_${randomBytes(4).toString('hex')}`;
  let dir: string;
  let pooler: Pooler | undefined;

  before(async function () {
    if ((await testBackend()) !== 'postgres' || !installed('pgbouncer')) this.skip(); // .ci/run installs it
    dir = mkdtempSync(join(tmpdir(), 'ias-pgbouncer-'));
    chmodSync(dir, 0o755); // PgBouncer reads its folder in it as the postgres account
    await admin(`create database ${name}`);
    pooler = await startPooler({
      adminUrl,
      port: await freePort(),
      dir: join(dir, 'pgbouncer'),
      log: join(dir, 'pgbouncer.log'),
      statementTimeoutMs: 3000,
      idleInTransactionTimeoutMs: 10_000,
    });
  });
  after(async () => {
    await pooler?.process.stop();
    await admin(`drop database if exists ${name} with (force)`).catch(() => undefined);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** A pool as an instance opens it behind PgBouncer: the service's timeouts, no named prepared statements. */
  const instance = () =>
    openDatabase({
      databaseUrl: pooler!.url(name),
      poolSize: 10,
      preparedStatements: 0,
      timeouts: { connectMs: 2000, queryMs: 4000, statementMs: 3000, idleInTransactionMs: 10_000 },
    });

  it('three instances migrate at once, then again and again while their pools are busy, and no lock is left', async function () {
    this.timeout(60_000);
    const instances: Db[] = await Promise.all([instance(), instance(), instance()]);
    try {
      await Promise.all(instances.map((db) => migrateToLatest(db.kysely)));
      // Busy pools: PgBouncer hands each transaction whichever server session is free, as under traffic.
      let busy = true;
      const traffic = instances.map(async (db) => {
        while (busy) await Promise.all(Array.from({ length: 6 }, () => sql`select pg_sleep(0.005)`.execute(db.kysely)));
      });
      for (let round = 0; round < 8; round++) {
        const started = Date.now();
        await Promise.all(instances.map((db) => migrateToLatest(db.kysely)));
        expect(Date.now() - started, `round ${round} waited for a lock`).to.be.lessThan(2500);
      }
      busy = false;
      await Promise.all(traffic);
      const locks = await admin<{ count: number }>(
        `select count(*)::int as count from pg_locks l join pg_database d on d.oid = l.database where l.locktype = 'advisory' and d.datname = $1`,
        [name],
      );
      expect(locks[0]!.count, 'advisory locks left held').to.equal(0);
      const applied = await sql<{ count: number }>`select count(*)::int as count from kysely_migration`.execute(instances[0]!.kysely);
      expect(applied.rows[0]!.count).to.be.greaterThan(0);
    } finally {
      await Promise.all(instances.map((db) => db.close()));
    }
  });
});
