import type { AccountState } from '../checks.js';
import { filledNotional, positionsOf, startOfUtcDay, value, type Queryable } from '../ledger.js';
import type { PriceSource } from '../market-data.js';
import type { Dec } from '../money.js';

/** What the policy check and risk gate see of an account: cash, holdings, value now, notional traded today. */
export async function accountState(db: Queryable, prices: PriceSource, accountId: string, cash: Dec, now: Date): Promise<AccountState> {
  const positions = await positionsOf(db, accountId);
  const valuation = value(prices, cash, positions, now);
  return {
    cash,
    held: new Map(positions.map((p) => [p.symbol, p.quantity])),
    totalValue: valuation.total,
    tradedToday: await filledNotional(db, accountId, startOfUtcDay(now)),
  };
}
