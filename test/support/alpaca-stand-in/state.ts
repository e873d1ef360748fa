import { Decimal } from 'decimal.js';

/** What the stand-in holds: accounts, their orders, prices and the market clock, in exact decimals. */
export const D = Decimal.clone({ precision: 40 });
export type Dec = InstanceType<typeof D>;

export interface PositionState {
  assetId: string;
  /** Signed: negative for a short position. */
  qty: Dec;
  avgEntryPrice: Dec;
}

export interface AccountState {
  keyId: string;
  secretKey: string;
  id: string;
  accountNumber: string;
  cash: Dec;
  /** Buying power before what open buy orders hold back. */
  buyingPower: Dec;
  /** Equity at the previous close: the equity the account was added with. */
  lastEquity: Dec;
  tradingBlocked: boolean;
  createdAt: Date;
  positions: Map<string, PositionState>;
}

/** Alpaca's order statuses the stand-in moves through. */
export type OrderStatus = 'pending_new' | 'accepted' | 'new' | 'partially_filled' | 'filled' | 'canceled' | 'expired' | 'rejected';

export interface OrderState {
  keyId: string;
  id: string;
  clientOrderId: string;
  symbol: string;
  assetId: string;
  side: 'buy' | 'sell';
  type: 'market' | 'limit';
  timeInForce: 'day' | 'gtc';
  qty: Dec;
  limitPrice: Dec | null;
  /** The price buying power is held back at for an open buy: the limit, or the latest price when it was placed. */
  holdPrice: Dec;
  status: OrderStatus;
  filledQty: Dec;
  filledAvgPrice: Dec | null;
  createdAt: Date;
  updatedAt: Date;
  submittedAt: Date;
  filledAt: Date | null;
  canceledAt: Date | null;
  expiredAt: Date | null;
  failedAt: Date | null;
  expiresAt: Date;
}

export interface Quote {
  price: Dec;
  at: Date;
  /** The trade's id, as the exchange numbers it (the `i` of a trade). */
  id: number;
}

export interface ClockState {
  isOpen: boolean;
  nextOpen: Date;
  nextClose: Date;
}

/** What a new order does when it reaches the market (at once when the market is open, else when it opens). */
export type SubmitOutcome = 'fill' | 'partial' | 'rest' | 'reject';

/** One `trade_updates` event: what happened to the order, the order after it, and the execution of a fill. */
export interface BrokerEvent {
  keyId: string;
  event: string;
  order: OrderState;
  at: Date;
  execution?: { id: string; qty: Dec; price: Dec; positionQty: Dec };
}

export interface AccountSpec {
  keyId: string;
  secretKey: string;
  cash: string;
  /** Defaults to the cash (a cash account). */
  buyingPower?: string;
  positions?: { symbol: string; qty: string; avgEntryPrice: string }[];
  tradingBlocked?: boolean;
}

/** Still working at the broker: can fill, be canceled or expire. */
export const OPEN_STATUSES: ReadonlySet<OrderStatus> = new Set(['pending_new', 'accepted', 'new', 'partially_filled']);

/** A refusal as Alpaca answers it: the HTTP status and its `{ code, message }` body. */
export class AlpacaRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export const refuse = {
  unauthorized: () => new AlpacaRefusal(401, 40110000, 'request is not authorized'),
  invalid: (message: string) => new AlpacaRefusal(422, 40010001, message),
  duplicateClientOrderId: () => new AlpacaRefusal(422, 40010001, 'client_order_id must be unique'),
  forbidden: (message: string) => new AlpacaRefusal(403, 40310000, message),
  notFound: (message: string) => new AlpacaRefusal(404, 40410000, message),
  unprocessable: (message: string) => new AlpacaRefusal(422, 42210000, message),
};

/** A decimal as Alpaca writes it in JSON: a plain string, never in exponent notation. */
export function decimalString(value: Dec, places?: number): string {
  return places === undefined ? value.toFixed() : value.toDecimalPlaces(places).toFixed();
}

/** A quantity or price as Alpaca takes it: a decimal string (or, leniently, a JSON number), greater than zero. */
export function decimalInput(value: unknown, field: string): Dec {
  if ((typeof value !== 'string' && typeof value !== 'number') || !/^\d+(\.\d+)?$/.test(String(value)) || new D(value).lte(0)) {
    throw refuse.invalid(`${field} must be a positive decimal`);
  }
  return new D(value);
}
