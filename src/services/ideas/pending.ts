import type { AccountState } from '../checks.js';
import { stateOf, type AccountSnapshot } from '../account-snapshot.js';
import type { PriceSource } from '../market-data.js';
import { D } from '../money.js';
import { usd } from './allocation.js';

/** What a new idea of `mode` may use, given the orders still proposed. */
export interface PendingAware {
  /** The account as the engine and the policy gate see it: cash less the other modes' pending buys, holdings less their pending sells. */
  state: AccountState;
  /** The ids of the orders still proposed by earlier ideas of the same mode: the new idea replaces them. */
  supersedes: string[];
  /** Notes for the rationale: what the other modes' pending orders hold back. */
  heldBack: string[];
}

/**
 * An idea supersedes the pending proposals of its own mode (they were made on the same question, so the newer answer
 * replaces them) and sizes itself around the other modes' pending proposals: their buys' worst-case notional is kept
 * out of the cash it may spend, their sells' quantities out of what it may sell. So however many ideas are generated,
 * the buys pending together never exceed the idle cash (each idea's own sells aside, which fund its buys).
 */
export function pendingAware(snapshot: AccountSnapshot, prices: PriceSource, now: Date, mode: string): PendingAware {
  const state = stateOf(snapshot, prices, now);
  const supersedes = snapshot.pending.filter((o) => o.mode === mode).map((o) => o.id);
  const others = snapshot.pending.filter((o) => o.mode !== mode);
  const reserved = others.filter((o) => o.side === 'buy').reduce((sum, o) => sum.plus(o.notional), new D(0));
  const held = new Map(state.held);
  for (const sell of others.filter((o) => o.side === 'sell'))
    held.set(sell.symbol, D.max(0, (held.get(sell.symbol) ?? new D(0)).minus(sell.quantity)));
  const notes: string[] = [];
  if (others.length > 0) {
    const modes = [...new Set(others.map((o) => o.mode ?? 'no idea'))].join(', ');
    notes.push(
      `${others.length} ${others.length === 1 ? 'order' : 'orders'} of other ideas (${modes}) still await a decision: ` +
        `${usd(reserved)} of cash is held back for their buys.`,
    );
  }
  return { state: { ...state, cash: D.max(0, state.cash.minus(reserved)), held }, supersedes, heldBack: notes };
}
