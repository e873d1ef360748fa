// The tables of accounts' connections to real brokers.
import type { ColumnType } from 'kysely';
import type { Json, Timestamp } from './columns.js';

export interface BrokerConnectionsTable {
  account_id: string;
  /** `alpaca`. */
  broker: string;
  /** A live (real-money) account rather than the broker's paper one. */
  live: boolean;
  /** The broker's API key id: not a secret, shown to the holder and the operator. */
  key_id: string;
  /** The secret key, sealed (src/brokers/credentials.ts); never stored, logged or shown in clear. */
  secret_sealed: string;
  /** The broker's own account number, as its account endpoint answered when the keys were checked. */
  broker_account_number: string;
  connected_at: Timestamp;
  /** When the mirror of the broker's account (cash, positions, open orders) was last read. */
  mirror_read_at: Timestamp | null;
  /** When the mirror last matched what the service holds. */
  mirror_matched_at: Timestamp | null;
  /** What differed at the last read that did not match. */
  mirror_drift: Json<unknown> | null;
  /** The instance streaming and polling the account (db/migrations/20261128T2300-broker-streams.ts), and until when. */
  stream_owner: ColumnType<string | null, string | null | undefined, string | null>;
  stream_lease_until: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}
