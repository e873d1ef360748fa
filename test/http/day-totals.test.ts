import { expect } from 'chai';
import * as accountDays from '../../db/migrations/20261126T1700-account-days.js';
import { sql } from 'kysely';
import { dayOf, startOfUtcDay, valueAtDayStart, valueBefore, type DayTotals } from '../../src/services/ledger.js';
import { dec } from '../../src/services/money.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { createPolicy, manualClock, propose } from '../support/trading.js';

const LOOSE = { max_order_notional: 1e9, max_position_weight: 1, max_daily_notional: 1e11, max_daily_loss: 1e9 };

describe('the day’s running totals an approval reads (account_days)', () => {
  let server: TestServer;
  // A day's first instant is part of it for the notional traded, but its holdings are the start-of-day ones.
  const clock = manualClock('2026-11-20T00:00:00Z');

  before(async () => {
    clock.set('2026-11-20T00:00:00Z'); // each run of the suite starts at the same instant (a mutation run runs it many times in one process)
    server = await startTestServer({}, { clock });
  });
  after(() => server.close());

  it('equal the sum of the day’s fills after a run of approvals, and value the start of the day as the fills do', async () => {
    const account = await server.account(['read', 'trade']);
    await createPolicy(server, account.token, { limits: LOOSE });
    const db = server.database.db.kysely;
    const trades = [
      { symbol: 'VTI', side: 'buy', quantity: '3.25' },
      { symbol: 'BND', side: 'buy', quantity: '10' },
      { symbol: 'QQQ', side: 'buy', quantity: '1.5' },
      { symbol: 'VTI', side: 'sell', quantity: '1.125' },
      { symbol: 'QQQ', side: 'sell', quantity: '1.5' },
      { symbol: 'BND', side: 'buy', quantity: '2.000001' },
    ] as const;
    for (const [i, trade] of trades.entries()) {
      const [order] = await propose(server, account, [trade]);
      const approved = await server.api.post(`/v1/orders/${order!.id}/approve`, { token: account.token });
      expect(approved.body.status, JSON.stringify(approved.body)).to.equal('filled');
      if (i === 0)
        clock.advance(60_000); // the first fill at the day's first instant, the rest after it
      else clock.advance(1_000 + i);
    }
    const dayStart = startOfUtcDay(clock.now());
    const fills = await db
      .selectFrom('fills')
      .selectAll()
      .where('account_id', '=', account.accountId)
      .where('at', '>=', dayStart)
      .orderBy('id')
      .execute();
    expect(fills).to.have.length(trades.length);
    const row = await db
      .selectFrom('account_days')
      .selectAll()
      .where('account_id', '=', account.accountId)
      .where('day', '=', dayOf(dayStart))
      .executeTakeFirstOrThrow();
    const sum = fills.reduce((total, f) => total.plus(f.notional), dec(0));
    expect(dec(row.traded_notional).toFixed()).to.equal(sum.toFixed());
    const later = fills.filter((f) => new Date(f.at) > dayStart);
    expect(later).to.have.length(trades.length - 1);
    const cashDelta = later.reduce((total, f) => total.plus(f.side === 'buy' ? dec(f.notional).negated() : dec(f.notional)), dec(0));
    expect(dec(row.cash_delta).toFixed()).to.equal(cashDelta.toFixed());
    expect(Object.fromEntries(Object.entries(row.quantity_deltas).map(([symbol, q]) => [symbol, dec(q).toFixed()]))).to.deep.equal({
      VTI: '-1.125',
      BND: '12.000001',
      QQQ: '0',
    });
    // The start-of-day value from the row is the one the fills themselves give.
    const paper = await db.selectFrom('paper_accounts').selectAll().where('account_id', '=', account.accountId).executeTakeFirstOrThrow();
    const positions = (await db.selectFrom('positions').selectAll().where('account_id', '=', account.accountId).execute()).map((p) => ({
      symbol: p.symbol,
      quantity: dec(p.quantity),
      average_cost: dec(p.average_cost),
      updated_at: new Date(p.updated_at),
    }));
    const today: DayTotals = {
      traded: dec(row.traded_notional),
      cashDelta: dec(row.cash_delta),
      quantityDeltas: new Map(Object.entries(row.quantity_deltas).map(([s, q]) => [s, dec(q)])),
    };
    const { prices } = server.context;
    const fromRow = valueAtDayStart(prices, dec(paper.cash), positions, today, dayStart);
    const fromFills = valueBefore(
      prices,
      dec(paper.cash),
      positions,
      fills.map((f) => ({ ...f, quantity: String(f.quantity), notional: String(f.notional) })),
      dayStart,
    );
    expect(fromRow.total.toFixed()).to.equal(fromFills.total.toFixed());
    expect(fromRow.total.toFixed()).to.not.equal(dec(paper.cash).toFixed());
  });

  it('are filled in by the migration from the fills already stored that day', async () => {
    // Fills of today (the database's clock), made on a server of its own with the system clock.
    const today = await startTestServer();
    try {
      const account = await today.account(['read', 'trade']);
      await createPolicy(today, account.token, { limits: LOOSE });
      for (const trade of [
        { symbol: 'VTI', side: 'buy', quantity: '2' },
        { symbol: 'VTI', side: 'sell', quantity: '0.5' },
        { symbol: 'BND', side: 'buy', quantity: '4.25' },
      ] as const) {
        const [order] = await propose(today, account, [trade]);
        expect((await today.api.post(`/v1/orders/${order!.id}/approve`, { token: account.token })).body.status).to.equal('filled');
      }
      const db = today.database.db.kysely;
      const read = () =>
        db
          .selectFrom('account_days')
          .select([
            'account_id',
            'day',
            sql<string>`traded_notional::text`.as('traded'),
            sql<string>`cash_delta::text`.as('cash'),
            'quantity_deltas',
          ])
          .orderBy('account_id')
          .execute();
      const running = await read();
      expect(running).to.have.length(1);
      await db.schema.dropTable('account_days').execute();
      await accountDays.up(db as never);
      const migrated = await read();
      const normalised = (rows: typeof running) =>
        rows.map((r) => ({
          ...r,
          traded: dec(r.traded).toFixed(),
          cash: dec(r.cash).toFixed(),
          quantity_deltas: Object.fromEntries(Object.entries(r.quantity_deltas).map(([k, v]) => [k, dec(v).toFixed()])),
        }));
      expect(normalised(migrated)).to.deep.equal(normalised(running));
    } finally {
      await today.close();
    }
  });
});
