import { expect } from 'chai';
import { release } from '../../src/services/kill-switch.js';
import type { TestServer } from '../support/server.js';
import { ordersSuite, propose, type PolicyOverrides, type TradeSpec } from '../support/trading.js';

describe('orders: the state machine, the policy check, reading orders', () => {
  const suite = ordersSuite('2026-11-20T15:00:00Z');
  const { clock, prices, holder, approve, expectBlocked } = suite;
  let server: TestServer;
  before(() => (server = suite.server()));

  describe('transitions', () => {
    it('approve fills a proposed order at the fresh price and moves cash and positions in the same step', async () => {
      const { token, clientId, propose } = await holder();
      const [order] = await propose({ symbol: 'VTI', side: 'buy', quantity: '10.5' });
      const response = await approve(token, order!.id);
      expect(response.status).to.equal(200);
      const filled = response.body;
      expect(filled).to.include({ status: 'filled', filled_quantity: 10.5 });
      expect(filled.events.map((e: any) => [e.from, e.to])).to.deep.equal([
        [null, 'proposed'],
        ['proposed', 'submitted'],
        ['submitted', 'filled'],
      ]);
      expect(filled.events[1].client_id).to.equal(clientId);
      const expectedPrice = prices.quote('VTI', clock.now()).price.toNumber();
      expect(filled.fill_price).to.equal(expectedPrice);
      expect(filled.average_fill_price).to.equal(expectedPrice);
      expect(filled.broker).to.deep.equal({
        id: 'paper',
        order_id: null,
        status: 'filled',
        submitted_at: filled.events[1].at,
        rests_until: null,
      });
      const portfolio = (await server.api.get('/v1/portfolio?market=US', { token })).body;
      const notional = Math.round(10.5 * expectedPrice * 100) / 100;
      expect(portfolio.cash).to.equal(Math.round((100000 - notional) * 100) / 100);
      expect(portfolio.holdings).to.have.length(1);
      expect(portfolio.holdings[0]).to.include({ symbol: 'VTI', quantity: 10.5, average_cost: expectedPrice });
    });

    it('reject records the reason; every later trigger is 409 naming the final state', async () => {
      const { token, propose } = await holder();
      const [order] = await propose({ symbol: 'BND', side: 'buy', quantity: '3' });
      const rejected = await server.api.post(`/v1/orders/${order!.id}/reject`, { token, json: { reason: 'not now' } });
      expect(rejected.body).to.include({ status: 'rejected' });
      expect(rejected.body.events.at(-1)).to.include({ from: 'proposed', to: 'rejected', reason: 'not now' });
      for (const trigger of ['approve', 'reject', 'cancel']) {
        const again = await server.api.post(`/v1/orders/${order!.id}/${trigger}`, { token });
        expect(again.status).to.equal(409);
        expect(again.body).to.include({ type: `${server.url}/problems/invalid-state`, current_state: 'rejected' });
        expect(again.body.allowed_triggers).to.deep.equal([]);
      }
    });

    it('cancel works on a proposed order and on a submitted, unfilled limit order, not on a filled one', async () => {
      const { token, propose } = await holder();
      const price = prices.quote('VTI', clock.now()).price;
      const [proposed, resting, filled] = await propose(
        { symbol: 'VTI', side: 'buy', quantity: '1' },
        { symbol: 'VTI', side: 'buy', quantity: '2', order_type: 'limit', limit_price: price.times(0.95).toFixed(2) },
        { symbol: 'VTI', side: 'buy', quantity: '3' },
      );
      expect((await server.api.post(`/v1/orders/${proposed!.id}/cancel`, { token })).body.status).to.equal('cancelled');
      const submitted = await approve(token, resting!.id);
      expect(submitted.body.status).to.equal('submitted');
      const approveAgain = await approve(token, resting!.id);
      expect(approveAgain.status).to.equal(409);
      expect(approveAgain.body.allowed_triggers).to.deep.equal(['cancel']);
      const cancelled = await server.api.post(`/v1/orders/${resting!.id}/cancel`, { token, json: { reason: 'price ran away' } });
      expect(cancelled.body.events.at(-1)).to.include({ from: 'submitted', to: 'cancelled', reason: 'price ran away' });
      await approve(token, filled!.id);
      expect((await server.api.post(`/v1/orders/${filled!.id}/cancel`, { token })).status).to.equal(409);
    });

    it(
      'answers say what happened: a 404 names the order, a block counts its checks and shows the order blocked, ' +
        'a resting limit order shows its submission, a kill switch its reason',
      async () => {
        const a = await holder();
        const b = await holder();
        const [mine] = await a.propose({ symbol: 'VTI', side: 'buy', quantity: '1.1' });
        for (const [method, path] of [
          ['get', ''],
          ['post', '/approve'],
          ['post', '/reject'],
          ['post', '/cancel'],
        ] as const) {
          const missing = await server.api[method](`/v1/orders/${mine!.id}${path}`, { token: b.token });
          expect([missing.status, missing.body.detail], `${method} ${path}`).to.deep.equal([404, `There is no order ${mine!.id}.`]);
        }
        const history = (order: { events: { from: string | null; to: string }[] }) => order.events.map((e) => [e.from, e.to]);
        // One check failed, then two.
        const price = prices.quote('VTI', clock.now()).price;
        const [stale, wild, resting] = await a.propose(
          { symbol: 'VTI', side: 'buy', quantity: '1.2' },
          { symbol: 'VTI', side: 'buy', quantity: '1', order_type: 'limit', limit_price: price.times(1.5).toFixed(2) },
          { symbol: 'VTI', side: 'buy', quantity: '1.3', order_type: 'limit', limit_price: price.times(0.95).toFixed(2) },
        );
        prices.lagMs = 30 * 60_000;
        const one = await approve(a.token, stale!.id).finally(() => (prices.lagMs = 0));
        expect([one.status, one.body.detail]).to.deep.equal([422, 'The order was blocked: 1 check failed.']);
        expect(one.body.order).to.include({ id: stale!.id, status: 'blocked' });
        expect(history(one.body.order)).to.deep.equal([
          [null, 'proposed'],
          ['proposed', 'blocked'],
        ]);
        expect(one.body.order.events[1].reason).to.equal('risk.stale_price');
        // A limit far from the price, on a stale price: the collar and the price's age.
        prices.lagMs = 30 * 60_000;
        const two = await approve(a.token, wild!.id).finally(() => (prices.lagMs = 0));
        const checks = two.body.failed_checks.map((f: { check: string }) => f.check);
        expect(checks.length).to.be.at.least(2);
        expect(two.body.detail).to.equal(`The order was blocked: ${checks.length} checks failed.`);
        expect(two.body.order.events[1].reason).to.equal(checks.join(', '));
        const submitted = await approve(a.token, resting!.id);
        expect(submitted.body.status).to.equal('submitted');
        expect(history(submitted.body)).to.deep.equal([
          [null, 'proposed'],
          ['proposed', 'submitted'],
        ]);
        // The kill switch's refusal names its level and reason, and holds the switch as GET /v1/kill-switch shows it.
        await server.api.post('/v1/kill-switch', { token: a.token, json: { reason: 'going fishing' } });
        const refused = await approve(a.token, mine!.id);
        expect([refused.status, refused.body.detail]).to.deep.equal([
          409,
          'The account kill switch is engaged (going fishing); no order can be approved.',
        ]);
        expect(refused.body.kill_switch).to.deep.equal((await server.api.get('/v1/kill-switch', { token: a.token })).body);
        await release(server.database.db.kysely, a.accountId, 'operator', null, clock.now());
      },
    );

    it('lists proposed orders past their time as expired, not as proposed, before any write records it', async () => {
      const { token, propose } = await holder();
      const [old] = await propose({ symbol: 'VTI', side: 'buy', quantity: '1.4' });
      clock.advance(24 * 3600_000 + 1000);
      try {
        const ids = async (status: string) =>
          ((await server.api.get(`/v1/orders?status=${status}&limit=100`, { token })).body.data as { id: string }[]).map((o) => o.id);
        expect(await ids('proposed')).to.not.include(old!.id);
        expect(await ids('expired')).to.include(old!.id);
        const [fresh] = await propose({ symbol: 'BND', side: 'buy', quantity: '1.5' });
        expect(await ids('proposed')).to.include(fresh!.id);
        expect(await ids('expired')).to.not.include(fresh!.id);
      } finally {
        clock.set('2026-11-20T15:00:00Z');
      }
    });

    it('a proposed order expires when its time passes, and cannot be approved then', async () => {
      const { token, propose } = await holder();
      const [order] = await propose({ symbol: 'VTI', side: 'buy', quantity: '4' });
      clock.advance(24 * 3600_000 + 1000);
      try {
        const read = await server.api.get(`/v1/orders/${order!.id}`, { token });
        expect(read.body.status).to.equal('expired');
        expect(read.body.events.at(-1)).to.include({ from: 'proposed', to: 'expired', at: order!.expires_at });
        const late = await approve(token, order!.id);
        expect(late.status).to.equal(409);
        expect(late.body.current_state).to.equal('expired');
      } finally {
        clock.set('2026-11-20T15:00:00Z');
      }
    });
  });

  describe('policy check', () => {
    const cases: [string, PolicyOverrides, TradeSpec][] = [
      ['policy.symbol_allowed', { limits: { allowed_symbols: ['VTI', 'BND'] } }, { symbol: 'AAPL', side: 'buy', quantity: '1' }],
      ['policy.symbol_blocked', { limits: { blocked_symbols: ['AAPL'] } }, { symbol: 'AAPL', side: 'buy', quantity: '1' }],
      ['policy.max_order_notional', { limits: { max_order_notional: 1000 } }, { symbol: 'VTI', side: 'buy', quantity: '5' }],
      ['policy.max_position_weight', { limits: { max_position_weight: 0.05 } }, { symbol: 'VTI', side: 'buy', quantity: '20' }],
      ['policy.max_daily_notional', { limits: { max_daily_notional: 3000 } }, { symbol: 'VTI', side: 'buy', quantity: '11' }],
    ];
    for (const [check, policy, trade] of cases) {
      it(`blocks an order that fails ${check} and lets one within it fill`, async () => {
        const { token, propose } = await holder(policy);
        const [bad, good] = await propose(trade, { symbol: 'VTI', side: 'buy', quantity: '0.5' });
        const blocked = await approve(token, bad!.id);
        expectBlocked(blocked, check);
        const stored = await server.api.get(`/v1/orders/${bad!.id}`, { token });
        expect(stored.body.status).to.equal('blocked');
        expect(stored.body.events.at(-1).reason).to.include(check);
        expect((await approve(token, good!.id)).body.status).to.equal('filled');
      });
    }
  });

  describe('no policy', () => {
    it('blocks an order of an account that has no policy yet, saying to create one first', async () => {
      const account = await server.account(['read', 'trade']);
      const [order] = await propose(server, account, [{ symbol: 'VTI', side: 'buy', quantity: '1.6' }]);
      const refused = await approve(account.token, order!.id);
      expect(refused.status, JSON.stringify(refused.body)).to.equal(422);
      expect(refused.body.failed_checks[0]).to.deep.equal({
        check: 'policy.market',
        message: 'The account has no current policy; create one before approving orders.',
      });
      expect((await server.api.get(`/v1/orders/${order!.id}`, { token: account.token })).body.status).to.equal('blocked');
    });
  });

  describe('reading orders', () => {
    it('lists newest first with filters and cursor pagination', async () => {
      const { token, propose } = await holder();
      const orders = await propose(
        { symbol: 'VTI', side: 'buy', quantity: '1' },
        { symbol: 'BND', side: 'buy', quantity: '1' },
        { symbol: 'VTI', side: 'buy', quantity: '2' },
      );
      await server.api.post(`/v1/orders/${orders[0]!.id}/reject`, { token });
      const all = await server.api.get('/v1/orders?limit=2', { token });
      expect(all.body.data.map((o: any) => o.id)).to.deep.equal([orders[2]!.id, orders[1]!.id]);
      const rest = await server.api.get(`/v1/orders?limit=2&cursor=${all.body.next_cursor}`, { token });
      expect(rest.body.data.map((o: any) => o.id)).to.deep.equal([orders[0]!.id]);
      expect(rest.body.next_cursor).to.equal(null);
      expect((await server.api.get('/v1/orders?symbol=VTI', { token })).body.data).to.have.length(2);
      expect((await server.api.get('/v1/orders?status=rejected', { token })).body.data.map((o: any) => o.id)).to.deep.equal([
        orders[0]!.id,
      ]);
      expect((await server.api.get(`/v1/orders?idea_id=${orders[0]!.idea_id}`, { token })).body.data).to.have.length(3);
      expect((await server.api.get('/v1/orders?cursor=not-a-cursor', { token })).status).to.equal(400);
    });

    it('another account’s order is 404 to read and to every trigger', async () => {
      const owner = await holder();
      const [order] = await owner.propose({ symbol: 'VTI', side: 'buy', quantity: '1' });
      const stranger = await server.account(['read', 'trade']);
      expect((await server.api.get(`/v1/orders/${order!.id}`, { token: stranger.token })).status).to.equal(404);
      for (const trigger of ['approve', 'reject', 'cancel']) {
        expect((await server.api.post(`/v1/orders/${order!.id}/${trigger}`, { token: stranger.token })).status).to.equal(404);
      }
      expect((await server.api.get('/v1/orders', { token: stranger.token })).body.data).to.deep.equal([]);
      expect((await server.api.get(`/v1/orders/${order!.id}`, { token: owner.token })).body.status).to.equal('proposed');
    });

    it('needs the trade scope to decide and the read scope to look', async () => {
      const owner = await holder();
      const [order] = await owner.propose({ symbol: 'VTI', side: 'buy', quantity: '1' });
      const reader = await server.token(['read']);
      expect((await approve(reader, order!.id)).status).to.equal(403);
    });
  });

  describe('portfolio and brokers', () => {
    it('GET /v1/portfolio shows a funded paper account before any trade, and 422 for a market the broker does not trade', async () => {
      const token = await server.token(['read']);
      const portfolio = (await server.api.get('/v1/portfolio', { token })).body;
      expect(portfolio).to.include({
        market: 'US',
        currency: 'USD',
        cash: 100000,
        market_value: 0,
        total_value: 100000,
        as_of: clock.now().toISOString(),
      });
      const other = await server.api.get('/v1/portfolio?market=JP', { token });
      expect(other.status).to.equal(422);
      expect(other.body.supported_markets).to.deep.equal(['US']);
    });

    it('GET /v1/brokers lists the active paper broker and the others as not configured', async () => {
      const token = await server.token(['read']);
      const brokers = (await server.api.get('/v1/brokers', { token })).body.data;
      expect(brokers.find((b: any) => b.id === 'paper')).to.deep.include({ status: 'active', markets: ['US'] });
      expect(brokers.filter((b: any) => b.status === 'not_configured').map((b: any) => b.id)).to.include.members([
        'alpaca',
        'interactive_brokers',
      ]);
    });
  });
});
