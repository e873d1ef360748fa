import type { Kysely } from 'kysely';

/**
 * One trade-updates stream per connected account across instances (src/services/brokerage/sync.ts): the instance
 * holding the lease streams and polls the account, and renews it at each sweep; another takes over once it lapses.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('broker_connections')
    .addColumn('stream_owner', 'text')
    .addColumn('stream_lease_until', 'timestamptz')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('broker_connections').dropColumn('stream_owner').dropColumn('stream_lease_until').execute();
}
