import { sql, type Kysely } from 'kysely';

/** Steps of a person's first-hour checklist that no other record shows (the dashboard's Overview). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('checklist_marks')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('item', 'text', (c) => c.notNull())
    .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('checklist_marks_pkey', ['account_id', 'item'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('checklist_marks').execute();
}
