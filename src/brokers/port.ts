// The broker port: what the services ask of a brokerage account, whichever broker holds it. The built-in paper broker
// (paper.ts) and the Alpaca adapter (alpaca.ts) implement it; only the adapter knows Alpaca.
import type { Decimal as Dec } from 'decimal.js';

/** Cash and buying power, as the broker states them, with when they were read. */
export interface BrokerAccount {
  cash: Dec;
  buyingPower: Dec;
  /** The account's value at the previous close (its equity then), for the day's loss; null when the broker has none. */
  equityAtDayStart: Dec | null;
  currency: string;
  /** The broker's own account number or id; never a secret. */
  accountNumber: string;
  /** Whether trading is blocked at the broker (an account restriction). */
  tradingBlocked: boolean;
  readAt: Date;
}

export interface BrokerPosition {
  symbol: string;
  /** Signed: a short position is negative. */
  quantity: Dec;
  averageCost: Dec;
  /** The broker's current price of the symbol, when it states one with the position. */
  lastPrice: Dec | null;
}

/** The latest price of a symbol and when the trade was made. */
export interface BrokerQuote {
  symbol: string;
  price: Dec;
  asOf: Date;
}

/** The market's clock at the broker. */
export interface MarketClock {
  isOpen: boolean;
  nextOpen: Date;
  nextClose: Date;
  at: Date;
}

export type OrderSide = 'buy' | 'sell';

/** One order to send: its client order id is the service's order id, so a retry can never place it twice. */
export interface SubmitRequest {
  clientOrderId: string;
  symbol: string;
  side: OrderSide;
  /** Decimal string, up to 6 decimals. */
  quantity: string;
  type: 'market' | 'limit';
  /** Decimal string; only for a limit order. */
  limitPrice?: string;
  /** `day`: an order sent while the market is closed rests until it opens and expires at that session's close. */
  timeInForce: 'day' | 'gtc';
}

/** Where an order stands at the broker, reduced to what the service's state machine needs. */
export type BrokerOrderStatus =
  | 'accepted'
  | 'partially_filled'
  | 'filled'
  | 'canceled'
  | 'expired'
  | 'rejected'
  /** Working at the broker in a state the service has no use for (pending_cancel, replaced, held, ...): still open. */
  | 'open';

export interface BrokerOrder {
  /** The broker's own id of the order. */
  brokerOrderId: string;
  clientOrderId: string;
  symbol: string;
  side: OrderSide;
  quantity: Dec;
  status: BrokerOrderStatus;
  /** The broker's status word as it said it (e.g. `pending_new`), for the record. */
  brokerStatus: string;
  /** Cumulative. */
  filledQuantity: Dec;
  /** Average price of what filled so far; null before the first fill. */
  averageFillPrice: Dec | null;
  submittedAt: Date | null;
  filledAt: Date | null;
  updatedAt: Date;
}

/** One `trade_updates` message: what happened to an order, and the order after it. */
export interface OrderUpdate {
  /** new, accepted, partial_fill, fill, canceled, expired, rejected, pending_new, replaced, ... */
  event: string;
  order: BrokerOrder;
  at: Date;
  /** For a fill or partial fill: the quantity and price of this execution. */
  execution?: { quantity: Dec; price: Dec };
}

/** Why a broker call failed, in the terms a caller decides on. */
export type BrokerFailureKind =
  /** The keys were refused (401/403). */
  | 'unauthorized'
  /** The broker did not answer in time, refused the connection or answered 5xx: the outcome of a submit is unknown. */
  | 'unavailable'
  /** The broker refused the request itself (4xx other than a duplicate client order id); the message says why. */
  | 'refused'
  /** No such order. */
  | 'not_found'
  /** Too many requests (429). */
  | 'rate_limited';

export class BrokerError extends Error {
  constructor(
    readonly kind: BrokerFailureKind,
    message: string,
    /** The broker's HTTP status, when it answered. */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'BrokerError';
  }
}

/** A live subscription to the account's order updates; `close` ends it for good. */
export interface UpdateStream {
  close(): void;
}

export interface UpdateListener {
  update(update: OrderUpdate): void;
  /** The stream (re)connected and is listening: updates missed while it was down must be fetched by polling. */
  listening(): void;
  /** The stream dropped; it reconnects on its own with backoff. */
  dropped(reason: string): void;
}

/**
 * A brokerage account. Every call has a deadline (the adapter's timeout); reads may be retried, `submit` is
 * idempotent on the client order id (a duplicate is answered with the order already placed).
 */
export interface BrokerPort {
  /** `paper` or `alpaca`. */
  readonly id: string;
  account(): Promise<BrokerAccount>;
  positions(): Promise<BrokerPosition[]>;
  /** The latest trade of each symbol; a symbol without one is left out. */
  latestPrices(symbols: readonly string[]): Promise<Map<string, BrokerQuote>>;
  clock(): Promise<MarketClock>;
  /** Places the order once: a duplicate client order id answers with the order already placed under it. */
  submit(request: SubmitRequest): Promise<BrokerOrder>;
  /** Asks the broker to cancel; the cancellation is confirmed by an update (or a later read), not by this answer. */
  cancel(clientOrderId: string): Promise<void>;
  orderByClientId(clientOrderId: string): Promise<BrokerOrder | undefined>;
  openOrders(): Promise<BrokerOrder[]>;
  /** Opens the order-update stream (reconnecting with backoff until closed). */
  updates(listener: UpdateListener): UpdateStream;
}

/** What connecting an account needs: the keys and which environment. */
export interface BrokerCredentials {
  keyId: string;
  secretKey: string;
  live: boolean;
}
