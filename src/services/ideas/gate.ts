import type { components } from '../../../generated/api.js';
import { policyCheck, worstCaseNotional, type AccountState, type FailedCheck, type ProposedTrade } from '../checks.js';
import type { Quote } from '../market-data.js';
import { D, dec, roundMoney, roundQuantity, type Dec } from '../money.js';
import { CASH_BUFFER, DUST, percent, usd } from './allocation.js';

type Policy = components['schemas']['Policy'];

/** The trades that passed the policy check, and what happened to the others (for the rationale). */
export interface Gated {
  trades: ProposedTrade[];
  notes: string[];
}

/** Failures a smaller buy can cure; anything else drops the trade. */
const SHRINKABLE = new Set(['policy.max_order_notional', 'policy.max_position_weight']);

export const describe = (t: ProposedTrade) => `${t.side} ${t.quantity.toFixed()} ${t.symbol}${t.limit_price ? ` limit ${t.limit_price.toFixed(2)}` : ''}`;

/** The largest quantity of a buy that fits the policy's order-notional and position-weight limits. */
function fittingQuantity(trade: ProposedTrade, price: Dec, policy: Policy, state: AccountState): Dec {
  const unit = trade.limit_price ? D.max(trade.limit_price, price) : price;
  const byNotional = dec(policy.limits.max_order_notional).dividedBy(unit);
  const held = state.held.get(trade.symbol) ?? new D(0);
  const byWeight = dec(policy.limits.max_position_weight).times(state.totalValue).dividedBy(price).minus(held);
  return roundQuantity(D.max(0, D.min(trade.quantity, byNotional, byWeight)));
}

/**
 * Runs every trade through the policy check before it may be proposed, sells first so their proceeds fund the
 * buys. Buys are cut to the cash left (less the buffer) and, when only the order-notional or position-weight
 * limit fails, to the largest quantity within it; the idea as a whole stays within the daily notional limit.
 */
export function gate(state: AccountState, quoteOf: (symbol: string) => Quote, policy: Policy, candidates: ProposedTrade[]): Gated {
  let cash = state.cash;
  let dayNotional = state.tradedToday;
  const trades: ProposedTrade[] = [];
  const notes: string[] = [];
  const drop = (trade: ProposedTrade, why: string) => notes.push(`Dropped ${describe(trade)}: ${why}`);

  const ordered = [...candidates.filter((t) => t.side === 'sell'), ...candidates.filter((t) => t.side === 'buy')];
  for (const candidate of ordered) {
    const quote = quoteOf(candidate.symbol);
    const price = quote.price;
    let trade = candidate;
    if (trade.side === 'sell') {
      const held = state.held.get(trade.symbol) ?? new D(0);
      if (trade.quantity.greaterThan(held)) {
        drop(trade, `the account holds ${held.toFixed()} ${trade.symbol} and does not sell short.`);
        continue;
      }
    } else if (worstCaseNotional(trade, price).greaterThan(cash)) {
      const unit = trade.limit_price ? D.max(trade.limit_price, price) : price;
      const spendable = roundMoney(D.max(0, cash).times(dec(1).minus(CASH_BUFFER)));
      trade = { ...trade, quantity: roundQuantity(spendable.dividedBy(unit)) };
      notes.push(`Reduced ${describe(candidate)} to ${trade.quantity.toFixed()} to fit the ${usd(spendable)} of cash available after the sells, less ${percent(CASH_BUFFER)}.`);
    }

    let failed: FailedCheck[] = trade.quantity.isZero() ? [] : policyCheck(trade, quote, policy, state);
    if (trade.side === 'buy' && failed.length > 0 && failed.every((f) => SHRINKABLE.has(f.check))) {
      const quantity = fittingQuantity(trade, price, policy, state);
      if (quantity.greaterThan(0)) {
        notes.push(`Reduced ${describe(trade)} to ${quantity.toFixed()} to fit ${failed.map((f) => f.check).join(' and ')}.`);
        trade = { ...trade, quantity };
        failed = policyCheck(trade, quote, policy, state);
      }
    }

    const notional = worstCaseNotional(trade, price);
    if (notional.lessThan(DUST)) {
      drop(candidate, `below ${usd(DUST)} after the limits.`);
      continue;
    }
    if (failed.length === 0 && dayNotional.plus(notional).greaterThan(policy.limits.max_daily_notional)) {
      failed.push({ check: 'policy.max_daily_notional', message: `Together with the idea's other orders, today's notional would exceed ${usd(dec(policy.limits.max_daily_notional))}.` });
    }
    if (failed.length > 0) {
      drop(trade, failed.map((f) => `${f.check}: ${f.message}`).join(' '));
      continue;
    }
    trades.push(trade);
    dayNotional = dayNotional.plus(notional);
    cash = trade.side === 'sell' ? cash.plus(notional) : cash.minus(notional);
  }
  return { trades, notes };
}
