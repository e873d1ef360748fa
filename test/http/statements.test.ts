import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/server.js';
import { AdjustablePrices } from '../support/prices.js';
import { createPolicy, manualClock, propose } from '../support/trading.js';

/** Statements are counted as the database driver runs them, BEGIN and COMMIT included. */
describe('statements per request: lean writes, reads that never write', () => {
  let server: TestServer;
  let statements: string[] = [];
  const clock = manualClock('2026-11-20T15:00:00Z');
  const prices = new AdjustablePrices();

  before(async () => {
    // No webhook worker: its polling would count among the request's statements.
    server = await startTestServer({ CLIENT_STATUS_CACHE_MS: '60000', WEBHOOK_DELIVERY: 'false' }, { clock, prices }, (sql) =>
      statements.push(sql),
    );
  });
  after(() => server.close());

  /** The statements `run` causes (a token's client-status lookup is cached, so only the operation's own count). */
  async function counted(run: () => Promise<unknown>): Promise<string[]> {
    statements = [];
    await run();
    return statements;
  }
  const writes = (sqls: string[]) => sqls.filter((s) => /^\s*(with\b[\s\S]*\b)?(insert|update|delete)\b/i.test(s));

  async function holder() {
    const account = await server.account(['read', 'trade', 'write']);
    await createPolicy(server, account.token);
    await server.api.get('/v1/orders', { token: account.token }); // warms the client-status cache
    return account;
  }

  it('an approval that fills runs at most 8 statements, BEGIN and COMMIT included, after one read of its broker connection', async () => {
    const account = await holder();
    const [first, second] = await propose(server, account, [
      { symbol: 'VTI', side: 'buy', quantity: '2' },
      { symbol: 'BND', side: 'buy', quantity: '3' },
    ]);
    for (const order of [first!, second!]) {
      const sqls = await counted(async () => {
        const response = await server.api.post(`/v1/orders/${order.id}/approve`, { token: account.token });
        expect(response.body.status).to.equal('filled');
      });
      // Which broker holds the account (issue 32): one read by primary key before the approval's transaction.
      expect(sqls[0]).to.match(/from "broker_connections"/i);
      const transaction = sqls.slice(1);
      expect(transaction.length, sqls.join('\n')).to.be.at.most(8);
      expect(transaction[0]).to.match(/^begin/i);
      expect(transaction.at(-1)).to.match(/^commit/i);
    }
  });

  it('a blocked approval, a reject and a cancel stay within the same budget', async () => {
    const account = await holder();
    const [big, rejected, cancelled] = await propose(server, account, [
      { symbol: 'VTI', side: 'buy', quantity: '1000' },
      { symbol: 'BND', side: 'buy', quantity: '1' },
      { symbol: 'BND', side: 'buy', quantity: '2' },
    ]);
    const blocked = await counted(() => server.api.post(`/v1/orders/${big!.id}/approve`, { token: account.token }));
    expect(blocked.length).to.be.at.most(8);
    expect((await counted(() => server.api.post(`/v1/orders/${rejected!.id}/reject`, { token: account.token }))).length).to.be.at.most(5);
    expect((await counted(() => server.api.post(`/v1/orders/${cancelled!.id}/cancel`, { token: account.token }))).length).to.be.at.most(5);
  });

  it(
    'generating ideas takes the paper-account lock, reads the account once and writes the idea, ' +
      'its orders, events and what it supersedes in one statement',
    async () => {
      const account = await holder();
      const generate = () =>
        counted(async () => {
          const response = await server.api.post('/v1/ideas/generate', {
            token: account.token,
            json: { mode: 'invest_cash', market: 'US' },
          });
          expect(response.body.ideas[0].orders.length).to.be.greaterThan(1);
        });
      // Which broker holds the account first (one read by primary key), then the generation's transaction. The first
      // opens the paper account (an insert and the lock again), as an account's first approval does.
      const [lookup, ...first] = await generate();
      expect(lookup).to.match(/from "broker_connections"/i);
      expect(first.length, first.join('\n')).to.be.at.most(7);
      const [, ...second] = await generate();
      expect(second.length, second.join('\n')).to.be.at.most(5);
      expect(second[0]).to.match(/^begin/i);
      expect(second[1]).to.match(/from "paper_accounts" .* for update$/);
      expect(writes(second), second.join('\n')).to.have.length(1);
      expect(writes(second)[0]).to.match(/"superseded" as \(update "orders"/);
    },
  );

  it('reading orders, ideas and the portfolio never writes, also when an order has expired unseen', async () => {
    const account = await holder();
    const [order] = await propose(server, account, [{ symbol: 'VTI', side: 'buy', quantity: '1' }]);
    clock.advance(24 * 3600_000 + 1000);
    try {
      const reads = await counted(async () => {
        const one = await server.api.get(`/v1/orders/${order!.id}`, { token: account.token });
        expect(one.body.status).to.equal('expired');
        const expired = await server.api.get('/v1/orders?status=expired', { token: account.token });
        expect(expired.body.data.map((o: { id: string }) => o.id)).to.include(order!.id);
        const proposed = await server.api.get('/v1/orders?status=proposed', { token: account.token });
        expect(proposed.body.data.map((o: { id: string }) => o.id)).to.not.include(order!.id);
        const ideas = await server.api.get('/v1/ideas', { token: account.token });
        expect(ideas.body.data[0].orders[0].status).to.equal('expired');
        await server.api.get('/v1/portfolio?market=US', { token: account.token });
      });
      expect(writes(reads), writes(reads).join('\n')).to.deep.equal([]);
      const stored = await server.database.db.kysely
        .selectFrom('orders')
        .select('status')
        .where('id', '=', order!.id)
        .executeTakeFirstOrThrow();
      expect(stored.status, 'a read left the row as it was').to.equal('proposed');

      // A trigger persists the expiry it finds, dated when the order expired, and is refused.
      const late = await server.api.post(`/v1/orders/${order!.id}/cancel`, { token: account.token });
      expect(late.status).to.equal(409);
      expect(late.body.current_state).to.equal('expired');
      const events = await server.database.db.kysely
        .selectFrom('order_events')
        .select(['to_status', 'at'])
        .where('order_id', '=', order!.id)
        .orderBy('id')
        .execute();
      expect(events.map((e) => e.to_status)).to.deep.equal(['proposed', 'expired']);
      expect(new Date(events[1]!.at).toISOString()).to.equal(order!.expires_at);
    } finally {
      clock.set('2026-11-20T15:00:00Z');
    }
  });
});
