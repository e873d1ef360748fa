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

export interface Database {
  accounts: AccountsTable;
  api_clients: ApiClientsTable;
  signing_keys: SigningKeysTable;
}

export type Account = Selectable<AccountsTable>;
export type NewAccount = Insertable<AccountsTable>;
export type ApiClient = Selectable<ApiClientsTable>;
export type NewApiClient = Insertable<ApiClientsTable>;
export type ApiClientUpdate = Updateable<ApiClientsTable>;
