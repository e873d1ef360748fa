import type { Insertable, Selectable, Updateable } from 'kysely';
import type {
  AccountsTable,
  ApiClientsTable,
  ChecklistMarksTable,
  ContactMessagesTable,
  DashboardSessionsTable,
  FailureCountersTable,
  HmacKeysTable,
  IdempotencyKeysTable,
  SigningKeysTable,
  SolvedChallengesTable,
} from './tables/access.js';
import type { BrokerConnectionsTable } from './tables/brokers.js';
import type {
  EventsTable,
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhookDispatchTable,
  WebhookEndpointsTable,
} from './tables/events.js';
import type {
  AccountDaysTable,
  DailyReportsTable,
  FillsTable,
  IdeasTable,
  KillSwitchEventsTable,
  KillSwitchesTable,
  OrderEventsTable,
  OrderPreviewsTable,
  OrdersTable,
  PaperAccountsTable,
  PoliciesTable,
  PositionsTable,
} from './tables/trading.js';

/** The database as Kysely types it: every table by name (each table's columns in db/tables/). */
export interface Database {
  accounts: AccountsTable;
  api_clients: ApiClientsTable;
  signing_keys: SigningKeysTable;
  policies: PoliciesTable;
  paper_accounts: PaperAccountsTable;
  positions: PositionsTable;
  ideas: IdeasTable;
  orders: OrdersTable;
  order_events: OrderEventsTable;
  order_previews: OrderPreviewsTable;
  fills: FillsTable;
  account_days: AccountDaysTable;
  kill_switches: KillSwitchesTable;
  kill_switch_events: KillSwitchEventsTable;
  daily_reports: DailyReportsTable;
  hmac_keys: HmacKeysTable;
  solved_challenges: SolvedChallengesTable;
  failure_counters: FailureCountersTable;
  dashboard_sessions: DashboardSessionsTable;
  contact_messages: ContactMessagesTable;
  idempotency_keys: IdempotencyKeysTable;
  events: EventsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  webhook_dispatch: WebhookDispatchTable;
  checklist_marks: ChecklistMarksTable;
  broker_connections: BrokerConnectionsTable;
}

export type Order = Selectable<OrdersTable>;
export type PolicyRow = Selectable<PoliciesTable>;
export type PositionRow = Selectable<PositionsTable>;

export type Account = Selectable<AccountsTable>;
export type NewAccount = Insertable<AccountsTable>;
export type ApiClient = Selectable<ApiClientsTable>;
export type NewApiClient = Insertable<ApiClientsTable>;
export type ApiClientUpdate = Updateable<ApiClientsTable>;
