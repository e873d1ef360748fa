import { sql, type Transaction } from 'kysely';
import { CompiledOnce } from '../../../db/compiled-query.js';
import type { Database, Order as OrderRow } from '../../../db/schema.js';
import { ProblemError } from '../../problems.js';
import type { FailedCheck, ProposedTrade } from '../checks.js';
import { dayOf, startOfUtcDay } from '../ledger.js';
import { dec, type Dec } from '../money.js';
import { eventRows, type EventType } from '../events/outbox.js';
import { ALLOWED_TRIGGERS, eventView, orderView, type Order } from './views.js';

export type Trigger = 'approve' | 'reject' | 'cancel';

export function invalidState(row: OrderRow, trigger: Trigger): ProblemError {
  const allowed = ALLOWED_TRIGGERS[row.status];
  return new ProblemError(
    'invalid-state',
    `The order is ${row.status}; ${trigger} is not allowed${allowed.length ? ` (allowed: ${allowed.join(', ')})` : ' (it is final)'}.`,
    { current_state: row.status, allowed_triggers: allowed },
  );
}

/** One step of the state machine: the state it reaches and the event that records it. */
export interface Step {
  to: OrderRow['status'];
  at: Date;
  clientId: string | null;
  reason: string | null;
  failedChecks?: FailedCheck[];
}

type Fields = Partial<Pick<OrderRow, 'fill_price' | 'filled_quantity' | 'filled_at'>>;

/** What a fill changes besides the order: cash, the position and the fill record. */
export interface FillWrite {
  price: Dec;
  notional: Dec;
  position: { quantity: Dec; average_cost: Dec };
}

/** The values record() writes: the order's, one set per event, and a fill's (named, so its query compiles once per shape). */
type RecordValues = Record<string, unknown>;

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
    ['from', 'to', 'at', 'client', 'reason', 'failed'].map((n) => `e${i}_${n}`),
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
  const outboxNames = Array.from({ length: steps }, (_, i) => ['id', 'type', 'data', 'at'].map((n) => `p${i}_${n}`)).flat();
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

function recordQuery(
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
                  ? sql`account_days.quantity_deltas || jsonb_build_object(${v.symbol}::text, (coalesce((account_days.quantity_deltas ->> ${v.symbol}::text)::numeric, 0) + ${v.bought}::numeric)::text)`
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

/** The order's events before the steps, and the caller's display name (the actor of the steps it takes). */
export interface Prior {
  events: Order['events'];
  actorName?: string | null;
}

/**
 * The outbox events of the steps (`order.<state>`), each holding the order as GET answered it right after that
 * step: its state and history then (a submission's event shows the order submitted, its fill's event filled).
 */
function orderEvents(row: OrderRow, steps: Step[], prior: Prior, fields: Fields) {
  let from: string = row.status;
  const events = [...prior.events];
  const name = prior.actorName ?? null;
  return steps.map((step, index) => {
    events.push(
      eventView({
        from_status: from,
        to_status: step.to,
        at: step.at,
        client_id: step.clientId,
        reason: step.reason,
        client_name: name,
        person_name: name,
      }),
    );
    from = step.to;
    const final = index === steps.length - 1;
    const at: OrderRow = { ...row, ...(final ? fields : {}), status: step.to, updated_at: step.at };
    return { accountId: row.account_id, type: `order.${step.to}` as EventType, at: step.at, data: orderView(at, [...events], step.at) };
  });
}

/**
 * Writes the order's steps in one statement: the order's new state (the last step's), one event per step, their
 * outbox events (`prior`: the order's events before these steps and the caller's name) and, for a fill, cash, the position and the
 * fill record — all of it or nothing, in the caller's transaction.
 */
export async function record(
  trx: Transaction<Database>,
  row: OrderRow,
  steps: Step[],
  prior: Prior,
  fields: Fields = {},
  fill?: FillWrite,
): Promise<OrderRow> {
  const last = steps[steps.length - 1]!;
  const failed = steps.find((step) => step.failedChecks)?.failedChecks;
  const day = startOfUtcDay(last.at);
  const later = last.at.getTime() > day.getTime();
  const values: RecordValues = { id: row.id, account_id: row.account_id, status: last.to, updated_at: last.at, ...fields };
  if (failed) values.failed_checks = JSON.stringify(failed);
  eventRows(orderEvents(row, steps, prior, fields)).forEach((event, i) =>
    Object.assign(values, {
      [`p${i}_id`]: event.id,
      [`p${i}_type`]: event.type,
      [`p${i}_data`]: event.data,
      [`p${i}_at`]: event.created_at,
    }),
  );
  let from: string = row.status;
  steps.forEach((step, i) => {
    Object.assign(values, {
      [`e${i}_from`]: from,
      [`e${i}_to`]: step.to,
      [`e${i}_at`]: step.at,
      [`e${i}_client`]: step.clientId,
      [`e${i}_reason`]: step.reason,
      [`e${i}_failed`]: step.failedChecks ? JSON.stringify(step.failedChecks) : null,
    });
    from = step.to;
  });
  if (fill) {
    const quantity = dec(row.quantity);
    const cashDelta = row.side === 'buy' ? fill.notional.negated() : fill.notional;
    Object.assign(values, {
      symbol: row.symbol,
      side: row.side,
      quantity: quantity.toFixed(),
      price: fill.price.toFixed(),
      notional: fill.notional.toFixed(),
      cash_delta: cashDelta.toFixed(),
      position_quantity: fill.position.quantity.toFixed(),
      average_cost: fill.position.average_cost.toFixed(),
      day: dayOf(day),
      bought: (row.side === 'buy' ? quantity : quantity.negated()).toFixed(),
    });
  }
  const kind = fill ? (fill.position.quantity.isZero() ? 'close' : 'hold') : undefined;
  const query = recordQuery(steps.length, Object.keys(fields) as (keyof Fields)[], Boolean(failed), kind, later);
  const moved = (await query.execute(trx, values)).rows[0];
  if (!moved) throw new Error(`order ${row.id} was not updated`);
  return moved;
}

export function tradeOf(row: OrderRow): ProposedTrade {
  return {
    market: row.market,
    symbol: row.symbol,
    side: row.side,
    quantity: dec(row.quantity),
    order_type: row.order_type,
    limit_price: row.limit_price === null ? null : dec(row.limit_price),
  };
}

export function marketable(row: OrderRow, price: Dec): boolean {
  if (row.order_type === 'market' || row.limit_price === null) return true;
  return row.side === 'buy' ? price.lessThanOrEqualTo(row.limit_price) : price.greaterThanOrEqualTo(row.limit_price);
}
