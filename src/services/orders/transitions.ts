import type { Transaction } from 'kysely';
import { metricsFor } from '../../observability/metrics.js';
import type { Database, Order as OrderRow } from '../../../db/schema.js';
import type { SubmitRequest } from '../../brokers/port.js';
import { ProblemError } from '../../problems.js';
import type { FailedCheck, ProposedTrade } from '../checks.js';
import { dayOf, startOfUtcDay } from '../ledger.js';
import { dec, type Dec } from '../money.js';
import { eventRows, type EventType } from '../events/outbox.js';
import { recordQuery, type Fields, type RecordValues } from './record-statement.js';
import { ALLOWED_TRIGGERS, eventView, orderView, PAPER_STATUS, type Order } from './views.js';

export type Trigger = 'approve' | 'reject' | 'cancel';

export function invalidState(row: OrderRow, trigger: Trigger | 'preview'): ProblemError {
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
  /** An approval's step bound to a preview: the preview (its event records it). */
  previewId?: string;
}

/** What a fill changes besides the order: cash, the position and the fill record. */
export interface FillWrite {
  /** The shares this execution moves (all of the order on the paper broker; a part of it on a partial fill). */
  quantity: Dec;
  price: Dec;
  notional: Dec;
  position: { quantity: Dec; average_cost: Dec };
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
 * The fields of the steps with the paper broker's record: a step that submits an order without naming a broker
 * (`broker_id` in `fields`) sends it to the paper broker (its id, the step's time, no order id of its own), and every
 * later step of a paper order records the paper broker's word for its state. An order at another broker keeps what
 * its caller sets.
 */
export function withPaperBroker(row: OrderRow, steps: Step[], fields: Fields): Fields {
  if (fields.broker_id !== undefined) return fields;
  const submitted = steps.find((step) => step.to === 'submitted');
  const sent = row.broker_id === null && submitted !== undefined;
  if (!sent && row.broker_id !== 'paper') return fields;
  const word = PAPER_STATUS[steps[steps.length - 1]!.to];
  return {
    ...(sent ? { broker_id: 'paper', broker_submitted_at: submitted.at } : {}),
    ...(word ? { broker_status: word } : {}),
    ...fields,
  };
}

/**
 * Writes the order's steps in one statement: the order's new state (the last step's) with `fields` (the paper broker's
 * record added, `withPaperBroker`), one event per step, their outbox events (`prior`: the order's events before these
 * steps and the caller's name) and, for a fill, cash, the position and the fill record — all of it or nothing, in the
 * caller's transaction.
 */
export async function record(
  trx: Transaction<Database>,
  row: OrderRow,
  steps: Step[],
  prior: Prior,
  given: Fields = {},
  fill?: FillWrite,
): Promise<OrderRow> {
  const fields = withPaperBroker(row, steps, given);
  const last = steps[steps.length - 1]!;
  const failed = steps.find((step) => step.failedChecks)?.failedChecks;
  const day = startOfUtcDay(last.at);
  const later = last.at.getTime() > day.getTime();
  const values: RecordValues = { id: row.id, account_id: row.account_id, status: last.to, updated_at: last.at, ...fields };
  if (failed) values.failed_checks = JSON.stringify(failed);
  // Counted as written: a transaction that rolls back after it (rare: a failure) is counted too, a rehearsal's not.
  const metrics = metricsFor(trx);
  eventRows(orderEvents(row, steps, prior, fields), metrics).forEach((event, i) =>
    Object.assign(values, {
      [`p${i}_id`]: event.id,
      [`p${i}_type`]: event.type,
      [`p${i}_data`]: event.data,
      [`p${i}_at`]: event.created_at,
      [`p${i}_traceparent`]: event.traceparent,
    }),
  );
  let from: string = row.status;
  steps.forEach((step, i) => {
    metrics?.transitions.inc({ from: i === 0 ? row.status : steps[i - 1]!.to, to: step.to });
    Object.assign(values, {
      [`e${i}_from`]: from,
      [`e${i}_to`]: step.to,
      [`e${i}_at`]: step.at,
      [`e${i}_client`]: step.clientId,
      [`e${i}_reason`]: step.reason,
      [`e${i}_failed`]: step.failedChecks ? JSON.stringify(step.failedChecks) : null,
      [`e${i}_preview`]: step.previewId ?? null,
    });
    from = step.to;
  });
  if (fill) {
    const { quantity } = fill;
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

/** What is sent to a broker for an approved order: its client order id is the order's id; a day order. */
export function submitRequestOf(row: OrderRow): SubmitRequest {
  return {
    clientOrderId: row.id,
    symbol: row.symbol,
    side: row.side,
    quantity: dec(row.quantity).toFixed(),
    type: row.order_type,
    ...(row.limit_price !== null ? { limitPrice: dec(row.limit_price).toFixed() } : {}),
    timeInForce: 'day',
  };
}
