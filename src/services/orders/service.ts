import type { Transaction } from 'kysely';
import type { Database, Order as OrderRow } from '../../../db/schema.js';
import type { Actor } from '../../auth/authorize.js';
import { ProblemError } from '../../problems.js';
import { policyCheck, riskGate, type FailedCheck } from '../checks.js';
import type { ServiceContext } from '../context.js';
import { NotFoundError } from '../errors.js';
import { effectiveKillSwitch, engage } from '../kill-switch.js';
import { applyFill, lockPaperAccount, startOfUtcDay, valueAt } from '../ledger.js';
import { dec } from '../money.js';
import { keysetPage, type Page } from '../pagination.js';
import { currentPolicyOf } from '../policies.js';
import { accountState } from './account-state.js';
import { invalidState, marketable, move, recentDuplicate, tradeOf } from './transitions.js';
import { expireDue, viewsOf, type Order, type OrderFilter } from './views.js';

/** A transition's transaction either yields the order or a problem to raise after the commit (state it wrote stays). */
type Outcome = { order: Order } | { problem: ProblemError };

/** Orders of the account: reads, and the approve, reject and cancel triggers of the state machine. */
export class OrderService {
  constructor(private readonly ctx: ServiceContext) {}

  /** Newest first; keyset pagination on the time-ordered id, so a page costs the same at any depth. */
  async list(actor: Actor<'listOrders'>, filter: OrderFilter): Promise<Page<Order>> {
    const { db } = this.ctx.store;
    await expireDue(db, actor.accountId, this.ctx.clock.now());
    let query = db.selectFrom('orders').selectAll().where('account_id', '=', actor.accountId);
    if (filter.status) query = query.where('status', '=', filter.status);
    if (filter.symbol) query = query.where('symbol', '=', filter.symbol);
    if (filter.idea_id) query = query.where('idea_id', '=', filter.idea_id);
    const page = await keysetPage<OrderRow, string>(query, 'id', 'string', filter);
    return { data: await viewsOf(db, page.data), next_cursor: page.next_cursor };
  }

  async get(actor: Actor<'getOrder'>, id: string): Promise<Order> {
    const { db } = this.ctx.store;
    await expireDue(db, actor.accountId, this.ctx.clock.now());
    const row = await db.selectFrom('orders').selectAll().where('id', '=', id).where('account_id', '=', actor.accountId).executeTakeFirst();
    if (!row) throw new NotFoundError(`There is no order ${id}.`);
    return (await viewsOf(db, [row]))[0]!;
  }

  /**
   * proposed → submitted → filled when the kill switch is off and the policy check and risk gate pass against a
   * fresh price; → blocked (422 listing every failed check) otherwise. The account's paper account is locked first,
   * so approvals on one account run one at a time and can never overdraw cash or exceed a daily limit together.
   */
  approve(actor: Actor<'approveOrder'>, orderId: string): Promise<Order> {
    const { prices, config } = this.ctx;
    const startingCash = config.paperStartingCash;
    return this.settle(async (trx, now) => {
      const account = await lockPaperAccount(trx, actor.accountId, startingCash);
      let row = await this.lockOrder(trx, actor.accountId, orderId, now);
      if (row.status !== 'proposed') return { problem: invalidState(row, 'approve') };

      const policy = await currentPolicyOf(trx, actor.accountId);
      const state = await accountState(trx, prices, actor.accountId, account.cash, now);
      if (policy) {
        const start = await valueAt(trx, prices, actor.accountId, startingCash, startOfUtcDay(now));
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
      const quote = prices.quote(row.symbol, now);
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

  reject(actor: Actor<'rejectOrder'>, orderId: string, reason: string | undefined): Promise<Order> {
    return this.settle(async (trx, now) => {
      const row = await this.lockOrder(trx, actor.accountId, orderId, now);
      if (row.status !== 'proposed') return { problem: invalidState(row, 'reject') };
      return { order: (await viewsOf(trx, [await move(trx, row, 'rejected', now, actor.clientId, reason ?? null)]))[0]! };
    });
  }

  /** proposed or submitted-but-unfilled → cancelled; for a submitted order this is the paper broker's cancel. */
  cancel(actor: Actor<'cancelOrder'>, orderId: string, reason: string | undefined): Promise<Order> {
    return this.settle(async (trx, now) => {
      const row = await this.lockOrder(trx, actor.accountId, orderId, now);
      if (row.status !== 'proposed' && row.status !== 'submitted') return { problem: invalidState(row, 'cancel') };
      return { order: (await viewsOf(trx, [await move(trx, row, 'cancelled', now, actor.clientId, reason ?? null)]))[0]! };
    });
  }

  private async settle(work: (trx: Transaction<Database>, now: Date) => Promise<Outcome>): Promise<Order> {
    const outcome = await this.ctx.store.transaction((trx) => work(trx, this.ctx.clock.now()));
    if ('problem' in outcome) throw outcome.problem;
    return outcome.order;
  }

  private async lockOrder(trx: Transaction<Database>, accountId: string, orderId: string, now: Date): Promise<OrderRow> {
    await expireDue(trx, accountId, now);
    const row = await trx.selectFrom('orders').selectAll().where('id', '=', orderId).where('account_id', '=', accountId).forUpdate().executeTakeFirst();
    if (!row) throw new NotFoundError(`There is no order ${orderId}.`);
    return row;
  }
}
