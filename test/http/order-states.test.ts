import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/server.js';
import { ALPACA_PARTIAL_FILLS, recordAtBroker } from '../support/broker-steps.js';
import { FixedPrices } from '../support/prices.js';
import { createPolicy, manualClock, propose, type PolicyOverrides, type TradeSpec } from '../support/trading.js';

/**
 * The order state machine, every state × every trigger, and the amounts a fill moves, in whole cents worked out by
 * hand from prices the test sets (FixedPrices): nothing here is computed by the code under test. Runs on PostgreSQL
 * and on the embedded database (make test-embedded).
 */
describe('orders: every state × trigger, and the cents a fill moves', () => {
  let server: TestServer;
  const start = '2026-11-20T15:00:00Z';
  const clock = manualClock(start);
  const prices = new FixedPrices();
  prices.set('VTI', '200.00');
  prices.set('BND', '10.01');
  prices.set('QQQ', '10.05');
  prices.set('AAPL', '10.00');

  before(async () => {
    clock.set(start); // each run of the suite starts at the same instant (a mutation run runs it many times in one process)
    server = await startTestServer({}, { clock, prices });
  });
  after(() => server.close());

  async function holder(policy: PolicyOverrides = {}) {
    const account = await server.account(['read', 'trade', 'write']);
    await createPolicy(server, account.token, policy);
    return { ...account, propose: (...trades: TradeSpec[]) => propose(server, account, trades) };
  }
  const trigger = (token: string, id: string, name: string) => server.api.post(`/v1/orders/${id}/${name}`, { token });
  const cash = async (token: string) => (await server.api.get('/v1/portfolio?market=US', { token })).body.cash as number;

  describe('state × trigger', () => {
    type State = 'proposed' | 'submitted' | 'partially_filled' | 'filled' | 'rejected' | 'cancelled' | 'blocked' | 'expired';
    /**
     * What each trigger does in each state: the state it reaches, or null for 409 invalid-state. Cancelling a
     * partially filled order goes to its broker and ends `cancelled` when the broker confirms: the broker flow's tests
     * hold that one (the paper broker never fills in part).
     */
    const table: Record<State, Partial<Record<'approve' | 'reject' | 'cancel', State | null>>> = {
      proposed: { approve: 'filled', reject: 'rejected', cancel: 'cancelled' },
      submitted: { approve: null, reject: null, cancel: 'cancelled' },
      partially_filled: { approve: null, reject: null },
      filled: { approve: null, reject: null, cancel: null },
      rejected: { approve: null, reject: null, cancel: null },
      cancelled: { approve: null, reject: null, cancel: null },
      blocked: { approve: null, reject: null, cancel: null },
      expired: { approve: null, reject: null, cancel: null },
    };
    const allowed: Record<State, string[]> = {
      proposed: ['approve', 'reject', 'cancel'],
      submitted: ['cancel'],
      partially_filled: ['cancel'],
      filled: [],
      rejected: [],
      cancelled: [],
      blocked: [],
      expired: [],
    };
    let quantity = 0;

    /** A new order of the account brought into `state` through the API (each a quantity of its own: no duplicates). */
    async function orderIn(account: Awaited<ReturnType<typeof holder>>, state: State): Promise<string> {
      const q = String(1 + ++quantity / 100);
      const trade: TradeSpec =
        state === 'submitted'
          ? { symbol: 'VTI', side: 'buy', quantity: q, order_type: 'limit', limit_price: '190.00' }
          : state === 'blocked'
            ? { symbol: 'VTI', side: 'buy', quantity: String(300 + quantity / 100) } // over 300 × 200.00: above the policy's 50 000
            : { symbol: 'VTI', side: 'buy', quantity: q };
      const [order] = await account.propose(trade);
      const id = order!.id;
      const move = {
        proposed: null,
        partially_filled: null,
        expired: null,
        submitted: 'approve',
        filled: 'approve',
        blocked: 'approve',
        rejected: 'reject',
        cancelled: 'cancel',
      }[state];
      const moved = move ? await trigger(account.token, id, move) : undefined;
      if (state === 'expired') clock.advance(24 * 3600_000 + 1000);
      if (state === 'partially_filled') await recordAtBroker(server, id, ALPACA_PARTIAL_FILLS(clock.now(), `b-${id}`));
      const read = await server.api.get(`/v1/orders/${id}`, { token: account.token });
      expect(read.body.status, `set-up of a ${state} order`).to.equal(state);
      // A blocked order keeps the checks that failed, as its 422 listed them.
      if (state === 'blocked') expect(read.body.failed_checks).to.deep.equal(moved!.body.failed_checks).and.to.have.length.above(0);
      return id;
    }

    for (const state of Object.keys(table) as State[]) {
      it(`${state}: ${Object.entries(table[state])
        .map(([t, to]) => `${t} → ${to ?? '409'}`)
        .join(', ')}`, async () => {
        const account = await holder();
        try {
          for (const name of Object.keys(table[state]) as (keyof (typeof table)[State])[]) {
            const id = await orderIn(account, state);
            const before = await server.api.get(`/v1/orders/${id}`, { token: account.token });
            const cashBefore = await cash(account.token);
            const answer = await trigger(account.token, id, name);
            const after = await server.api.get(`/v1/orders/${id}`, { token: account.token });
            const to = table[state][name]!;
            if (to === null) {
              expect(answer.status, `${name} on ${state}: ${answer.text}`).to.equal(409);
              expect(answer.body).to.include({ type: `${server.url}/problems/invalid-state`, current_state: state });
              expect(answer.body.allowed_triggers).to.deep.equal(allowed[state]);
              // The detail says what is allowed instead, or that the state is final (no state with two or more
              // allowed triggers refuses one: only `proposed` has several, and it refuses none).
              expect(answer.body.detail).to.equal(
                `The order is ${state}; ${name} is not allowed${allowed[state].length ? ' (allowed: cancel)' : ' (it is final)'}.`,
              );
              expect(after.body, `${name} on ${state} changed nothing`).to.deep.equal(before.body);
              expect(await cash(account.token), `${name} on ${state} moved no cash`).to.equal(cashBefore);
            } else {
              expect(answer.status, `${name} on ${state}: ${answer.text}`).to.equal(200);
              expect(after.body.status).to.equal(to);
              type Event = { from: string; to: string; reason: string | null; client_id: string | null; actor: unknown };
              const steps = (events: Event[]) => events.map((e) => [e.from, e.to, e.reason, e.client_id]);
              const added = steps(after.body.events.slice(before.body.events.length));
              const by = account.clientId;
              expect(added).to.deep.equal(
                to === 'filled'
                  ? [
                      [state, 'submitted', 'approved', by],
                      ['submitted', 'filled', 'filled by the paper broker at 200.00', null],
                    ]
                  : [[state, to, null, by]],
              );
              // One outbox event per step, each holding the order's events up to that step.
              const published = (
                await server.database.db.kysely
                  .selectFrom('events')
                  .select(['type', 'data'])
                  .where('account_id', '=', account.accountId)
                  .orderBy('tx')
                  .orderBy('seq')
                  .execute()
              )
                .map((e) => ({
                  type: e.type,
                  data: (typeof e.data === 'string' ? JSON.parse(e.data) : e.data) as {
                    id: string;
                    status: string;
                    fill_price: unknown;
                    events: Event[];
                  },
                }))
                .filter((e) => e.data.id === id)
                .slice(-added.length);
              expect(published.map((e) => [e.type, steps(e.data.events)])).to.deep.equal(
                added.map((_, i) => [`order.${added[i]![1]}`, steps(after.body.events.slice(0, before.body.events.length + i + 1))]),
              );
              // …naming who acted as GET names them: the client by its name, a fill by the service.
              const actors = (events: Event[]) => events.map((e) => e.actor);
              expect(published.map((e) => actors(e.data.events))).to.deep.equal(
                added.map((_, i) => actors(after.body.events.slice(0, before.body.events.length + i + 1))),
              );
              // Each step's event holds the order as it stood then: the last as GET answers it (a fill's price included),
              // an earlier one without the fill.
              expect(published.map((e) => [e.data.status, e.data.fill_price])).to.deep.equal(
                added.map((step, i) => [step[1], i === added.length - 1 ? after.body.fill_price : null]),
              );
              // A fill at 200.00 of q shares costs exactly q × 200.00; nothing else moves cash.
              const cost = to === 'filled' ? Math.round(Number(before.body.quantity) * 200 * 100) : 0;
              expect(Math.round((cashBefore - (await cash(account.token))) * 100), `${name} on ${state}: cents paid`).to.equal(cost);
            }
          }
        } finally {
          clock.set(start);
        }
      });
    }
  });

  describe('expiry', () => {
    it('a proposed order is proposed until the millisecond before expires_at and expired from expires_at on', async () => {
      const { token, propose } = await holder();
      const [order] = await propose({ symbol: 'VTI', side: 'buy', quantity: '1' });
      const status = async () => (await server.api.get(`/v1/orders/${order!.id}`, { token })).body.status as string;
      try {
        clock.set(new Date(Date.parse(order!.expires_at) - 1).toISOString());
        expect(await status(), 'a millisecond before').to.equal('proposed');
        clock.set(order!.expires_at);
        expect(await status(), 'at expires_at').to.equal('expired');
        expect((await trigger(token, order!.id, 'approve')).status, 'approving it').to.equal(409);
      } finally {
        clock.set(start);
      }
    });
  });

  describe('money: half-even to the cent, once, at the fill', () => {
    it('rounds an exact half cent to the even cent (5.005 → 5.00, 5.025 → 5.02, 15.015 → 15.02) and moves exactly that cash', async () => {
      const { token, propose } = await holder({ limits: { max_position_weight: 1 } });
      // 0.5 × 10.01 = 5.005 → 5.00 (half-up would say 5.01); 0.5 × 10.05 = 5.025 → 5.02 (half-up: 5.03);
      // 1.5 × 10.01 = 15.015 → 15.02 (either way: the check that the even cent is not always the lower one).
      const [a, b, c] = await propose(
        { symbol: 'BND', side: 'buy', quantity: '0.5' },
        { symbol: 'QQQ', side: 'buy', quantity: '0.5' },
        { symbol: 'BND', side: 'buy', quantity: '1.5' },
      );
      expect(await cash(token)).to.equal(100000);
      expect((await trigger(token, a!.id, 'approve')).body.status).to.equal('filled');
      expect(await cash(token)).to.equal(99995.0);
      expect((await trigger(token, b!.id, 'approve')).body.status).to.equal('filled');
      expect(await cash(token)).to.equal(99989.98);
      expect((await trigger(token, c!.id, 'approve')).body.status).to.equal('filled');
      expect(await cash(token)).to.equal(99974.96);
      // A sell credits the same rounding: 0.5 × 10.05 = 5.025 → 5.02.
      const [sell] = await propose({ symbol: 'QQQ', side: 'sell', quantity: '0.5' });
      expect((await trigger(token, sell!.id, 'approve')).body.status).to.equal('filled');
      expect(await cash(token)).to.equal(99979.98);
      const portfolio = (await server.api.get('/v1/portfolio?market=US', { token })).body;
      expect(
        portfolio.holdings.map((h: { symbol: string; quantity: number; average_cost: number }) => [h.symbol, h.quantity, h.average_cost]),
      ).to.deep.equal([['BND', 2, 10.01]]);
    });
  });

  describe('risk gate: the system notional cap', () => {
    it('lets 10 000 000.00 through the cap and blocks 10 000 000.01 (risk.max_quantity), within the share limit both', async () => {
      const { token, propose } = await holder({ limits: { max_order_notional: 1e12, max_daily_notional: 1e12, max_position_weight: 1 } });
      // 1 000 000 × 10.00 = 10 000 000.00 (at the cap); 999 001 × 10.01 = 10 000 000.01 (one cent over).
      const [at, over] = await propose(
        { symbol: 'AAPL', side: 'buy', quantity: '1000000' },
        { symbol: 'BND', side: 'buy', quantity: '999001' },
      );
      const atCap = await trigger(token, at!.id, 'approve');
      expect(atCap.status).to.equal(422);
      // Both are far beyond the account's cash and its value; only the second is beyond the system cap.
      expect(atCap.body.failed_checks.map((f: { check: string }) => f.check)).to.deep.equal([
        'policy.max_position_weight',
        'risk.buying_power',
      ]);
      const overCap = await trigger(token, over!.id, 'approve');
      expect(overCap.status).to.equal(422);
      expect(overCap.body.failed_checks.map((f: { check: string }) => f.check)).to.deep.equal([
        'policy.max_position_weight',
        'risk.buying_power',
        'risk.max_quantity',
      ]);
      expect(overCap.body.failed_checks.at(-1).message).to.equal('Orders are limited to 1000000 shares and 10000000.00 notional.');
    });
  });
});
