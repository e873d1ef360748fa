import { randomUUID } from 'node:crypto';
import {
  type AccountSpec,
  type AccountState,
  type BrokerEvent,
  type ClockState,
  D,
  type Dec,
  OPEN_STATUSES,
  type OrderState,
  type Quote,
  refuse,
  type SubmitOutcome,
  decimalInput,
  decimalString,
} from './state.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Alpaca's brokerage as the stand-in plays it: accounts by key id, their orders and positions, prices and the clock. */
export class Broker {
  onSubmit: SubmitOutcome = 'fill';
  clock: ClockState = { isOpen: true, nextOpen: new Date(Date.now() + DAY), nextClose: new Date(Date.now() + 6 * HOUR) };
  private readonly accounts = new Map<string, AccountState>();
  private readonly prices = new Map<string, Quote>();
  private readonly assetIds = new Map<string, string>();
  private readonly orderList: OrderState[] = [];
  private tradeIds = 1;

  constructor(private readonly notify: (event: BrokerEvent) => void) {}

  addAccount(spec: AccountSpec): AccountState {
    if (this.accounts.has(spec.keyId)) throw new Error(`an account with key id ${spec.keyId} exists already`);
    const positions = new Map(
      (spec.positions ?? []).map((p) => [
        p.symbol,
        { assetId: this.assetId(p.symbol), qty: new D(p.qty), avgEntryPrice: new D(p.avgEntryPrice) },
      ]),
    );
    const account: AccountState = {
      keyId: spec.keyId,
      secretKey: spec.secretKey,
      id: randomUUID(),
      accountNumber: `PA${String(this.accounts.size + 1).padStart(10, '0')}`,
      cash: new D(spec.cash),
      buyingPower: new D(spec.buyingPower ?? spec.cash),
      lastEquity: new D(0),
      tradingBlocked: spec.tradingBlocked ?? false,
      createdAt: new Date(),
      positions,
    };
    account.lastEquity = this.equity(account);
    this.accounts.set(spec.keyId, account);
    return account;
  }

  /** The account both keys open; undefined when either is missing or wrong. */
  authenticate(keyId: string | undefined, secretKey: string | undefined): AccountState | undefined {
    const account = keyId === undefined ? undefined : this.accounts.get(keyId);
    return account && secretKey !== undefined && account.secretKey === secretKey ? account : undefined;
  }

  assetId(symbol: string): string {
    let id = this.assetIds.get(symbol);
    if (!id) this.assetIds.set(symbol, (id = randomUUID()));
    return id;
  }

  setPrice(symbol: string, price: string, at = new Date()): void {
    this.prices.set(symbol, { price: new D(price), at, id: this.tradeIds++ });
  }

  quote(symbol: string): Quote | undefined {
    return this.prices.get(symbol);
  }

  /** The latest price, or the average entry price for a position whose symbol has none. */
  markPrice(symbol: string, fallback: Dec): Dec {
    return this.prices.get(symbol)?.price ?? fallback;
  }

  equity(account: AccountState): Dec {
    let equity = account.cash;
    for (const [symbol, p] of account.positions) equity = equity.plus(p.qty.times(this.markPrice(symbol, p.avgEntryPrice)));
    return equity;
  }

  /** Buying power less what open buy orders hold back. */
  availableBuyingPower(account: AccountState): Dec {
    return this.openOrders(account.keyId, 'buy').reduce(
      (bp, o) => bp.minus(o.qty.minus(o.filledQty).times(o.holdPrice)),
      account.buyingPower,
    );
  }

  /** A position's quantity less what open sell orders hold back. */
  availableQty(account: AccountState, symbol: string): Dec {
    const held = account.positions.get(symbol)?.qty ?? new D(0);
    return this.openOrders(account.keyId, 'sell')
      .filter((o) => o.symbol === symbol)
      .reduce((qty, o) => qty.minus(o.qty.minus(o.filledQty)), held);
  }

  setClock(spec: { isOpen: boolean; nextOpen?: Date; nextClose?: Date }): void {
    const wasOpen = this.clock.isOpen;
    const now = Date.now();
    this.clock = {
      isOpen: spec.isOpen,
      nextOpen: spec.nextOpen ?? new Date(now + (spec.isOpen ? DAY : 12 * HOUR)),
      nextClose: spec.nextClose ?? new Date(now + (spec.isOpen ? 6 * HOUR : 18 * HOUR)),
    };
    if (!wasOpen && spec.isOpen) for (const order of this.orderList.filter((o) => o.status === 'accepted')) this.reachMarket(order);
    if (wasOpen && !spec.isOpen) {
      const working = this.orderList.filter((o) => o.timeInForce === 'day' && (o.status === 'new' || o.status === 'partially_filled'));
      for (const order of working) this.finish(order, 'expired');
    }
  }

  /** Places an order from a `POST /v2/orders` body; answers the order as it was accepted, before it reached the market. */
  submit(account: AccountState, body: unknown): OrderState {
    if (typeof body !== 'object' || body === null) throw refuse.invalid('request body format is invalid');
    const input = body as Record<string, unknown>;
    const symbol = input.symbol;
    if (typeof symbol !== 'string' || symbol === '') throw refuse.invalid('symbol is required');
    if (input.side !== 'buy' && input.side !== 'sell') throw refuse.invalid(`invalid side ${JSON.stringify(input.side)}`);
    if (input.type !== 'market' && input.type !== 'limit') {
      throw refuse.invalid(`the stand-in takes market and limit orders, not ${String(input.type)}`);
    }
    if (input.time_in_force !== 'day' && input.time_in_force !== 'gtc') {
      throw refuse.invalid(`the stand-in takes time_in_force day and gtc, not ${String(input.time_in_force)}`);
    }
    if (input.notional !== undefined) throw refuse.invalid('the stand-in does not take notional orders');
    const qty = decimalInput(input.qty, 'qty');
    const limitPrice = input.type === 'limit' ? decimalInput(input.limit_price, 'limit_price') : null;
    const clientOrderId = input.client_order_id ?? randomUUID();
    if (typeof clientOrderId !== 'string' || clientOrderId.length > 128) {
      throw refuse.invalid('client_order_id must be a string of up to 128 characters');
    }
    if (account.tradingBlocked) throw refuse.forbidden('account is not authorized to trade');
    if (this.orderList.some((o) => o.keyId === account.keyId && o.clientOrderId === clientOrderId)) throw refuse.duplicateClientOrderId();
    const quote = this.quote(symbol);
    if (!quote) throw refuse.unprocessable(`asset "${symbol}" not found`);
    const holdPrice = limitPrice ?? quote.price;
    if (input.side === 'buy' && qty.times(holdPrice).gt(this.availableBuyingPower(account))) {
      throw refuse.forbidden('insufficient buying power');
    }
    const available = this.availableQty(account, symbol);
    if (input.side === 'sell' && qty.gt(available)) {
      throw refuse.forbidden(
        `insufficient qty available for order (requested: ${decimalString(qty)}, available: ${decimalString(available)})`,
      );
    }
    const now = new Date();
    const order: OrderState = {
      keyId: account.keyId,
      id: randomUUID(),
      clientOrderId,
      symbol,
      assetId: this.assetId(symbol),
      side: input.side,
      type: input.type,
      timeInForce: input.time_in_force,
      qty,
      limitPrice,
      holdPrice,
      status: this.clock.isOpen ? 'pending_new' : 'accepted',
      filledQty: new D(0),
      filledAvgPrice: null,
      createdAt: now,
      updatedAt: now,
      submittedAt: now,
      filledAt: null,
      canceledAt: null,
      expiredAt: null,
      failedAt: null,
      expiresAt: input.time_in_force === 'gtc' ? new Date(now.getTime() + 90 * DAY) : this.clock.nextClose,
    };
    this.orderList.push(order);
    const accepted = { ...order };
    if (this.onSubmit === 'reject') this.finish(order, 'rejected');
    else if (this.clock.isOpen) this.reachMarket(order);
    else this.emit(order, 'accepted');
    return accepted;
  }

  /** Fills `qty` (default: what remains) of an open order at `price` (default: the latest price, else its limit). */
  execute(order: OrderState, qty?: Dec, price?: Dec): void {
    if (!OPEN_STATUSES.has(order.status)) throw new Error(`order ${order.clientOrderId} is ${order.status}: it cannot fill`);
    const remaining = order.qty.minus(order.filledQty);
    const filled = qty ?? remaining;
    if (filled.lte(0) || filled.gt(remaining)) {
      throw new Error(`cannot fill ${decimalString(filled)} of ${decimalString(remaining)} remaining`);
    }
    const at = price ?? this.quote(order.symbol)?.price ?? order.limitPrice;
    if (!at) throw new Error(`no price to fill ${order.symbol} at: setPrice first`);
    const account = this.accounts.get(order.keyId)!;
    const signed = order.side === 'buy' ? filled : filled.neg();
    const position = account.positions.get(order.symbol) ?? { assetId: order.assetId, qty: new D(0), avgEntryPrice: at };
    const qtyAfter = position.qty.plus(signed);
    // Adding to a position averages its entry price; reducing it keeps it; crossing zero starts a new one at this price.
    let avgEntryPrice = position.avgEntryPrice;
    if (position.qty.isZero() || position.qty.isNeg() === signed.isNeg()) {
      avgEntryPrice = position.qty.times(position.avgEntryPrice).plus(signed.times(at)).div(qtyAfter);
    } else if (!qtyAfter.isZero() && qtyAfter.isNeg() !== position.qty.isNeg()) avgEntryPrice = at;
    if (qtyAfter.isZero()) account.positions.delete(order.symbol);
    else account.positions.set(order.symbol, { assetId: position.assetId, qty: qtyAfter, avgEntryPrice });
    account.cash = account.cash.minus(signed.times(at));
    account.buyingPower = account.buyingPower.minus(signed.times(at));
    order.filledAvgPrice = order.filledQty
      .times(order.filledAvgPrice ?? 0)
      .plus(filled.times(at))
      .div(order.filledQty.plus(filled));
    order.filledQty = order.filledQty.plus(filled);
    const complete = order.filledQty.eq(order.qty);
    order.status = complete ? 'filled' : 'partially_filled';
    order.updatedAt = new Date();
    if (complete) order.filledAt = order.updatedAt;
    this.emit(order, complete ? 'fill' : 'partial_fill', { id: randomUUID(), qty: filled, price: at, positionQty: qtyAfter });
  }

  /** Ends an open order as canceled, expired or rejected. */
  finish(order: OrderState, status: 'canceled' | 'expired' | 'rejected'): void {
    if (!OPEN_STATUSES.has(order.status)) throw refuse.unprocessable(`order is already in "${order.status}" state`);
    order.status = status;
    order.updatedAt = new Date();
    if (status === 'canceled') order.canceledAt = order.updatedAt;
    if (status === 'expired') order.expiredAt = order.updatedAt;
    if (status === 'rejected') order.failedAt = order.updatedAt;
    this.emit(order, status);
  }

  /** The account's orders, oldest first; every account's when no key id is given. */
  orders(keyId?: string): OrderState[] {
    return this.orderList.filter((o) => keyId === undefined || o.keyId === keyId);
  }

  openOrders(keyId: string, side?: 'buy' | 'sell'): OrderState[] {
    return this.orders(keyId).filter((o) => OPEN_STATUSES.has(o.status) && (side === undefined || o.side === side));
  }

  orderById(account: AccountState, id: string): OrderState {
    const order = this.orders(account.keyId).find((o) => o.id === id);
    if (!order) throw refuse.notFound('order not found');
    return order;
  }

  orderByClientId(account: AccountState, clientOrderId: string): OrderState {
    const order = this.orders(account.keyId).find((o) => o.clientOrderId === clientOrderId);
    if (!order) throw refuse.notFound('order not found');
    return order;
  }

  /** The one order with this client order id across accounts, for the test controls. */
  orderForTest(clientOrderId: string): OrderState {
    const found = this.orderList.filter((o) => o.clientOrderId === clientOrderId);
    if (found.length !== 1) throw new Error(`${found.length} orders have client_order_id ${clientOrderId}`);
    return found[0]!;
  }

  private reachMarket(order: OrderState): void {
    order.status = 'new';
    order.updatedAt = new Date();
    this.emit(order, 'new');
    const price = this.quote(order.symbol)?.price;
    if (this.onSubmit === 'rest' || !price) return;
    if (this.onSubmit === 'reject') return this.finish(order, 'rejected');
    if (order.limitPrice && (order.side === 'buy' ? price.gt(order.limitPrice) : price.lt(order.limitPrice))) return;
    const remaining = order.qty.minus(order.filledQty);
    this.execute(order, this.onSubmit === 'partial' ? remaining.div(2) : remaining, price);
  }

  private emit(order: OrderState, event: string, execution?: BrokerEvent['execution']): void {
    this.notify({ keyId: order.keyId, event, order: { ...order }, at: order.updatedAt, ...(execution && { execution }) });
  }
}
