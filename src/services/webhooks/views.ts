import type { Selectable } from 'kysely';
import type { components } from '../../../generated/api.js';
import type { WebhookEndpointsTable } from '../../../db/tables/events.js';

type Schemas = components['schemas'];

/** A webhook endpoint as every reader sees it (the contract's `WebhookEndpoint`): never its secret. */
export type EndpointView = Schemas['WebhookEndpoint'];
/** An endpoint with its signing secret: answered only when the secret is made (creation, rotation). */
export type EndpointWithSecret = Schemas['WebhookEndpointWithSecret'];
export type EndpointDeleted = Schemas['WebhookEndpointDeleted'];
export type AttemptView = Schemas['WebhookDeliveryAttempt'];
export type TestDelivery = Schemas['WebhookTestDelivery'];
export type Recovery = Schemas['WebhookRecovery'];

/** One delivery (an event to an endpoint) with its last attempt: the dashboard's and the operator CLI's delivery log. */
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
  /** Whether deliveries go out from the start (default true). */
  enabled?: boolean;
}

/** What to change of an endpoint; what is left out stays. */
export interface EndpointChanges {
  url?: string;
  description?: string;
  eventTypes?: string[];
  enabled?: boolean;
}

/** A request's members as the service names them (`event_types` → `eventTypes`), what it leaves out left out. */
export function endpointChanges(body: Schemas['WebhookEndpointUpdateRequest']): EndpointChanges {
  return { url: body.url, description: body.description, eventTypes: body.event_types, enabled: body.enabled };
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
    previous_secret_expires_at: until,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}
