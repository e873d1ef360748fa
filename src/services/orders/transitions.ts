import type { Transaction } from 'kysely';
import type { Database, Order as OrderRow } from '../../../db/schema.js';
import { ProblemError } from '../../problems.js';
import { RISK_LIMITS, type FailedCheck, type ProposedTrade } from '../checks.js';
import { dec, type Dec } from '../money.js';
import { ALLOWED_TRIGGERS } from './views.js';

export type Trigger = 'approve' | 'reject' | 'cancel';

export function invalidState(row: OrderRow, trigger: Trigger): ProblemError {
  const allowed = ALLOWED_TRIGGERS[row.status];
  return new ProblemError(
    'invalid-state',
    `The order is ${row.status}; ${trigger} is not allowed${allowed.length ? ` (allowed: ${allowed.join(', ')})` : ' (it is final)'}.`,
    { current_state: row.status, allowed_triggers: allowed },
  );
}

/** Writes a transition and its event together. */
export async function move(
  trx: Transaction<Database>,
  row: OrderRow,
  to: OrderRow['status'],
  at: Date,
  clientId: string | null,
  reason: string | null,
  extra: Partial<Pick<OrderRow, 'fill_price' | 'filled_quantity' | 'filled_at'>> & { failed_checks?: FailedCheck[] } = {},
): Promise<OrderRow> {
  const { failed_checks, ...fields } = extra;
  const updated = await trx
    .updateTable('orders')
    .set({ ...fields, status: to, updated_at: at, ...(failed_checks ? { failed_checks: JSON.stringify(failed_checks) } : {}) })
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await trx
    .insertInto('order_events')
    .values({
      order_id: row.id,
      account_id: row.account_id,
      from_status: row.status,
      to_status: to,
      at,
      client_id: clientId,
      reason,
      failed_checks: failed_checks ? JSON.stringify(failed_checks) : null,
    })
    .execute();
  return updated;
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

/** The same symbol, side and quantity submitted within the risk gate's duplicate window. */
export async function recentDuplicate(trx: Transaction<Database>, row: OrderRow, now: Date): Promise<boolean> {
  const found = await trx
    .selectFrom('order_events')
    .innerJoin('orders', 'orders.id', 'order_events.order_id')
    .select('orders.id')
    .where('order_events.account_id', '=', row.account_id)
    .where('order_events.to_status', '=', 'submitted')
    .where('order_events.at', '>', new Date(now.getTime() - RISK_LIMITS.duplicateWindowMs))
    .where('orders.symbol', '=', row.symbol)
    .where('orders.side', '=', row.side)
    .where('orders.quantity', '=', row.quantity)
    .where('orders.id', '!=', row.id)
    .executeTakeFirst();
  return Boolean(found);
}
