import type { Migration } from 'kysely';
import * as foundation from './20261121T2300-foundation.js';
import * as trading from './20261121T2330-trading.js';
import * as people from './20261122T0900-people.js';
import * as idempotency from './20261122T1300-idempotency.js';
import * as accountDays from './20261126T1700-account-days.js';
import * as orderTwins from './20261126T1710-order-twins.js';
import * as events from './20261126T1800-events.js';
import * as checklistMarks from './20261126T1800-checklist-marks.js';
import * as orderBroker from './20261128T2100-order-broker.js';
import * as brokerConnections from './20261128T2130-broker-connections.js';
import * as brokerSending from './20261128T2200-broker-sending.js';
import * as brokerStreams from './20261128T2300-broker-streams.js';
import * as orderPreviews from './20261129T0020-order-previews.js';
import * as webhookBackoff from './20261129T0300-webhook-backoff.js';
import * as eventTraces from './20261129T0500-event-traces.js';
import * as webhookEndpointsApi from './20261129T0700-webhook-endpoints-api.js';

/** Every migration, by timestamped name; Kysely runs them in name order on PostgreSQL and on the embedded database. */
export const migrations: Record<string, Migration> = {
  '20261121T2300-foundation': foundation,
  '20261121T2330-trading': trading,
  '20261122T0900-people': people,
  '20261122T1300-idempotency': idempotency,
  '20261126T1700-account-days': accountDays,
  '20261126T1710-order-twins': orderTwins,
  '20261126T1800-events': events,
  '20261126T1800-checklist-marks': checklistMarks,
  '20261128T2100-order-broker': orderBroker,
  '20261128T2130-broker-connections': brokerConnections,
  '20261128T2200-broker-sending': brokerSending,
  '20261128T2300-broker-streams': brokerStreams,
  '20261129T0020-order-previews': orderPreviews,
  '20261129T0300-webhook-backoff': webhookBackoff,
  '20261129T0500-event-traces': eventTraces,
  '20261129T0700-webhook-endpoints-api': webhookEndpointsApi,
};
