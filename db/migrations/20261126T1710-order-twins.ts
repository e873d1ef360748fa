import type { Kysely } from 'kysely';

/**
 * The risk gate's duplicate-order check looks for another order of the account with the same symbol, side and quantity
 * (orders/trigger-state.ts): by this index it finds those alone, where it scanned every event of the account's last
 * minute, a number that grows with the account's trading.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('orders_twin_idx').on('orders').columns(['account_id', 'symbol', 'side', 'quantity']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('orders_twin_idx').execute();
}
