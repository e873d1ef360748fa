// What a broker's word about an order books here (progressOf), how long a submit waits before its next try
// (backoffMs), and how the books mirror the broker and say where they differed (mirrorBooks), in worked-out figures.
import { expect } from 'chai';
import type { BrokerAccount, BrokerOrder, BrokerOrderStatus, BrokerPosition } from '../../src/brokers/port.js';
import { mirrorBooks } from '../../src/services/brokerage/mirror.js';
import { progressOf, type BookedOrder, type Progress } from '../../src/services/brokerage/progress.js';
import { backoffMs } from '../../src/services/brokerage/sender.js';
import { dec } from '../../src/services/money.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

/** An order of 10 shares as stored: `status`, with `filled` booked at `price` so far. */
const booked = (status: string, filled = '0', price: string | null = null, quantity = '10'): BookedOrder => ({
  status,
  quantity,
  filled_quantity: filled,
  fill_price: price,
});

/** The broker's order: its status, the cumulative quantity filled and their average price. */
const broker = (status: BrokerOrderStatus, filled: string, average: string | null, brokerStatus: string = status): BrokerOrder => ({
  brokerOrderId: 'b-1',
  clientOrderId: 'ord_1',
  symbol: 'VTI',
  side: 'buy',
  quantity: dec('10'),
  status,
  brokerStatus,
  filledQuantity: dec(filled),
  averageFillPrice: average === null ? null : dec(average),
  submittedAt: null,
  filledAt: null,
  updatedAt: new Date('2026-12-01T15:00:00Z'),
});

/** A progress in strings: the state, the execution, the cumulative figures and the reason. */
const plain = (p: Progress) => ({
  to: p.to,
  execution: p.execution && [p.execution.quantity.toFixed(), p.execution.price.toFixed()],
  filled: p.filledQuantity.toFixed(),
  average: p.averagePrice?.toFixed() ?? null,
  reason: p.reason,
});

describe("progressOf: what the broker's word about an order books", () => {
  const progress = (b: BookedOrder, o: BrokerOrder) => plain(progressOf(b, o, 'Alpaca'));

  it('books a first partial fill: 3 of 10 at 190.00', () => {
    expect(progress(booked('submitted'), broker('partially_filled', '3', '190'))).to.deep.equal({
      to: 'partially_filled',
      execution: ['3', '190'],
      filled: '3',
      average: '190',
      reason: 'partially filled by Alpaca: 3 at 190.00',
    });
  });

  it('books only what the cumulative figures add, at the price that makes the stated average: 3 at 190, then 5 at 190.40 is 2 at 191', () => {
    expect(progress(booked('partially_filled', '3', '190'), broker('partially_filled', '5', '190.4'))).to.deep.equal({
      to: 'partially_filled',
      execution: ['2', '191'],
      filled: '5',
      average: '190.4',
      reason: 'partially filled by Alpaca: 2 at 191.00',
    });
  });

  it('fills the order when the cumulative quantity reaches it: 5 at 190.40, then 10 at 190.70 is 5 at 191', () => {
    expect(progress(booked('partially_filled', '5', '190.4'), broker('filled', '10', '190.7'))).to.deep.equal({
      to: 'filled',
      execution: ['5', '191'],
      filled: '10',
      average: '190.7',
      reason: 'filled by Alpaca: 5 at 191.00',
    });
    expect(progress(booked('submitted'), broker('filled', '10', '200'))).to.deep.include({ to: 'filled', execution: ['10', '200'] });
  });

  it('books nothing more for an update it already booked (the stream repeats, a poll follows the stream)', () => {
    const unchanged = { to: undefined, execution: undefined, filled: '3', average: '190', reason: null };
    expect(progress(booked('partially_filled', '3', '190'), broker('partially_filled', '3', '190'))).to.deep.equal(unchanged);
    // An older word than what was booked moves nothing back.
    expect(progress(booked('partially_filled', '3', '190'), broker('partially_filled', '2', '189'))).to.deep.equal(unchanged);
    expect(progress(booked('submitted'), broker('accepted', '0', null))).to.deep.equal({
      to: undefined,
      execution: undefined,
      filled: '0',
      average: null,
      reason: null,
    });
  });

  it('changes nothing on an order that is not at the broker here, whatever the broker says', () => {
    for (const status of ['proposed', 'blocked', 'filled', 'cancelled', 'expired', 'rejected']) {
      expect(progress(booked(status, '3', '190'), broker('filled', '10', '195')), status).to.deep.equal({
        to: undefined,
        execution: undefined,
        filled: '3',
        average: '190',
        reason: null,
      });
    }
  });

  it('never books more than the order: a stated quantity over it counts as the whole order', () => {
    expect(progress(booked('partially_filled', '4', '100'), broker('filled', '12', '100'))).to.deep.equal({
      to: 'filled',
      execution: ['6', '100'],
      filled: '10',
      average: '100',
      reason: 'filled by Alpaca: 6 at 100.00',
    });
  });

  it('books no execution the broker states no price of', () => {
    expect(progress(booked('submitted'), broker('partially_filled', '2', null))).to.deep.include({ to: undefined, execution: undefined });
  });

  it('rounds prices to 6 decimals and states fractional shares as they are', () => {
    expect(progress(booked('submitted', '0', null, '1.5'), broker('partially_filled', '0.5', '100.1234567'))).to.deep.equal({
      to: 'partially_filled',
      execution: ['0.5', '100.123457'],
      filled: '0.5',
      average: '100.123457',
      reason: 'partially filled by Alpaca: 0.5 at 100.12',
    });
  });

  it("ends the order as the broker ended it, in the broker's word, and says what stays filled", () => {
    expect(progress(booked('submitted'), broker('canceled', '0', null))).to.deep.equal({
      to: 'cancelled',
      execution: undefined,
      filled: '0',
      average: null,
      reason: 'canceled by Alpaca',
    });
    expect(progress(booked('partially_filled', '3', '190'), broker('expired', '3', '190'))).to.deep.equal({
      to: 'expired',
      execution: undefined,
      filled: '3',
      average: '190',
      reason: 'expired by Alpaca; the 3 shares filled stay filled',
    });
    expect(progress(booked('submitted'), broker('rejected', '0', null, 'rejected'))).to.deep.include({
      to: 'rejected',
      reason: 'rejected by Alpaca',
    });
  });

  it('books the shares filled before the end it learns of together with it', () => {
    expect(progress(booked('submitted'), broker('canceled', '3', '190'))).to.deep.equal({
      to: 'cancelled',
      execution: ['3', '190'],
      filled: '3',
      average: '190',
      reason: 'canceled by Alpaca; the 3 shares filled stay filled',
    });
  });

  it('fills an order the broker filled whole before it could end it', () => {
    expect(progress(booked('partially_filled', '3', '190'), broker('canceled', '10', '190'))).to.deep.include({
      to: 'filled',
      reason: 'filled by Alpaca: 7 at 190.00',
    });
  });

  it('keeps an order working in a state the service has no use for (pending_cancel, replaced, held)', () => {
    expect(progress(booked('submitted'), broker('open', '0', null, 'pending_cancel'))).to.deep.include({ to: undefined, reason: null });
  });
});

describe('backoffMs: the wait before the next try of a submit', () => {
  it('doubles from 1 s after each try, at most 15 s', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 20].map(backoffMs)).to.deep.equal([1_000, 1_000, 2_000, 4_000, 8_000, 15_000, 15_000, 15_000]);
  });
});

describe('mirrorBooks: the books as the broker states them, and where they differed', () => {
  let database: TestDatabase;
  let accounts = 0;
  const now = new Date('2026-12-01T15:00:00.000Z');
  const earlier = new Date('2026-11-30T15:00:00.000Z');

  before(async () => {
    database = await createTestDatabase();
  });
  after(() => database.drop());

  const account = (cash: string, currency = 'USD'): BrokerAccount => ({
    cash: dec(cash),
    buyingPower: dec(cash),
    equityAtDayStart: null,
    currency,
    accountNumber: 'PA1',
    tradingBlocked: false,
    readAt: now,
  });
  const position = (symbol: string, quantity: string, cost: string): BrokerPosition => ({
    symbol,
    quantity: dec(quantity),
    averageCost: dec(cost),
    lastPrice: null,
  });

  /** A new account whose books hold `cash` (none: never opened) and `positions` ([symbol, quantity, cost]). */
  async function booksOf(cash: string | undefined, positions: [string, string, string][]): Promise<string> {
    const db = database.db.kysely;
    const id = `acct_mirror_${++accounts}`;
    await db
      .insertInto('accounts')
      .values({ id, email: `${id}@example.com`, name: id, created_at: earlier })
      .execute();
    if (cash !== undefined)
      await db.insertInto('paper_accounts').values({ account_id: id, currency: 'USD', cash, updated_at: earlier }).execute();
    for (const [symbol, quantity, average_cost] of positions)
      await db.insertInto('positions').values({ account_id: id, symbol, quantity, average_cost, updated_at: earlier }).execute();
    return id;
  }

  const mirror = (id: string, stated: BrokerAccount, positions: BrokerPosition[]) =>
    database.db.kysely.transaction().execute((trx) => mirrorBooks(trx, id, stated, positions, now));

  async function books(id: string) {
    const db = database.db.kysely;
    const cash = await db.selectFrom('paper_accounts').selectAll().where('account_id', '=', id).executeTakeFirstOrThrow();
    const held = await db.selectFrom('positions').selectAll().where('account_id', '=', id).orderBy('symbol').execute();
    return {
      cash: [dec(cash.cash).toFixed(2), cash.currency, new Date(cash.updated_at).toISOString()],
      positions: held.map((p) => [
        p.symbol,
        dec(p.quantity).toFixed(),
        dec(p.average_cost).toFixed(),
        new Date(p.updated_at).toISOString(),
      ]),
    };
  }

  it('answers nothing when the books match, and leaves them as the broker states them', async () => {
    const id = await booksOf('1000.00', [['VTI', '3', '300']]);
    expect(await mirror(id, account('1000.00'), [position('VTI', '3', '301.5')])).to.equal(undefined);
    expect(await books(id)).to.deep.equal({
      cash: ['1000.00', 'USD', now.toISOString()],
      positions: [['VTI', '3', '301.5', now.toISOString()]],
    });
  });

  it('states each difference, books before broker, and writes what the broker holds: a sold position goes, a new one comes', async () => {
    const id = await booksOf('1000.00', [
      ['VTI', '3', '300'],
      ['BND', '10', '72'],
    ]);
    const drift = await mirror(id, account('990.5'), [position('VTI', '2', '300'), position('TSLA', '5', '250.25')]);
    expect(drift?.cash).to.deep.equal({ books: '1000.00', broker: '990.50' });
    // In no particular order: the books are read without one.
    expect(drift?.positions).to.have.deep.members([
      { symbol: 'BND', books: '10', broker: '0' },
      { symbol: 'VTI', books: '3', broker: '2' },
      { symbol: 'TSLA', books: '0', broker: '5' },
    ]);
    expect(drift?.positions).to.have.length(3);
    expect(await books(id)).to.deep.equal({
      cash: ['990.50', 'USD', now.toISOString()],
      positions: [
        ['TSLA', '5', '250.25', now.toISOString()],
        ['VTI', '2', '300', now.toISOString()],
      ],
    });
  });

  it('counts a millionth of a share as a difference, and keeps no position of nothing', async () => {
    const id = await booksOf('50.00', [['VTI', '2.000001', '300']]);
    expect(await mirror(id, account('50'), [position('VTI', '2', '300'), position('BND', '0', '72')])).to.deep.equal({
      positions: [{ symbol: 'VTI', books: '2.000001', broker: '2' }],
    });
    expect((await books(id)).positions).to.deep.equal([['VTI', '2', '300', now.toISOString()]]);
  });

  it('opens books never opened with the broker’s cash, and counts no difference of cash it never had', async () => {
    const id = await booksOf(undefined, []);
    expect(await mirror(id, account('2500', 'EUR'), [])).to.equal(undefined);
    expect(await books(id)).to.deep.equal({ cash: ['2500.00', 'EUR', now.toISOString()], positions: [] });
    expect(await mirror(id, account('2400', 'USD'), [position('VTI', '1', '300')])).to.deep.equal({
      cash: { books: '2500.00', broker: '2400.00' },
      positions: [{ symbol: 'VTI', books: '0', broker: '1' }],
    });
    expect((await books(id)).cash).to.deep.equal(['2400.00', 'USD', now.toISOString()]);
  });
});
