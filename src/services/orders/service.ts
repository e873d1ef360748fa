import type { Transaction } from 'kysely';
import type { components } from '../../../generated/api.js';
import type { Database, Order as OrderRow } from '../../../db/schema.js';
import type { Actor } from '../../auth/authorize.js';
import { ProblemError } from '../../problems.js';
import { failedOf } from '../checks.js';
import { checksOf, standingOf } from './assessment.js';
import { bindPreview, previewFields, previewOrder } from './preview.js';
import type { ServiceContext } from '../context.js';
import { NotFoundError } from '../errors.js';
import { PolicyInvalidError } from '../policy-limits.js';
import { engage } from '../kill-switch.js';
import { lockPaperAccount, positionAfterFill, startOfUtcDay } from '../ledger.js';
import { dec, roundMoney } from '../money.js';
import { keysetPage, type Page } from '../pagination.js';
import { PaperBroker } from '../brokerage/paper.js';
import { invalidState, record, submitRequestOf, type Step, type Trigger } from './transitions.js';
import { lockForApproval, lockOrder } from './trigger-state.js';
import { approveAtBroker, cancelAtBroker, type PreparedApproval } from './broker-approval.js';
import { readBrokerForOrder } from '../brokerage/snapshot.js';
import { eventsOf, type Decided, type Decision, type Outcome } from './decision.js';
import { EXPIRY_REASON, isDue, orderView, viewsOf, type Order, type OrderFilter } from './views.js';

type OrderPreview = components['schemas']['OrderPreview'];

/** Orders of the account: reads, the preview of an approval, and the approve, reject and cancel triggers of the state machine. */
export class OrderService {
  constructor(private readonly ctx: ServiceContext) {}

  /** Newest first; keyset pagination on the time-ordered id. Expiry is derived, so the filter on status is too. */
  async list(actor: Actor<'listOrders'>, filter: OrderFilter): Promise<Page<Order>> {
    const { db } = this.ctx.store;
    const now = this.ctx.clock.now();
    let query = db.selectFrom('orders').selectAll().where('account_id', '=', actor.accountId);
    if (filter.status === 'proposed') query = query.where('status', '=', 'proposed').where('expires_at', '>', now);
    else if (filter.status === 'expired')
      query = query.where((eb) =>
        eb.or([eb('status', '=', 'expired'), eb.and([eb('status', '=', 'proposed'), eb('expires_at', '<=', now)])]),
      );
    else if (filter.status) query = query.where('status', '=', filter.status);
    if (filter.symbol) query = query.where('symbol', '=', filter.symbol);
    if (filter.idea_id) query = query.where('idea_id', '=', filter.idea_id);
    const page = await keysetPage<OrderRow, string>(query, 'id', 'string', filter);
    return { data: await viewsOf(db, page.data, now), next_cursor: page.next_cursor };
  }

  async get(actor: Actor<'getOrder'>, id: string): Promise<Order> {
    const { db } = this.ctx.store;
    const row = await db.selectFrom('orders').selectAll().where('id', '=', id).where('account_id', '=', actor.accountId).executeTakeFirst();
    if (!row) throw new NotFoundError(`There is no order ${id}.`);
    return (await viewsOf(db, [row], this.ctx.clock.now()))[0]!;
  }

  /**
   * What an approval reads before its transaction when it runs inside another one (a keyed call's): the account's
   * broker and, for a connected account, what the broker states — so that no connection of the pool is held while
   * the broker answers (one tenant's slow broker would otherwise hold them from everyone).
   */
  async prepareApproval(actor: Actor<'approveOrder'>, orderId: string): Promise<PreparedApproval> {
    const port = await this.ctx.brokers.portFor(actor.accountId);
    if (!port) return { port };
    return { port, broker: await readBrokerForOrder(this.ctx.store.db, port, this.ctx.prices, actor.accountId, orderId) };
  }

  /**
   * proposed → submitted → filled when the kill switch is off and the policy check and risk gate pass against a
   * fresh price; → blocked (422 listing every failed check) otherwise. The account's paper account is locked first,
   * so approvals on one account run one at a time and can never overdraw cash or exceed a daily limit together.
   * Statements: the paper-account lock, one read of the order and the account state, one write (and the
   * kill-switch engagement on the rare day the loss limit is reached). An account connected to a broker is decided
   * the same way on what its broker states, and its order is sent there (approveAtBroker).
   */
  async approve(actor: Actor<'approveOrder'>, orderId: string, previewId?: string, prepared?: PreparedApproval): Promise<Order> {
    const broker = prepared ? prepared.port : await this.ctx.brokers.portFor(actor.accountId);
    if (broker) return approveAtBroker(this.ctx, this, actor, orderId, broker, previewId, prepared?.broker);
    const { prices, config } = this.ctx;
    return this.settle(async (trx, now) => {
      const account = await lockPaperAccount(trx, actor.accountId, config.paperStartingCash);
      const state = await lockForApproval(trx, actor.accountId, orderId, startOfUtcDay(now), now, actor.clientId);
      if (!state) throw new NotFoundError(`There is no order ${orderId}.`);
      const bound = previewId === undefined ? {} : { previewId };
      const decided = await this.judge(trx, actor, now, { ...state, ...bound, prices, cash: account.cash });
      if (!('approved' in decided)) return decided;
      const { row, positions } = state;
      // The paper broker's answer to the order (it executes on the spot, writing nothing): booked here, in this statement.
      const answer = await new PaperBroker(this.ctx, actor.accountId).submit(submitRequestOf(row));
      const submitted: Step = { to: 'submitted', at: now, clientId: actor.clientId, reason: 'approved', ...bound };
      if (answer.status !== 'filled' || !answer.averageFillPrice) {
        const resting = await record(trx, row, [submitted], state, previewFields(bound));
        return { order: orderView(resting, [...state.events, ...eventsOf(row, [submitted], state.actorName)], now) };
      }
      const price = answer.averageFillPrice;
      const steps: Step[] = [
        submitted,
        { to: 'filled', at: now, clientId: null, reason: `filled by the paper broker at ${price.toFixed(2)}` },
      ];
      const quantity = dec(row.quantity);
      const filled = await record(
        trx,
        row,
        steps,
        state,
        { fill_price: price.toFixed(), filled_quantity: row.quantity, filled_at: now, ...previewFields(bound) },
        {
          quantity,
          price,
          notional: roundMoney(quantity.times(price)),
          position: positionAfterFill(
            positions.find((p) => p.symbol === row.symbol),
            row.side,
            quantity,
            price,
          ),
        },
      );
      return { order: orderView(filled, [...state.events, ...eventsOf(row, steps, state.actorName)], now) };
    });
  }

  /** What approving the order would do now, with every check; changes nothing (preview.ts). */
  preview(actor: Actor<'previewOrder'>, orderId: string): Promise<OrderPreview> {
    return previewOrder(this.ctx, actor, orderId);
  }

  /**
   * The decision an approval makes, whichever broker executes it: expiry, the state, a valid policy, the daily loss
   * limit (engaging the account's kill switch), the kill switch, then the policy check and risk gate against the
   * fresh price — a failure records `blocked` with every failed check. `approved` carries the price it passed at.
   */
  async judge(trx: Transaction<Database>, actor: Actor<'approveOrder'>, now: Date, input: Decision): Promise<Decided> {
    const expired = await this.expireIfDue(trx, input, now, 'approve');
    if (expired) return expired;
    const { row, policy } = input;
    if (row.status !== 'proposed') return { problem: invalidState(row, 'approve') };
    // Nothing is decided on a policy whose limits are not numbers: the order stays proposed for the next version.
    if (policy instanceof PolicyInvalidError) return { problem: policy };
    // Bound to a preview, nothing is decided unless it still says what approving does (409 preview-stale).
    if (input.previewId !== undefined) await bindPreview(trx, input, input.previewId, input.prices, now);

    const standing = standingOf(input, policy, now);
    if (standing.engages) await engage(trx, actor.accountId, 'system', standing.engages, now);
    const { killSwitch } = standing;
    if (killSwitch.engaged) {
      const detail = `The ${killSwitch.level} kill switch is engaged (${killSwitch.reason ?? 'no reason given'}); no order can be approved.`;
      return { problem: new ProblemError('kill-switch-engaged', detail, { kill_switch: killSwitch }) };
    }

    const { quote, checks } = checksOf(input, policy, standing.account, now);
    const failed = failedOf(checks);
    if (failed.length === 0) return { approved: true, quote };
    const steps: Step[] = [
      {
        to: 'blocked',
        at: now,
        clientId: actor.clientId,
        reason: failed.map((f) => f.check).join(', '),
        failedChecks: failed,
        ...(input.previewId ? { previewId: input.previewId } : {}),
      },
    ];
    const blocked = await record(trx, row, steps, input, input.previewId ? { preview_id: input.previewId } : undefined);
    const detail = `The order was blocked: ${failed.length} ${failed.length === 1 ? 'check' : 'checks'} failed.`;
    return {
      problem: new ProblemError('checks-failed', detail, {
        failed_checks: failed,
        order: orderView(blocked, [...input.events, ...eventsOf(row, steps, input.actorName)], now),
      }),
    };
  }

  reject(actor: Actor<'rejectOrder'>, orderId: string, reason: string | undefined): Promise<Order> {
    return this.decide(actor, orderId, 'reject', ['proposed'], 'rejected', reason);
  }

  /** proposed or submitted-but-unfilled → cancelled; for a submitted order this is the paper broker's cancel. */
  async cancel(actor: Actor<'cancelOrder'>, orderId: string, reason: string | undefined): Promise<Order> {
    const port = await this.ctx.brokers.portFor(actor.accountId);
    if (port) {
      const cancelled = await cancelAtBroker(this.ctx, actor.accountId, orderId, port);
      if (cancelled) return cancelled;
    }
    return this.decide(actor, orderId, 'cancel', ['proposed', 'submitted', 'partially_filled'], 'cancelled', reason);
  }

  /** A trigger that needs no account state: lock the order, check its state, record the step. */
  private decide(
    actor: Actor<'rejectOrder' | 'cancelOrder'>,
    orderId: string,
    trigger: Trigger,
    from: OrderRow['status'][],
    to: OrderRow['status'],
    reason: string | undefined,
  ): Promise<Order> {
    return this.settle(async (trx, now) => {
      const state = await lockOrder(trx, actor.accountId, orderId, actor.clientId);
      if (!state) throw new NotFoundError(`There is no order ${orderId}.`);
      const expired = await this.expireIfDue(trx, state, now, trigger);
      if (expired) return expired;
      if (!from.includes(state.row.status)) return { problem: invalidState(state.row, trigger) };
      const steps: Step[] = [{ to, at: now, clientId: actor.clientId, reason: reason ?? null }];
      return {
        order: orderView(
          await record(trx, state.row, steps, state),
          [...state.events, ...eventsOf(state.row, steps, state.actorName)],
          now,
        ),
      };
    });
  }

  /** A trigger touching a proposed order past its time records the expiry (dated when it expired) and is refused. */
  private async expireIfDue(
    trx: Transaction<Database>,
    state: { row: OrderRow; events: Order['events']; actorName?: string | null },
    now: Date,
    trigger: Trigger,
  ): Promise<Outcome | undefined> {
    if (!isDue(state.row, now)) return undefined;
    const expired = await record(
      trx,
      state.row,
      [{ to: 'expired', at: new Date(state.row.expires_at), clientId: null, reason: EXPIRY_REASON }],
      state,
    );
    return { problem: invalidState(expired, trigger) };
  }

  async settle(work: (trx: Transaction<Database>, now: Date) => Promise<Outcome>): Promise<Order> {
    const outcome = await this.ctx.store.transaction((trx) => work(trx, this.ctx.clock.now()));
    if ('problem' in outcome) throw outcome.problem;
    return outcome.order;
  }
}
