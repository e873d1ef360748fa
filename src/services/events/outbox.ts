import type { Insertable } from 'kysely';
import { metricsFor, type Metrics } from '../../observability/metrics.js';
import { currentTraceparent } from '../../observability/tracing.js';
import type { EventsTable } from '../../../db/tables/events.js';
import { newId } from '../../ids.js';
import type { Queryable } from '../store.js';

/** Every type of event the feed and webhooks carry (the `webhooks` in openapi/webhooks/, `EventTypeQuery`). */
export const EVENT_TYPES = [
  'order.proposed',
  'order.submitted',
  'order.partially_filled',
  'order.filled',
  'order.rejected',
  'order.cancelled',
  'order.blocked',
  'order.expired',
  'idea.generated',
  'policy.created',
  'kill_switch.engaged',
  'kill_switch.released',
  'report.generated',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The event an endpoint's "Send test event" delivers: stored to be delivered, never shown in the feed. */
export const TEST_EVENT_TYPE = 'webhook.test';

export const isEventType = (value: string): value is EventType => (EVENT_TYPES as readonly string[]).includes(value);

/** A change to record: its account, type, time, and the resource as the API's GET answers it at that moment. */
export interface NewEvent {
  accountId: string;
  type: EventType | typeof TEST_EVENT_TYPE;
  at: Date;
  data: unknown;
}

/**
 * The rows of `events` for changes, to insert in the transaction of the change (the outbox): the statement that
 * records the change adds them (a CTE) or the caller inserts them with `publish`. Ids are time-ordered like every
 * other id; the feed's order is the commit-safe (tx, seq), not the id. Each keeps the trace it was recorded in (its
 * `traceparent`, null without tracing): the webhooks of the event carry it. They are counted in `metrics`: those of
 * the transaction they are written in (`metricsFor`).
 */
export function eventRows(events: NewEvent[], metrics: Metrics | undefined): (Insertable<EventsTable> & { traceparent: string | null })[] {
  const now = Date.now();
  if (metrics) for (const event of events) metrics.events.inc({ type: event.type });
  const traceparent = currentTraceparent();
  return events.map((event) => ({
    id: newId('evt', now),
    account_id: event.accountId,
    type: event.type,
    data: JSON.stringify(event.data),
    created_at: event.at,
    traceparent,
  }));
}

/** Inserts the events in the caller's transaction (call it inside the change's transaction, never after it). */
export async function publish(db: Queryable, events: NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  await db
    .insertInto('events')
    .values(eventRows(events, metricsFor(db)))
    .execute();
}
