import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * The migrations' lock key: Kysely's own, so that a service of an earlier release (which takes it for the session)
 * and this one (for the transaction) still exclude each other during a rolling upgrade.
 */
const MIGRATION_LOCK_ID = BigInt('3853314791062309107');

/**
 * Takes the migrations' lock until the current transaction ends (waits while another process holds it).
 *
 * Kysely's PostgreSQL adapter takes a session-level advisory lock before the migrations' transaction and releases it
 * after: three round trips that a transaction-pooling PgBouncer may send to three different server sessions. The
 * unlock then misses, a pooled server session keeps the lock for as long as it lives, and every later start waits
 * for it until `statement_timeout` cancels its migrations (three instances behind PgBouncer in transaction mode:
 * every restart after the first failed so). A transaction is one server session whatever pools sit between, and its
 * COMMIT or ROLLBACK releases this lock, a failed migration included.
 */
export async function lockMigrations<DB>(db: Kysely<DB>): Promise<void> {
  await sql`select pg_advisory_xact_lock(${sql.lit(MIGRATION_LOCK_ID)})`.execute(db);
}

/**
 * Kysely's PostgreSQL adapter with the migration lock held for the transaction (`lockMigrations`): migrateToLatest
 * (connect.ts) opens that transaction itself and runs the migrator inside it, so the lock Kysely asks for is the one
 * already held (advisory locks are re-entrant) and there is nothing to release but the transaction.
 */
export class TransactionLockAdapter extends PostgresAdapter {
  override async acquireMigrationLock<DB>(db: Kysely<DB>): Promise<void> {
    await lockMigrations(db);
  }

  override async releaseMigrationLock(): Promise<void> {}
}
