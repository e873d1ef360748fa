import { sql, type Kysely } from 'kysely';

const money = sql`numeric(20, 2)`;
const quantity = sql`numeric(24, 6)`;
const price = sql`numeric(20, 6)`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('policies')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('limits', 'jsonb', (c) => c.notNull())
    .addColumn('target_allocation', 'jsonb', (c) => c.notNull())
    .addColumn('rebalance_band', sql`numeric(6, 4)`, (c) => c.notNull())
    .addColumn('consent', 'jsonb', (c) => c.notNull())
    .addColumn('created_by_client_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('policies_pk', ['account_id', 'version'])
    .execute();

  await db.schema
    .createTable('paper_accounts')
    .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id'))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('cash', money, (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('positions')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('symbol', 'text', (c) => c.notNull())
    .addColumn('quantity', quantity, (c) => c.notNull())
    .addColumn('average_cost', price, (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('positions_pk', ['account_id', 'symbol'])
    .execute();

  await db.schema
    .createTable('ideas')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('market', 'text', (c) => c.notNull())
    .addColumn('rationale', 'text', (c) => c.notNull())
    .addColumn('created_by_client_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('ideas_account_idx').on('ideas').columns(['account_id', 'id']).execute();

  await db.schema
    .createTable('orders')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('idea_id', 'text', (c) => c.references('ideas.id'))
    .addColumn('market', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('symbol', 'text', (c) => c.notNull())
    .addColumn('side', 'text', (c) => c.notNull())
    .addColumn('quantity', quantity, (c) => c.notNull())
    .addColumn('order_type', 'text', (c) => c.notNull())
    .addColumn('limit_price', price)
    .addColumn('notional', money, (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('fill_price', price)
    .addColumn('filled_quantity', quantity, (c) => c.notNull().defaultTo(0))
    .addColumn('failed_checks', 'jsonb')
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('filled_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  // Keyset pagination, newest first, per account and per filter: each query walks one index.
  await db.schema.createIndex('orders_account_idx').on('orders').columns(['account_id', 'id']).execute();
  await db.schema.createIndex('orders_account_status_idx').on('orders').columns(['account_id', 'status', 'id']).execute();
  await db.schema.createIndex('orders_account_symbol_idx').on('orders').columns(['account_id', 'symbol', 'id']).execute();
  await db.schema.createIndex('orders_idea_idx').on('orders').columns(['idea_id', 'id']).execute();
  await db.schema
    .createIndex('orders_proposed_expiry_idx')
    .on('orders')
    .columns(['account_id', 'expires_at'])
    .where(sql.ref('status'), '=', 'proposed')
    .execute();

  await db.schema
    .createTable('order_events')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('from_status', 'text')
    .addColumn('to_status', 'text', (c) => c.notNull())
    .addColumn('at', 'timestamptz', (c) => c.notNull())
    .addColumn('client_id', 'text')
    .addColumn('reason', 'text')
    .addColumn('failed_checks', 'jsonb')
    .execute();
  await db.schema.createIndex('order_events_order_idx').on('order_events').columns(['order_id', 'id']).execute();
  await db.schema.createIndex('order_events_account_at_idx').on('order_events').columns(['account_id', 'at']).execute();

  await db.schema
    .createTable('fills')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('symbol', 'text', (c) => c.notNull())
    .addColumn('side', 'text', (c) => c.notNull())
    .addColumn('quantity', quantity, (c) => c.notNull())
    .addColumn('price', price, (c) => c.notNull())
    .addColumn('notional', money, (c) => c.notNull())
    .addColumn('at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('fills_account_at_idx').on('fills').columns(['account_id', 'at']).execute();

  await db.schema
    .createTable('kill_switches')
    .addColumn('scope', 'text', (c) => c.primaryKey())
    .addColumn('engaged', 'boolean', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('engaged_at', 'timestamptz')
    .addColumn('engaged_by', 'text')
    .execute();
  await db.schema
    .createTable('kill_switch_events')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('at', 'timestamptz', (c) => c.notNull())
    .addColumn('by', 'text')
    .addColumn('reason', 'text')
    .execute();
  await db.schema.createIndex('kill_switch_events_scope_at_idx').on('kill_switch_events').columns(['scope', 'at']).execute();

  await db.schema
    .createTable('daily_reports')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('date', 'date', (c) => c.notNull())
    .addColumn('content', 'jsonb', (c) => c.notNull())
    .addColumn('generated_at', 'timestamptz', (c) => c.notNull())
    .addUniqueConstraint('daily_reports_account_date_key', ['account_id', 'date'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'daily_reports',
    'kill_switch_events',
    'kill_switches',
    'fills',
    'order_events',
    'orders',
    'ideas',
    'positions',
    'paper_accounts',
    'policies',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
