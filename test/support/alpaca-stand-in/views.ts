import type { Broker } from './broker.js';
import { type AccountState, type BrokerEvent, D, decimalString, type OrderState, type PositionState, type Quote } from './state.js';

/**
 * The stand-in's answers, in the shapes of Alpaca's documents (test/fixtures/alpaca/): `Account`, `Position`, `Order`,
 * `legacy_clock`, `clock_resp` and `stock_trade`. Decimals are strings, as the trading document types them; a trade's
 * price and size are numbers, as the market-data document types them.
 */
const iso = (date: Date) => date.toISOString();
const isoOrNull = (date: Date | null) => (date ? date.toISOString() : null);

export function accountView(broker: Broker, account: AccountState): Record<string, unknown> {
  let longValue = new D(0);
  let shortValue = new D(0);
  for (const [symbol, p] of account.positions) {
    const value = p.qty.times(broker.markPrice(symbol, p.avgEntryPrice));
    if (p.qty.isNeg()) shortValue = shortValue.plus(value);
    else longValue = longValue.plus(value);
  }
  const equity = broker.equity(account);
  const buyingPower = decimalString(broker.availableBuyingPower(account));
  return {
    id: account.id,
    account_number: account.accountNumber,
    status: 'ACTIVE',
    crypto_status: 'ACTIVE',
    currency: 'USD',
    cash: decimalString(account.cash),
    buying_power: buyingPower,
    regt_buying_power: buyingPower,
    non_marginable_buying_power: decimalString(account.cash),
    options_buying_power: decimalString(account.cash),
    daytrading_buying_power: '0',
    equity: decimalString(equity),
    last_equity: decimalString(account.lastEquity),
    portfolio_value: decimalString(equity),
    long_market_value: decimalString(longValue),
    short_market_value: decimalString(shortValue),
    multiplier: account.cash.isZero() ? '1' : decimalString(account.buyingPower.div(account.cash), 0),
    initial_margin: '0',
    maintenance_margin: '0',
    last_maintenance_margin: '0',
    sma: '0',
    accrued_fees: '0',
    intraday_adjustments: '0',
    pending_reg_taf_fees: '0',
    pending_transfer_in: '0',
    daytrade_count: 0,
    pattern_day_trader: false,
    shorting_enabled: false,
    trading_blocked: account.tradingBlocked,
    account_blocked: false,
    transfers_blocked: false,
    trade_suspended_by_user: false,
    created_at: iso(account.createdAt),
    balance_asof: iso(account.createdAt).slice(0, 10),
  };
}

export function positionView(broker: Broker, account: AccountState, symbol: string, position: PositionState): Record<string, unknown> {
  const price = broker.markPrice(symbol, position.avgEntryPrice);
  const marketValue = position.qty.times(price);
  const costBasis = position.qty.times(position.avgEntryPrice);
  const unrealized = marketValue.minus(costBasis);
  const unrealizedPercent = costBasis.isZero() ? new D(0) : unrealized.div(costBasis.abs());
  return {
    asset_id: position.assetId,
    symbol,
    exchange: 'NASDAQ',
    asset_class: 'us_equity',
    asset_marginable: true,
    qty: decimalString(position.qty),
    qty_available: decimalString(broker.availableQty(account, symbol)),
    side: position.qty.isNeg() ? 'short' : 'long',
    avg_entry_price: decimalString(position.avgEntryPrice, 10),
    market_value: decimalString(marketValue),
    cost_basis: decimalString(costBasis, 10),
    unrealized_pl: decimalString(unrealized, 10),
    unrealized_plpc: decimalString(unrealizedPercent, 10),
    // The stand-in has no previous close: the latest price stands for it, so the day's change is nil.
    unrealized_intraday_pl: '0',
    unrealized_intraday_plpc: '0',
    current_price: decimalString(price),
    lastday_price: decimalString(price),
    change_today: '0',
  };
}

export function orderView(order: OrderState): Record<string, unknown> {
  return {
    id: order.id,
    client_order_id: order.clientOrderId,
    created_at: iso(order.createdAt),
    updated_at: iso(order.updatedAt),
    submitted_at: iso(order.submittedAt),
    filled_at: isoOrNull(order.filledAt),
    expired_at: isoOrNull(order.expiredAt),
    expires_at: iso(order.expiresAt),
    canceled_at: isoOrNull(order.canceledAt),
    failed_at: isoOrNull(order.failedAt),
    replaced_at: null,
    replaced_by: null,
    replaces: null,
    asset_id: order.assetId,
    symbol: order.symbol,
    asset_class: 'us_equity',
    notional: null,
    qty: decimalString(order.qty),
    filled_qty: decimalString(order.filledQty),
    filled_avg_price: order.filledAvgPrice ? decimalString(order.filledAvgPrice, 10) : null,
    order_class: 'simple',
    order_type: order.type,
    type: order.type,
    side: order.side,
    position_intent: order.side === 'buy' ? 'buy_to_open' : 'sell_to_close',
    time_in_force: order.timeInForce,
    limit_price: order.limitPrice ? decimalString(order.limitPrice) : null,
    stop_price: null,
    status: order.status,
    extended_hours: false,
    legs: null,
    trail_percent: null,
    trail_price: null,
    hwm: null,
  };
}

/** A `trade_updates` message's data: the event, the order as the REST API shows it, and for a fill its execution. */
export function updateView(update: BrokerEvent): Record<string, unknown> {
  const execution = update.execution && {
    execution_id: update.execution.id,
    price: decimalString(update.execution.price),
    qty: decimalString(update.execution.qty),
    position_qty: decimalString(update.execution.positionQty),
  };
  return { event: update.event, timestamp: iso(update.at), order: orderView(update.order), ...execution };
}

export function legacyClockView(broker: Broker, now = new Date()): Record<string, unknown> {
  const { isOpen, nextOpen, nextClose } = broker.clock;
  return { timestamp: iso(now), is_open: isOpen, next_open: iso(nextOpen), next_close: iso(nextClose) };
}

/** `GET /v3/clock`: the stand-in keeps one clock, the New York Stock Exchange's. */
export function clockView(broker: Broker, now = new Date()): Record<string, unknown> {
  const { isOpen, nextOpen, nextClose } = broker.clock;
  const market = { acronym: 'NYSE', mic: 'XNYS', name: 'New York Stock Exchange', timezone: 'America/New_York' };
  return {
    clocks: [
      {
        market,
        timestamp: iso(now),
        is_market_day: true,
        next_market_open: iso(nextOpen),
        next_market_close: iso(nextClose),
        phase: isOpen ? 'core' : 'closed',
        phase_until: iso(isOpen ? nextClose : nextOpen),
      },
    ],
  };
}

export function tradeView(quote: Quote): Record<string, unknown> {
  return { t: iso(quote.at), x: 'V', p: quote.price.toNumber(), s: 100, c: ['@'], i: quote.id, z: 'C' };
}
