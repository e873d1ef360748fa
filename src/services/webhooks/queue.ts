import { sql, type Kysely } from 'kysely';
import type { Database } from '../../../db/schema.js';
import { newId } from '../../ids.js';

/**
 * The delivery queue, in PostgreSQL (the same SQL on the embedded database).
 *
 * Why not pg-boss or graphile-worker: both run on their own `pg` pool with a connection string, which the embedded
 * database (PGlite, one session in this process, no server) cannot give; pg-boss's maintainers show PGlite working
 * only through a hand-made client that inlines every parameter into the SQL text (timgit/pg-boss#563), and
 * graphile-worker needs LISTEN/NOTIFY on a pool. Neither knows the Standard Webhooks retry list (pg-boss retries
 * at a fixed delay or with exponential backoff), and the delivery log, "Retry now" and the per-endpoint disabling
 * need rows of our own anyway. What a queue library would add is the claim below: one statement with
 * `FOR UPDATE SKIP LOCKED` and a lease, so instances never send the same attempt, and an instance that dies
 * mid-attempt only delays it until the lease ends (at-least-once).
 */

/** How long a claimed delivery is ours: well above the 10 s an attempt may take and the write of its result. */
export const LEASE_MS = 60_000;

/** Delivery ids: time-ordered like every id, made here because the dispatcher's INSERT … SELECT makes them in SQL too. */
export const deliveryId = () => newId('whd');

/**
 * Fans the settled events after the dispatcher's position out into deliveries, one per enabled endpoint of the
 * event's account subscribed to its type (and created before the event), then moves the position past them, in one
 * transaction whose lock on the position row makes one instance at a time dispatch (the others skip it). The
 * position is read first so that the batch is an index range scan from it. The first `claim` new deliveries are
 * claimed as they are written (as `claim` would: leased, attempt 1) and come back to be sent, which spares each
 * delivery an update and the turn a statement. Answers how many events it read and what it claimed.
 */
export async function dispatch(
  db: Kysely<Database>,
  now: Date,
  claim = 0,
  batch = 1000,
): Promise<{ events: number; deliveries: number; claimed: Claimed[] }> {
  return db.transaction().execute(async (trx) => {
    const position = await sql<{
      tx: string;
      seq: string;
    }>`select tx::text, seq::text from webhook_dispatch where name = 'events' for update skip locked`.execute(trx);
    const from = position.rows[0];
    if (!from) return { events: 0, deliveries: 0, claimed: [] };
    const lease = new Date(now.getTime() + LEASE_MS);
    const result = await sql<Claimed & { events: number; deliveries: number }>`
      with batch as (
        select ev.id, ev.account_id, ev.type, ev.recorded_at, ev.tx, ev.seq from events ev
        where (ev.tx, ev.seq) > (${from.tx}::xid8, ${from.seq}::bigint) and ev.tx < pg_snapshot_xmin(pg_current_snapshot())
        order by ev.tx, ev.seq limit ${batch}
      ), due as (
        select e.id as endpoint_id, b.id as event_id, b.account_id, row_number() over (order by b.tx, b.seq, e.id) <= ${claim}::int as claimed
        from batch b join webhook_endpoints e on e.account_id = b.account_id and e.enabled and e.event_types ? b.type and e.created_at <= b.recorded_at
      ), fanned as (
        insert into webhook_deliveries (id, endpoint_id, event_id, account_id, status, next_attempt_at, created_at, updated_at, attempts, locked_until)
        select 'whd_' || lpad(to_hex((extract(epoch from clock_timestamp()) * 1000)::bigint), 11, '0') || md5(random()::text || d.endpoint_id || d.event_id),
          d.endpoint_id, d.event_id, d.account_id, 'pending', ${now}::timestamptz, ${now}::timestamptz, ${now}::timestamptz,
          case when d.claimed then 1 else 0 end, case when d.claimed then ${lease}::timestamptz end
        from due d
        on conflict (endpoint_id, event_id) do nothing
        returning id, endpoint_id, event_id, attempts
      ), moved as (
        update webhook_dispatch w set tx = last.tx, seq = last.seq
        from (select tx, seq from batch order by tx desc, seq desc limit 1) last
        where w.name = 'events'
        returning 1
      ), counts as (
        select (select count(*) from batch)::int as events, (select count(*) from fanned)::int as deliveries, (select count(*) from moved)::int as moved
      )
      select c.events, c.deliveries, f.id, f.attempts as attempt, f.endpoint_id, e.url, e.secret, e.previous_secret, e.previous_secret_expires_at,
        ev.id as event_id, ev.type, ev.created_at, ev.data::text as data, ev.traceparent
      from counts c
      left join fanned f on f.attempts = 1
      left join webhook_endpoints e on e.id = f.endpoint_id
      left join events ev on ev.id = f.event_id
    `.execute(trx);
    const first = result.rows[0]!;
    const claimed = result.rows
      .filter((row) => row.id !== null)
      .map(({ events: _events, deliveries: _deliveries, ...delivery }) => delivery);
    return { events: first.events, deliveries: first.deliveries, claimed };
  });
}

/** A claimed delivery: what its attempt needs. */
export interface Claimed {
  id: string;
  attempt: number;
  endpoint_id: string;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | string | null;
  event_id: string;
  type: string;
  created_at: Date | string;
  /** The event's data as stored (JSON text), so the body is byte for byte what was recorded. */
  data: string;
  /** The trace the event was recorded in (W3C traceparent), null when it was not traced: the delivery carries it. */
  traceparent: string | null;
}

/** How many attempts may be in flight at once per endpoint and per account (WEBHOOK_ENDPOINT_/ACCOUNT_CONCURRENCY). */
export interface Shares {
  perEndpoint: number;
  perAccount: number;
}

/**
 * Takes up to `limit` due deliveries of enabled endpoints for one attempt each: their lease moves to `now + LEASE_MS`
 * and their attempt count up by one. Fair between tenants: an endpoint never has more than `perEndpoint` attempts in
 * flight (leased, over every instance), an account never more than `perAccount`, and the accounts take turns (each
 * one's oldest first); an endpoint backing off (`paused_until` ahead; src/services/webhooks/settle.ts) waits. Rows
 * another instance holds are skipped, not waited for.
 * Its cost follows the endpoints, not the backlog: a skip scan of the pending deliveries' index finds each endpoint
 * that has some (one probe each), and only each one's first `perEndpoint` due are read and ranked.
 */
export async function claim(
  db: Kysely<Database>,
  now: Date,
  limit: number,
  shares: Shares = { perEndpoint: 2, perAccount: 8 },
): Promise<Claimed[]> {
  if (limit <= 0) return [];
  const result = await sql<Claimed>`
    with recursive pending(endpoint_id) as (
      -- Ordered as the partial index of pending deliveries is, which no other index can give: the history of deliveries
      -- made is never walked.
      (select endpoint_id from webhook_deliveries where status = 'pending' order by endpoint_id, next_attempt_at limit 1)
      union all
      select (select d.endpoint_id from webhook_deliveries d where d.status = 'pending' and d.endpoint_id > p.endpoint_id
              order by d.endpoint_id, d.next_attempt_at limit 1)
      from pending p where p.endpoint_id is not null
    ), flying as (
      -- Through the small index of leased rows: "status <> …" rather than "status = 'pending'", which would let the
      -- planner walk the index of every pending delivery instead (it did, on a backlog of 1,500).
      select endpoint_id, account_id from webhook_deliveries
      where locked_until >= ${now}::timestamptz and status <> 'succeeded' and status <> 'failed'
    ), endpoint_flying as (
      select endpoint_id, count(*) as n from flying group by endpoint_id
    ), account_flying as (
      select account_id, count(*) as n from flying group by account_id
    ), ranked as (
      select c.id, e.account_id, c.next_attempt_at, c.turn + coalesce(f.n, 0) as endpoint_turn
      from pending p
      join webhook_endpoints e on e.id = p.endpoint_id and e.enabled and (e.paused_until is null or e.paused_until <= ${now}::timestamptz)
      cross join lateral (
        select d.id, d.next_attempt_at, row_number() over (order by d.next_attempt_at, d.id) as turn from webhook_deliveries d
        where d.endpoint_id = e.id and d.status = 'pending' and d.next_attempt_at <= ${now}::timestamptz
          and (d.locked_until is null or d.locked_until < ${now}::timestamptz)
        order by d.next_attempt_at, d.id limit ${shares.perEndpoint}::int
      ) c
      left join endpoint_flying f on f.endpoint_id = e.id
    ), turns as (
      -- The account's turns among what its endpoints' shares leave: a delivery an endpoint cannot take yet uses none.
      select r.id, r.next_attempt_at,
        row_number() over (partition by r.account_id order by r.next_attempt_at, r.id) + coalesce(f.n, 0) as account_turn
      from ranked r left join account_flying f on f.account_id = r.account_id
      where r.endpoint_turn <= ${shares.perEndpoint}::int
    ), due as (
      -- The first turns, locked one by one by their key (a join here was planned as a scan of every due row). The row's
      -- own conditions are repeated where the lock is taken: a row another instance claimed since this statement's
      -- snapshot is checked anew once locked (READ COMMITTED), and left to it.
      select d.id from webhook_deliveries d
      where d.id = any(array(
          select t.id from turns t where t.account_turn <= ${shares.perAccount}::int
          order by t.account_turn, t.next_attempt_at limit ${limit}
        ))
        and d.status = 'pending' and d.next_attempt_at <= ${now}::timestamptz
        and (d.locked_until is null or d.locked_until < ${now}::timestamptz)
      for update of d skip locked
    )
    update webhook_deliveries d
    set locked_until = ${new Date(now.getTime() + LEASE_MS)}::timestamptz, attempts = d.attempts + 1, updated_at = ${now}::timestamptz
    from due, webhook_endpoints e, events ev
    where d.id = due.id and e.id = d.endpoint_id and ev.id = d.event_id
    returning d.id, d.attempts as attempt, d.endpoint_id, e.url, e.secret, e.previous_secret, e.previous_secret_expires_at,
      ev.id as event_id, ev.type, ev.created_at, ev.data::text as data, ev.traceparent
  `.execute(db);
  return result.rows;
}

/**
 * Deletes events recorded before `before` with their deliveries and attempts (cascade), a bounded batch at a time;
 * answers how many events went.
 */
export async function prune(db: Kysely<Database>, before: Date, batch = 5000): Promise<number> {
  let total = 0;
  for (let round = 0; round < 100; round++) {
    const result =
      await sql`delete from events where id in (select id from events where recorded_at < ${before}::timestamptz limit ${batch})`.execute(
        db,
      );
    const deleted = Number(result.numAffectedRows ?? 0);
    total += deleted;
    if (deleted < batch) break;
  }
  return total;
}
