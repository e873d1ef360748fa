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
        ev.id as event_id, ev.type, ev.created_at, ev.data::text as data
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
 * one's oldest first). Rows another instance holds are skipped, not waited for.
 */
export async function claim(
  db: Kysely<Database>,
  now: Date,
  limit: number,
  shares: Shares = { perEndpoint: 2, perAccount: 8 },
): Promise<Claimed[]> {
  if (limit <= 0) return [];
  const result = await sql<Claimed>`
    with flying as (
      select endpoint_id, account_id from webhook_deliveries
      where status = 'pending' and locked_until >= ${now}::timestamptz
    ), ranked as (
      select d.id, d.account_id, d.next_attempt_at,
        row_number() over (partition by d.endpoint_id order by d.next_attempt_at, d.id)
          + (select count(*) from flying f where f.endpoint_id = d.endpoint_id) as endpoint_turn
      from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
      where d.status = 'pending' and d.next_attempt_at <= ${now}::timestamptz and e.enabled
        and (d.locked_until is null or d.locked_until < ${now}::timestamptz)
    ), turns as (
      -- The account's turns among what its endpoints' shares leave: a delivery an endpoint cannot take yet uses none.
      select r.id, r.next_attempt_at,
        row_number() over (partition by r.account_id order by r.next_attempt_at, r.id)
          + (select count(*) from flying f where f.account_id = r.account_id) as account_turn
      from ranked r where r.endpoint_turn <= ${shares.perEndpoint}::int
    ), due as (
      -- The row's own conditions again, here where the lock is taken: a row another instance claimed since this
      -- statement's snapshot is checked anew once locked (READ COMMITTED), and left to it.
      select d.id from webhook_deliveries d join turns t on t.id = d.id
      where t.account_turn <= ${shares.perAccount}::int and d.status = 'pending' and d.next_attempt_at <= ${now}::timestamptz
        and (d.locked_until is null or d.locked_until < ${now}::timestamptz)
      order by t.account_turn, t.next_attempt_at
      limit ${limit}
      for update of d skip locked
    )
    update webhook_deliveries d
    set locked_until = ${new Date(now.getTime() + LEASE_MS)}::timestamptz, attempts = d.attempts + 1, updated_at = ${now}::timestamptz
    from due, webhook_endpoints e, events ev
    where d.id = due.id and e.id = d.endpoint_id and ev.id = d.event_id
    returning d.id, d.attempts as attempt, d.endpoint_id, e.url, e.secret, e.previous_secret, e.previous_secret_expires_at,
      ev.id as event_id, ev.type, ev.created_at, ev.data::text as data
  `.execute(db);
  return result.rows;
}

/** What one attempt gave. */
export interface AttemptOutcome {
  delivery: Claimed;
  at: Date;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  responseBody: string | null;
}

/** An endpoint failing this long without a success in between is disabled, with a notice in the dashboard. */
export const FAILING_DISABLES_AFTER_MS = 5 * 24 * 60 * 60 * 1000;

const succeeded = (o: AttemptOutcome) => o.statusCode !== null && o.statusCode >= 200 && o.statusCode < 300;

/**
 * Records attempts at once (one statement, or one transaction when an endpoint failed): their log rows, each delivery's
 * new state (succeeded; failed after the last attempt of `retryScheduleMs` or a 410; else pending until its next retry)
 * and what they say about endpoints (a success ends a failing streak; a failure starts one; a 410, or a streak of 5
 * days, disables the endpoint).
 * A delivery whose attempt count moved meanwhile (its lease ran out and it was claimed again) keeps the newer state.
 */
export async function settle(db: Kysely<Database>, outcomes: AttemptOutcome[], retryScheduleMs: number[], now: Date): Promise<void> {
  if (outcomes.length === 0) return;
  const rows = outcomes.map((o) => {
    const gone = o.statusCode === 410;
    const delay = retryScheduleMs[o.delivery.attempt - 1];
    const status = succeeded(o) ? 'succeeded' : gone || delay === undefined ? 'failed' : 'pending';
    const next = status === 'pending' ? new Date(o.at.getTime() + o.latencyMs + delay!) : null;
    return { o, status, next };
  });
  const endpoints = (pick: (o: AttemptOutcome) => boolean) => [...new Set(outcomes.filter(pick).map((o) => o.delivery.endpoint_id))];
  const working = endpoints(succeeded);
  // A success in the batch ends the endpoint's failing streak, whatever else failed alongside it.
  const failing = endpoints((o) => !succeeded(o)).filter((id) => !working.includes(id));
  const gone = endpoints((o) => o.statusCode === 410);
  const column = <T>(pick: (row: (typeof rows)[number]) => T) => rows.map(pick);
  // The log rows, each delivery's new state and the end of a failing streak, in one statement: an instance sending
  // many deliveries writes their results with one round trip when they all succeeded (the usual case). Arrays, not a
  // VALUES list, so that the text is the same whatever the batch holds: one prepared statement, planned once.
  const recorded = sql`
    with v as (
      select * from unnest(
        ${column((r) => r.o.delivery.id)}::text[], ${column((r) => r.o.delivery.attempt)}::int[], ${column((r) => r.status)}::text[],
        ${column((r) => r.next)}::timestamptz[], ${column((r) => r.o.statusCode)}::int[], ${column((r) => r.o.error)}::text[],
        ${column((r) => r.o.at)}::timestamptz[], ${column((r) => Math.round(r.o.latencyMs))}::int[], ${column((r) => r.o.responseBody)}::text[]
      ) as v(id, attempt, status, next, code, error, at, latency, body)
    ), logged as (
      insert into webhook_attempts (delivery_id, attempt, at, status_code, latency_ms, error, response_body, next_retry_at)
      select id, attempt, at, code, latency, error, body, next from v
      returning 1
    ), updated as (
      update webhook_deliveries d
      set status = v.status, next_attempt_at = v.next, locked_until = null, last_status_code = v.code, last_error = v.error,
        updated_at = ${now}::timestamptz
      from v
      where d.id = v.id and d.attempts = v.attempt
      returning 1
    ), recovered as (
      update webhook_endpoints set failing_since = null
      where id = any(${working}::text[]) and failing_since is not null
      returning 1
    )
    select (select count(*) from logged)::int as logged, (select count(*) from updated)::int as updated, (select count(*) from recovered)::int as recovered
  `;
  if (failing.length === 0 && gone.length === 0) {
    await recorded.execute(db);
    return;
  }
  await db.transaction().execute(async (trx) => {
    await recorded.execute(trx);
    if (failing.length > 0) {
      await trx
        .updateTable('webhook_endpoints')
        .set({ failing_since: sql`coalesce(failing_since, ${now}::timestamptz)` })
        .where('id', 'in', failing)
        .execute();
      await trx
        .updateTable('webhook_endpoints')
        .set({
          enabled: false,
          disabled_at: now,
          updated_at: now,
          disabled_reason: sql`'Disabled automatically: every delivery failed since '
            || to_char(failing_since at time zone 'utc', 'YYYY-MM-DD HH24:MI') || ' UTC (5 days). Fix the endpoint, then enable it.'`,
        })
        .where('id', 'in', failing)
        .where('enabled', '=', true)
        .where('failing_since', '<=', new Date(now.getTime() - FAILING_DISABLES_AFTER_MS))
        .execute();
    }
    if (gone.length > 0) {
      await trx
        .updateTable('webhook_endpoints')
        .set({
          enabled: false,
          disabled_at: now,
          updated_at: now,
          disabled_reason: 'Disabled automatically: the endpoint answered 410 Gone. Enable it again if it is back.',
        })
        .where('id', 'in', gone)
        .where('enabled', '=', true)
        .execute();
    }
  });
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
