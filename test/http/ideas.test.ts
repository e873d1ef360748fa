import { expect } from 'chai';
import { ideasAccount, ideasPolicy, slug } from '../support/ideas.js';
import { startTestServer, type TestServer } from '../support/server.js';

const NOW = new Date('2026-11-20T15:00:00Z');
const clock = { now: () => NOW };

describe('trade ideas', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({}, { clock });
  });
  after(() => server.close());

  const account = () => ideasAccount(server);
  const createPolicy = (token: string, limits: object = {}, target?: { symbol: string; weight: number }[]) =>
    ideasPolicy(server, token, limits, target);
  const generate = (token: string, json: Record<string, unknown>) => server.api.post('/v1/ideas/generate', { token, json });
  // Ideas list sells before buys, so approving in their order funds the buys.
  async function approveAll(token: string, orders: { id: string }[]) {
    for (const order of orders) {
      const response = await server.api.post(`/v1/orders/${order.id}/approve`, { token });
      expect(response.status, JSON.stringify(response.body)).to.equal(200);
      expect(response.body.status).to.equal('filled');
    }
  }
  async function weights(token: string): Promise<Record<string, number>> {
    const { holdings } = (await server.api.get('/v1/portfolio?market=US', { token })).body;
    return Object.fromEntries(holdings.map((h: any) => [h.symbol, h.weight]));
  }

  describe('POST /v1/ideas/generate', () => {
    it('returns 409 policy-required when the account has no policy', async () => {
      const { trade } = await account();
      const response = await generate(trade, { mode: 'invest_cash', market: 'US' });
      expect(response.status).to.equal(409);
      expect(slug(response.body)).to.equal('policy-required');
    });

    it('returns 422 unsupported-market for a market the paper broker does not trade', async () => {
      const { trade } = await account();
      await createPolicy(trade);
      const response = await generate(trade, { mode: 'invest_cash', market: 'JP' });
      expect(response.status).to.equal(422);
      expect(slug(response.body)).to.equal('unsupported-market');
    });

    it('returns 403 for a token without the trade scope', async () => {
      const { trade, read } = await account();
      await createPolicy(trade);
      const response = await generate(read, { mode: 'invest_cash', market: 'US' });
      expect(response.status).to.equal(403);
      expect((await server.api.get('/v1/ideas', { token: read })).body.data).to.deep.equal([]);
    });

    it('returns 503 assistant-not-configured without an LLM endpoint', async () => {
      const { trade } = await account();
      await createPolicy(trade);
      const response = await generate(trade, { mode: 'assistant', market: 'US' });
      expect(response.status).to.equal(503);
      expect(slug(response.body)).to.equal('assistant-not-configured');
    });
  });

  describe('invest_cash, approval and rebalance on one account', () => {
    let token: string;
    let idea: any;

    before(async () => {
      token = (await account()).trade;
      await createPolicy(token);
    });

    it('invest_cash proposes buys of the fresh account’s cash along 60/40, keeping a 0.5 % buffer', async () => {
      const response = await generate(token, { mode: 'invest_cash', market: 'US' });
      expect(response.status).to.equal(201);
      expect(response.body.ideas).to.have.length(1);
      idea = response.body.ideas[0];
      expect(idea).to.include({ mode: 'invest_cash', market: 'US', created_at: NOW.toISOString() });
      expect(idea.rationale).to.match(/99500\.00 USD of 100000\.00 USD/);
      expect(idea.orders.map((o: any) => [o.symbol, o.side, o.order_type, o.status, o.idea_id])).to.deep.equal([
        ['VTI', 'buy', 'market', 'proposed', idea.id],
        ['BND', 'buy', 'market', 'proposed', idea.id],
      ]);
      expect(idea.orders[0].notional).to.be.within(59699, 59700);
      expect(idea.orders[1].notional).to.be.within(39799, 39800);
    });

    it('approving the proposed orders fills them, and the idea shows their current state', async () => {
      await approveAll(token, idea.orders);
      const current = (await server.api.get(`/v1/ideas/${idea.id}`, { token })).body;
      expect(current.orders.map((o: any) => o.status)).to.deep.equal(['filled', 'filled']);
      expect(current.orders[0].events.map((e: any) => e.to)).to.deep.equal(['proposed', 'submitted', 'filled']);
      const after = await weights(token);
      expect(after.VTI).to.be.closeTo(0.597, 0.001);
      expect(after.BND).to.be.closeTo(0.398, 0.001);
    });

    it('rebalance right after is empty: every weight is within the band', async () => {
      const response = await generate(token, { mode: 'rebalance', market: 'US' });
      expect(response.status).to.equal(201);
      expect(response.body.ideas).to.deep.equal([]);
      expect(response.body.notes).to.deep.equal(['Every weight is within the policy’s rebalance band: nothing to rebalance.']);
    });

    it('after a policy change, rebalance sells then buys to restore the new allocation', async () => {
      await createPolicy(token, {}, [
        { symbol: 'VTI', weight: 0.3 },
        { symbol: 'BND', weight: 0.7 },
      ]);
      const response = await generate(token, { mode: 'rebalance', market: 'US' });
      expect(response.status).to.equal(201);
      const [rebalance] = response.body.ideas;
      expect(rebalance.mode).to.equal('rebalance');
      expect(rebalance.rationale)
        .to.match(/VTI 59\.\d %/)
        .and.match(/BND 39\.\d %/);
      expect(rebalance.orders.map((o: any) => [o.symbol, o.side, o.status])).to.deep.equal([
        ['VTI', 'sell', 'proposed'],
        ['BND', 'buy', 'proposed'],
      ]);
      await approveAll(token, rebalance.orders);
      const after = await weights(token);
      expect(after.VTI).to.be.closeTo(0.3, 0.005);
      expect(after.BND).to.be.closeTo(0.7, 0.005);
      expect((await generate(token, { mode: 'rebalance', market: 'US' })).body.ideas).to.deep.equal([]);
    });
  });

  describe('policy limits', () => {
    it('splits orders to fit max_order_notional, so the whole amount is still invested along the target', async () => {
      const { trade } = await account();
      await createPolicy(trade, { max_order_notional: 10000 });
      const [idea] = (await generate(trade, { mode: 'invest_cash', market: 'US' })).body.ideas;
      for (const order of idea.orders) expect(order.notional).to.be.at.most(10000);
      const total = (symbol: string) =>
        idea.orders.filter((o: any) => o.symbol === symbol).reduce((sum: number, o: any) => sum + o.notional, 0);
      expect(total('VTI')).to.be.within(59690, 59700);
      expect(total('BND')).to.be.within(39790, 39800);
      expect(idea.rationale).to.match(/Split buy [\d.]+ VTI into 6 orders within policy\.max_order_notional \(10000\.00 USD each\)/);
      await approveAll(trade, idea.orders);
      const after = await weights(trade);
      expect(after.VTI).to.be.closeTo(0.597, 0.002);
      expect(after.BND).to.be.closeTo(0.398, 0.002);
    });

    it('shrinks a buy to the policy’s max_position_weight', async () => {
      const { trade } = await account();
      await createPolicy(trade, { max_position_weight: 0.5 });
      const [idea] = (await generate(trade, { mode: 'invest_cash', market: 'US' })).body.ideas;
      expect(idea.orders[0].symbol).to.equal('VTI');
      expect(idea.orders[0].notional).to.be.within(49990, 50000);
      expect(idea.rationale).to.match(/policy\.max_position_weight/);
    });

    it('cuts what exceeds the daily notional left, together with the idea’s other orders, and says so', async () => {
      const { trade } = await account();
      await createPolicy(trade, { max_daily_notional: 60000 });
      const [idea] = (await generate(trade, { mode: 'invest_cash', market: 'US' })).body.ideas;
      expect(idea.orders.map((o: any) => o.symbol)).to.deep.equal(['VTI', 'BND']);
      expect(idea.orders[0].notional + idea.orders[1].notional).to.be.at.most(60000);
      expect(idea.orders[1].notional).to.be.within(290, 301);
      expect(idea.rationale).to.match(/Reduced buy [\d.]+ BND to [\d.]+ to fit policy\.max_daily_notional \([\d.]+ USD left today\)/);
    });

    it('proposes no idea when no trade passes the policy check, and says why in the notes', async () => {
      const { trade } = await account();
      await createPolicy(trade, { max_daily_notional: 0.5 });
      const response = await generate(trade, { mode: 'invest_cash', market: 'US' });
      expect(response.body.ideas, JSON.stringify(response.body)).to.deep.equal([]);
      expect(response.body.notes[0]).to.equal('No trade passed the policy check.');
      const notes = response.body.notes.slice(1).join(' ');
      expect(notes)
        .to.match(/Reduced buy [\d.]+ VTI to [\d.]+ to fit policy\.max_daily_notional \(0\.50 USD left today\)/)
        .and.match(/Dropped buy [\d.]+ VTI: below 1\.00 USD after the limits/);
    });

    it('sells the whole of a holding the policy no longer allows, and approval lets that sell through', async () => {
      const { trade } = await account();
      await createPolicy(trade);
      await approveAll(trade, (await generate(trade, { mode: 'invest_cash', market: 'US' })).body.ideas[0].orders);
      await createPolicy(trade, { allowed_symbols: ['VTI', 'AGG'] }, [
        { symbol: 'VTI', weight: 0.5 },
        { symbol: 'AGG', weight: 0.5 },
      ]);
      const [idea] = (await generate(trade, { mode: 'rebalance', market: 'US' })).body.ideas;
      expect(idea.orders.map((o: any) => [o.symbol, o.side])).to.deep.equal([
        ['VTI', 'sell'],
        ['BND', 'sell'],
        ['AGG', 'buy'],
      ]);
      expect(idea.rationale).to.match(/Sell all of BND: the policy no longer allows it/);
      await approveAll(trade, idea.orders);
      const after = await weights(trade);
      expect(after).to.not.have.property('BND');
      expect(after.VTI).to.be.closeTo(0.5, 0.01);
      expect(after.AGG).to.be.closeTo(0.5, 0.01);
    });

    it('under a policy blocking one holding, not allowing another and limiting orders to 3,000, rebalance sells both in parts and they fill', async () => {
      const { trade } = await account();
      await createPolicy(trade, {}, [
        { symbol: 'KO', weight: 0.3 },
        { symbol: 'JNJ', weight: 0.3 },
        { symbol: 'VTI', weight: 0.4 },
      ]);
      await approveAll(trade, (await generate(trade, { mode: 'invest_cash', market: 'US' })).body.ideas[0].orders);
      await createPolicy(
        trade,
        { max_order_notional: 3000, max_daily_notional: 400000, blocked_symbols: ['KO'], allowed_symbols: ['KO', 'VTI', 'BND'] },
        [
          { symbol: 'VTI', weight: 0.6 },
          { symbol: 'BND', weight: 0.4 },
        ],
      );
      const [idea] = (await generate(trade, { mode: 'rebalance', market: 'US' })).body.ideas;
      const sold = (symbol: string) => idea.orders.filter((o: any) => o.symbol === symbol && o.side === 'sell');
      expect(sold('KO').length).to.be.greaterThan(1);
      expect(sold('JNJ').length).to.be.greaterThan(1);
      for (const order of idea.orders) expect(order.notional).to.be.at.most(3000);
      expect(idea.rationale, idea.rationale)
        .to.match(/Sell all of (KO, JNJ|JNJ, KO): the policy no longer allows them/)
        .and.match(/Split sell [\d.]+ KO into \d+ orders/);
      await approveAll(trade, idea.orders);
      const after = await weights(trade);
      expect(after).to.not.have.property('KO');
      expect(after).to.not.have.property('JNJ');
    });
  });

  describe('GET /v1/ideas and /v1/ideas/{id}', () => {
    let token: string;
    let ids: string[];

    before(async () => {
      token = (await account()).trade;
      await createPolicy(token);
      ids = [];
      for (let i = 0; i < 3; i++) ids.push((await generate(token, { mode: 'invest_cash', market: 'US' })).body.ideas[0].id);
    });

    it('lists the account’s ideas newest first, with cursor pagination', async () => {
      const first = await server.api.get('/v1/ideas?limit=2', { token });
      expect(first.status).to.equal(200);
      expect(first.body.data.map((i: any) => i.id)).to.deep.equal([ids[2], ids[1]]);
      expect(first.body.data[0].orders).to.have.length(2);
      const second = await server.api.get(`/v1/ideas?limit=2&cursor=${first.body.next_cursor}`, { token });
      expect(second.body.data.map((i: any) => i.id)).to.deep.equal([ids[0]]);
      expect(second.body.next_cursor).to.equal(null);
      expect((await server.api.get('/v1/ideas?mode=rebalance', { token })).body.data).to.deep.equal([]);
    });

    it('returns one idea with its orders in their current states (an earlier idea’s, superseded by the next, cancelled)', async () => {
      const idea = (await server.api.get(`/v1/ideas/${ids[2]}`, { token })).body;
      const rejected = await server.api.post(`/v1/orders/${idea.orders[0].id}/reject`, { token, json: { reason: 'not now' } });
      expect(rejected.status).to.equal(200);
      const current = await server.api.get(`/v1/ideas/${ids[2]}`, { token });
      expect(current.status).to.equal(200);
      expect(current.body.orders.map((o: any) => o.status)).to.deep.equal(['rejected', 'proposed']);
      const earlier = (await server.api.get(`/v1/ideas/${ids[0]}`, { token })).body;
      expect(earlier.orders.map((o: any) => [o.status, o.events.at(-1).reason])).to.deep.equal([
        ['cancelled', `superseded by idea ${ids[1]}`],
        ['cancelled', `superseded by idea ${ids[1]}`],
      ]);
    });

    it('returns 404 for an unknown idea and for another account’s idea', async () => {
      const other = (await account()).read;
      const foreign = await server.api.get(`/v1/ideas/${ids[0]}`, { token: other });
      expect(foreign.status).to.equal(404);
      expect(slug(foreign.body)).to.equal('not-found');
      expect((await server.api.get('/v1/ideas', { token: other })).body.data).to.deep.equal([]);
      expect((await server.api.get('/v1/ideas/idea_unknown', { token })).status).to.equal(404);
    });
  });
});
