// The built-in paper broker behind the broker port. Its books are the service's own (paper_accounts, positions, the
// orders table) and its prices the simulated feed; it executes on the spot: a marketable order fills in full at the
// current price when it is submitted, one whose limit the price has not reached rests (it does not fill later), and
// nothing reaches it from outside, so it has no updates to stream. Its answer to a submit is what the approval books,
// in the approval's own statement (OrderService.approve): the paper broker writes nothing itself.
import type {
  BrokerAccount,
  BrokerOrder,
  BrokerOrderStatus,
  BrokerPort,
  BrokerPosition,
  BrokerQuote,
  MarketClock,
  SubmitRequest,
  UpdateListener,
  UpdateStream,
} from '../../brokers/port.js';
import { BrokerError } from '../../brokers/port.js';
import type { Order as OrderRow } from '../../../db/schema.js';
import type { ServiceContext } from '../context.js';
import { positionsOf, readPaperAccount } from '../ledger.js';
import { D, dec } from '../money.js';

/** The paper broker's word for each state of an order it took. */
const WORDS: Record<string, BrokerOrderStatus> = {
  submitted: 'accepted',
  partially_filled: 'partially_filled',
  filled: 'filled',
  cancelled: 'canceled',
  expired: 'expired',
  rejected: 'rejected',
};

const DAY_MS = 86_400_000;

export class PaperBroker implements BrokerPort {
  readonly id = 'paper';

  constructor(
    private readonly ctx: ServiceContext,
    private readonly accountId: string,
  ) {}

  /** Its cash is all it lets an account spend: no margin. */
  async account(): Promise<BrokerAccount> {
    const { store, clock, config } = this.ctx;
    const account = await readPaperAccount(store.db, this.accountId, config.paperStartingCash);
    return {
      cash: account.cash,
      buyingPower: account.cash,
      equityAtDayStart: null,
      currency: account.currency,
      accountNumber: this.accountId,
      tradingBlocked: false,
      readAt: clock.now(),
    };
  }

  async positions(): Promise<BrokerPosition[]> {
    const now = this.ctx.clock.now();
    return (await positionsOf(this.ctx.store.db, this.accountId)).map((p) => ({
      symbol: p.symbol,
      quantity: p.quantity,
      averageCost: p.average_cost,
      lastPrice: this.ctx.prices.instrument(p.symbol) ? this.ctx.prices.quote(p.symbol, now).price : null,
    }));
  }

  latestPrices(symbols: readonly string[]): Promise<Map<string, BrokerQuote>> {
    const now = this.ctx.clock.now();
    const quotes = new Map<string, BrokerQuote>();
    for (const symbol of symbols) {
      if (!this.ctx.prices.instrument(symbol)) continue;
      const quote = this.ctx.prices.quote(symbol, now);
      quotes.set(symbol, { symbol, price: quote.price, asOf: quote.as_of });
    }
    return Promise.resolve(quotes);
  }

  /** It trades around the clock. */
  clock(): Promise<MarketClock> {
    const now = this.ctx.clock.now();
    return Promise.resolve({ isOpen: true, nextOpen: now, nextClose: new Date(now.getTime() + DAY_MS), at: now });
  }

  /** Executes on the spot at the current price: filled in full when marketable, else resting (`accepted`). */
  submit(request: SubmitRequest): Promise<BrokerOrder> {
    const now = this.ctx.clock.now();
    if (!this.ctx.prices.instrument(request.symbol)) {
      return Promise.reject(new BrokerError('refused', `The paper broker does not trade ${request.symbol}.`, 422));
    }
    const price = this.ctx.prices.quote(request.symbol, now).price;
    const limit = request.type === 'limit' && request.limitPrice !== undefined ? dec(request.limitPrice) : null;
    const marketable = !limit || (request.side === 'buy' ? price.lessThanOrEqualTo(limit) : price.greaterThanOrEqualTo(limit));
    const quantity = dec(request.quantity);
    return Promise.resolve({
      brokerOrderId: '',
      clientOrderId: request.clientOrderId,
      symbol: request.symbol,
      side: request.side,
      quantity,
      status: marketable ? 'filled' : 'accepted',
      brokerStatus: marketable ? 'filled' : 'accepted',
      filledQuantity: marketable ? quantity : new D(0),
      averageFillPrice: marketable ? price : null,
      submittedAt: now,
      filledAt: marketable ? now : null,
      updatedAt: now,
    });
  }

  /** A resting order is cancelled at once (the order service records it); any other is refused. */
  async cancel(clientOrderId: string): Promise<void> {
    const order = await this.orderByClientId(clientOrderId);
    if (!order) throw new BrokerError('not_found', `The paper broker has no order ${clientOrderId}.`, 404);
    if (order.status !== 'accepted') throw new BrokerError('refused', `The order is ${order.brokerStatus}; it cannot be cancelled.`, 422);
  }

  async orderByClientId(clientOrderId: string): Promise<BrokerOrder | undefined> {
    const row = await this.ctx.store.db
      .selectFrom('orders')
      .selectAll()
      .where('id', '=', clientOrderId)
      .where('account_id', '=', this.accountId)
      .where('status', 'in', Object.keys(WORDS) as OrderRow['status'][])
      .where((eb) => eb.or([eb('broker_id', '=', this.id), eb('broker_id', 'is', null)]))
      .executeTakeFirst();
    return row && paperOrder(row);
  }

  async openOrders(): Promise<BrokerOrder[]> {
    const rows = await this.ctx.store.db
      .selectFrom('orders')
      .selectAll()
      .where('account_id', '=', this.accountId)
      .where('status', 'in', ['submitted', 'partially_filled'])
      .where((eb) => eb.or([eb('broker_id', '=', this.id), eb('broker_id', 'is', null)]))
      .orderBy('id')
      .execute();
    return rows.map(paperOrder);
  }

  /** Nothing happens at the paper broker that the service did not do itself: it listens, and never drops. */
  updates(listener: UpdateListener): UpdateStream {
    queueMicrotask(() => listener.listening());
    return { close: () => undefined };
  }
}

function paperOrder(row: OrderRow): BrokerOrder {
  const status = WORDS[row.status] ?? 'open';
  return {
    brokerOrderId: '',
    clientOrderId: row.id,
    symbol: row.symbol,
    side: row.side,
    quantity: dec(row.quantity),
    status,
    brokerStatus: row.broker_status ?? status,
    filledQuantity: dec(row.filled_quantity),
    averageFillPrice: row.fill_price === null ? null : dec(row.fill_price),
    submittedAt: row.broker_submitted_at,
    filledAt: row.filled_at,
    updatedAt: row.updated_at,
  };
}
