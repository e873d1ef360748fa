import { expect } from 'chai';
import { until } from '../support/poll.js';
import { GLOBAL_SCOPE, engage, release } from '../../src/services/kill-switch.js';
import type { TestServer } from '../support/server.js';
import { ordersSuite } from '../support/trading.js';

describe('orders: the risk gate and the kill switch', () => {
  const suite = ordersSuite('2026-11-20T15:00:00Z');
  const { clock, prices, holder, approve, expectBlocked } = suite;
  let server: TestServer;
  before(() => (server = suite.server()));

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

    it(
      'each change of a switch is one event per account it concerns, holding the switch then in force; ' +
        'engaging an engaged switch or releasing a released one changes nothing',
      async () => {
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
      },
    );

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
});
