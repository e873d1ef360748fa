import type { Kysely } from 'kysely';

/**
 * Sending an approved order to a connected broker (src/services/brokerage/sender.ts): until the broker has it, the
 * order is `submitted` with no broker order id, and these say when to try next, how often it was tried and the
 * last moment it may still be sent (the approval's time plus BROKER_SUBMIT_WINDOW_MS): past it, it ends `rejected`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('orders')
    .addColumn('submit_by', 'timestamptz')
    .addColumn('next_submit_at', 'timestamptz')
    .addColumn('submit_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('orders_sending_idx').on('orders').column('next_submit_at').where('next_submit_at', 'is not', null).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('orders_sending_idx').execute();
  await db.schema.alterTable('orders').dropColumn('submit_by').dropColumn('next_submit_at').dropColumn('submit_attempts').execute();
}
