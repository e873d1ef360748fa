import { sql, type Kysely } from 'kysely';

/**
 * Webhook endpoints over the API (issue 36): an endpoint's delivery attempts are listed newest first, a page at a
 * time, so each attempt names its endpoint (`webhook_attempts.endpoint_id`, copied from its delivery, with an index
 * in the list's order): a page costs the same whatever other endpoints logged. Recovering an endpoint's failed
 * deliveries since a time reads them by a partial index of the failed ones.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_attempts').addColumn('endpoint_id', 'text').execute();
  await sql`update webhook_attempts a set endpoint_id = d.endpoint_id from webhook_deliveries d where d.id = a.delivery_id`.execute(db);
  await sql`alter table webhook_attempts alter column endpoint_id set not null`.execute(db);
  await sql`create index webhook_attempts_endpoint_idx on webhook_attempts (endpoint_id, id)`.execute(db);
  await sql`create index webhook_deliveries_failed_idx on webhook_deliveries (endpoint_id, created_at, id) where status = 'failed'`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index webhook_deliveries_failed_idx`.execute(db);
  await sql`drop index webhook_attempts_endpoint_idx`.execute(db);
  await db.schema.alterTable('webhook_attempts').dropColumn('endpoint_id').execute();
}
