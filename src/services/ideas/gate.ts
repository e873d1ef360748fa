import type { components } from '../../../generated/api.js';
import { policyCheck, worstCaseNotional, type AccountState, type ProposedTrade } from '../checks.js';
import type { Quote } from '../market-data.js';
import { D, dec, roundMoney, roundQuantity, type Dec } from '../money.js';
import { CASH_BUFFER, DUST, percent, usd } from './allocation.js';

type Policy = components['schemas']['Policy'];

/** The trades that passed the policy check, and what happened to the others (for the rationale). */
export interface Gated {
  trades: ProposedTrade[];
  notes: string[];
}

/** More orders than this in one idea are not proposed (a note says so). */
export const MAX_ORDERS_PER_IDEA = 50;

export const describe = (t: ProposedTrade) =>
  `${t.side} ${t.quantity.toFixed()} ${t.symbol}${t.limit_price ? ` limit ${t.limit_price.toFixed(2)}` : ''}`;

/** The price an order is checked at: the worse of its limit and the last price for a buy, the last price otherwise. */
const unitOf = (trade: ProposedTrade, price: Dec) => (trade.side === 'buy' && trade.limit_price ? D.max(trade.limit_price, price) : price);

/**
 * `trade` in the fewest equal orders of at most `max` notional each (the last one holds the rounding's rest). Equal
 * parts rather than full ones and a remainder: another idea's split of a different amount then rarely repeats a
 * part's quantity, which the risk gate would refuse as a duplicate of an order submitted within its window.
 */
function split(trade: ProposedTrade, unit: Dec, max: Dec): ProposedTrade[] {
  const perOrder = roundQuantity(max.dividedBy(unit));
  if (perOrder.lessThanOrEqualTo(0) || trade.quantity.lessThanOrEqualTo(perOrder)) return [trade];
  // Rounding each part down leaves the last a little larger; one more part when that would pass `max` (at most twice).
  for (let parts = trade.quantity.dividedBy(perOrder).ceil().toNumber(); ; parts++) {
    const each = roundQuantity(trade.quantity.dividedBy(parts));
    const last = trade.quantity.minus(each.times(parts - 1));
    if (last.lessThanOrEqualTo(perOrder))
      return [...Array.from({ length: parts - 1 }, () => ({ ...trade, quantity: each })), { ...trade, quantity: last }];
  }
}

/**
 * Fits an engine's trades to the policy before they may be proposed, sells first so their proceeds fund the buys,
 * tracking the account as the idea's earlier orders would leave it:
 * - a sell never exceeds the holding (no short selling); one that reduces a holding is never refused for its
 *   symbol or market — selling to reduce risk stays possible whatever the policy now allows;
 * - a buy is cut to the cash left (less the buffer) and to the position-weight limit;
 * - both are cut to what the daily notional limit leaves, and split into orders within `max_order_notional`;
 * - what still fails the policy check (a buy of a symbol the policy does not allow) is dropped.
 * Every cut, split and drop is a note.
 */
export function gate(state: AccountState, quoteOf: (symbol: string) => Quote, policy: Policy, candidates: ProposedTrade[]): Gated {
  const { limits } = policy;
  const maxOrder = dec(limits.max_order_notional);
  const held = new Map(state.held);
  let cash = state.cash;
  let tradedToday = state.tradedToday;
  const trades: ProposedTrade[] = [];
  const notes: string[] = [];
  const drop = (trade: ProposedTrade, why: string) => notes.push(`Dropped ${describe(trade)}: ${why}`);
  const cut = (from: ProposedTrade, to: Dec, why: string) => notes.push(`Reduced ${describe(from)} to ${to.toFixed()} to fit ${why}.`);

  const ordered = [...candidates.filter((t) => t.side === 'sell'), ...candidates.filter((t) => t.side === 'buy')];
  for (const candidate of ordered) {
    const quote = quoteOf(candidate.symbol);
    const unit = unitOf(candidate, quote.price);
    const holding = held.get(candidate.symbol) ?? new D(0);
    let trade = candidate;
    let nothingLeft: string | undefined;
    const shrink = (quantity: Dec, why: string) => {
      if (nothingLeft || quantity.greaterThanOrEqualTo(trade.quantity)) return;
      if (quantity.isZero()) nothingLeft = why;
      else cut(trade, quantity, why);
      trade = { ...trade, quantity };
    };

    if (trade.side === 'sell') {
      if (trade.quantity.greaterThan(holding)) {
        drop(trade, `the account holds ${holding.toFixed()} ${trade.symbol} and does not sell short.`);
        continue;
      }
    } else {
      const spendable = roundMoney(D.max(0, cash).times(dec(1).minus(CASH_BUFFER)));
      shrink(
        roundQuantity(spendable.dividedBy(unit)),
        `the ${usd(spendable)} of cash available after the sells, less ${percent(CASH_BUFFER)}`,
      );
      const byWeight = dec(limits.max_position_weight).times(state.totalValue).dividedBy(quote.price).minus(holding);
      shrink(roundQuantity(D.max(0, byWeight)), `policy.max_position_weight (${percent(dec(limits.max_position_weight))})`);
    }
    const dayLeft = D.max(0, dec(limits.max_daily_notional).minus(tradedToday));
    shrink(roundQuantity(dayLeft.dividedBy(unit)), `policy.max_daily_notional (${usd(dayLeft)} left today)`);

    if (nothingLeft) {
      drop(candidate, `nothing of it fits ${nothingLeft}.`);
      continue;
    }
    if (roundMoney(trade.quantity.times(unit)).lessThan(DUST)) {
      drop(candidate, `below ${usd(DUST)} after the limits.`);
      continue;
    }
    const orders = split(trade, unit, maxOrder);
    if (orders.length > 1)
      notes.push(`Split ${describe(trade)} into ${orders.length} orders within policy.max_order_notional (${usd(maxOrder)} each).`);
    const failed = policyCheck(orders[0]!, quote, policy, { ...state, cash, held, tradedToday });
    if (failed.length > 0) {
      drop(trade, failed.map((f) => `${f.check}: ${f.message}`).join(' '));
      continue;
    }
    if (trades.length + orders.length > MAX_ORDERS_PER_IDEA) {
      drop(trade, `an idea holds at most ${MAX_ORDERS_PER_IDEA} orders.`);
      continue;
    }
    for (const order of orders) {
      const notional = worstCaseNotional(order, quote.price);
      trades.push(order);
      tradedToday = tradedToday.plus(notional);
      cash = order.side === 'sell' ? cash.plus(notional) : cash.minus(notional);
      held.set(
        order.symbol,
        order.side === 'sell'
          ? (held.get(order.symbol) ?? new D(0)).minus(order.quantity)
          : (held.get(order.symbol) ?? new D(0)).plus(order.quantity),
      );
    }
  }
  return { trades, notes };
}
