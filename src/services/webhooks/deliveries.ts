import { sql, type Selectable } from 'kysely';
import type { WebhookEndpointsTable } from '../../../db/tables/events.js';
import { NotFoundError } from '../errors.js';
import { eventRows, TEST_EVENT_TYPE } from '../events/outbox.js';
import { metricsFor } from '../../observability/metrics.js';
import { decodeCursor, DEFAULT_PAGE_SIZE, toPage, type Page, type PageRequest } from '../pagination.js';
import type { Queryable, Store } from '../store.js';
import { deliveryId } from './queue.js';
import { iso, type AttemptView, type DeliveryView, type Recovery, type TestDelivery } from './views.js';

/** The most failed deliveries one recovery queues again: a call's work is bounded, `next_since` goes on from there. */
export const RECOVER_MAX = 1000;

/** An attempts page's cursor: the last attempt's key (its bigserial id, as decimal text). */
const ATTEMPT_KEY = /^\d{1,19}$/;

/** A `webhook.test` event for this endpoint alone, delivered like any other (the feed never shows it). */
export async function queueTest(store: Store, endpoint: Selectable<WebhookEndpointsTable>, now: Date): Promise<TestDelivery> {
  const [event] = eventRows(
    [
      {
        accountId: endpoint.account_id,
        type: TEST_EVENT_TYPE,
        at: now,
        data: { endpoint_id: endpoint.id, message: 'A test event sent to this endpoint.' },
      },
    ],
    metricsFor(store.db),
  );
  const delivery = {
    id: deliveryId(),
    endpoint_id: endpoint.id,
    event_id: event!.id,
    account_id: endpoint.account_id,
    status: 'pending' as const,
    next_attempt_at: now,
    created_at: now,
    updated_at: now,
  };
  await store.transaction(async (trx) => {
    await trx.insertInto('events').values(event!).execute();
    await trx.insertInto('webhook_deliveries').values(delivery).execute();
  });
  return {
    delivery_id: delivery.id,
    event_id: event!.id,
    event_type: TEST_EVENT_TYPE,
    endpoint_id: endpoint.id,
    queued_at: now.toISOString(),
  };
}

/** The endpoint's deliveries, newest first, each with its last attempt (the dashboard's and the CLI's log). */
export async function deliveryLog(db: Queryable, endpointId: string, limit: number): Promise<DeliveryView[]> {
  const rows = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as ev', 'ev.id', 'd.event_id')
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom('webhook_attempts as a')
          .select(['a.latency_ms', 'a.response_body'])
          .whereRef('a.delivery_id', '=', 'd.id')
          .orderBy('a.id', 'desc')
          .limit(1)
          .as('last'),
      (join) => join.onTrue(),
    )
    .select([
      'd.id',
      'd.event_id',
      'ev.type',
      'd.status',
      'd.attempts',
      'd.last_status_code',
      'd.last_error',
      'd.next_attempt_at',
      'd.created_at',
      'last.latency_ms',
      'last.response_body',
    ])
    .where('d.endpoint_id', '=', endpointId)
    .orderBy('d.created_at', 'desc')
    .orderBy('d.id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    event_id: r.event_id,
    type: r.type,
    status: r.status,
    attempts: r.attempts,
    last_status_code: r.last_status_code,
    last_latency_ms: r.latency_ms ?? null,
    last_error: r.last_error,
    last_response: r.response_body ?? null,
    next_attempt_at: r.status === 'pending' ? iso(r.next_attempt_at) : null,
    created_at: iso(r.created_at)!,
  }));
}

/**
 * A page of the endpoint's attempts, newest first, by their own index (`webhook_attempts_endpoint_idx`): a page
 * reads its rows and no others, however many attempts other endpoints logged.
 */
export async function attemptsPage(db: Queryable, endpointId: string, page: PageRequest): Promise<Page<AttemptView>> {
  const limit = page.limit ?? DEFAULT_PAGE_SIZE;
  const after = decodeCursor<string>(page.cursor, 'string', (key) => ATTEMPT_KEY.test(key));
  let query = db
    .selectFrom('webhook_attempts as a')
    .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
    .innerJoin('events as ev', 'ev.id', 'd.event_id')
    .select([
      sql<string>`a.id::text`.as('key'),
      'a.delivery_id',
      'd.event_id',
      'ev.type',
      'a.attempt',
      'a.at',
      'a.status_code',
      'a.latency_ms',
      'a.error',
      'a.response_body',
      'a.next_retry_at',
      'd.status',
    ])
    .where('a.endpoint_id', '=', endpointId);
  if (after !== undefined) query = query.where(sql<boolean>`a.id < ${after}::bigint`);
  const rows = await query
    .orderBy('a.id', 'desc')
    .limit(limit + 1)
    .execute();
  return toPage(
    rows,
    limit,
    (r) => ({
      delivery_id: r.delivery_id,
      event_id: r.event_id,
      event_type: r.type,
      attempt: r.attempt,
      attempted_at: iso(r.at)!,
      response_status: r.status_code,
      duration_ms: r.latency_ms,
      error: r.error,
      response_body: r.response_body,
      next_retry_at: iso(r.next_retry_at),
      delivery_status: r.status,
    }),
    (r) => r.key,
  );
}

/** "Retry now": the delivery is due at once (a failed one too), whatever its schedule said or its endpoint's backing off. */
export async function retryDelivery(db: Queryable, endpointId: string, id: string, now: Date): Promise<void> {
  const updated = await db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: now, updated_at: now })
    .where('id', '=', id)
    .where('endpoint_id', '=', endpointId)
    .where('status', '<>', 'succeeded')
    .returning('id')
    .executeTakeFirst();
  if (!updated) throw new NotFoundError(`There is no pending or failed delivery ${id} of this endpoint.`);
  await resume(db, endpointId);
}

/**
 * Queues again the endpoint's failed deliveries made at or after `since`, oldest first, at most RECOVER_MAX: each is
 * due at once for one more attempt (its attempts are spent, so a failure makes it failed again). One statement; a
 * delivery another recovery took meanwhile is no longer failed, and is left to it.
 */
export async function recoverFailed(db: Queryable, endpointId: string, since: Date, now: Date): Promise<Recovery> {
  const result = await sql<{ queued: number; next: Date | string | null }>`
    with picked as (
      select id, created_at from webhook_deliveries
      where endpoint_id = ${endpointId} and status = 'failed' and created_at >= ${since}::timestamptz
      order by created_at, id limit ${RECOVER_MAX + 1}
    ), queued as (
      update webhook_deliveries d set status = 'pending', next_attempt_at = ${now}::timestamptz, updated_at = ${now}::timestamptz
      from (select id from picked order by created_at, id limit ${RECOVER_MAX}) p
      where d.id = p.id and d.status = 'failed'
      returning d.id
    )
    select (select count(*) from queued)::int as queued,
      (select created_at from picked order by created_at, id offset ${RECOVER_MAX} limit 1) as next
  `.execute(db);
  const { queued, next } = result.rows[0]!;
  if (queued > 0) await resume(db, endpointId);
  return { since: since.toISOString(), queued, next_since: iso(next) };
}

/** An endpoint backing off sends at once again (the count of attempts without an answer stays: another one pauses it again). */
async function resume(db: Queryable, endpointId: string): Promise<void> {
  await db.updateTable('webhook_endpoints').set({ paused_until: null }).where('id', '=', endpointId).execute();
}
