import { sql } from 'kysely';
import { jsonArrayFrom, jsonObjectFrom } from 'kysely/helpers/postgres';
import type { PolicyRow } from '../../db/schema.js';
import type { AccountState } from './checks.js';
import { dayOf, PAPER_CURRENCY, value, type Position } from './ledger.js';
import type { PriceSource } from './market-data.js';
import { dec, type Dec } from './money.js';
import { validPolicy, type Policy } from './policies.js';
import type { Queryable } from './store.js';

/** An account as one statement reads it: paper account (virtual until its first fill), positions, policy, today's notional. */
export interface AccountSnapshot {
  cash: Dec;
  currency: string;
  updated_at: Date;
  positions: Position[];
  policy: Policy | null;
  tradedToday: Dec;
}

/**
 * Reads the account's paper account, positions, policy in force and notional filled on `dayStart`'s day (its running
 * total, account_days), in one statement. A policy in force that is invalid (stored before limits were bounded) is 409 `policy-invalid`: every
 * reader of a snapshot uses the policy.
 */
export async function readSnapshot(db: Queryable, accountId: string, startingCash: string, dayStart: Date): Promise<AccountSnapshot> {
  const row = await db
    .selectFrom('accounts as a')
    .leftJoin('paper_accounts as pa', 'pa.account_id', 'a.id')
    .select(['pa.cash', 'pa.currency', 'pa.updated_at', 'a.created_at'])
    .select((eb) => [
      jsonArrayFrom(
        eb
          .selectFrom('positions as s')
          .select(['s.symbol', sql<string>`s.quantity::text`.as('quantity'), sql<string>`s.average_cost::text`.as('average_cost'), 's.updated_at'])
          .whereRef('s.account_id', '=', 'a.id')
          .orderBy('s.symbol'),
      ).as('positions'),
      jsonObjectFrom(eb.selectFrom('policies as p').selectAll('p').whereRef('p.account_id', '=', 'a.id').orderBy('p.version', 'desc').limit(1)).as('policy'),
      eb
        .selectFrom('account_days as d')
        .select(sql<string>`d.traded_notional::text`.as('total'))
        .whereRef('d.account_id', '=', 'a.id')
        .where('d.day', '=', dayOf(dayStart))
        .as('traded_today'),
    ])
    .where('a.id', '=', accountId)
    .executeTakeFirstOrThrow();
  return {
    cash: dec(row.cash ?? startingCash),
    currency: row.currency ?? PAPER_CURRENCY,
    updated_at: new Date(row.updated_at ?? row.created_at),
    positions: row.positions.map((p) => ({ symbol: p.symbol, quantity: dec(p.quantity), average_cost: dec(p.average_cost), updated_at: new Date(p.updated_at) })),
    policy: row.policy ? validPolicy(row.policy as unknown as PolicyRow) : null,
    tradedToday: dec(row.traded_today ?? '0'),
  };
}

/** What the policy check and risk gate see of a snapshot at `now`. */
export function stateOf(snapshot: AccountSnapshot, prices: PriceSource, now: Date): AccountState {
  return {
    cash: snapshot.cash,
    held: new Map(snapshot.positions.map((p) => [p.symbol, p.quantity])),
    totalValue: value(prices, snapshot.cash, snapshot.positions, now).total,
    tradedToday: snapshot.tradedToday,
  };
}
