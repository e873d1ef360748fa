import { expect } from 'chai';
import { until } from '../support/poll.js';
import { GLOBAL_SCOPE, engage, release } from '../../src/services/kill-switch.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { AdjustablePrices } from '../support/prices.js';
import { createPolicy, manualClock, propose, type PolicyOverrides, type TradeSpec } from '../support/trading.js';

describe('orders: the state machine, the policy check, the risk gate and the kill switch', () => {
  let server: TestServer;
  const clock = manualClock('2026-11-20T15:00:00Z');
  const prices = new AdjustablePrices();

  before(async () => {
    // The clock and the prices start over with each run of the suite (a mutation run runs it many times in one process).
    clock.set('2026-11-20T15:00:00Z');
    prices.reset();
    server = await startTestServer({}, { clock, prices });
  });
  after(() => server.close());

  /** A new account holding a policy, and one proposed order per trade. */
  async function holder(policy: PolicyOverrides = {}) {
    const account = await server.account(['read', 'trade', 'write']);
    await createPolicy(server, account.token, policy);
    return { ...account, propose: (...trades: TradeSpec[]) => propose(server, account, trades) };
  }

  const approve = (token: string, id: string) => server.api.post(`/v1/orders/${id}/approve`, { token });

  function expectBlocked(response: { status: number; body: any }, check: string) {
    expect(response.status, JSON.stringify(response.body)).to.equal(422);
    expect(response.body.type).to.equal(`${server.url}/problems/checks-failed`);
    expect(response.body.failed_checks.map((f: { check: string }) => f.check)).to.include(check);
    for (const failed of response.body.failed_checks) expect(failed.message).to.be.a('string').and.not.empty;
  }

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

    it('answers say what happened: a 404 names the order, a block counts its checks and shows the order blocked, a resting limit order shows its submission, a kill switch its reason', async () => {
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
    });

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

  describe('risk gate', () => {
    it('blocks a buy beyond the cash (risk.buying_power) and a sell beyond the position (risk.position)', async () => {
      const { token, propose } = await holder({
        limits: { max_order_notional: 10_000_000, max_daily_notional: 10_000_000, max_position_weight: 1 },
      });
      const [tooBig, shortSale] = await propose(
        { symbol: 'VTI', side: 'buy', quantity: '1000' },
        { symbol: 'BND', side: 'sell', quantity: '1' },
      );
      expectBlocked(await approve(token, tooBig!.id), 'risk.buying_power');
      expectBlocked(await approve(token, shortSale!.id), 'risk.position');
    });

    it('blocks a limit far from the last price (risk.price_collar) and an absurd quantity (risk.max_quantity)', async () => {
      const { token, propose } = await holder({ limits: { max_order_notional: 1e12, max_daily_notional: 1e12, max_position_weight: 1 } });
      const price = prices.quote('VTI', clock.now()).price;
      const [collar, huge] = await propose(
        { symbol: 'VTI', side: 'buy', quantity: '1', order_type: 'limit', limit_price: price.times(1.5).toFixed(2) },
        { symbol: 'VTI', side: 'buy', quantity: '2000000' },
      );
      expectBlocked(await approve(token, collar!.id), 'risk.price_collar');
      expectBlocked(await approve(token, huge!.id), 'risk.max_quantity');
    });

    it('blocks the same order of another idea submitted within a minute (risk.duplicate_order), not after', async () => {
      const { token, propose } = await holder();
      const bnd = { symbol: 'BND', side: 'buy', quantity: '7' } as const;
      const [first] = await propose(bnd);
      const [second] = await propose(bnd);
      const [third] = await propose(bnd);
      expect((await approve(token, first!.id)).body.status).to.equal('filled');
      expectBlocked(await approve(token, second!.id), 'risk.duplicate_order');
      clock.advance(61_000);
      try {
        expect((await approve(token, third!.id)).body.status).to.equal('filled');
      } finally {
        clock.set('2026-11-20T15:00:00Z');
      }
    });

    it('does not count as duplicates the equal parts an idea split an order into, nor a cancelled twin', async () => {
      const { token, propose } = await holder();
      const vti = { symbol: 'VTI', side: 'buy', quantity: '3' } as const;
      const [part1, part2] = await propose(vti, vti);
      expect((await approve(token, part1!.id)).body.status).to.equal('filled');
      expect((await approve(token, part2!.id)).body.status).to.equal('filled');

      const price = prices.quote('BND', clock.now()).price;
      const [resting] = await propose({
        symbol: 'BND',
        side: 'buy',
        quantity: '5',
        order_type: 'limit',
        limit_price: price.times(0.95).toFixed(2),
      });
      expect((await approve(token, resting!.id)).body.status).to.equal('submitted');
      expect((await server.api.post(`/v1/orders/${resting!.id}/cancel`, { token })).body.status).to.equal('cancelled');
      const [again] = await propose({
        symbol: 'BND',
        side: 'buy',
        quantity: '5',
        order_type: 'limit',
        limit_price: price.times(0.97).toFixed(2),
      });
      expect((await approve(token, again!.id)).body.status).to.equal('submitted');
    });

    it('blocks an order whose price is stale (risk.stale_price)', async () => {
      const { token, propose } = await holder();
      const [order] = await propose({ symbol: 'VTI', side: 'buy', quantity: '1.25' });
      prices.lagMs = 30 * 60_000;
      try {
        expectBlocked(await approve(token, order!.id), 'risk.stale_price');
      } finally {
        prices.lagMs = 0;
      }
    });
  });

  describe('kill switch', () => {
    it('POST /v1/kill-switch engages the account switch: approvals answer 409 and leave the order proposed', async () => {
      const { token, clientId, accountId, propose } = await holder();
      const [order] = await propose({ symbol: 'VTI', side: 'buy', quantity: '1.5' });
      expect((await server.api.get('/v1/kill-switch', { token })).body).to.include({ engaged: false, level: null });
      const engaged = await server.api.post('/v1/kill-switch', { token, json: { reason: 'going on holiday' } });
      expect(engaged.body).to.include({ engaged: true, level: 'account', reason: 'going on holiday', engaged_by: clientId });
      const again = await server.api.post('/v1/kill-switch', { token, json: { reason: 'twice' } });
      expect(again.body.reason).to.equal('going on holiday');
      const refused = await approve(token, order!.id);
      expect(refused.status).to.equal(409);
      expect(refused.body.type).to.equal(`${server.url}/problems/kill-switch-engaged`);
      expect((await server.api.get(`/v1/orders/${order!.id}`, { token })).body.status).to.equal('proposed');
      await release(server.database.db.kysely, accountId, 'operator', 'back', clock.now());
      expect((await approve(token, order!.id)).body.status).to.equal('filled');
    });

    it('the global switch stops every account until the operator releases it, and wins over the account’s own', async () => {
      const { token, accountId, propose } = await holder();
      const [order] = await propose({ symbol: 'VTI', side: 'buy', quantity: '1.75' });
      // The account's own switch first, then the global one: while both are engaged the account sees the global one.
      expect((await server.api.post('/v1/kill-switch', { token, json: { reason: 'my own' } })).body).to.include({ level: 'account' });
      await engage(server.database.db.kysely, GLOBAL_SCOPE, 'operator', 'market halt', clock.now());
      try {
        expect((await server.api.get('/v1/kill-switch', { token })).body).to.include({
          engaged: true,
          level: 'global',
          engaged_by: 'operator',
          reason: 'market halt',
        });
        expect((await approve(token, order!.id)).status).to.equal(409);
      } finally {
        await release(server.database.db.kysely, GLOBAL_SCOPE, 'operator', null, clock.now());
      }
      expect((await server.api.get('/v1/kill-switch', { token })).body).to.include({ engaged: true, level: 'account', reason: 'my own' });
      await release(server.database.db.kysely, accountId, 'operator', null, clock.now());
      expect((await approve(token, order!.id)).body.status).to.equal('filled');
    });

    it('each change of a switch is one event per account it concerns, holding the switch then in force; engaging an engaged switch or releasing a released one changes nothing', async () => {
      const { db } = server.database;
      const a = await holder();
      const b = await holder();
      /**
       * The account's kill_switch.* events in the feed, oldest first: [type, data], once it lists at least `count`. The
       * feed lists an event only when no transaction that began before it is still running, in any database of the
       * server (its cursor never skips one), so a test process running beside this one can hold it back a moment.
       */
      const feed = (token: string, count: number) =>
        until(`${count} kill_switch events in the feed`, async () => {
          const events = ((await server.api.get('/v1/events?limit=100', { token })).body.data as { type: string; data: any }[])
            .filter((e) => e.type.startsWith('kill_switch.'))
            .map((e) => [e.type, e.data]);
          return events.length >= count ? events : undefined;
        });
      const off = { engaged: false, reason: null, engaged_at: null, engaged_by: null, level: null };
      const own = (await server.api.post('/v1/kill-switch', { token: a.token, json: { reason: 'a own' } })).body;
      expect(own).to.include({ engaged: true, level: 'account', reason: 'a own' });
      expect((await server.api.post('/v1/kill-switch', { token: a.token, json: { reason: 'again' } })).body).to.deep.equal(own);
      expect(await feed(a.token, 1)).to.deep.equal([['kill_switch.engaged', own]]);
      expect(await feed(b.token, 0)).to.deep.equal([]);
      // Over 1,000 accounts (the events are written 1,000 at a time): the global switch is one event for each. On
      // PostgreSQL only: the embedded database takes ten seconds to write them, and the chunks are the same code there.
      if (server.database.url)
        await db.kysely
          .insertInto('accounts')
          .values(
            Array.from({ length: 1001 }, (_, i) => ({
              id: `acct_chunk${String(i).padStart(5, '0')}`,
              email: `chunk${i}@example.com`,
              name: `Chunk ${i}`,
            })),
          )
          .execute();
      const halt = new Date(clock.now().getTime() + 1000);
      expect(await engage(db.kysely, GLOBAL_SCOPE, 'operator', 'market halt', halt)).to.equal(true);
      try {
        const global = { engaged: true, reason: 'market halt', engaged_at: halt.toISOString(), engaged_by: 'operator', level: 'global' };
        expect(await engage(db.kysely, GLOBAL_SCOPE, 'operator', 'twice', halt)).to.equal(false);
        expect(await feed(a.token, 2)).to.deep.equal([
          ['kill_switch.engaged', own],
          ['kill_switch.engaged', global],
        ]);
        expect(await feed(b.token, 1)).to.deep.equal([['kill_switch.engaged', global]]);
        const accounts = await db.kysely
          .selectFrom('accounts')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow();
        const events = await db.kysely
          .selectFrom('events')
          .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.count<number>('account_id').distinct().as('accounts')])
          .where('type', '=', 'kill_switch.engaged')
          .where('created_at', '=', halt)
          .executeTakeFirstOrThrow();
        expect([Number(events.n), Number(events.accounts)]).to.deep.equal([Number(accounts.n), Number(accounts.n)]);
        // An account's own switch engaged under the global one: its event shows the global one, in force.
        expect((await server.api.post('/v1/kill-switch', { token: b.token, json: { reason: 'b own' } })).body).to.deep.equal(global);
        expect((await feed(b.token, 2)).slice(1)).to.deep.equal([['kill_switch.engaged', global]]);
      } finally {
        expect(await release(db.kysely, GLOBAL_SCOPE, 'operator', null, halt)).to.equal(true);
      }
      expect(await release(db.kysely, GLOBAL_SCOPE, 'operator', null, halt)).to.equal(false);
      const bOwn = (await server.api.get('/v1/kill-switch', { token: b.token })).body;
      expect(bOwn).to.include({ level: 'account', reason: 'b own' });
      // Released, the global switch leaves each account its own switch, or none.
      expect((await feed(a.token, 3)).slice(2)).to.deep.equal([['kill_switch.released', own]]);
      expect((await feed(b.token, 3)).slice(2)).to.deep.equal([['kill_switch.released', bOwn]]);
      expect(await release(db.kysely, a.accountId, 'operator', null, halt)).to.equal(true);
      expect(await release(db.kysely, a.accountId, 'operator', null, halt)).to.equal(false);
      expect((await feed(a.token, 4)).slice(3)).to.deep.equal([['kill_switch.released', off]]);
      // Engaged again after a release: engaged, with the new reason.
      expect((await server.api.post('/v1/kill-switch', { token: a.token, json: { reason: 'a again' } })).body).to.include({
        engaged: true,
        level: 'account',
        reason: 'a again',
      });
      await release(db.kysely, a.accountId, 'operator', null, halt);
      await release(db.kysely, b.accountId, 'operator', null, halt);
    });

    it('with the global switch engaged, a loss reaching the limit still engages the account’s own switch; the refusal shows the global one', async () => {
      const { token, accountId, propose } = await holder({
        limits: { max_daily_loss: 1000, max_position_weight: 1, max_order_notional: 100000 },
      });
      const [big, next] = await propose({ symbol: 'QQQ', side: 'buy', quantity: '51' }, { symbol: 'BND', side: 'buy', quantity: '1.1' });
      expect((await approve(token, big!.id)).body.status).to.equal('filled');
      prices.scale('QQQ', 0.9);
      await engage(server.database.db.kysely, GLOBAL_SCOPE, 'operator', 'market halt', clock.now());
      try {
        const refused = await approve(token, next!.id);
        expect(refused.status).to.equal(409);
        expect(refused.body.kill_switch).to.include({ level: 'global', reason: 'market halt' });
      } finally {
        prices.scale('QQQ', 1);
        await release(server.database.db.kysely, GLOBAL_SCOPE, 'operator', null, clock.now());
      }
      const own = (await server.api.get('/v1/kill-switch', { token })).body;
      expect(own).to.include({ engaged: true, level: 'account', engaged_by: 'system' });
      expect(own.reason).to.match(/^Daily loss .* reached the policy's limit of 1000\.00\.$/);
      await release(server.database.db.kysely, accountId, 'operator', null, clock.now());
    });

    it('engages itself when the day’s loss reaches the policy’s limit', async () => {
      const { token, propose } = await holder({ limits: { max_daily_loss: 1000, max_position_weight: 1, max_order_notional: 100000 } });
      const [big, next] = await propose({ symbol: 'QQQ', side: 'buy', quantity: '50' }, { symbol: 'BND', side: 'buy', quantity: '1' });
      expect((await approve(token, big!.id)).body.status).to.equal('filled');
      prices.scale('QQQ', 0.9);
      try {
        const refused = await approve(token, next!.id);
        expect(refused.status).to.equal(409);
        expect(refused.body.type).to.equal(`${server.url}/problems/kill-switch-engaged`);
        const state = (await server.api.get('/v1/kill-switch', { token })).body;
        expect(state).to.include({ engaged: true, level: 'account', engaged_by: 'system' });
        expect(state.reason).to.match(/Daily loss/);
        // The refusal holds the switch it engaged, as GET shows it.
        expect(refused.body.kill_switch).to.deep.equal(state);
      } finally {
        prices.scale('QQQ', 1);
      }
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
