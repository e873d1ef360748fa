import { sql } from 'kysely';
import type { Services } from '../index.js';
import { positionsOf, startOfUtcDay, value, type Queryable } from '../ledger.js';
import { dec, type Dec } from '../money.js';
import type { AccountState } from '../checks.js';

/** What the policy check and risk gate see of an account: cash, holdings, value now, notional traded today. */
export async function accountState(db: Queryable, services: Services, accountId: string, cash: Dec, now: Date): Promise<AccountState> {
  const positions = await positionsOf(db, accountId);
  const valuation = value(services.prices, cash, positions, now);
  const traded = await db
    .selectFrom('fills')
    .select(sql<string>`coalesce(sum(notional), 0)::text`.as('total'))
    .where('account_id', '=', accountId)
    .where('at', '>=', startOfUtcDay(now))
    .executeTakeFirstOrThrow();
  return {
    cash,
    held: new Map(positions.map((p) => [p.symbol, p.quantity])),
    totalValue: valuation.total,
    tradedToday: dec(traded.total),
  };
}

