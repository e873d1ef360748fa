// The tables of accounts and their access: people, API clients, keys, sessions, challenges, idempotency keys.
import type { ColumnType, Generated } from 'kysely';
import type { CreatedAt, Timestamp } from './columns.js';

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
