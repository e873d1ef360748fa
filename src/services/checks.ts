import type { components } from '../../generated/api.js';
import type { Quote } from './market-data.js';
import { D, dec, roundMoney, type Dec } from './money.js';

type Policy = components['schemas']['Policy'];
export type FailedCheck = components['schemas']['FailedCheck'];

export interface ProposedTrade {
  market: string;
  symbol: string;
  side: 'buy' | 'sell';
  quantity: Dec;
  order_type: 'market' | 'limit';
  limit_price: Dec | null;
}

export interface AccountState {
  cash: Dec;
  /** What the broker lets the account spend on a buy, when a connected broker states it; else cash. */
  buyingPower?: Dec;
  /** Quantity held per symbol. */
  held: Map<string, Dec>;
  /** Total account value at current prices. */
  totalValue: Dec;
  /** Notional already filled today (UTC). */
  tradedToday: Dec;
}

/** System pre-trade limits (in the spirit of SEC Rule 15c3-5), independent of any policy. */
export const RISK_LIMITS = {
  /** A limit price further than this from the last price is treated as erroneous. */
  priceCollar: 0.1,
  maxQuantity: new D(1_000_000),
  maxNotional: new D(10_000_000),
  /** The same symbol, side and quantity already submitted within this window is a duplicate. */
  duplicateWindowMs: 60_000,
  /** A price older than this is stale. */
  maxPriceAgeMs: 15 * 60_000,
} as const;

/** The notional an order can cost at most: its limit for a buy limit, else the last price. */
export function worstCaseNotional(trade: ProposedTrade, price: Dec): Dec {
  const unit = trade.side === 'buy' && trade.limit_price ? D.max(trade.limit_price, price) : price;
  return roundMoney(trade.quantity.times(unit));
}

const money = (value: Dec) => value.toFixed(2);

/** A sell of no more than the account holds: it reduces or closes a position, and so reduces risk. */
export function reducesPosition(trade: ProposedTrade, account: AccountState): boolean {
  return trade.side === 'sell' && trade.quantity.lessThanOrEqualTo(account.held.get(trade.symbol) ?? new D(0));
}

/**
 * The order against the account's current policy. Every failing rule is reported, not just the first. What may be
 * traded (markets, allowed and blocked symbols) restricts buying only: a sell that reduces or closes a position
 * always passes those rules, so no policy can trap a holding. Its notional limits apply to every order.
 */
export function policyCheck(trade: ProposedTrade, quote: Quote, policy: Policy, account: AccountState): FailedCheck[] {
  const { limits } = policy;
  const failed: FailedCheck[] = [];
  const notional = worstCaseNotional(trade, quote.price);
  const restricted = !reducesPosition(trade, account);
  if (restricted && !limits.allowed_markets.includes(trade.market)) {
    failed.push({
      check: 'policy.market',
      message: `Market ${trade.market} is not among the policy's allowed markets (${limits.allowed_markets.join(', ')}).`,
    });
  }
  if (restricted && limits.allowed_symbols && !limits.allowed_symbols.includes(trade.symbol)) {
    failed.push({ check: 'policy.symbol_allowed', message: `${trade.symbol} is not among the policy's allowed symbols.` });
  }
  if (restricted && limits.blocked_symbols?.includes(trade.symbol)) {
    failed.push({ check: 'policy.symbol_blocked', message: `${trade.symbol} is blocked by the policy.` });
  }
  if (notional.greaterThan(limits.max_order_notional)) {
    failed.push({
      check: 'policy.max_order_notional',
      message: `Order notional ${money(notional)} exceeds the policy's maximum of ${money(dec(limits.max_order_notional))}.`,
    });
  }
  if (trade.side === 'buy') {
    const held = account.held.get(trade.symbol) ?? new D(0);
    const after = held.plus(trade.quantity).times(quote.price);
    const weight = account.totalValue.isZero() ? new D(1) : after.dividedBy(account.totalValue);
    if (weight.greaterThan(limits.max_position_weight)) {
      failed.push({
        check: 'policy.max_position_weight',
        message:
          `${trade.symbol} would be ${weight.times(100).toFixed(2)} % of the account, ` +
          `above the policy's ${dec(limits.max_position_weight).times(100).toFixed(2)} %.`,
      });
    }
  }
  const dayTotal = account.tradedToday.plus(notional);
  if (dayTotal.greaterThan(limits.max_daily_notional)) {
    failed.push({
      check: 'policy.max_daily_notional',
      message: `Today's traded notional would be ${money(dayTotal)}, above the policy's daily maximum of ${money(dec(limits.max_daily_notional))}.`,
    });
  }
  return failed;
}

/** System pre-trade controls evaluated at approval, against a fresh price. */
export function riskGate(trade: ProposedTrade, quote: Quote, account: AccountState, now: Date, recentDuplicate: boolean): FailedCheck[] {
  const failed: FailedCheck[] = [];
  const notional = worstCaseNotional(trade, quote.price);
  const spendable = account.buyingPower ?? account.cash;
  if (trade.side === 'buy' && notional.greaterThan(spendable)) {
    failed.push({
      check: 'risk.buying_power',
      message: account.buyingPower
        ? `Buying needs up to ${money(notional)} but the broker states ${money(spendable)} of buying power.`
        : `Buying needs up to ${money(notional)} but the account has ${money(account.cash)} in cash.`,
    });
  }
  if (trade.side === 'sell') {
    const held = account.held.get(trade.symbol) ?? new D(0);
    if (trade.quantity.greaterThan(held)) {
      failed.push({
        check: 'risk.position',
        message: `Selling ${trade.quantity.toFixed()} ${trade.symbol} but the account holds ${held.toFixed()}; short selling is not allowed.`,
      });
    }
  }
  if (trade.limit_price) {
    const deviation = trade.limit_price.minus(quote.price).abs().dividedBy(quote.price);
    if (deviation.greaterThan(RISK_LIMITS.priceCollar)) {
      failed.push({
        check: 'risk.price_collar',
        message:
          `Limit ${trade.limit_price.toFixed(2)} is ${deviation.times(100).toFixed(1)} % from the last price ${quote.price.toFixed(2)} ` +
          `(collar ${RISK_LIMITS.priceCollar * 100} %).`,
      });
    }
  }
  if (trade.quantity.greaterThan(RISK_LIMITS.maxQuantity) || notional.greaterThan(RISK_LIMITS.maxNotional)) {
    failed.push({
      check: 'risk.max_quantity',
      message: `Orders are limited to ${RISK_LIMITS.maxQuantity.toFixed()} shares and ${money(RISK_LIMITS.maxNotional)} notional.`,
    });
  }
  if (recentDuplicate) {
    failed.push({
      check: 'risk.duplicate_order',
      message:
        `An identical ${trade.side} of ${trade.quantity.toFixed()} ${trade.symbol} ` +
        `was submitted in the last ${RISK_LIMITS.duplicateWindowMs / 1000} seconds.`,
    });
  }
  const age = now.getTime() - quote.as_of.getTime();
  if (age > RISK_LIMITS.maxPriceAgeMs) {
    failed.push({ check: 'risk.stale_price', message: `The last price of ${trade.symbol} is ${Math.round(age / 60_000)} minutes old.` });
  }
  return failed;
}
