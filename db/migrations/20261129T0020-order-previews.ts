import type { Kysely } from 'kysely';

/**
 * Previews of an approval (POST /v1/orders/{id}/preview; src/services/orders/preview.ts): every check an approval
 * runs, against a fresh price, kept until it expires (ORDER_PREVIEW_TTL_SECONDS) so that an approval can be bound to
 * what the approver saw — its price, its policy version, its time — and the order records the preview it was approved
 * with (`orders.preview_id`, and its approval event's). `body` is the preview as it was answered. Bounded: the latest
 * few of an order are kept, and a preview expired for a day is deleted when its account previews again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('order_previews')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id'))
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('policy_version', 'integer')
    .addColumn('price', 'numeric', (c) => c.notNull())
    .addColumn('decision', 'text', (c) => c.notNull())
    .addColumn('body', 'jsonb', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('order_previews_order_idx').on('order_previews').columns(['order_id', 'created_at']).execute();
  await db.schema.createIndex('order_previews_expiry_idx').on('order_previews').columns(['account_id', 'expires_at']).execute();
  await db.schema.alterTable('orders').addColumn('preview_id', 'text').execute();
  await db.schema.alterTable('order_events').addColumn('preview_id', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('order_events').dropColumn('preview_id').execute();
  await db.schema.alterTable('orders').dropColumn('preview_id').execute();
  await db.schema.dropTable('order_previews').execute();
}
