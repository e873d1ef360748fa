import { sql, type Kysely, type Transaction } from 'kysely';
import { CompiledOnce } from '../../../db/compiled-query.js';
import { jsonArrayFrom, jsonObjectFrom } from 'kysely/helpers/postgres';
import type { components } from '../../../generated/api.js';
import type { Database, Order as OrderRow, PolicyRow } from '../../../db/schema.js';
import { DASHBOARD_CLIENT_ID } from '../../auth/authorize.js';
import { RISK_LIMITS } from '../checks.js';
import { GLOBAL_SCOPE, killSwitchView } from '../kill-switch.js';
import { dayOf, NO_TRADES, type DayTotals, type Position } from '../ledger.js';
import { dec } from '../money.js';
import { storedPolicy, type Policy } from '../policies.js';
import type { PolicyInvalidError } from '../policy-limits.js';
import { eventNames, eventView, type EventRow } from './views.js';

type KillSwitch = components['schemas']['KillSwitch'];
type OrderEvent = components['schemas']['OrderEvent'];

/** Everything a trigger decides on, read under the order's row lock in one statement. */
export interface TriggerState {
  row: OrderRow;
  events: OrderEvent[];
  /** The policy in force; its problem when it is invalid (stored before limits were bounded), which only approval needs. */
  policy: Policy | PolicyInvalidError | null;
  positions: Position[];
  /** Today's running totals (UTC): the notional traded today and what to take back for the start-of-day value. */
  today: DayTotals;
  killSwitch: KillSwitch;
  /** The display name of the caller (the client's, or the person's for the dashboard): its events' actor. */
  actorName: string | null;
  /** Another idea's order of the same symbol, side and quantity was submitted (and not cancelled) within the risk gate's duplicate window. */
  duplicate: boolean;
}

/** The caller's display name, as a column of a query over `orders as o`: the person's in the dashboard, else the client's. */
const actorName = (clientId: string) =>
  sql<string | null>`case when ${clientId}::text = ${sql.lit(DASHBOARD_CLIENT_ID)}
    then (select p.name from accounts p where p.id = o.account_id)
    else (select c.name from api_clients c where c.client_id = ${clientId}::text) end`.as('actor_name');

/** The order (locked) with its events and the caller's name, in one statement; undefined when it is not the account's. */
export async function lockOrder(
  trx: Transaction<Database>,
  accountId: string,
  orderId: string,
  clientId: string,
): Promise<{ row: OrderRow; events: OrderEvent[]; actorName: string | null } | undefined> {
  const found = await trx
    .selectFrom('orders as o')
    .selectAll('o')
    .select(actorName(clientId))
    .select((eb) =>
      jsonArrayFrom(
        eb
          .selectFrom('order_events as e')
          .select(['e.from_status', 'e.to_status', 'e.at', 'e.client_id', 'e.reason', 'e.preview_id', ...eventNames])
          .whereRef('e.order_id', '=', 'o.id')
          .orderBy('e.id'),
      ).as('events'),
    )
    .where('o.id', '=', orderId)
    .where('o.account_id', '=', accountId)
    .forUpdate('o')
    .executeTakeFirst();
  if (!found) return undefined;
  const { events, actor_name, ...row } = found;
  return { row: row, events: (events as EventRow[]).map(eventView), actorName: actor_name };
}

/** The approval's read, compiled once (db/compiled-query.ts): its shape never changes, only the four values. */
const approvalRead = new CompiledOnce(
  ['orderId', 'accountId', 'day', 'since', 'clientId'] as const,
  (db: Kysely<Database> | Transaction<Database>, v: { orderId: string; accountId: string; day: string; since: Date; clientId: string }) =>
    db
      .selectFrom('orders as o')
      .selectAll('o')
      .select(actorName(v.clientId))
      .select((eb) => [
        jsonArrayFrom(
          eb
            .selectFrom('order_events as e')
            .select(['e.from_status', 'e.to_status', 'e.at', 'e.client_id', 'e.reason', 'e.preview_id', ...eventNames])
            .whereRef('e.order_id', '=', 'o.id')
            .orderBy('e.id'),
        ).as('events'),
        jsonObjectFrom(
          eb.selectFrom('policies as p').selectAll('p').whereRef('p.account_id', '=', 'o.account_id').orderBy('p.version', 'desc').limit(1),
        ).as('policy'),
        jsonArrayFrom(
          eb
            .selectFrom('positions as s')
            .select([
              's.symbol',
              sql<string>`s.quantity::text`.as('quantity'),
              sql<string>`s.average_cost::text`.as('average_cost'),
              's.updated_at',
            ])
            .whereRef('s.account_id', '=', 'o.account_id')
            .orderBy('s.symbol'),
        ).as('positions'),
        jsonObjectFrom(
          eb
            .selectFrom('account_days as d')
            .select([
              sql<string>`d.traded_notional::text`.as('traded'),
              sql<string>`d.cash_delta::text`.as('cash_delta'),
              'd.quantity_deltas',
            ])
            .whereRef('d.account_id', '=', 'o.account_id')
            .where('d.day', '=', v.day),
        ).as('today'),
        jsonObjectFrom(
          eb
            .selectFrom('kill_switches as k')
            .selectAll('k')
            .where((w) => w.or([w('k.scope', '=', GLOBAL_SCOPE), w('k.scope', '=', w.ref('o.account_id'))]))
            .where('k.engaged', '=', true)
            .orderBy(sql`k.scope = ${GLOBAL_SCOPE}`, 'desc')
            .limit(1),
        ).as('kill_switch'),
        eb
          .exists(
            // The twins first (orders_twin_idx finds the account's orders of this symbol, side and quantity), then
            // whether one was submitted within the window.
            eb
              .selectFrom('orders as twin')
              .select('twin.id')
              .whereRef('twin.account_id', '=', 'o.account_id')
              .whereRef('twin.symbol', '=', 'o.symbol')
              .whereRef('twin.side', '=', 'o.side')
              .whereRef('twin.quantity', '=', 'o.quantity')
              .whereRef('twin.id', '!=', 'o.id')
              // A twin that was cancelled never traded; orders of one idea are split on purpose, not repeated.
              .where('twin.status', 'in', ['submitted', 'partially_filled', 'filled'])
              .where(sql<boolean>`twin.idea_id is distinct from o.idea_id`)
              .where((w) =>
                w.exists(
                  w
                    .selectFrom('order_events as d')
                    .select('d.id')
                    .whereRef('d.order_id', '=', 'twin.id')
                    .where('d.to_status', '=', 'submitted')
                    .where('d.at', '>', v.since),
                ),
              ),
          )
          .as('duplicate'),
      ])
      .where('o.id', '=', v.orderId)
      .where('o.account_id', '=', v.accountId)
      .forUpdate('o'),
);

/**
 * Locks the order and reads, in the same statement, its events and the account state the checks need: the policy
 * in force, positions, today's running totals (one row, however many fills the day has had), the kill switch in
 * force and the duplicate-order check. Undefined when the order is not the account's. (Cash comes from the
 * paper-account lock the caller already holds.)
 */
export async function lockForApproval(
  trx: Transaction<Database>,
  accountId: string,
  orderId: string,
  dayStart: Date,
  now: Date,
  clientId: string,
): Promise<TriggerState | undefined> {
  const since = new Date(now.getTime() - RISK_LIMITS.duplicateWindowMs);
  const found = (await approvalRead.execute(trx, { orderId, accountId, day: dayOf(dayStart), since, clientId })).rows[0];
  if (!found) return undefined;
  const { events, policy, positions, today, kill_switch, duplicate, actor_name, ...row } = found;
  return {
    row: row,
    events: (events as EventRow[]).map(eventView),
    policy: policy ? storedPolicy(policy as unknown as PolicyRow) : null,
    positions: positions.map((p) => ({
      symbol: p.symbol,
      quantity: dec(p.quantity),
      average_cost: dec(p.average_cost),
      updated_at: new Date(p.updated_at),
    })),
    today: today
      ? {
          traded: dec(today.traded),
          cashDelta: dec(today.cash_delta),
          quantityDeltas: new Map(Object.entries(today.quantity_deltas).map(([symbol, q]) => [symbol, dec(q)])),
        }
      : NO_TRADES,
    killSwitch: killSwitchView(kill_switch as never),
    duplicate: Boolean(duplicate),
    actorName: actor_name,
  };
}

/** The approval's read with an order that does not exist: prepared on each connection before the service is ready. */
export const approvalReadWarmUp = (db: Kysely<Database>) =>
  approvalRead.with(db, {
    orderId: 'ord_warm_up',
    accountId: 'acct_warm_up',
    day: '2000-01-01',
    since: new Date(0),
    clientId: 'ias_client_warm_up',
  });
