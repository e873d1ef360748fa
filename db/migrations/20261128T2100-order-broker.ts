import type { Kysely } from 'kysely';

/**
 * Where an order was sent and what the broker last said of it (the order's `broker` in the contract): the broker's id
 * in the catalogue (`paper`, `alpaca`), its own id of the order, its status word, when the order was sent, and until
 * when it rests at the broker for the market to open. All null while the order was never sent. `orders.status` and
 * `order_events` hold states as text with no check, so `partially_filled` needs no change of theirs.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('orders')
    .addColumn('broker_id', 'text')
    .addColumn('broker_order_id', 'text')
    .addColumn('broker_status', 'text')
    .addColumn('broker_submitted_at', 'timestamptz')
    .addColumn('rests_until', 'timestamptz')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('orders')
    .dropColumn('rests_until')
    .dropColumn('broker_submitted_at')
    .dropColumn('broker_status')
    .dropColumn('broker_order_id')
    .dropColumn('broker_id')
    .execute();
}
