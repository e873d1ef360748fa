import type { components } from '../../../generated/api.js';
import type { Order as OrderRow } from '../../../db/schema.js';
import type { IdeasTable } from '../../../db/tables/trading.js';
import { newId } from '../../ids.js';
import { worstCaseNotional, type ProposedTrade } from '../checks.js';
import { PAPER_CURRENCY } from '../ledger.js';
import type { PriceSource } from '../market-data.js';
import { eventRows } from '../events/outbox.js';
import { metricsFor } from '../../observability/metrics.js';
import { ideaView } from '../ideas/views.js';
import type { Queryable } from '../store.js';
import { actorOf, orderView, type Order } from './views.js';
import { sql, type Insertable, type Selectable } from 'kysely';

type IdeaMode = components['schemas']['IdeaMode'];

/** How long a proposed order waits for a decision before it expires. */
export const PROPOSAL_TTL_MS = 24 * 60 * 60 * 1000;
const PROPOSED_REASON = 'proposed by an idea';

export interface NewIdea {
  accountId: string;
  clientId: string;
  mode: IdeaMode;
  market: string;
  rationale: string;
  trades: ProposedTrade[];
  /** The display name of the client (or person) generating it, for its orders' first event. */
  actorName?: string | null;
  /** Earlier proposed orders this idea replaces (as read, with their events): cancelled in the same statement, each event naming the new idea. */
  supersedes?: { id: string; row: OrderRow; events: Order['events'] }[];
}

/** The reason recorded on an order a newer idea replaced. */
export const supersededReason = (ideaId: string) => `superseded by idea ${ideaId}`;

/**
 * Stores an idea with its trades as `proposed` orders, each with its creation event, and cancels the orders it
 * supersedes (those still proposed, each with its event), in one statement (so all of it is stored or none). Ids
 * carry wall-clock creation time (orders one millisecond apart within an idea), so lists run newest first even under
 * a pinned service clock. Answers the idea, its orders and the ids of the orders it cancelled.
 */
export async function storeIdea(
  db: Queryable,
  prices: PriceSource,
  now: Date,
  idea: NewIdea,
): Promise<{ row: Selectable<IdeasTable>; orders: Order[]; superseded: string[] }> {
  const createdAt = Date.now();
  const ideaRow: Insertable<IdeasTable> = {
    id: newId('idea', createdAt),
    account_id: idea.accountId,
    mode: idea.mode,
    market: idea.market,
    rationale: idea.rationale,
    created_by_client_id: idea.clientId,
    created_at: now,
  };
  const orders = idea.trades.map((trade, index) => ({
    id: newId('ord', createdAt + index),
    account_id: idea.accountId,
    idea_id: ideaRow.id,
    market: trade.market,
    currency: PAPER_CURRENCY,
    symbol: trade.symbol,
    side: trade.side,
    quantity: trade.quantity.toFixed(),
    order_type: trade.order_type,
    limit_price: trade.limit_price?.toFixed() ?? null,
    notional: worstCaseNotional(trade, prices.quote(trade.symbol, now).price).toFixed(),
    status: 'proposed' as const,
    expires_at: new Date(now.getTime() + PROPOSAL_TTL_MS),
    created_at: now,
    updated_at: now,
  }));
  const events = orders.map((o) => ({
    order_id: o.id,
    account_id: o.account_id,
    from_status: null,
    to_status: 'proposed',
    at: now,
    client_id: idea.clientId,
    reason: PROPOSED_REASON,
  }));
  const views = orders.map((o) =>
    orderView(
      {
        ...o,
        fill_price: null,
        filled_quantity: '0',
        failed_checks: null,
        filled_at: null,
        broker_id: null,
        broker_order_id: null,
        broker_status: null,
        broker_submitted_at: null,
        rests_until: null,
        submit_by: null,
        next_submit_at: null,
        submit_attempts: 0,
        preview_id: null,
      },
      [
        {
          from: null,
          to: 'proposed',
          at: now.toISOString(),
          client_id: idea.clientId,
          actor: actorOf(idea.clientId, idea.actorName),
          reason: PROPOSED_REASON,
        },
      ],
      now,
    ),
  );
  // The outbox: the idea (as GET /v1/ideas/{id} answers it), then each of its orders.
  const metrics = metricsFor(db);
  const published = eventRows(
    [
      {
        accountId: idea.accountId,
        type: 'idea.generated',
        at: now,
        data: ideaView({ ...ideaRow, created_at: now }, views),
      },
      ...views.map((order) => ({ accountId: idea.accountId, type: 'order.proposed' as const, at: now, data: order })),
    ],
    metrics,
  );
  const supersedes = idea.supersedes ?? [];
  const cancelledEvents = eventRows(
    supersedes.map((o) => ({
      accountId: idea.accountId,
      type: 'order.cancelled' as const,
      at: now,
      data: orderView(
        { ...o.row, status: 'cancelled', updated_at: now },
        [
          ...o.events,
          {
            from: 'proposed',
            to: 'cancelled',
            at: now.toISOString(),
            client_id: idea.clientId,
            actor: actorOf(idea.clientId, idea.actorName),
            reason: supersededReason(ideaRow.id),
          },
        ],
        now,
      ),
    })),
    metrics,
  );
  let query = db
    .with('idea', (q) => q.insertInto('ideas').values(ideaRow).returningAll())
    .with('published', (q) => q.insertInto('events').values(published).returning('id'));
  if (supersedes.length > 0) {
    // (order id, event row) pairs as a VALUES list, for the orders this idea supersedes.
    const pairs = cancelledEvents.map(
      (e, i) => sql`(${supersedes[i]!.id}, ${e.id}, ${e.account_id}, ${e.type}, ${e.data}, ${e.created_at}, ${e.traceparent}::text)`,
    );
    const cancellations = sql<{
      order_id: string;
      id: string;
      account_id: string;
      type: string;
      data: string;
      created_at: Date;
      traceparent: string | null;
    }>`(values ${sql.join(pairs)})`.as(sql`v(order_id, id, account_id, type, data, created_at, traceparent)` as never);
    query = query
      .with('superseded', (q) =>
        q
          .updateTable('orders')
          .set({ status: 'cancelled', updated_at: now })
          .where('account_id', '=', idea.accountId)
          .where(
            'id',
            'in',
            supersedes.map((o) => o.id),
          )
          .where('status', '=', 'proposed')
          .returning(['id', 'account_id']),
      )
      .with('cancelled', (q) =>
        q
          .insertInto('order_events')
          .columns(['order_id', 'account_id', 'from_status', 'to_status', 'at', 'client_id', 'reason'])
          .expression((eb) =>
            eb
              .selectFrom('superseded')
              .select([
                'superseded.id',
                'superseded.account_id',
                sql<string>`'proposed'`.as('from_status'),
                sql<string>`'cancelled'`.as('to_status'),
                sql<Date>`${now}::timestamptz`.as('at'),
                sql<string>`${idea.clientId}::text`.as('client_id'),
                sql<string>`${supersededReason(ideaRow.id)}::text`.as('reason'),
              ]),
          )
          .returning('order_id'),
      )
      // Each cancellation is an event too, holding the order as GET answers it then; only for the orders the update
      // above did cancel (one decided meanwhile keeps its own state and events).
      .with('cancel_published', (q) =>
        q
          .insertInto('events')
          .columns(['id', 'account_id', 'type', 'data', 'created_at', 'traceparent'])
          .expression((eb) =>
            eb
              .selectFrom(cancellations)
              .select([
                'v.id',
                'v.account_id',
                'v.type',
                sql<string>`v.data::json`.as('data'),
                sql<Date>`v.created_at::timestamptz`.as('created_at'),
                'v.traceparent',
              ])
              .where('v.order_id', 'in', eb.selectFrom('superseded').select('superseded.id')),
          )
          .returning('id'),
      ) as unknown as typeof query;
  }
  if (orders.length > 0) {
    query = query
      .with('proposed', (q) => q.insertInto('orders').values(orders).returning('id'))
      .with('logged', (q) => q.insertInto('order_events').values(events).returning('id')) as unknown as typeof query;
  }
  const found = await query
    .selectFrom('idea')
    .selectAll('idea')
    .select(
      supersedes.length > 0
        ? sql<string[]>`(select coalesce(json_agg(c.order_id order by c.order_id), '[]'::json) from cancelled c)`.as('superseded')
        : sql<string[]>`'[]'::json`.as('superseded'),
    )
    .executeTakeFirstOrThrow();
  const { superseded, ...row } = found;
  return { row: row, orders: views, superseded };
}
