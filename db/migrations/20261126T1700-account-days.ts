import { sql, type Kysely } from 'kysely';

/**
 * The day's running totals of an account, updated with each fill in the same statement (orders/transitions.ts), so
 * that an approval reads one row rather than summing the day's fills (its cost grew with every fill of the day):
 * the notional filled since the day began (UTC), and what the fills after its first instant changed — cash and each
 * symbol's quantity — from which the start-of-day holdings are the current ones less these (the daily loss limit
 * values them). Filled in here for the current day from the fills already stored.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('account_days')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('day', 'date', (c) => c.notNull())
    .addColumn('traded_notional', 'numeric', (c) => c.notNull().defaultTo(0))
    .addColumn('cash_delta', 'numeric', (c) => c.notNull().defaultTo(0))
    // { symbol: quantity bought less sold }, each a decimal string (exact, as numeric columns are read).
    .addColumn('quantity_deltas', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addPrimaryKeyConstraint('account_days_pk', ['account_id', 'day'])
    .execute();
  await sql`
    with bounds as (select date_trunc('day', now() at time zone 'utc') at time zone 'utc' as start),
    today as (select f.* from fills f, bounds where f.at >= bounds.start),
    later as (select t.* from today t, bounds where t.at > bounds.start),
    symbols as (
      select account_id, symbol, sum(case when side = 'buy' then quantity else -quantity end) as quantity
      from later group by account_id, symbol
    )
    insert into account_days (account_id, day, traded_notional, cash_delta, quantity_deltas)
    select t.account_id, (select (start at time zone 'utc')::date from bounds), sum(t.notional),
      coalesce((select sum(case when l.side = 'buy' then -l.notional else l.notional end) from later l where l.account_id = t.account_id), 0),
      coalesce((select jsonb_object_agg(s.symbol, s.quantity::text) from symbols s where s.account_id = t.account_id), '{}'::jsonb)
    from today t
    group by t.account_id
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('account_days').execute();
}
