import { sql, type Kysely } from 'kysely';

/**
 * Fair delivery, bounded (issue 34): an endpoint whose attempts keep going unanswered backs off
 * (`webhook_endpoints.timeouts`, the attempts in a row that got no answer within the timeout, and `paused_until`, when
 * its deliveries may be tried again; src/services/webhooks/settle.ts), and the claim reads only what it takes: a
 * partial index of each endpoint's pending deliveries in the order they come due (a skip scan finds the endpoints with
 * pending deliveries, then each one's first few), and one of the deliveries leased (in flight).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('webhook_endpoints')
    .addColumn('timeouts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('paused_until', 'timestamptz')
    .execute();
  await sql`create index webhook_deliveries_endpoint_due_idx on webhook_deliveries (endpoint_id, next_attempt_at, id) where status = 'pending'`.execute(
    db,
  );
  await sql`create index webhook_deliveries_leased_idx on webhook_deliveries (locked_until) include (endpoint_id, account_id, status)
    where locked_until is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index webhook_deliveries_leased_idx`.execute(db);
  await sql`drop index webhook_deliveries_endpoint_due_idx`.execute(db);
  await db.schema.alterTable('webhook_endpoints').dropColumn('paused_until').dropColumn('timeouts').execute();
}
