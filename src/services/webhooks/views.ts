import type { Selectable } from 'kysely';
import type { WebhookEndpointsTable } from '../../../db/tables/events.js';

/** What the dashboard and the operator CLI see of webhook endpoints and their deliveries (src/services/webhooks/endpoints.ts). */
export interface EndpointView {
  id: string;
  account_id: string;
  url: string;
  description: string;
  event_types: string[];
  enabled: boolean;
  disabled_reason: string | null;
  disabled_at: string | null;
  failing_since: string | null;
  /** Until when its deliveries wait, after attempts in a row without an answer (src/services/webhooks/settle.ts). */
  paused_until: string | null;
  /** Until when the previous secret signs too (after a rotation), or null. */
  previous_secret_until: string | null;
  created_at: string;
}

export interface EndpointWithSecret extends EndpointView {
  secret: string;
}

export interface DeliveryView {
  id: string;
  event_id: string;
  type: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  last_status_code: number | null;
  last_latency_ms: number | null;
  last_error: string | null;
  last_response: string | null;
  next_attempt_at: string | null;
  created_at: string;
}

export interface NewEndpoint {
  url: string;
  description?: string;
  eventTypes: string[];
}

export const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

export function view(row: Selectable<WebhookEndpointsTable>, now: Date): EndpointView {
  const until =
    row.previous_secret_expires_at && new Date(row.previous_secret_expires_at) > now ? iso(row.previous_secret_expires_at) : null;
  return {
    id: row.id,
    account_id: row.account_id,
    url: row.url,
    description: row.description,
    event_types: row.event_types,
    enabled: row.enabled,
    disabled_reason: row.disabled_reason,
    disabled_at: iso(row.disabled_at),
    failing_since: iso(row.failing_since),
    paused_until: row.paused_until && new Date(row.paused_until) > now ? iso(row.paused_until) : null,
    previous_secret_until: until,
    created_at: iso(row.created_at)!,
  };
}
