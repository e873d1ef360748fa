// A broker port of a test's own, and a database with connected accounts it holds, at a clock the test moves: the
// fixture of the unit tests of the broker's paths (test/unit/broker-*.test.ts, paper-broker.test.ts).
import type { Insertable } from 'kysely';
import type { Database } from '../../db/schema.js';
import { loadConfig } from '../../src/config.js';
import type {
  BrokerAccount,
  BrokerOrder,
  BrokerPort,
  BrokerPosition,
  BrokerQuote,
  MarketClock,
  SubmitRequest,
  UpdateListener,
  UpdateStream,
} from '../../src/brokers/port.js';
import type { BrokerDirectory } from '../../src/services/brokerage/directory.js';
import { BrokerSender } from '../../src/services/brokerage/sender.js';
import type { ServiceContext } from '../../src/services/context.js';
import { dec } from '../../src/services/money.js';
import { Store } from '../../src/services/store.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { FixedPrices } from './prices.js';
import { manualClock } from './trading.js';

export type OrderChanges = Partial<Insertable<Database['orders']>>;

export const start = '2026-12-01T15:00:00.000Z';
export const SENT_AT = new Date('2026-12-01T14:59:00.000Z');
const OPEN = new Set(['accepted', 'partially_filled', 'open']);

/** A broker account of the test's own: it holds the orders it was sent, answers as the test says, and counts its calls. */
export class FakeBroker implements BrokerPort {
  readonly id = 'alpaca';
  readonly held = new Map<string, BrokerOrder>();
  readonly submits: SubmitRequest[] = [];
  readonly lookups: string[] = [];
  listeners: UpdateListener[] = [];
  closed = 0;
  reads = 0;
  /** Calls of openOrders. */
  lists = 0;
  cash = '1000.00';
  stated: BrokerPosition[] = [];
  /** What a submit does instead of placing the order (throw, or look at the database meanwhile). */
  onSubmit: ((request: SubmitRequest) => Promise<void>) | undefined;
  /** What a cancel does before the broker cancels (throw, or change the database meanwhile). */
  onCancel: ((clientOrderId: string) => Promise<void>) | undefined;
  readonly cancels: string[] = [];
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
    this.cancels.push(clientOrderId);
    await this.onCancel?.(clientOrderId);
    const order = this.held.get(clientOrderId);
    if (order) this.held.set(clientOrderId, { ...order, status: 'canceled', brokerStatus: 'canceled' });
  }
  async orderByClientId(clientOrderId: string): Promise<BrokerOrder | undefined> {
    this.lookups.push(clientOrderId);
    if (this.failLookups) throw this.failLookups;
    return this.held.get(clientOrderId);
  }
  async openOrders(): Promise<BrokerOrder[]> {
    this.lists++;
    return [...this.held.values()].filter((order) => OPEN.has(order.status));
  }
  updates(listener: UpdateListener): UpdateStream {
    this.listeners.push(listener);
    return { close: () => this.closed++ };
  }
}

/** The broker's order `ord`: accepted, nothing filled unless `changes` say so. */
export function brokerOrder(clientOrderId: string, changes: Partial<BrokerOrder> = {}): BrokerOrder {
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
export const filled = (clientOrderId: string, price = '330') =>
  brokerOrder(clientOrderId, { status: 'filled', brokerStatus: 'filled', filledQuantity: dec('2'), averageFillPrice: dec(price) });

/**
 * Registers the hooks (a database for the suite; a new broker, context and connected account for each test) and
 * answers the state, read after the hooks ran, and the helpers. Call it inside a describe.
 */
export function syncFixture() {
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

  return {
    get database() {
      return database;
    },
    get ctx() {
      return ctx;
    },
    get port() {
      return port;
    },
    get ports() {
      return ports;
    },
    get account() {
      return account;
    },
    clock,
    db,
    openAccount,
    approved,
    sent,
    row,
    lastEvent,
    fillsOf,
    at,
    sender,
  };
}
