import { expect } from 'chai';
import { until } from '../support/poll.js';
import { startTestServer, type TestServer } from '../support/server.js';

type Mode = 'invest_cash' | 'rebalance';

/** Generating ideas accounts for the orders still proposed: pending buys never exceed the idle cash. */
describe('ideas that know what is pending', () => {
  let server: TestServer;
  let disclosureVersion: string;
  let accounts = 0;

  before(async () => {
    server = await startTestServer();
    disclosureVersion = (await server.api.get('/v1/disclosures/current', { token: await server.token(['read']) })).body.version;
  });
  after(() => server.close());

  async function holder(
    target = [
      { symbol: 'VTI', weight: 0.6 },
      { symbol: 'BND', weight: 0.4 },
    ],
  ) {
    const token = await server.token(['read', 'trade'], `pending${++accounts}@example.com`);
    const response = await server.api.post('/v1/policies', {
      token,
      json: {
        limits: {
          max_order_notional: 100000,
          max_position_weight: 0.9,
          max_daily_notional: 400000,
          max_daily_loss: 20000,
          allowed_markets: ['US'],
        },
        target_allocation: target,
        consent: { disclosure_version: disclosureVersion, accepted: true, signer_name: 'Test Holder' },
      },
    });
    expect(response.status, JSON.stringify(response.body)).to.equal(201);
    return token;
  }
  const generate = async (token: string, mode: Mode) => {
    const response = await server.api.post('/v1/ideas/generate', { token, json: { mode, market: 'US' } });
    expect(response.status, JSON.stringify(response.body)).to.be.oneOf([200, 201]);
    return response.body as { ideas: { id: string; orders: { id: string }[] }[]; notes: string[] };
  };
  async function pendingBuys(token: string) {
    const orders = (await server.api.get('/v1/orders?status=proposed&limit=100', { token })).body.data as {
      side: string;
      notional: number;
    }[];
    return orders.filter((o) => o.side === 'buy').reduce((sum, o) => sum + o.notional, 0);
  }
  const cash = async (token: string) => (await server.api.get('/v1/portfolio?market=US', { token })).body.cash as number;

  for (const [first, second] of [
    ['invest_cash', 'invest_cash'],
    ['invest_cash', 'rebalance'],
    ['rebalance', 'invest_cash'],
    ['rebalance', 'rebalance'],
  ] as [Mode, Mode][]) {
    it(`two calls in a row (${first}, then ${second}) never leave pending buys above the idle cash`, async () => {
      const token = await holder();
      const idle = await cash(token);
      await generate(token, first);
      expect(await pendingBuys(token)).to.be.at.most(idle);
      await generate(token, second);
      expect(await pendingBuys(token)).to.be.at.most(idle);
      await generate(token, first);
      expect(await pendingBuys(token)).to.be.at.most(idle);
    });
  }

  it('concurrent calls of both modes see each other (the paper-account lock): pending buys stay within the idle cash', async () => {
    const token = await holder();
    const idle = await cash(token);
    await Promise.all(
      (['invest_cash', 'rebalance', 'invest_cash', 'rebalance', 'invest_cash'] as Mode[]).map((mode) => generate(token, mode)),
    );
    expect(await pendingBuys(token)).to.be.at.most(idle);
  });

  it('a new idea cancels the proposals its mode left pending, each event naming the new idea and who asked', async () => {
    const token = await holder();
    const older = (await generate(token, 'invest_cash')).ideas[0]!;
    const newer = await generate(token, 'invest_cash');
    const idea = newer.ideas[0]!;
    expect(newer.notes.join(' ')).to.include(`Supersedes ${older.orders.length} orders`);
    for (const { id } of older.orders) {
      const order = (await server.api.get(`/v1/orders/${id}`, { token })).body;
      expect(order.status).to.equal('cancelled');
      const last = order.events.at(-1);
      expect(last).to.include({ from: 'proposed', to: 'cancelled', reason: `superseded by idea ${idea.id}` });
      expect(last.actor.kind).to.equal('client');
    }
    const proposed = (await server.api.get('/v1/orders?status=proposed', { token })).body.data.map((o: { id: string }) => o.id).sort();
    expect(proposed).to.deep.equal(idea.orders.map((o) => o.id).sort());
    // Each cancellation is an event of the feed, holding the order as GET answers it (cancelled, its last event naming the idea).
    const feed = await until('the cancellations in the feed', async () => {
      const found = (await server.api.get('/v1/events?type=order.cancelled&limit=100', { token })).body.data as {
        data: { id: string; status: string; events: { reason: string }[] };
      }[];
      return found.length >= older.orders.length ? found : undefined;
    });
    expect(feed.map((e) => e.data.id).sort()).to.deep.equal(older.orders.map((o) => o.id).sort());
    for (const event of feed) {
      expect(event.data.status).to.equal('cancelled');
      expect(event.data.events.at(-1)!.reason).to.equal(`superseded by idea ${idea.id}`);
    }
  });

  it('sizes itself around the other modes’ proposals and leaves them alone', async () => {
    const token = await holder([
      { symbol: 'VTI', weight: 0.5 },
      { symbol: 'BND', weight: 0.5 },
    ]);
    const invest = (await generate(token, 'invest_cash')).ideas[0]!;
    const rebalance = await generate(token, 'rebalance');
    expect(rebalance.notes.join(' ')).to.match(/of other ideas \(invest_cash\) still await a decision: [\d.]+ USD of cash is held back/);
    for (const { id } of invest.orders) expect((await server.api.get(`/v1/orders/${id}`, { token })).body.status).to.equal('proposed');
  });

  it('an approved proposal no longer counts as pending: the next idea spends what is left', async () => {
    const token = await holder();
    const first = (await generate(token, 'invest_cash')).ideas[0]!;
    const approved = await server.api.post(`/v1/orders/${first.orders[0]!.id}/approve`, { token });
    expect(approved.body.status).to.equal('filled');
    const idle = await cash(token);
    const next = (await generate(token, 'invest_cash')).ideas[0]!;
    expect(next.orders.length).to.be.greaterThan(0);
    expect(await pendingBuys(token)).to.be.at.most(idle);
    const kept = (await server.api.get(`/v1/orders/${first.orders[0]!.id}`, { token })).body;
    expect(kept.status, 'a filled order is never superseded').to.equal('filled');
  });
});
