import { expect } from 'chai';
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { openDatabase } from '../../db/connect.js';
import type { Database } from '../../db/schema.js';
import { statementName } from '../../db/guarded-pool.js';
import { createTestDatabase, testBackend, type TestDatabase } from '../support/database.js';

/** The statements this session has prepared (PostgreSQL's own view of them). */
async function preparedHere(db: Kysely<Database>): Promise<string[]> {
  const rows = await sql<{ name: string }>`select name from pg_prepared_statements order by name`.execute(db);
  return rows.rows.map((r) => r.name);
}

describe('named prepared statements (PostgreSQL)', () => {
  let database: TestDatabase;
  before(async function () {
    if ((await testBackend()) !== 'postgres') this.skip();
    database = await createTestDatabase();
  });
  after(() => database?.drop());

  it('prepares a statement once per connection, under its text’s hash, and leaves transaction control unnamed', async () => {
    const db = await openDatabase({ databaseUrl: database.url!, poolSize: 1 });
    try {
      const query = (n: number) => sql<{ n: number }>`select ${n}::int as n`.execute(db.kysely);
      await query(1);
      await query(2);
      // One connection (the pool holds one): the session that prepared them.
      const names = await preparedHere(db.kysely);
      const text = 'select $1::int as n';
      expect(names).to.include(statementName(text));
      expect(names.filter((name) => name === statementName(text))).to.have.length(1);
      expect(names.some((name) => /begin|commit/i.test(name))).to.equal(false);
    } finally {
      await db.close();
    }
  });

  it('holds at most the configured number on a connection: a connection that reaches it is replaced', async () => {
    const db = await openDatabase({ databaseUrl: database.url!, poolSize: 1, preparedStatements: 3 });
    try {
      const pid = async () => (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db.kysely)).rows[0]!.pid;
      const first = await pid();
      // Five distinct texts in one transaction (one connection): three are prepared, the rest are sent unnamed.
      const held = await db.kysely.transaction().execute(async (trx) => {
        for (let i = 0; i < 5; i++) await sql.raw(`select ${i} as n`).execute(trx);
        return preparedHere(trx);
      });
      expect(held.length).to.equal(3);
      // Released full, the connection was ended: the next statement runs on a new backend with none prepared.
      expect(await pid()).to.not.equal(first);
    } finally {
      await db.close();
    }
  });

  it('warms every connection before the service is ready: each holds the hot statements prepared', async () => {
    const db = await openDatabase({ databaseUrl: database.url!, poolSize: 3 });
    try {
      const hot = sql<{ n: number }>`select ${7}::int as n where ${'nothing'}::text = 'x'`.compile(db.kysely);
      await db.warm([hot]);
      // Three transactions at once hold the pool's three connections: each finds the statement already prepared.
      let arrived = 0;
      let open!: () => void;
      const all = new Promise<void>((resolve) => (open = resolve));
      const seen = await Promise.all(
        [0, 1, 2].map(() =>
          db.kysely.transaction().execute(async (trx) => {
            const names = await preparedHere(trx);
            const pid = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx)).rows[0]!.pid;
            if (++arrived === 3) open();
            await all;
            return { names, pid };
          }),
        ),
      );
      expect(new Set(seen.map((s) => s.pid)).size).to.equal(3);
      for (const { names } of seen) expect(names).to.include(statementName(hot.sql));
    } finally {
      await db.close();
    }
  });

  it('sends none with 0 (for a transaction-pooling PgBouncer)', async () => {
    const db = await openDatabase({ databaseUrl: database.url!, poolSize: 1, preparedStatements: 0 });
    try {
      await sql`select ${1}::int as n`.execute(db.kysely);
      expect(await preparedHere(db.kysely)).to.deep.equal([]);
    } finally {
      await db.close();
    }
  });
});
