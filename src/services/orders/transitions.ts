import { sql, type Transaction } from 'kysely';
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

/**
 * The outbox events of the steps (`order.<state>`), each holding the order as GET answered it right after that
 * step: its state and history then (a submission's event shows the order submitted, its fill's event filled).
 */
function orderEvents(row: OrderRow, steps: Step[], history: Order['events'], fields: Fields) {
  let from: string = row.status;
  const events = [...history];
  return steps.map((step, index) => {
    events.push(eventView({ from_status: from, to_status: step.to, at: step.at, client_id: step.clientId, reason: step.reason }));
    from = step.to;
    const final = index === steps.length - 1;
    const at: OrderRow = { ...row, ...(final ? fields : {}), status: step.to, updated_at: step.at };
    return { accountId: row.account_id, type: `order.${step.to}` as EventType, at: step.at, data: orderView(at, [...events], step.at) };
  });
}

/**
 * Writes the order's steps in one statement: the order's new state (the last step's), one event per step, their
 * outbox events (`history` is the order's events before these steps) and, for a fill, cash, the position and the
 * fill record — all of it or nothing, in the caller's transaction.
 */
export async function record(trx: Transaction<Database>, row: OrderRow, steps: Step[], history: Order['events'], fields: Fields = {}, fill?: FillWrite): Promise<OrderRow> {
  const last = steps[steps.length - 1]!;
  const failed = steps.find((step) => step.failedChecks)?.failedChecks;
  const published = eventRows(orderEvents(row, steps, history, fields));
  let from: string = row.status;
  const events = steps.map((step) => {
    const event = {
      order_id: row.id,
      account_id: row.account_id,
      from_status: from,
      to_status: step.to,
      at: step.at,
      client_id: step.clientId,
      reason: step.reason,
      failed_checks: step.failedChecks ? JSON.stringify(step.failedChecks) : null,
    };
    from = step.to;
    return event;
  });
  let query = trx
    .with('moved', (db) =>
      db
        .updateTable('orders')
        .set({ ...fields, status: last.to, updated_at: last.at, ...(failed ? { failed_checks: JSON.stringify(failed) } : {}) })
        .where('id', '=', row.id)
        .returningAll(),
    )
    .with('logged', (db) => db.insertInto('order_events').values(events).returning('id'))
    .with('published', (db) => db.insertInto('events').values(published).returning('id'));
  if (fill) {
    const quantity = dec(row.quantity);
    const cashDelta = row.side === 'buy' ? fill.notional.negated() : fill.notional;
    const position = fill.position.quantity.isZero()
      ? query.with('held', (db) => db.deleteFrom('positions').where('account_id', '=', row.account_id).where('symbol', '=', row.symbol).returning('symbol'))
      : query.with('held', (db) =>
          db
            .insertInto('positions')
            .values({ account_id: row.account_id, symbol: row.symbol, quantity: fill.position.quantity.toFixed(), average_cost: fill.position.average_cost.toFixed(), updated_at: last.at })
            .onConflict((c) =>
              c.columns(['account_id', 'symbol']).doUpdateSet({ quantity: fill.position.quantity.toFixed(), average_cost: fill.position.average_cost.toFixed(), updated_at: last.at }),
            )
            .returning('symbol'),
        );
    query = position
      .with('paid', (db) =>
        db
          .updateTable('paper_accounts')
          .set({ cash: sql`cash + ${cashDelta.toFixed()}::numeric`, updated_at: last.at })
          .where('account_id', '=', row.account_id)
          .returning('account_id'),
      )
      .with('day', (db) => {
        // The day's running totals (account_days): the notional of every fill since the day began, and what a fill
        // after its first instant changed, to be taken back to value the start of the day (as ledger.valueBefore).
        const day = startOfUtcDay(last.at);
        const later = last.at.getTime() > day.getTime();
        const symbol = row.symbol;
        const bought = row.side === 'buy' ? quantity : quantity.negated();
        return db
          .insertInto('account_days')
          .values({
            account_id: row.account_id,
            day: dayOf(day),
            traded_notional: fill.notional.toFixed(),
            cash_delta: later ? cashDelta.toFixed() : '0',
            quantity_deltas: later ? sql`jsonb_build_object(${symbol}::text, ${bought.toFixed()}::text)` : sql`'{}'::jsonb`,
          })
          .onConflict((c) =>
            c.columns(['account_id', 'day']).doUpdateSet({
              traded_notional: sql`account_days.traded_notional + excluded.traded_notional`,
              cash_delta: sql`account_days.cash_delta + excluded.cash_delta`,
              quantity_deltas: later
                ? sql`account_days.quantity_deltas || jsonb_build_object(${symbol}::text, (coalesce((account_days.quantity_deltas ->> ${symbol})::numeric, 0) + ${bought.toFixed()}::numeric)::text)`
                : sql`account_days.quantity_deltas`,
            }),
          )
          .returning('account_id');
      })
      .with('filled', (db) =>
        db
          .insertInto('fills')
          .values({
            order_id: row.id,
            account_id: row.account_id,
            symbol: row.symbol,
            side: row.side,
            quantity: quantity.toFixed(),
            price: fill.price.toFixed(),
            notional: fill.notional.toFixed(),
            at: last.at,
          })
          .returning('id'),
      ) as unknown as typeof query;
  }
  return (await query.selectFrom('moved').selectAll().executeTakeFirstOrThrow()) as OrderRow;
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
