// Sending approved orders, applying what the broker says and keeping connected accounts in step (sender.ts, apply.ts,
// sync.ts), against a broker port of the test's own on a database, at a clock the test moves: every wait and deadline
// in exact instants, without the stand-in's network or the server's timers.
import { expect } from 'chai';
import { Kysely, PostgresDialect, type Insertable } from 'kysely';
import pg from 'pg';
import type { Database } from '../../db/schema.js';
import { loadConfig } from '../../src/config.js';
import {
  BrokerError,
  type BrokerAccount,
  type BrokerOrder,
  type BrokerPort,
  type BrokerPosition,
  type BrokerQuote,
  type MarketClock,
  type SubmitRequest,
  type UpdateListener,
  type UpdateStream,
} from '../../src/brokers/port.js';
import { applyBrokerOrder } from '../../src/services/brokerage/apply.js';
import type { BrokerDirectory } from '../../src/services/brokerage/directory.js';
import { BrokerSender } from '../../src/services/brokerage/sender.js';
import { BrokerSync, type SyncLog } from '../../src/services/brokerage/sync.js';
import type { ServiceContext } from '../../src/services/context.js';
import { engage } from '../../src/services/kill-switch.js';
import { dec } from '../../src/services/money.js';
import { Store } from '../../src/services/store.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { until } from '../support/poll.js';
import { FixedPrices } from '../support/prices.js';
import { manualClock } from '../support/trading.js';

type OrderChanges = Partial<Insertable<Database['orders']>>;

const start = '2026-12-01T15:00:00.000Z';
const SENT_AT = new Date('2026-12-01T14:59:00.000Z');

/** A broker account of the test's own: it holds the orders it was sent, answers as the test says, and counts its calls. */
class FakeBroker implements BrokerPort {
  readonly id = 'alpaca';
  readonly held = new Map<string, BrokerOrder>();
  readonly submits: SubmitRequest[] = [];
  readonly lookups: string[] = [];
  listeners: UpdateListener[] = [];
  closed = 0;
  reads = 0;
  cash = '1000.00';
  stated: BrokerPosition[] = [];
  /** What a submit does instead of placing the order (throw, or look at the database meanwhile). */
  onSubmit: ((request: SubmitRequest) => Promise<void>) | undefined;
  failLookups: Error | undefined;
  failReads: Error | undefined;

  async account(): Promise<BrokerAccount> {
    this.reads++;
    if (this.failReads) throw this.failReads;
    const cash = dec(this.cash);
    return {
      cash,
      buyingPower: cash,
      equityAtDayStart: null,
      currency: 'USD',
      accountNumber: 'PA1',
      tradingBlocked: false,
      readAt: SENT_AT,
    };
  }
  async positions(): Promise<BrokerPosition[]> {
    return this.stated;
  }
  async latestPrices(): Promise<Map<string, BrokerQuote>> {
    return new Map();
  }
  async clock(): Promise<MarketClock> {
    return { isOpen: true, nextOpen: SENT_AT, nextClose: SENT_AT, at: SENT_AT };
  }
  async submit(request: SubmitRequest): Promise<BrokerOrder> {
    this.submits.push(request);
    await this.onSubmit?.(request);
    const placed = brokerOrder(request.clientOrderId, { brokerStatus: 'pending_new' });
    this.held.set(request.clientOrderId, placed);
    return placed;
  }
  async cancel(clientOrderId: string): Promise<void> {
    const order = this.held.get(clientOrderId);
    if (order) this.held.set(clientOrderId, { ...order, status: 'canceled', brokerStatus: 'canceled' });
  }
  async orderByClientId(clientOrderId: string): Promise<BrokerOrder | undefined> {
    this.lookups.push(clientOrderId);
    if (this.failLookups) throw this.failLookups;
    return this.held.get(clientOrderId);
  }
  async openOrders(): Promise<BrokerOrder[]> {
    return [...this.held.values()];
  }
  updates(listener: UpdateListener): UpdateStream {
    this.listeners.push(listener);
    return { close: () => this.closed++ };
  }
}

/** The broker's order `ord`: accepted, nothing filled unless `changes` say so. */
function brokerOrder(clientOrderId: string, changes: Partial<BrokerOrder> = {}): BrokerOrder {
  return {
    brokerOrderId: `b-${clientOrderId}`,
    clientOrderId,
    symbol: 'VTI',
    side: 'buy',
    quantity: dec('2'),
    status: 'accepted',
    brokerStatus: 'accepted',
    filledQuantity: dec('0'),
    averageFillPrice: null,
    submittedAt: SENT_AT,
    filledAt: null,
    updatedAt: SENT_AT,
    ...changes,
  };
}
const filled = (clientOrderId: string, price = '330') =>
  brokerOrder(clientOrderId, { status: 'filled', brokerStatus: 'filled', filledQuantity: dec('2'), averageFillPrice: dec(price) });

describe('connected accounts against a broker port of their own: sending, applying, reconciling', () => {
  let database: TestDatabase;
  let ctx: ServiceContext;
  let port: FakeBroker;
  let ports: Map<string, BrokerPort>;
  const clock = manualClock(start);
  let accounts = 0;
  let orders = 0;
  let account: string;

  before(async () => {
    database = await createTestDatabase();
  });
  after(() => database.drop());

  beforeEach(async () => {
    clock.set(start);
    port = new FakeBroker();
    ports = new Map();
    const directory: BrokerDirectory = { portFor: (id) => Promise.resolve(ports.get(id)) };
    ctx = {
      store: new Store(database.db.kysely),
      clock,
      prices: new FixedPrices(),
      brokers: directory,
      config: loadConfig({ BROKER_TIMEOUT_MS: '1000', BROKER_SUBMIT_WINDOW_MS: '10000' }, { deriveBrokerKey: true }),
    };
    account = await openAccount();
  });

  const db = () => database.db.kysely;

  /** A connected account (its books: 1 000.00 in cash, 10 BND at 72), its port the test's broker. */
  async function openAccount(): Promise<string> {
    const id = `acct_sync_${++accounts}`;
    await db()
      .insertInto('accounts')
      .values({ id, email: `${id}@example.com`, name: id, created_at: SENT_AT })
      .execute();
    await db().insertInto('paper_accounts').values({ account_id: id, currency: 'USD', cash: '1000.00', updated_at: SENT_AT }).execute();
    await db()
      .insertInto('positions')
      .values({ account_id: id, symbol: 'BND', quantity: '10', average_cost: '72', updated_at: SENT_AT })
      .execute();
    await db()
      .insertInto('broker_connections')
      .values({
        account_id: id,
        broker: 'alpaca',
        live: false,
        key_id: 'PK1',
        secret_sealed: 'sealed',
        broker_account_number: 'PA1',
        connected_at: SENT_AT,
      })
      .execute();
    ports.set(id, port);
    return id;
  }

  /** An order of 2 VTI approved for the broker: due to be sent now, within a window of 10 s, unless `changes` say otherwise. */
  async function approved(changes: OrderChanges = {}): Promise<string> {
    const id = `ord_sync_${String(++orders).padStart(4, '0')}`;
    await db()
      .insertInto('orders')
      .values({
        id,
        account_id: account,
        market: 'US',
        currency: 'USD',
        symbol: 'VTI',
        side: 'buy',
        quantity: '2',
        order_type: 'market',
        notional: '660.00',
        status: 'submitted',
        expires_at: new Date('2026-12-02T15:00:00.000Z'),
        broker_id: 'alpaca',
        submit_by: new Date(Date.parse(start) + 10_000),
        next_submit_at: new Date(start),
        created_at: SENT_AT,
        updated_at: SENT_AT,
        ...changes,
      })
      .execute();
    return id;
  }

  /** An order the broker already holds (its try answered). */
  const sent = (changes: OrderChanges = {}) =>
    approved({ next_submit_at: null, broker_order_id: 'b-x', broker_status: 'accepted', broker_submitted_at: SENT_AT, ...changes });

  const row = (id: string) => db().selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const lastEvent = async (id: string) =>
    db()
      .selectFrom('order_events')
      .select(['to_status', 'reason'])
      .where('order_id', '=', id)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
  const fillsOf = (id: string) => db().selectFrom('fills').select(['quantity', 'price']).where('order_id', '=', id).execute();
  const at = (ms: number) => new Date(Date.parse(start) + ms);
  const sender = () => new BrokerSender(ctx);

  describe('BrokerSender', () => {
    it('sends a due order once, by its id as client order id, and keeps what the broker answered', async () => {
      const id = await approved();
      const limited = await approved({ order_type: 'limit', limit_price: '190.5', side: 'sell' });
      expect(await sender().due(account)).to.deep.equal([id, limited]);
      expect(await sender().attempt(account, id, port)).to.equal(true);
      expect(await sender().attempt(account, limited, port)).to.equal(true);
      expect(port.submits).to.deep.equal([
        { clientOrderId: id, symbol: 'VTI', side: 'buy', quantity: '2', type: 'market', timeInForce: 'day' },
        { clientOrderId: limited, symbol: 'VTI', side: 'sell', quantity: '2', type: 'limit', limitPrice: '190.5', timeInForce: 'day' },
      ]);
      const after = await row(id);
      expect([after.status, after.broker_order_id, after.broker_status, after.next_submit_at, after.submit_attempts]).to.deep.equal([
        'submitted',
        `b-${id}`,
        'pending_new',
        null,
        1,
      ]);
      expect(after.broker_submitted_at).to.deep.equal(SENT_AT);
      expect(await sender().attempt(account, id, port), 'sent already: not this instance’s to try').to.equal(false);
      expect(await sender().due(account)).to.deep.equal([]);
      expect(port.submits).to.have.length(2);
    });

    it('holds the order for one try: until BROKER_TIMEOUT_MS and a second have passed, nobody else tries it', async () => {
      const id = await approved();
      let during: { next: Date | null; due: string[]; other: boolean } | undefined;
      port.onSubmit = async () => {
        during = {
          next: (await row(id)).next_submit_at,
          due: await sender().due(account),
          other: await sender().attempt(account, id, port),
        };
      };
      await sender().attempt(account, id, port);
      expect(during).to.deep.equal({ next: at(2_000), due: [], other: false });
      expect(port.submits).to.have.length(1);
    });

    it('tries again with the same id after a broker that did not answer, 1 s later, then 2 s, also when it asked to slow down', async () => {
      const id = await approved();
      port.onSubmit = () => Promise.reject(new BrokerError('unavailable', 'Alpaca did not answer (the order, HTTP 503).', 503));
      expect(await sender().attempt(account, id, port)).to.equal(true);
      expect([(await row(id)).status, (await row(id)).next_submit_at, (await row(id)).submit_attempts]).to.deep.equal([
        'submitted',
        at(1_000),
        1,
      ]);
      clock.advance(999);
      expect(await sender().due(account)).to.deep.equal([]);
      clock.advance(1);
      expect(await sender().due(account)).to.deep.equal([id]);
      port.onSubmit = () => Promise.reject(new BrokerError('rate_limited', 'Alpaca asked to slow down (the order, HTTP 429).', 429));
      await sender().attempt(account, id, port);
      expect((await row(id)).next_submit_at).to.deep.equal(at(3_000));
      clock.set(at(3_000).toISOString());
      port.onSubmit = undefined;
      await sender().attempt(account, id, port);
      expect(port.submits.map((s) => s.clientOrderId)).to.deep.equal([id, id, id]);
      expect([(await row(id)).broker_order_id, (await row(id)).submit_attempts]).to.deep.equal([`b-${id}`, 3]);
    });

    it('ends the order rejected, with what the broker said, when the broker refuses it; it is never tried again', async () => {
      const id = await approved();
      port.onSubmit = () =>
        Promise.reject(new BrokerError('refused', 'Alpaca refused the order (HTTP 403: insufficient buying power).', 403));
      expect(await sender().attempt(account, id, port)).to.equal(true);
      expect(await lastEvent(id)).to.deep.equal({
        to_status: 'rejected',
        reason: 'Alpaca refused the order: Alpaca refused the order (HTTP 403: insufficient buying power).',
      });
      expect([(await row(id)).status, (await row(id)).next_submit_at]).to.deep.equal(['rejected', null]);
      expect(await sender().attempt(account, id, port)).to.equal(false);
      expect(port.submits).to.have.length(1);
    });

    it('passes on a failure that is not the broker’s, and the order waits for its next try', async () => {
      const id = await approved();
      port.onSubmit = () => Promise.reject(new TypeError('a defect'));
      let thrown: unknown;
      await sender()
        .attempt(account, id, port)
        .catch((error: unknown) => (thrown = error));
      expect(thrown).to.be.instanceOf(TypeError);
      expect([(await row(id)).status, (await row(id)).next_submit_at]).to.deep.equal(['submitted', at(2_000)]);
    });

    it('sends up to the last instant of the window; after it, what an earlier try placed is the answer, else it ends rejected', async () => {
      const last = await approved({ submit_by: at(0) });
      const placedEarlier = await approved({ submit_by: at(-1) });
      const never = await approved({ submit_by: at(-1) });
      port.held.set(placedEarlier, filled(placedEarlier));
      for (const id of [last, placedEarlier, never]) expect(await sender().attempt(account, id, port), id).to.equal(true);
      expect(port.submits.map((s) => s.clientOrderId)).to.deep.equal([last]);
      expect([(await row(placedEarlier)).status, (await row(placedEarlier)).filled_quantity]).to.deep.equal(['filled', '2.000000']);
      expect(await lastEvent(never)).to.deep.equal({
        to_status: 'rejected',
        reason: 'Alpaca could not be reached before the window to send the order closed; it was not sent',
      });
      // A broker that cannot be asked either: nothing is known to be placed.
      port.failLookups = new BrokerError('unavailable', 'Alpaca did not answer (order, HTTP 503).', 503);
      const unknown = await approved({ submit_by: at(-1) });
      expect(await sender().attempt(account, unknown, port)).to.equal(true);
      expect((await row(unknown)).status).to.equal('rejected');
    });

    it('cancels instead of sending when the kill switch was engaged before the order reached the broker', async () => {
      const id = await approved();
      await engage(db(), account, 'system', 'stop', at(0));
      expect(await sender().attempt(account, id, port)).to.equal(true);
      expect(port.submits).to.deep.equal([]);
      expect(await lastEvent(id)).to.deep.equal({
        to_status: 'cancelled',
        reason: 'the account kill switch was engaged before the order reached Alpaca; it was not sent',
      });
    });

    it('leaves an order that changed while its try was out (the stream, a poll, a cancellation) as it now stands', async () => {
      const reported = await approved();
      const cancelled = await approved();
      const refusal = new BrokerError('refused', 'Alpaca refused the order (HTTP 422: client_order_id must be unique).', 422);
      port.onSubmit = async ({ clientOrderId }) => {
        if (clientOrderId === reported) await applyBrokerOrder(ctx.store, account, brokerOrder(reported), 'Alpaca', clock.now());
        // As the holder's cancellation of an order not sent yet records it.
        else await db().updateTable('orders').set({ status: 'cancelled' }).where('id', '=', clientOrderId).execute();
        throw refusal;
      };
      await sender().attempt(account, reported, port);
      await sender().attempt(account, cancelled, port);
      expect([(await row(reported)).status, (await row(reported)).broker_order_id]).to.deep.equal(['submitted', `b-${reported}`]);
      expect((await row(cancelled)).status).to.equal('cancelled');
      const events = await db().selectFrom('order_events').select('to_status').where('order_id', 'in', [reported, cancelled]).execute();
      expect(events.map((e) => e.to_status)).to.not.include('rejected');
    });
  });

  describe('applyBrokerOrder', () => {
    it('books a fill on the position of the order’s symbol, once, and says whether the order moved', async () => {
      await db()
        .insertInto('positions')
        .values({ account_id: account, symbol: 'VTI', quantity: '2', average_cost: '300', updated_at: SENT_AT })
        .execute();
      const id = await sent();
      expect(await applyBrokerOrder(ctx.store, account, filled(id), 'Alpaca', clock.now())).to.equal(true);
      expect(await applyBrokerOrder(ctx.store, account, filled(id), 'Alpaca', clock.now())).to.equal(false);
      const positions = await db()
        .selectFrom('positions')
        .select(['symbol', 'quantity', 'average_cost'])
        .where('account_id', '=', account)
        .orderBy('symbol')
        .execute();
      expect(positions.map((p) => [p.symbol, dec(p.quantity).toFixed(), dec(p.average_cost).toFixed()])).to.deep.equal([
        ['BND', '10', '72'],
        ['VTI', '4', '315'],
      ]);
      expect((await fillsOf(id)).map((f) => [dec(f.quantity).toFixed(), dec(f.price).toFixed()])).to.deep.equal([['2', '330']]);
      expect(await lastEvent(id)).to.deep.equal({ to_status: 'filled', reason: 'filled by Alpaca: 2 at 330.00' });
    });

    it('stores the broker’s word without a step when nothing moved, keeping when the order was first sent', async () => {
      const first = await approved({ next_submit_at: null });
      expect(await applyBrokerOrder(ctx.store, account, brokerOrder(first, { brokerStatus: 'new' }), 'Alpaca', clock.now())).to.equal(
        false,
      );
      expect([(await row(first)).broker_status, (await row(first)).broker_submitted_at]).to.deep.equal(['new', SENT_AT]);
      const later = new Date('2026-12-01T14:59:30.000Z');
      await applyBrokerOrder(
        ctx.store,
        account,
        brokerOrder(first, { brokerStatus: 'accepted', submittedAt: later }),
        'Alpaca',
        clock.now(),
      );
      expect([(await row(first)).broker_status, (await row(first)).broker_submitted_at]).to.deep.equal(['accepted', SENT_AT]);
      expect(await lastEvent(first).catch(() => undefined)).to.equal(undefined);
    });

    it('touches nothing for an order that is not the account’s', async () => {
      const id = await sent();
      const other = await openAccount();
      expect(await applyBrokerOrder(ctx.store, other, filled(id), 'Alpaca', clock.now())).to.equal(false);
      expect(await applyBrokerOrder(ctx.store, account, filled('ord_nobody'), 'Alpaca', clock.now())).to.equal(false);
      expect((await row(id)).status).to.equal('submitted');
    });
  });

  describe('BrokerSync', () => {
    const connection = () => db().selectFrom('broker_connections').selectAll().where('account_id', '=', account).executeTakeFirstOrThrow();

    it('reconciles: sends what is due, applies what the broker holds once, and says when the books last matched or how they differed', async () => {
      const due = await approved();
      const held = await sent();
      port.held.set(held, filled(held));
      // After the fill the books hold 340.00 and 10 BND, 2 VTI: what the broker states.
      port.cash = '340.00';
      port.stated = [
        { symbol: 'BND', quantity: dec('10'), averageCost: dec('72'), lastPrice: null },
        { symbol: 'VTI', quantity: dec('2'), averageCost: dec('330'), lastPrice: null },
      ];
      const sync = new BrokerSync(ctx, ctx.brokers);
      await sync.reconcile(account, port);
      expect(port.submits.map((s) => s.clientOrderId)).to.deep.equal([due]);
      expect((await row(held)).status).to.equal('filled');
      expect(await connection()).to.deep.include({ mirror_read_at: at(0), mirror_matched_at: at(0), mirror_drift: null });
      await sync.reconcile(account, port);
      expect(await fillsOf(held)).to.have.length(1);
      expect(port.submits).to.have.length(1);

      clock.advance(60_000);
      port.cash = '300.00';
      await sync.reconcile(account, port);
      const after = await connection();
      expect([after.mirror_read_at, after.mirror_matched_at]).to.deep.equal([at(60_000), at(0)]);
      expect(after.mirror_drift).to.deep.equal({
        at: at(60_000).toISOString(),
        cash: { books: '340.00', broker: '300.00' },
        positions: [],
      });
    });

    it('streams each account it holds the lease of, once, and gives the stream up when another instance takes the lease', async () => {
      const one = new BrokerSync(ctx, ctx.brokers);
      const two = new BrokerSync(ctx, ctx.brokers);
      await one.sweep();
      await one.sweep();
      expect([port.listeners.length, port.closed]).to.deep.equal([1, 0]);
      await two.sweep();
      expect(port.listeners.length, 'the lease is held').to.equal(1);
      expect((await connection()).stream_lease_until).to.deep.equal(at(90_000));
      clock.set(at(90_001).toISOString());
      await two.sweep();
      expect(port.listeners.length, 'the lease lapsed: the other instance streams').to.equal(2);
      await one.sweep();
      expect(port.closed, 'the first instance closed its own').to.equal(1);
      // The account's keys changed (another port): the stream of the old one is closed, one of the new opened.
      const renewed = new FakeBroker();
      ports.set(account, renewed);
      await two.sweep();
      expect([port.closed, renewed.listeners.length]).to.deep.equal([2, 1]);
      await two.stop();
      expect([renewed.closed, (await connection()).stream_owner]).to.deep.equal([1, null]);
      // The lease handed back, the first instance takes the account again (its keys as at first): a stream of its own again.
      ports.set(account, port);
      await one.sweep();
      expect([port.listeners.length, port.closed]).to.deep.equal([3, 2]);
      // Stopped and started again (as after a restart of its sweeps), it opens the stream again.
      await one.stop();
      await one.sweep();
      expect([port.listeners.length, port.closed]).to.deep.equal([4, 3]);
      await one.stop();
      expect((await connection()).stream_owner).to.equal(null);
    });

    it('applies what the stream says, refreshing the books after an execution that moved the order only', async () => {
      const id = await sent();
      const sync = new BrokerSync(ctx, ctx.brokers);
      await sync.sweep();
      const [listener] = port.listeners;
      const reads = port.reads;
      const partial = brokerOrder(id, {
        status: 'partially_filled',
        brokerStatus: 'partially_filled',
        filledQuantity: dec('1'),
        averageFillPrice: dec('330'),
      });
      const execution = { quantity: dec('1'), price: dec('330') };
      listener!.update({ event: 'partial_fill', order: partial, at: SENT_AT, execution });
      await until('the partial fill', async () => (await row(id)).status === 'partially_filled');
      await until('the books refreshed', () => port.reads === reads + 1);
      // The same execution again (the stream repeats), then a word that moves nothing: no refresh.
      listener!.update({ event: 'partial_fill', order: { ...partial, brokerStatus: 'held' }, at: SENT_AT, execution });
      await until('the repeat applied', async () => (await row(id)).broker_status === 'held');
      listener!.update({ event: 'canceled', order: { ...partial, status: 'canceled', brokerStatus: 'canceled' }, at: SENT_AT });
      await until('the cancellation', async () => (await row(id)).status === 'cancelled');
      expect(port.reads).to.equal(reads + 1);
      expect(await fillsOf(id)).to.have.length(1);
    });

    it('polls the orders again when the stream listens again', async () => {
      const id = await sent();
      const sync = new BrokerSync(ctx, ctx.brokers);
      await sync.sweep();
      port.held.set(id, filled(id));
      port.listeners[0]!.listening();
      await until('the poll', async () => (await row(id)).status === 'filled');
    });

    it('sweeps at once when started, logs what fails with the account it concerns, and hands the leases back when stopped', async () => {
      const warnings: [Record<string, unknown>, string][] = [];
      const log: SyncLog = { warn: (fields, message) => warnings.push([fields, message]) };
      const failing = new BrokerError('unavailable', 'Alpaca did not answer (order, HTTP 503).', 503);
      await sent();
      port.failLookups = failing;
      const sync = new BrokerSync(ctx, ctx.brokers);
      sync.start(3_600_000, log);
      await until('the first sweep', () => port.listeners.length === 1 && warnings.length === 1);
      expect(warnings[0]).to.deep.equal([{ err: failing, account_id: account }, 'broker reconcile failed']);
      port.listeners[0]!.dropped('the trade-updates stream closed');
      expect(warnings[1]).to.deep.equal([
        { account_id: account, reason: 'the trade-updates stream closed' },
        'trade updates dropped; reconnecting',
      ]);
      port.listeners[0]!.listening();
      await until('the reconcile after listening', () => warnings.length === 3);
      expect(warnings[2]).to.deep.equal([{ err: failing, account_id: account }, 'broker reconcile failed']);
      port.failLookups = undefined;
      const moving = await sent();
      port.failReads = new BrokerError('unavailable', 'Alpaca did not answer (the account, HTTP 503).', 503);
      port.listeners[0]!.update({
        event: 'fill',
        order: filled(moving),
        at: SENT_AT,
        execution: { quantity: dec('2'), price: dec('330') },
      });
      await until('the update', () => warnings.length === 4);
      expect(warnings[3]).to.deep.equal([{ err: port.failReads, account_id: account }, 'trade update not applied']);
      await sync.stop();
      expect([port.closed, (await connection()).stream_owner, (await connection()).stream_lease_until]).to.deep.equal([1, null, null]);

      const broken = new Error('the directory failed');
      const failingSync = new BrokerSync(ctx, { portFor: () => Promise.reject(broken) });
      failingSync.start(3_600_000, log);
      await until('the failed sweep', () => warnings.length === 5);
      expect(warnings[4]).to.deep.equal([{ err: broken }, 'broker sweep failed']);
      await failingSync.stop();
    });

    it('logs a sweep and a hand-back of its leases that the database refused', async () => {
      const warnings: [Record<string, unknown>, string][] = [];
      const pool = new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:1/unreachable', connectionTimeoutMillis: 2_000 });
      const unreachable = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
      try {
        const sync = new BrokerSync({ ...ctx, store: new Store(unreachable) }, ctx.brokers);
        sync.start(3_600_000, { warn: (fields, message) => warnings.push([fields, message]) });
        await until('the failed sweep', () => warnings.length === 1);
        await sync.stop();
        expect(warnings.map(([fields, message]) => [Object.keys(fields), message])).to.deep.equal([
          [['err'], 'broker sweep failed'],
          [['err'], 'broker leases not handed back'],
        ]);
      } finally {
        await unreachable.destroy();
      }
    });
  });
});
