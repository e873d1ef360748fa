// The one statement record() (transitions.ts) runs: the order's new state, its events, their outbox events and, for a
// fill, cash, the position, the day's totals and the fill record, as one WITH query compiled once per shape.
import { sql, type Transaction } from 'kysely';
import { CompiledOnce } from '../../../db/compiled-query.js';
import type { Database, Order as OrderRow } from '../../../db/schema.js';

/**
 * What a step sets on the order besides its state: a fill's average price, cumulative quantity and time, where the
 * order was sent with what the broker last said of it, and when to send it to a connected broker (record() names the paper broker when a step submits an order
 * without naming one).
 */
export type Fields = Partial<
  Pick<
    OrderRow,
    | 'fill_price'
    | 'filled_quantity'
    | 'filled_at'
    | 'broker_id'
    | 'broker_order_id'
    | 'broker_status'
    | 'broker_submitted_at'
    | 'rests_until'
    | 'submit_by'
    | 'next_submit_at'
    | 'submit_attempts'
    | 'preview_id'
  >
>;

/** The values record() writes: the order's, one set per event, and a fill's (named, so its query compiles once per shape). */
export type RecordValues = Record<string, unknown>;

/**
 * The parameters of a record() statement, by name: the order's, one set per step, one outbox event per step, and for a
 * fill its own (with the position's when it stays open, and the day's bought quantity when the fill came after the
 * day's first instant). They are the statement's shape: each list's SQL is compiled once (CompiledOnce), keyed by the
 * list itself, and its values go in as parameters: building and compiling it with Kysely on every approval is not free.
 */
function recordNames(
  steps: number,
  fieldNames: (keyof Fields)[],
  failed: boolean,
  fill: 'close' | 'hold' | undefined,
  later: boolean,
): string[] {
  const eventNames = Array.from({ length: steps }, (_, i) =>
    ['from', 'to', 'at', 'client', 'reason', 'failed', 'preview'].map((n) => `e${i}_${n}`),
  ).flat();
  const fillNames = fill
    ? [
        'symbol',
        'side',
        'quantity',
        'price',
        'notional',
        'cash_delta',
        ...(fill === 'hold' ? ['position_quantity', 'average_cost'] : []),
        'day',
        ...(later ? ['bought'] : []),
      ]
    : [];
  const outboxNames = Array.from({ length: steps }, (_, i) => ['id', 'type', 'data', 'at', 'traceparent'].map((n) => `p${i}_${n}`)).flat();
  return [
    'id',
    'account_id',
    'status',
    'updated_at',
    ...(failed ? ['failed_checks'] : []),
    ...fieldNames,
    ...eventNames,
    ...outboxNames,
    ...fillNames,
  ];
}

const compiledRecords = new Map<string, CompiledOnce<RecordValues, OrderRow>>();

export function recordQuery(
  steps: number,
  fieldNames: (keyof Fields)[],
  failed: boolean,
  fill: 'close' | 'hold' | undefined,
  later: boolean,
): CompiledOnce<RecordValues, OrderRow> {
  const names = recordNames(steps, fieldNames, failed, fill, later);
  const shape = names.join(',');
  let compiled = compiledRecords.get(shape);
  if (compiled) return compiled;
  compiled = new CompiledOnce<RecordValues, OrderRow>(names, (trx, v) => {
    const events = Array.from({ length: steps }, (_, i) => ({
      order_id: v.id,
      account_id: v.account_id,
      from_status: v[`e${i}_from`],
      to_status: v[`e${i}_to`],
      at: v[`e${i}_at`],
      client_id: v[`e${i}_client`],
      reason: v[`e${i}_reason`],
      failed_checks: v[`e${i}_failed`],
      preview_id: v[`e${i}_preview`],
    }));
    const changed = Object.fromEntries(fieldNames.map((name) => [name, v[name]]));
    let query = (trx as Transaction<Database>)
      .with('moved', (db) =>
        db
          .updateTable('orders')
          .set({ ...changed, status: v.status, updated_at: v.updated_at, ...(failed ? { failed_checks: v.failed_checks } : {}) } as never)
          .where('id', '=', v.id as string)
          .returningAll(),
      )
      .with('logged', (db) =>
        db
          .insertInto('order_events')
          .values(events as never)
          .returning('id'),
      )
      .with('published', (db) =>
        db
          .insertInto('events')
          .values(
            Array.from({ length: steps }, (_, i) => ({
              id: v[`p${i}_id`],
              account_id: v.account_id,
              type: v[`p${i}_type`],
              data: v[`p${i}_data`],
              created_at: v[`p${i}_at`],
              traceparent: v[`p${i}_traceparent`],
            })) as never,
          )
          .returning('id'),
      );
    if (fill) {
      const position =
        fill === 'close'
          ? query.with('held', (db) =>
              db
                .deleteFrom('positions')
                .where('account_id', '=', v.account_id as string)
                .where('symbol', '=', v.symbol as string)
                .returning('symbol'),
            )
          : query.with('held', (db) =>
              db
                .insertInto('positions')
                .values({
                  account_id: v.account_id,
                  symbol: v.symbol,
                  quantity: v.position_quantity,
                  average_cost: v.average_cost,
                  updated_at: v.updated_at,
                } as never)
                .onConflict((c) =>
                  c
                    .columns(['account_id', 'symbol'])
                    .doUpdateSet({ quantity: v.position_quantity, average_cost: v.average_cost, updated_at: v.updated_at } as never),
                )
                .returning('symbol'),
            );
      query = position
        .with('paid', (db) =>
          db
            .updateTable('paper_accounts')
            .set({ cash: sql`cash + ${v.cash_delta}::numeric`, updated_at: v.updated_at } as never)
            .where('account_id', '=', v.account_id as string)
            .returning('account_id'),
        )
        .with('day', (db) =>
          // The day's running totals (account_days): the notional of every fill since the day began, and what a fill
          // after its first instant changed, to be taken back to value the start of the day (as ledger.valueBefore).
          db
            .insertInto('account_days')
            .values({
              account_id: v.account_id,
              day: v.day,
              traded_notional: v.notional,
              cash_delta: later ? v.cash_delta : '0',
              quantity_deltas: later ? sql`jsonb_build_object(${v.symbol}::text, ${v.bought}::text)` : sql`'{}'::jsonb`,
            } as never)
            .onConflict((c) =>
              c.columns(['account_id', 'day']).doUpdateSet({
                traded_notional: sql`account_days.traded_notional + excluded.traded_notional`,
                cash_delta: sql`account_days.cash_delta + excluded.cash_delta`,
                quantity_deltas: later
                  ? sql`account_days.quantity_deltas || jsonb_build_object(
                      ${v.symbol}::text,
                      (coalesce((account_days.quantity_deltas ->> ${v.symbol}::text)::numeric, 0) + ${v.bought}::numeric)::text
                    )`
                  : sql`account_days.quantity_deltas`,
              } as never),
            )
            .returning('account_id'),
        )
        .with('filled', (db) =>
          db
            .insertInto('fills')
            .values({
              order_id: v.id,
              account_id: v.account_id,
              symbol: v.symbol,
              side: v.side,
              quantity: v.quantity,
              price: v.price,
              notional: v.notional,
              at: v.updated_at,
            } as never)
            .returning('id'),
        ) as unknown as typeof query;
    }
    return query.selectFrom('moved').selectAll();
  });
  compiledRecords.set(shape, compiled);
  return compiled;
}
