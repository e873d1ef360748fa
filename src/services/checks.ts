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

/** One rule's verdict on an order: what a preview shows for each check; an approval reports the failed ones. */
export interface CheckResult {
  check: string;
  passed: boolean;
  message: string;
}

export const failedOf = (results: CheckResult[]): FailedCheck[] =>
  results.filter((r) => !r.passed).map(({ check, message }) => ({ check, message }));

const percent = (fraction: Dec) => `${fraction.times(100).toFixed(2)} %`;

/**
 * The order against the account's current policy, rule by rule. What may be traded (markets, allowed and blocked
 * symbols) restricts buying only: a sell that reduces or closes a position always passes those rules, so no policy can
 * trap a holding. Its notional limits apply to every order; the weight limit to buys.
 */
export function policyChecks(trade: ProposedTrade, quote: Quote, policy: Policy, account: AccountState): CheckResult[] {
  const { limits } = policy;
  const results: CheckResult[] = [];
  const notional = worstCaseNotional(trade, quote.price);
  const restricted = !reducesPosition(trade, account);
  const reducing = 'A sell that reduces a position is not held to it.';
  const marketAllowed = limits.allowed_markets.includes(trade.market);
  results.push({
    check: 'policy.market',
    passed: !restricted || marketAllowed,
    message: marketAllowed
      ? `Market ${trade.market} is among the policy's allowed markets.`
      : `Market ${trade.market} is not among the policy's allowed markets (${limits.allowed_markets.join(', ')}).${restricted ? '' : ` ${reducing}`}`,
  });
  const symbolAllowed = !limits.allowed_symbols || limits.allowed_symbols.includes(trade.symbol);
  results.push({
    check: 'policy.symbol_allowed',
    passed: !restricted || symbolAllowed,
    message: !limits.allowed_symbols
      ? 'The policy allows any listed symbol.'
      : symbolAllowed
        ? `${trade.symbol} is among the policy's allowed symbols.`
        : `${trade.symbol} is not among the policy's allowed symbols.${restricted ? '' : ` ${reducing}`}`,
  });
  const blocked = limits.blocked_symbols?.includes(trade.symbol) ?? false;
  results.push({
    check: 'policy.symbol_blocked',
    passed: !restricted || !blocked,
    message: blocked
      ? `${trade.symbol} is blocked by the policy.${restricted ? '' : ` ${reducing}`}`
      : `${trade.symbol} is not blocked by the policy.`,
  });
  const maxNotional = dec(limits.max_order_notional);
  results.push({
    check: 'policy.max_order_notional',
    passed: !notional.greaterThan(maxNotional),
    message: notional.greaterThan(maxNotional)
      ? `Order notional ${money(notional)} exceeds the policy's maximum of ${money(maxNotional)}.`
      : `Order notional ${money(notional)} is within the policy's maximum of ${money(maxNotional)}.`,
  });
  if (trade.side === 'buy') {
    const weight = weightAfter(trade, quote, account);
    const maxWeight = dec(limits.max_position_weight);
    const over = weight.greaterThan(maxWeight);
    results.push({
      check: 'policy.max_position_weight',
      passed: !over,
      message: `${trade.symbol} would be ${percent(weight)} of the account, ${over ? 'above' : 'within'} the policy's ${percent(maxWeight)}.`,
    });
  }
  const dayTotal = account.tradedToday.plus(notional);
  const maxDaily = dec(limits.max_daily_notional);
  const overDaily = dayTotal.greaterThan(maxDaily);
  results.push({
    check: 'policy.max_daily_notional',
    passed: !overDaily,
    message: `Today's traded notional would be ${money(dayTotal)}, ${overDaily ? 'above' : 'within'} the policy's daily maximum of ${money(maxDaily)}.`,
  });
  return results;
}

/** The failed rules of policyChecks: what an approval refuses on. */
export function policyCheck(trade: ProposedTrade, quote: Quote, policy: Policy, account: AccountState): FailedCheck[] {
  return failedOf(policyChecks(trade, quote, policy, account));
}

/** The symbol's weight in the account's value after a buy fills at the quote (1 for an account worth nothing). */
export function weightAfter(trade: ProposedTrade, quote: Quote, account: AccountState): Dec {
  const held = account.held.get(trade.symbol) ?? new D(0);
  const after = held.plus(trade.quantity).times(quote.price);
  return account.totalValue.isZero() ? new D(1) : after.dividedBy(account.totalValue);
}

/** System pre-trade controls evaluated at approval, against a fresh price, rule by rule. */
export function riskChecks(trade: ProposedTrade, quote: Quote, account: AccountState, now: Date, recentDuplicate: boolean): CheckResult[] {
  const results: CheckResult[] = [];
  const notional = worstCaseNotional(trade, quote.price);
  if (trade.side === 'buy') {
    const spendable = account.buyingPower ?? account.cash;
    const has = account.buyingPower
      ? `the broker states ${money(spendable)} of buying power`
      : `the account has ${money(account.cash)} in cash`;
    const short = notional.greaterThan(spendable);
    results.push({
      check: 'risk.buying_power',
      passed: !short,
      message: `Buying needs up to ${money(notional)} ${short ? 'but' : 'and'} ${has}.`,
    });
  } else {
    const held = account.held.get(trade.symbol) ?? new D(0);
    const short = trade.quantity.greaterThan(held);
    results.push({
      check: 'risk.position',
      passed: !short,
      message: short
        ? `Selling ${trade.quantity.toFixed()} ${trade.symbol} but the account holds ${held.toFixed()}; short selling is not allowed.`
        : `Selling ${trade.quantity.toFixed()} ${trade.symbol} of the ${held.toFixed()} the account holds.`,
    });
  }
  if (trade.limit_price) {
    const deviation = trade.limit_price.minus(quote.price).abs().dividedBy(quote.price);
    const outside = deviation.greaterThan(RISK_LIMITS.priceCollar);
    results.push({
      check: 'risk.price_collar',
      passed: !outside,
      message:
        `Limit ${trade.limit_price.toFixed(2)} is ${deviation.times(100).toFixed(1)} % from the last price ${quote.price.toFixed(2)} ` +
        `(collar ${RISK_LIMITS.priceCollar * 100} %).`,
    });
  }
  const tooLarge = trade.quantity.greaterThan(RISK_LIMITS.maxQuantity) || notional.greaterThan(RISK_LIMITS.maxNotional);
  results.push({
    check: 'risk.max_quantity',
    passed: !tooLarge,
    message: `Orders are limited to ${RISK_LIMITS.maxQuantity.toFixed()} shares and ${money(RISK_LIMITS.maxNotional)} notional.`,
  });
  results.push({
    check: 'risk.duplicate_order',
    passed: !recentDuplicate,
    message: recentDuplicate
      ? `An identical ${trade.side} of ${trade.quantity.toFixed()} ${trade.symbol} ` +
        `was submitted in the last ${RISK_LIMITS.duplicateWindowMs / 1000} seconds.`
      : `No identical order was submitted in the last ${RISK_LIMITS.duplicateWindowMs / 1000} seconds.`,
  });
  const age = now.getTime() - quote.as_of.getTime();
  const stale = age > RISK_LIMITS.maxPriceAgeMs;
  const allowed = stale ? '' : ` (at most ${RISK_LIMITS.maxPriceAgeMs / 60_000} allowed)`;
  results.push({
    check: 'risk.stale_price',
    passed: !stale,
    message: `The last price of ${trade.symbol} is ${Math.round(age / 60_000)} minutes old${allowed}.`,
  });
  return results;
}

/** The failed rules of riskChecks: what an approval blocks on. */
export function riskGate(trade: ProposedTrade, quote: Quote, account: AccountState, now: Date, recentDuplicate: boolean): FailedCheck[] {
  return failedOf(riskChecks(trade, quote, account, now, recentDuplicate));
}
