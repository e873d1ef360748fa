import { sql, type Kysely } from 'kysely';
import type { Database } from '../../../db/schema.js';
import type { Claimed } from './queue.js';

/** What one attempt gave. */
export interface AttemptOutcome {
  delivery: Claimed;
  at: Date;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  responseBody: string | null;
  /** No answer came within the attempt's timeout. */
  timedOut?: boolean;
}

/** An endpoint failing this long without a success in between is disabled, with a notice in the dashboard. */
export const FAILING_DISABLES_AFTER_MS = 5 * 24 * 60 * 60 * 1000;

/**
 * Backing off (issue 34): an endpoint whose attempts go unanswered this many times in a row waits before its next
 * attempt — PAUSE_FIRST_MS, doubling with each further attempt without an answer, at most PAUSE_MOST_MS — so that it
 * holds no place in flight for nothing (each such attempt holds one for the whole timeout). Any answer, even an error
 * status, ends it; so does "Retry now". Its deliveries keep their attempts and retry schedule meanwhile.
 */
export const TIMEOUTS_BEFORE_PAUSE = 3;
export const PAUSE_FIRST_MS = 60_000;
export const PAUSE_MOST_MS = 60 * 60_000;

const succeeded = (o: AttemptOutcome) => o.statusCode !== null && o.statusCode >= 200 && o.statusCode < 300;

/**
 * Records attempts at once (one statement, or one transaction when an endpoint failed): their log rows, each delivery's
 * new state (succeeded; failed after the last attempt of `retryScheduleMs` or a 410; else pending until its next retry)
 * and what they say about endpoints (a success ends a failing streak; a failure starts one; a 410, or a streak of 5
 * days, disables the endpoint; attempts without an answer make it back off, and any answer ends that).
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
  // Any answer ends a run of attempts without one (a success's endpoint is reset with its failing streak below).
  const answered = endpoints((o) => o.statusCode !== null).filter((id) => !working.includes(id));
  const unanswered = outcomes.filter(
    (o) => o.timedOut && !working.includes(o.delivery.endpoint_id) && !answered.includes(o.delivery.endpoint_id),
  );
  const timeouts = new Map<string, number>();
  for (const o of unanswered) timeouts.set(o.delivery.endpoint_id, (timeouts.get(o.delivery.endpoint_id) ?? 0) + 1);
  const column = <T>(pick: (row: (typeof rows)[number]) => T) => rows.map(pick);
  // The log rows, each delivery's new state and the end of a failing streak, in one statement: an instance sending
  // many deliveries writes their results with one round trip when they all succeeded (the usual case). Arrays, not a
  // VALUES list, so that the text is the same whatever the batch holds: one prepared statement, planned once.
  const recorded = sql`
    with v as (
      select * from unnest(
        ${column((r) => r.o.delivery.id)}::text[], ${column((r) => r.o.delivery.attempt)}::int[], ${column((r) => r.status)}::text[],
        ${column((r) => r.next)}::timestamptz[], ${column((r) => r.o.statusCode)}::int[], ${column((r) => r.o.error)}::text[],
        ${column((r) => r.o.at)}::timestamptz[], ${column((r) => Math.round(r.o.latencyMs))}::int[], ${column((r) => r.o.responseBody)}::text[],
        ${column((r) => r.o.delivery.endpoint_id)}::text[]
      ) as v(id, attempt, status, next, code, error, at, latency, body, endpoint)
    ), logged as (
      insert into webhook_attempts (delivery_id, endpoint_id, attempt, at, status_code, latency_ms, error, response_body, next_retry_at)
      select id, endpoint, attempt, at, code, latency, error, body, next from v
      returning 1
    ), updated as (
      update webhook_deliveries d
      set status = v.status, next_attempt_at = v.next, locked_until = null, last_status_code = v.code, last_error = v.error,
        updated_at = ${now}::timestamptz
      from v
      where d.id = v.id and d.attempts = v.attempt
      returning 1
    ), recovered as (
      update webhook_endpoints set failing_since = null, timeouts = 0, paused_until = null
      where id = any(${working}::text[]) and (failing_since is not null or timeouts > 0)
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
      if (answered.length > 0)
        await trx
          .updateTable('webhook_endpoints')
          .set({ timeouts: 0, paused_until: null })
          .where('id', 'in', answered)
          .where('timeouts', '>', 0)
          .execute();
      if (timeouts.size > 0) await backOff(trx, timeouts, now);
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

/** Counts each endpoint's attempts without an answer, and pauses those at TIMEOUTS_BEFORE_PAUSE or more. */
async function backOff(db: Kysely<Database>, timeouts: Map<string, number>, now: Date): Promise<void> {
  await sql`
    update webhook_endpoints e
    set timeouts = e.timeouts + v.n,
      paused_until = case when e.timeouts + v.n >= ${TIMEOUTS_BEFORE_PAUSE}::int
        then ${now}::timestamptz + interval '1 millisecond'
          * least(${PAUSE_FIRST_MS}::float8 * power(2, least(e.timeouts + v.n - ${TIMEOUTS_BEFORE_PAUSE}::int, 16)), ${PAUSE_MOST_MS}::float8)
        else e.paused_until end
    from unnest(${[...timeouts.keys()]}::text[], ${[...timeouts.values()]}::int[]) as v(id, n)
    where e.id = v.id
  `.execute(db);
}
