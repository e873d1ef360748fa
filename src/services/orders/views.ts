import { sql } from 'kysely';
import type { components } from '../../../generated/api.js';
import type { Order as OrderRow } from '../../../db/schema.js';
import { DASHBOARD_CLIENT_ID } from '../../auth/authorize.js';
import { num } from '../money.js';
import { publish } from '../events/outbox.js';
import type { Queryable } from '../store.js';

export type Order = components['schemas']['Order'];
type OrderStatus = components['schemas']['OrderStatus'];
type OrderEvent = components['schemas']['OrderEvent'];
type OrderBroker = components['schemas']['OrderBroker'];
export type EventActor = components['schemas']['EventActor'];

/** The triggers each state allows; every other trigger answers 409 invalid-state. */
export const ALLOWED_TRIGGERS: Record<OrderStatus, string[]> = {
  proposed: ['approve', 'reject', 'cancel'],
  submitted: ['cancel'],
  partially_filled: ['cancel'],
  filled: [],
  rejected: [],
  cancelled: [],
  blocked: [],
  expired: [],
};

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

/** The paper broker's status word for each state an order it holds reaches: Alpaca's words, as any broker's would be. */
export const PAPER_STATUS: Partial<Record<OrderStatus, string>> = {
  submitted: 'accepted',
  partially_filled: 'partially_filled',
  filled: 'filled',
  cancelled: 'canceled',
  expired: 'expired',
  rejected: 'rejected',
};

/** The states only an order sent to a broker reaches. */
const SENT: readonly OrderStatus[] = ['submitted', 'partially_filled', 'filled'];

/**
 * Where the order was sent, as its columns say. An order that names no broker but was submitted (its event, or a
 * state only a sent order reaches) went to the paper broker before the columns existed: the paper broker, its word
 * for the order's state, sent when its `submitted` event says. Null while the order was never sent.
 */
export function brokerView(row: OrderRow, events: OrderEvent[]): OrderBroker | null {
  if (row.broker_id !== null)
    return {
      id: row.broker_id,
      order_id: row.broker_order_id,
      status: row.broker_status,
      submitted_at: iso(row.broker_submitted_at),
      rests_until: iso(row.rests_until),
    };
  const submitted = events.find((e) => e.to === 'submitted');
  if (!submitted && !SENT.includes(row.status)) return null;
  return { id: 'paper', order_id: null, status: PAPER_STATUS[row.status] ?? null, submitted_at: submitted?.at ?? null, rests_until: null };
}

export const EXPIRY_REASON = 'expired before a decision';

/** Whether a proposed order's time has passed: it is expired from `expires_at` on, whether or not a write recorded it yet. */
export function isDue(row: Pick<OrderRow, 'status' | 'expires_at'>, now: Date): boolean {
  return row.status === 'proposed' && new Date(row.expires_at) <= now;
}

/**
 * The order as the contract shows it at `now`. Expiry is derived on read: a proposed order past `expires_at` is
 * reported `expired`, with the event its expiry records once a write touches it (a trigger or a report).
 */
export function orderView(row: OrderRow, events: OrderEvent[], now: Date): Order {
  if (isDue(row, now)) {
    const at = iso(row.expires_at)!;
    return orderView(
      { ...row, status: 'expired', updated_at: row.expires_at },
      [...events, { from: 'proposed', to: 'expired', at, client_id: null, actor: actorOf(null, null), reason: EXPIRY_REASON }],
      now,
    );
  }
  return {
    id: row.id,
    idea_id: row.idea_id,
    market: row.market,
    currency: row.currency,
    symbol: row.symbol,
    side: row.side,
    quantity: num(row.quantity),
    order_type: row.order_type,
    limit_price: row.limit_price === null ? null : num(row.limit_price),
    notional: num(row.notional),
    status: row.status,
    fill_price: row.fill_price === null ? null : num(row.fill_price),
    average_fill_price: row.fill_price === null ? null : num(row.fill_price),
    filled_quantity: num(row.filled_quantity),
    broker: brokerView(row, events),
    expires_at: iso(row.expires_at)!,
    filled_at: iso(row.filled_at),
    failed_checks: row.status === 'blocked' ? (row.failed_checks ?? []) : null,
    preview_id: row.preview_id,
    events,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

export interface EventRow {
  from_status: string | null;
  to_status: string;
  at: Date | string;
  client_id: string | null;
  reason: string | null;
  /** The name of the event's API client, when it has one (`eventNames` selects it). */
  client_name?: string | null;
  /** The name of the account's person, for an event the person caused in the dashboard. */
  person_name?: string | null;
  /** The preview an approval was bound to (its event only). */
  preview_id?: string | null;
}

/**
 * The names an event row needs for its actor, as columns of a query over `order_events as e`: the client's name,
 * and the account holder's for what a person did in the dashboard.
 */
export const eventNames = [
  sql<string | null>`(select c.name from api_clients c where c.client_id = e.client_id)`.as('client_name'),
  sql<string | null>`(select p.name from accounts p where p.id = e.account_id and e.client_id = ${sql.lit(DASHBOARD_CLIENT_ID)})`.as(
    'person_name',
  ),
] as const;

/** Who caused a transition, by name: the account's person (dashboard), an API client, or the service itself (fills, expiry). */
export function actorOf(clientId: string | null, name: string | null | undefined): EventActor {
  if (clientId === null) return { kind: 'system', name: 'the service' };
  if (clientId === DASHBOARD_CLIENT_ID) return { kind: 'person', name: name ?? 'the account holder' };
  return { kind: 'client', name: name ?? 'a deleted client' };
}

export function eventView(row: EventRow): OrderEvent {
  return {
    from: row.from_status as OrderStatus | null,
    to: row.to_status as OrderStatus,
    at: iso(row.at)!,
    client_id: row.client_id,
    actor: actorOf(row.client_id, row.client_id === DASHBOARD_CLIENT_ID ? row.person_name : row.client_name),
    reason: row.reason,
    ...(row.preview_id ? { preview_id: row.preview_id } : {}),
  };
}

/** Events of many orders in one query, in the order they happened. */
export async function eventsOf(db: Queryable, orderIds: string[]): Promise<Map<string, OrderEvent[]>> {
  const byOrder = new Map<string, OrderEvent[]>(orderIds.map((id) => [id, []]));
  if (orderIds.length === 0) return byOrder;
  const rows = await db
    .selectFrom('order_events as e')
    .selectAll('e')
    .select(eventNames)
    .where('e.order_id', 'in', orderIds)
    .orderBy('e.id')
    .execute();
  for (const row of rows) byOrder.get(row.order_id)!.push(eventView(row));
  return byOrder;
}

export async function viewsOf(db: Queryable, rows: OrderRow[], now: Date): Promise<Order[]> {
  const events = await eventsOf(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((row) => orderView(row, events.get(row.id) ?? [], now));
}

/**
 * Records the expiry of the account's proposed orders whose time has passed (dated when they expired), for work
 * that reads stored events, such as a daily report. Reads derive expiry instead (`orderView`).
 */
export async function expireDue(db: Queryable, accountId: string, now: Date): Promise<void> {
  const expired = await db
    .updateTable('orders')
    .set((eb) => ({ status: 'expired', updated_at: eb.ref('expires_at') }))
    .where('account_id', '=', accountId)
    .where('status', '=', 'proposed')
    .where('expires_at', '<=', now)
    .returningAll()
    .execute();
  if (expired.length === 0) return;
  await db
    .insertInto('order_events')
    .values(
      expired.map((o) => ({
        order_id: o.id,
        account_id: accountId,
        from_status: 'proposed',
        to_status: 'expired',
        at: o.expires_at,
        client_id: null,
        reason: EXPIRY_REASON,
      })),
    )
    .execute();
  // Each expiry's event holds the order as GET answers it now: expired, its expiry last in its history.
  const views = await viewsOf(db, expired, now);
  await publish(
    db,
    views.map((order, i) => ({ accountId, type: 'order.expired' as const, at: new Date(expired[i]!.expires_at), data: order })),
  );
}

export interface OrderFilter {
  status?: OrderStatus;
  symbol?: string;
  idea_id?: string;
  limit?: number;
  cursor?: string;
}
