import { expect } from 'chai';
import { sql } from 'kysely';
import { CompiledOnce } from '../../db/compiled-query.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

describe('a query compiled once (db/compiled-query.ts)', () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase();
    const db = database.db.kysely;
    await db
      .insertInto('accounts')
      .values([
        { id: 'acct_a', email: 'a@example.com', name: 'A', created_at: new Date('2026-01-01T00:00:00Z') },
        { id: 'acct_b', email: 'b@example.com', name: 'B', created_at: new Date('2026-02-01T00:00:00Z') },
      ])
      .execute();
  });
  after(() => database.drop());

  const byCreation = new CompiledOnce(['after', 'email'] as const, (db, v: { after: Date; email: string }) =>
    db
      .selectFrom('accounts')
      .select(['id', sql<string>`'constant'`.as('kind')])
      .where('created_at', '>', v.after)
      .where('email', '!=', v.email)
      .orderBy('id'),
  );

  it('answers each call with its own values, as the builder itself would, from one compiled text', async () => {
    const db = database.db.kysely;
    for (const [after, email] of [
      [new Date('2025-12-31T00:00:00Z'), 'nobody'],
      [new Date('2026-01-15T00:00:00Z'), 'nobody'],
      [new Date('2025-12-31T00:00:00Z'), 'b@example.com'],
    ] as const) {
      const compiled = (await byCreation.execute(db, { after, email })).rows;
      const direct = await db
        .selectFrom('accounts')
        .select(['id', sql<string>`'constant'`.as('kind')])
        .where('created_at', '>', after)
        .where('email', '!=', email)
        .orderBy('id')
        .execute();
      expect(compiled).to.deep.equal(direct);
    }
    expect((await byCreation.execute(db, { after: new Date('2026-01-15T00:00:00Z'), email: 'x' })).rows.map((r) => r.id)).to.deep.equal([
      'acct_b',
    ]);
  });

  it('refuses a query that does not take each named value as a parameter', async () => {
    const inlined = new CompiledOnce(['email'] as const, (db, _v: { email: string }) =>
      db.selectFrom('accounts').select('id').where('email', '=', 'fixed'),
    );
    let refused: unknown;
    try {
      await inlined.execute(database.db.kysely, { email: 'x' });
    } catch (error) {
      refused = error;
    }
    expect(String(refused)).to.match(/does not use email/);
  });
});
