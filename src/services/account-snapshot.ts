import { sql } from 'kysely';
import { jsonArrayFrom, jsonObjectFrom } from 'kysely/helpers/postgres';
import type { Order as OrderRow, PolicyRow } from '../../db/schema.js';
import { DASHBOARD_CLIENT_ID } from '../auth/authorize.js';
import type { AccountState } from './checks.js';
import { dayOf, PAPER_CURRENCY, value, type Position } from './ledger.js';
import type { PriceSource } from './market-data.js';
import { dec, type Dec } from './money.js';
import { validPolicy, type Policy } from './policies.js';
import { eventNames, eventView, type EventRow, type Order } from './orders/views.js';
import type { Queryable } from './store.js';

/** A proposed order still waiting for a decision (not yet expired), with the mode of the idea that proposed it. */
export interface PendingOrder {
  id: string;
  mode: string | null;
  symbol: string;
  side: 'buy' | 'sell';
  quantity: Dec;
  /** Its worst-case notional when proposed (the limit for a buy limit, else the price then). */
  notional: Dec;
  /** The order as stored and its events: what a newer idea that cancels it records in the feed. */
  row: OrderRow;
  events: Order['events'];
}

/** An account as one statement reads it: paper account (virtual until its first fill), positions, policy, today's notional. */
export interface AccountSnapshot {
  cash: Dec;
  currency: string;
  updated_at: Date;
  positions: Position[];
  policy: Policy | null;
  tradedToday: Dec;
  /** The orders still proposed at `now`, oldest first. */
  pending: PendingOrder[];
  /** The display name of the client `clientId` (or of the account's person when `clientId` is the dashboard's). */
  actorName: string | null;
}

/**
 * Reads the account's paper account, positions, policy in force and notional filled on `dayStart`'s day (its running
 * total, account_days), in one statement. A policy in force that is invalid (stored before limits were bounded) is 409 `policy-invalid`: every
 * reader of a snapshot uses the policy.
 */
export async function readSnapshot(
  db: Queryable,
  accountId: string,
  startingCash: string,
  dayStart: Date,
  now: Date,
  clientId: string,
): Promise<AccountSnapshot> {
  const row = await db
    .selectFrom('accounts as a')
    .leftJoin('paper_accounts as pa', 'pa.account_id', 'a.id')
    .select(['pa.cash', 'pa.currency', 'pa.updated_at', 'a.created_at', 'a.name'])
    .select((eb) => [
      jsonArrayFrom(
        eb
          .selectFrom('orders as o')
          .leftJoin('ideas as i', 'i.id', 'o.idea_id')
          .selectAll('o')
          .select(['i.mode', sql<string>`o.quantity::text`.as('quantity'), sql<string>`o.notional::text`.as('notional')])
          .select((e) =>
            jsonArrayFrom(
              e
                .selectFrom('order_events as e')
                .select(['e.from_status', 'e.to_status', 'e.at', 'e.client_id', 'e.reason', 'e.preview_id', ...eventNames])
                .whereRef('e.order_id', '=', 'o.id')
                .orderBy('e.id'),
            ).as('events'),
          )
          .whereRef('o.account_id', '=', 'a.id')
          .where('o.status', '=', 'proposed')
          .where('o.expires_at', '>', now)
          .orderBy('o.id'),
      ).as('pending'),
      eb.selectFrom('api_clients as c').select('c.name').where('c.client_id', '=', clientId).as('client_name'),
      jsonArrayFrom(
        eb
          .selectFrom('positions as s')
          .select([
            's.symbol',
            sql<string>`s.quantity::text`.as('quantity'),
            sql<string>`s.average_cost::text`.as('average_cost'),
            's.updated_at',
          ])
          .whereRef('s.account_id', '=', 'a.id')
          .orderBy('s.symbol'),
      ).as('positions'),
      jsonObjectFrom(
        eb.selectFrom('policies as p').selectAll('p').whereRef('p.account_id', '=', 'a.id').orderBy('p.version', 'desc').limit(1),
      ).as('policy'),
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
    positions: row.positions.map((p) => ({
      symbol: p.symbol,
      quantity: dec(p.quantity),
      average_cost: dec(p.average_cost),
      updated_at: new Date(p.updated_at),
    })),
    policy: row.policy ? validPolicy(row.policy as unknown as PolicyRow) : null,
    tradedToday: dec(row.traded_today ?? '0'),
    pending: row.pending.map(({ mode, events, ...o }) => ({
      id: o.id,
      mode,
      symbol: o.symbol,
      side: o.side,
      quantity: dec(o.quantity),
      notional: dec(o.notional),
      row: o as unknown as OrderRow,
      events: (events as EventRow[]).map(eventView),
    })),
    actorName: clientId === DASHBOARD_CLIENT_ID ? row.name : row.client_name,
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
