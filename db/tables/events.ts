// The tables of events: the transactional outbox and the webhooks it feeds.
import type { Generated } from 'kysely';
import type { Json, Timestamp } from './columns.js';

/** The transactional outbox (db/migrations/20261126T1800-events.ts); `tx` and `seq` are read as text. */
export interface EventsTable {
  id: string;
  account_id: string;
  type: string;
  data: Json<unknown>;
  created_at: Timestamp;
  recorded_at: Generated<Date>;
  tx: Generated<string>;
  seq: Generated<string>;
  /** The W3C traceparent of the span that recorded the event, when traced: its webhook deliveries carry it. */
  traceparent: string | null;
}

export interface WebhookEndpointsTable {
  id: string;
  account_id: string;
  url: string;
  description: string;
  event_types: Json<string[]>;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Timestamp | null;
  enabled: boolean;
  disabled_reason: string | null;
  disabled_at: Timestamp | null;
  failing_since: Timestamp | null;
  /** Attempts in a row that got no answer within the timeout (an answer resets it). */
  timeouts: Generated<number>;
  /** While set and ahead, the endpoint's deliveries wait: it backs off after timeouts in a row. */
  paused_until: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WebhookDeliveriesTable {
  id: string;
  endpoint_id: string;
  event_id: string;
  account_id: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: Generated<number>;
  next_attempt_at: Timestamp | null;
  locked_until: Timestamp | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: string;
  /** The delivery's endpoint (an endpoint's attempts are listed by it). */
  endpoint_id: string;
  attempt: number;
  at: Timestamp;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  response_body: string | null;
  next_retry_at: Timestamp | null;
}

export interface WebhookDispatchTable {
  name: string;
  tx: string;
  seq: string;
}
