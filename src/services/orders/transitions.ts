import type { Transaction } from 'kysely';
import type { Database, Order as OrderRow } from '../../../db/schema.js';
import { ProblemError } from '../../problems.js';
import { policyCheck, riskGate, RISK_LIMITS, type FailedCheck, type ProposedTrade } from '../checks.js';
import type { Services } from '../index.js';
import { effectiveKillSwitch, engage } from '../kill-switch.js';
import { applyFill, lockPaperAccount, startOfUtcDay, valueAt } from '../ledger.js';
import { dec, type Dec } from '../money.js';
import { getCurrentPolicy } from '../policies.js';
import { accountState } from './account-state.js';
import { ALLOWED_TRIGGERS, expireDue, viewsOf, type Order } from './views.js';

type Trigger = 'approve' | 'reject' | 'cancel';

export interface Actor {
  accountId: string;
  clientId: string;
}

/** A transition's transaction either yields the order or a problem to raise after the commit (state it wrote stays). */
type Outcome = { order: Order } | { problem: ProblemError };

async function settle(services: Services, work: (trx: Transaction<Database>) => Promise<Outcome>): Promise<Order> {
  const outcome = await services.db.kysely.transaction().execute(work);
  if ('problem' in outcome) throw outcome.problem;
  return outcome.order;
}

async function lockOrder(trx: Transaction<Database>, actor: Actor, orderId: string, now: Date): Promise<OrderRow> {
  await expireDue(trx, actor.accountId, now);
  const row = await trx.selectFrom('orders').selectAll().where('id', '=', orderId).where('account_id', '=', actor.accountId).forUpdate().executeTakeFirst();
  if (!row) throw new ProblemError('not-found', `There is no order ${orderId}.`);
  return row;
}

function invalidState(row: OrderRow, trigger: Trigger): ProblemError {
  const allowed = ALLOWED_TRIGGERS[row.status];
  return new ProblemError(
    'invalid-state',
    `The order is ${row.status}; ${trigger} is not allowed${allowed.length ? ` (allowed: ${allowed.join(', ')})` : ' (it is final)'}.`,
    { current_state: row.status, allowed_triggers: allowed },
  );
}

async function move(
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

function tradeOf(row: OrderRow): ProposedTrade {
  return {
    market: row.market,
    symbol: row.symbol,
    side: row.side,
    quantity: dec(row.quantity),
    order_type: row.order_type,
    limit_price: row.limit_price === null ? null : dec(row.limit_price),
  };
}

function marketable(row: OrderRow, price: Dec): boolean {
  if (row.order_type === 'market' || row.limit_price === null) return true;
  return row.side === 'buy' ? price.lessThanOrEqualTo(row.limit_price) : price.greaterThanOrEqualTo(row.limit_price);
}

async function recentDuplicate(trx: Transaction<Database>, row: OrderRow, now: Date): Promise<boolean> {
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

/**
 * proposed → submitted → filled when the kill switch is off and the policy check and risk gate pass against a
 * fresh price; → blocked (422 listing every failed check) otherwise. The account's paper account is locked first,
 * so approvals on one account run one at a time and can never overdraw cash or exceed a daily limit together.
 */
export async function approveOrder(services: Services, actor: Actor, orderId: string): Promise<Order> {
  const startingCash = services.config.paperStartingCash;
  return settle(services, async (trx) => {
    const now = services.clock.now();
    const account = await lockPaperAccount(trx, actor.accountId, startingCash);
    let row = await lockOrder(trx, actor, orderId, now);
    if (row.status !== 'proposed') return { problem: invalidState(row, 'approve') };

    const policy = await getCurrentPolicy(trx, actor.accountId);
    const state = await accountState(trx, services, actor.accountId, account.cash, now);
    if (policy) {
      const start = await valueAt(trx, services.prices, actor.accountId, startingCash, startOfUtcDay(now));
      const loss = start.total.minus(state.totalValue);
      if (loss.greaterThanOrEqualTo(policy.limits.max_daily_loss)) {
        await engage(trx, actor.accountId, 'system', `Daily loss ${loss.toFixed(2)} reached the policy's limit of ${dec(policy.limits.max_daily_loss).toFixed(2)}.`, now);
      }
    }
    const killSwitch = await effectiveKillSwitch(trx, actor.accountId);
    if (killSwitch.engaged) {
      return {
        problem: new ProblemError('kill-switch-engaged', `The ${killSwitch.level} kill switch is engaged (${killSwitch.reason ?? 'no reason given'}); no order can be approved.`, {
          kill_switch: killSwitch,
        }),
      };
    }

    const trade = tradeOf(row);
    const quote = services.prices.quote(row.symbol, now);
    const failed: FailedCheck[] = policy
      ? policyCheck(trade, quote, policy, state)
      : [{ check: 'policy.market', message: 'The account has no current policy; create one before approving orders.' }];
    failed.push(...riskGate(trade, quote, state, now, await recentDuplicate(trx, row, now)));
    if (failed.length > 0) {
      const blocked = await move(trx, row, 'blocked', now, actor.clientId, failed.map((f) => f.check).join(', '), { failed_checks: failed });
      const [view] = await viewsOf(trx, [blocked]);
      return {
        problem: new ProblemError('checks-failed', `The order was blocked: ${failed.length} ${failed.length === 1 ? 'check' : 'checks'} failed.`, {
          failed_checks: failed,
          order: view,
        }),
      };
    }

    row = await move(trx, row, 'submitted', now, actor.clientId, 'approved');
    if (marketable(row, quote.price)) {
      await applyFill(trx, row, quote.price, now);
      row = await move(trx, row, 'filled', now, null, `filled by the paper broker at ${quote.price.toFixed(2)}`, {
        fill_price: quote.price.toFixed(),
        filled_quantity: row.quantity,
        filled_at: now,
      });
    }
    return { order: (await viewsOf(trx, [row]))[0]! };
  });
}

export async function rejectOrder(services: Services, actor: Actor, orderId: string, reason: string | undefined): Promise<Order> {
  return settle(services, async (trx) => {
    const now = services.clock.now();
    const row = await lockOrder(trx, actor, orderId, now);
    if (row.status !== 'proposed') return { problem: invalidState(row, 'reject') };
    return { order: (await viewsOf(trx, [await move(trx, row, 'rejected', now, actor.clientId, reason ?? null)]))[0]! };
  });
}

/** proposed or submitted-but-unfilled → cancelled; for a submitted order this is the paper broker's cancel. */
export async function cancelOrder(services: Services, actor: Actor, orderId: string, reason: string | undefined): Promise<Order> {
  return settle(services, async (trx) => {
    const now = services.clock.now();
    const row = await lockOrder(trx, actor, orderId, now);
    if (row.status !== 'proposed' && row.status !== 'submitted') return { problem: invalidState(row, 'cancel') };
    return { order: (await viewsOf(trx, [await move(trx, row, 'cancelled', now, actor.clientId, reason ?? null)]))[0]! };
  });
}
