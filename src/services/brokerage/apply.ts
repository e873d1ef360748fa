// Applying what the broker says about an order (its answer to the submit, a trade update, a poll) to the order here:
// under the books' lock and the order's, once — progress.ts decides, record() writes the step, its event and the fill.
import type { Transaction } from 'kysely';
import type { Database } from '../../../db/schema.js';
import type { BrokerOrder } from '../../brokers/port.js';
import { positionAfterFill, positionsOf } from '../ledger.js';
import { roundMoney } from '../money.js';
import { record, type Step } from '../orders/transitions.js';
import { lockOrder } from '../orders/trigger-state.js';
import type { Store } from '../store.js';
import { AT_BROKER, progressOf } from './progress.js';

/** How far along an order is at the broker, by its status word: working, partly filled, ended. */
function rank(status: string | null): number {
  if (status === null) return -1;
  if (['partially_filled'].includes(status)) return 1;
  if (['filled', 'canceled', 'expired', 'rejected', 'done_for_day'].includes(status)) return 2;
  return 0;
}

/** The system's own steps (a fill, the broker's cancellation) name no client. */
const SYSTEM = 'system';

/**
 * Applies the broker's order to the order it was sent for (its client order id is the order's id). Nothing happens for
 * an order of another account or one that is not ours; an update already applied books nothing more. Answers whether
 * the order changed state.
 */
export async function applyBrokerOrder(
  store: Store,
  accountId: string,
  broker: BrokerOrder,
  brokerName: string,
  now: Date,
): Promise<boolean> {
  return store.transaction(async (trx) => {
    // The books first, as an approval takes them: a fill and an approval of the same account never interleave.
    await trx.selectFrom('paper_accounts').select('account_id').where('account_id', '=', accountId).forUpdate().execute();
    const state = await lockOrder(trx, accountId, broker.clientOrderId, SYSTEM);
    if (!state) return false;
    return applyLocked(trx, state, broker, brokerName, now);
  });
}

export async function applyLocked(
  trx: Transaction<Database>,
  state: NonNullable<Awaited<ReturnType<typeof lockOrder>>>,
  broker: BrokerOrder,
  brokerName: string,
  now: Date,
): Promise<boolean> {
  const { row } = state;
  // An order final here changes no more, and the broker's word about it neither: a late or repeated update (the
  // submit's answer after the fill's update, a replayed `new`) must not write an earlier word over a later one.
  if (!(AT_BROKER as readonly string[]).includes(row.status)) return false;
  const later = rank(broker.status) >= rank(row.broker_status);
  const known = {
    broker_order_id: broker.brokerOrderId || row.broker_order_id,
    broker_status: later ? broker.brokerStatus : row.broker_status,
    broker_submitted_at: row.broker_submitted_at ?? broker.submittedAt ?? now,
    next_submit_at: null,
  };
  const progress = progressOf(row, broker, brokerName);
  if (!progress.to) {
    await trx.updateTable('orders').set(known).where('id', '=', row.id).execute();
    return false;
  }
  // Booked when learned: the broker's own fill time may precede the events this service already recorded.
  const at = now;
  const step: Step = { to: progress.to, at, clientId: null, reason: progress.reason };
  const fields = {
    ...known,
    rests_until: null,
    ...(progress.execution
      ? { fill_price: progress.averagePrice!.toFixed(), filled_quantity: progress.filledQuantity.toFixed(), filled_at: at }
      : {}),
  };
  let fill;
  if (progress.execution) {
    const { quantity, price } = progress.execution;
    const held = (await positionsOf(trx, row.account_id)).find((p) => p.symbol === row.symbol);
    fill = { quantity, price, notional: roundMoney(quantity.times(price)), position: positionAfterFill(held, row.side, quantity, price) };
  }
  await record(trx, row, [step], state, fields, fill);
  return true;
}
