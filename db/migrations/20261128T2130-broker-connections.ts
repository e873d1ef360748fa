import { sql, type Kysely } from 'kysely';

/**
 * An account's connection to a real broker (Alpaca): the key id in clear (not a secret), the secret key sealed
 * (AES-256-GCM, src/brokers/credentials.ts), and the mirror of what the broker holds, filled by reconciliation.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('broker_connections')
    .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
    .addColumn('broker', 'text', (c) => c.notNull())
    .addColumn('live', 'boolean', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('broker_account_number', 'text', (c) => c.notNull())
    .addColumn('connected_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('mirror_read_at', 'timestamptz')
    .addColumn('mirror_matched_at', 'timestamptz')
    .addColumn('mirror_drift', 'jsonb')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('broker_connections').execute();
}
