import type { components } from '../../../generated/api.js';
import type { AccountState, ProposedTrade } from '../checks.js';
import { D, dec, roundMoney, roundQuantity, type Dec } from '../money.js';

type Policy = components['schemas']['Policy'];

/** What an engine proposes before the policy check decides which trades survive. */
export interface Proposal {
  rationale: string;
  trades: ProposedTrade[];
}

export type PriceOf = (symbol: string) => Dec;

/** Cash kept back when buying, so price moves before approval do not fail the buying-power check. */
export const CASH_BUFFER = dec('0.005');
/** Trades below this notional (USD) are not worth an order. */
export const DUST = dec(1);
const ONE_LESS_BUFFER = dec(1).minus(CASH_BUFFER);

export const percent = (weight: Dec) => `${weight.times(100).toFixed(1)} %`;
export const usd = (amount: Dec) => `${amount.toFixed(2)} USD`;

function marketOrder(market: string, symbol: string, side: 'buy' | 'sell', quantity: Dec): ProposedTrade {
  return { market, symbol, side, quantity, order_type: 'market', limit_price: null };
}

const notDust = (priceOf: PriceOf) => (trade: ProposedTrade) =>
  roundMoney(trade.quantity.times(priceOf(trade.symbol))).greaterThanOrEqualTo(DUST);

/** Whether the policy still allows buying `symbol` (holdings it no longer allows are sold, whatever their weight). */
function allowed(policy: Policy, symbol: string): boolean {
  const { allowed_symbols: allowedSymbols, blocked_symbols: blocked } = policy.limits;
  return !(blocked ?? []).includes(symbol) && (!allowedSymbols || allowedSymbols.includes(symbol));
}

/**
 * Restores the target allocation for every symbol whose weight is outside the policy's band; held symbols
 * outside the target have weight 0, and holdings the policy no longer allows are sold whole even inside the band.
 * Sells come first; buys share the cash there will be after them.
 */
export function rebalance(state: AccountState, priceOf: PriceOf, policy: Policy, market: string): Proposal | null {
  const total = state.totalValue;
  if (total.lessThanOrEqualTo(0)) return null;
  const band = dec(policy.rebalance_band);
  const targets = new Map(policy.target_allocation.map((t) => [t.symbol, dec(t.weight)]));
  const symbols = [...new Set([...targets.keys(), ...state.held.keys()])];

  const drifts: string[] = [];
  const disallowed: string[] = [];
  const sells: ProposedTrade[] = [];
  const buys: { symbol: string; value: Dec }[] = [];
  for (const symbol of symbols) {
    const held = state.held.get(symbol) ?? new D(0);
    const price = priceOf(symbol);
    const current = held.times(price);
    const weight = current.dividedBy(total);
    if (!allowed(policy, symbol)) {
      if (held.greaterThan(0)) {
        disallowed.push(symbol);
        sells.push(marketOrder(market, symbol, 'sell', held));
      }
      continue;
    }
    const target = targets.get(symbol) ?? new D(0);
    if (weight.minus(target).abs().lessThanOrEqualTo(band)) continue;
    drifts.push(`${symbol} ${percent(weight)} (target ${percent(target)})`);
    const delta = target.times(total).minus(current);
    if (delta.isNegative()) {
      const quantity = target.isZero() ? held : D.min(held, roundQuantity(delta.negated().dividedBy(price)));
      sells.push(marketOrder(market, symbol, 'sell', quantity));
    } else {
      buys.push({ symbol, value: delta });
    }
  }

  const proceeds = sells.reduce((sum, t) => sum.plus(roundMoney(t.quantity.times(priceOf(t.symbol)))), new D(0));
  const budget = state.cash.plus(proceeds).times(ONE_LESS_BUFFER);
  const wanted = buys.reduce((sum, b) => sum.plus(b.value), new D(0));
  const scale = wanted.greaterThan(budget) ? budget.dividedBy(wanted) : new D(1);
  const buyTrades = buys.map((b) => marketOrder(market, b.symbol, 'buy', roundQuantity(b.value.times(scale).dividedBy(priceOf(b.symbol)))));

  const trades = [...sells, ...buyTrades].filter(notDust(priceOf));
  if (trades.length === 0) return null;
  const scaled = scale.lessThan(1) ? ' Buys are scaled down to the cash available after the sells, less a 0.5 % buffer.' : '';
  const outside = drifts.length > 0 ? ` Outside the ±${percent(band)} band: ${drifts.join(', ')}.` : '';
  const sold =
    disallowed.length > 0
      ? ` Sell all of ${disallowed.join(', ')}: the policy no longer allows ${disallowed.length === 1 ? 'it' : 'them'}.`
      : '';
  return {
    rationale: `Rebalance to policy version ${policy.version}'s target allocation.${outside}${sold}${scaled}`,
    trades,
  };
}

/** Deploys idle cash along the target weights, keeping a small buffer in cash. */
export function investCash(state: AccountState, priceOf: PriceOf, policy: Policy, market: string): Proposal | null {
  const budget = roundMoney(state.cash.times(ONE_LESS_BUFFER));
  if (budget.lessThan(DUST)) return null;
  const trades = policy.target_allocation
    .map((t) => marketOrder(market, t.symbol, 'buy', roundQuantity(budget.times(t.weight).dividedBy(priceOf(t.symbol)))))
    .filter(notDust(priceOf));
  if (trades.length === 0) return null;
  const weights = policy.target_allocation.map((t) => `${t.symbol} ${percent(dec(t.weight))}`).join(', ');
  return {
    rationale:
      `Invest ${usd(budget)} of ${usd(state.cash)} idle cash along policy version ${policy.version}'s target allocation (${weights}), ` +
      `keeping ${percent(CASH_BUFFER)} in cash so price moves before approval do not exceed buying power.`,
    trades,
  };
}
