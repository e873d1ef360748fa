// The tables of trading: policies, the paper account and its positions, ideas, orders and fills, the day's totals,
// the kill switch and the daily reports.
import type { ColumnType, Generated } from 'kysely';
import type { CreatedAt, Json, Numeric, Timestamp } from './columns.js';

/** A timestamp column that may be null and is left out of an insert. */
type OptionalTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

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
  status: 'proposed' | 'submitted' | 'partially_filled' | 'filled' | 'rejected' | 'cancelled' | 'blocked' | 'expired';
  /** The average price of what executed so far (the contract's `average_fill_price` and `fill_price`). */
  fill_price: Numeric | null;
  /** Cumulative across partial fills. */
  filled_quantity: ColumnType<string, string | number | undefined, string | number>;
  failed_checks: Json<{ check: string; message: string }[]> | null;
  expires_at: Timestamp;
  filled_at: Timestamp | null;
  /** Where the order was sent (db/migrations/20261201T0900-order-broker.ts): the catalogue's broker id; null while never sent. */
  broker_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The broker's own id of the order. */
  broker_order_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The broker's status word as it last said it (`accepted`, `partially_filled`, ...). */
  broker_status: ColumnType<string | null, string | null | undefined, string | null>;
  broker_submitted_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** The next open, while the order waits at the broker for the market to open. */
  rests_until: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  created_at: CreatedAt;
  updated_at: Timestamp;
  /** Sending to a connected broker (db/migrations/20261128T2200-broker-sending.ts): the last moment, the next try, tries so far. */
  submit_by: OptionalTimestamp;
  next_submit_at: OptionalTimestamp;
  submit_attempts: ColumnType<number, number | undefined, number>;
  /** The preview the order was approved with (POST /v1/orders/{id}/preview), when it was bound to one. */
  preview_id: ColumnType<string | null, string | null | undefined, string | null>;
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
  preview_id: ColumnType<string | null, string | null | undefined, string | null>;
}

/** An approval's preview (src/services/orders/preview.ts): what it was made on, and its answer as served. */
export interface OrderPreviewsTable {
  id: string;
  account_id: string;
  order_id: string;
  client_id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  policy_version: number | null;
  price: Numeric;
  decision: 'approve' | 'block' | 'refuse';
  body: Json<unknown>;
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
