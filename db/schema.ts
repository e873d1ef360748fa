import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

type Timestamp = ColumnType<Date, Date | string, Date | string>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;

export interface AccountsTable {
  id: string;
  email: string;
  name: string;
  password_hash: string | null;
  created_at: CreatedAt;
}

export interface ApiClientsTable {
  client_id: string;
  account_id: string;
  name: string;
  scopes: string;
  secret_hash: string;
  /** Bumped by rotation and revocation; access tokens carry the generation they were issued under. */
  generation: Generated<number>;
  created_at: CreatedAt;
  rotated_at: Timestamp | null;
  revoked_at: Timestamp | null;
  last_used_at: Timestamp | null;
}

export interface SigningKeysTable {
  purpose: string;
  kid: string;
  alg: string;
  private_jwk: ColumnType<Record<string, unknown>, string, string>;
  public_jwk: ColumnType<Record<string, unknown>, string, string>;
  created_at: CreatedAt;
}

/** numeric columns: strings on the way out (exact), strings or numbers on the way in. */
type Numeric = ColumnType<string, string | number, string | number>;
type Json<T> = ColumnType<T, string, string>;

export interface PoliciesTable {
  account_id: string;
  version: number;
  limits: Json<Record<string, unknown>>;
  target_allocation: Json<{ symbol: string; weight: number }[]>;
  rebalance_band: Numeric;
  consent: Json<Record<string, unknown>>;
  created_by_client_id: string;
  created_at: CreatedAt;
}

export interface PaperAccountsTable {
  account_id: string;
  currency: string;
  cash: Numeric;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface PositionsTable {
  account_id: string;
  symbol: string;
  quantity: Numeric;
  average_cost: Numeric;
  updated_at: Timestamp;
}

export interface IdeasTable {
  id: string;
  account_id: string;
  mode: string;
  market: string;
  rationale: string;
  created_by_client_id: string;
  created_at: CreatedAt;
}

export interface OrdersTable {
  id: string;
  account_id: string;
  idea_id: string | null;
  market: string;
  currency: string;
  symbol: string;
  side: 'buy' | 'sell';
  quantity: Numeric;
  order_type: 'market' | 'limit';
  limit_price: Numeric | null;
  notional: Numeric;
  status: 'proposed' | 'submitted' | 'filled' | 'rejected' | 'cancelled' | 'blocked' | 'expired';
  fill_price: Numeric | null;
  filled_quantity: ColumnType<string, string | number | undefined, string | number>;
  failed_checks: Json<{ check: string; message: string }[]> | null;
  expires_at: Timestamp;
  filled_at: Timestamp | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface OrderEventsTable {
  id: Generated<number>;
  order_id: string;
  account_id: string;
  from_status: string | null;
  to_status: string;
  at: Timestamp;
  client_id: string | null;
  reason: string | null;
  failed_checks: Json<{ check: string; message: string }[]> | null;
}

export interface FillsTable {
  id: Generated<number>;
  order_id: string;
  account_id: string;
  symbol: string;
  side: 'buy' | 'sell';
  quantity: Numeric;
  price: Numeric;
  notional: Numeric;
  at: Timestamp;
}

/** An account's running totals for one UTC day (db/migrations/20261126T1700-account-days.ts). */
export interface AccountDaysTable {
  account_id: string;
  day: string;
  traded_notional: Numeric;
  cash_delta: Numeric;
  /** { symbol: quantity bought less sold by the fills after the day's first instant }. */
  quantity_deltas: ColumnType<Record<string, string>, unknown, unknown>;
}

export interface KillSwitchesTable {
  /** 'global' or an account id. */
  scope: string;
  engaged: boolean;
  reason: string | null;
  engaged_at: Timestamp | null;
  engaged_by: string | null;
}

export interface KillSwitchEventsTable {
  id: Generated<number>;
  scope: string;
  action: 'engaged' | 'released';
  at: Timestamp;
  by: string | null;
  reason: string | null;
}

export interface DailyReportsTable {
  id: string;
  account_id: string;
  date: ColumnType<string, string, string>;
  content: Json<Record<string, unknown>>;
  generated_at: Timestamp;
}

export interface HmacKeysTable {
  purpose: string;
  secret: string;
  created_at: CreatedAt;
}

export interface SolvedChallengesTable {
  challenge_hash: string;
  expires_at: Timestamp;
}

export interface FailureCountersTable {
  /** 'email' (login failures for a normalised email address) or 'address' (any failure from a client IP). */
  kind: 'email' | 'address';
  key: string;
  failures: number;
  last_failure_at: Timestamp;
  locked_until: Timestamp | null;
}

export interface DashboardSessionsTable {
  /** SHA-256 (hex) of the session token; the token itself is never stored. */
  id_hash: string;
  account_id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  ip: string;
  user_agent: string | null;
  flash: string | null;
}

export interface ContactMessagesTable {
  id: string;
  email: string;
  name: string;
  message: string;
  ip: string;
  user_agent: string | null;
  received_at: Timestamp;
}

/** A step of a person's first-hour checklist no other record shows (db/migrations/20261126T1800-checklist-marks.ts). */
export interface ChecklistMarksTable {
  account_id: string;
  item: string;
  at: Timestamp;
}

export interface IdempotencyKeysTable {
  account_id: string;
  client_id: string;
  operation_id: string;
  key: string;
  fingerprint: string;
  status: number;
  /** JSON text of the stored headers. */
  headers: string;
  /** JSON text of the stored body (null without one). */
  body: string | null;
  content_type: string;
  created_at: Generated<Date>;
  expires_at: Date;
}

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
}

export type Order = Selectable<OrdersTable>;
export type PolicyRow = Selectable<PoliciesTable>;
export type PositionRow = Selectable<PositionsTable>;

export type Account = Selectable<AccountsTable>;
export type NewAccount = Insertable<AccountsTable>;
export type ApiClient = Selectable<ApiClientsTable>;
export type NewApiClient = Insertable<ApiClientsTable>;
export type ApiClientUpdate = Updateable<ApiClientsTable>;
