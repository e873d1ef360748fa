// Previewing an approval: every check an approval runs, at a fresh price, on the account as its broker states it —
// and nothing changes (no state, event, ledger line or webhook: the broker's books are read, not mirrored, and no
// lock is taken that a write would need). The preview is kept (order_previews) so that an approval can be bound to
// it: bindPreview() refuses an approval whose preview no longer says what approving does.
import type { components } from '../../../generated/api.js';
import type { Actor } from '../../auth/authorize.js';
import { newId } from '../../ids.js';
import { ProblemError } from '../../problems.js';
import { worstCaseNotional } from '../checks.js';
import { readBrokerForOrder } from '../brokerage/snapshot.js';
import type { ServiceContext } from '../context.js';
import { NotFoundError } from '../errors.js';
import { readPaperAccount, startOfUtcDay, type Position } from '../ledger.js';
import { D, dec, num, roundMoney } from '../money.js';
import { PolicyInvalidError } from '../policy-limits.js';
import type { Queryable } from '../store.js';
import { checksOf, standingOf } from './assessment.js';
import type { Decision } from './decision.js';
import type { Fields } from './record-statement.js';
import { invalidState, tradeOf } from './transitions.js';
import { lockForApproval, type TriggerState } from './trigger-state.js';
import { isDue } from './views.js';

type OrderPreview = components['schemas']['OrderPreview'];
type Policy = components['schemas']['Policy'];

/** The price move a preview survives when the policy does not say (`max_price_deviation`). */
export const DEFAULT_PRICE_DEVIATION = 0.01;
/** The previews of one order kept (the latest); and how long an expired one is kept to say it expired. */
const KEPT_PER_ORDER = 10;
const KEPT_EXPIRED_MS = 86_400_000;

export async function previewOrder(ctx: ServiceContext, actor: Actor<'previewOrder'>, orderId: string): Promise<OrderPreview> {
  const { store, clock, config, prices } = ctx;
  const port = await ctx.brokers.portFor(actor.accountId);
  const broker = port && (await readBrokerForOrder(store.db, port, prices, actor.accountId, orderId));
  return store.transaction(async (trx) => {
    const now = clock.now();
    const state = await lockForApproval(trx, actor.accountId, orderId, startOfUtcDay(now), now, actor.clientId);
    if (!state) throw new NotFoundError(`There is no order ${orderId}.`);
    const { row, policy } = state;
    if (isDue(row, now)) throw invalidState({ ...row, status: 'expired' }, 'preview');
    if (row.status !== 'proposed') throw invalidState(row, 'preview');
    if (policy instanceof PolicyInvalidError) throw policy;
    const input: Decision = broker
      ? {
          ...state,
          // The broker's positions, as the approval would mirror them into the books first.
          positions: broker.positions.map((p): Position => ({
            symbol: p.symbol,
            quantity: p.quantity,
            average_cost: p.averageCost,
            updated_at: now,
          })),
          prices: broker.prices,
          cash: broker.account.cash,
          buyingPower: broker.account.buyingPower,
          ...(broker.account.equityAtDayStart ? { dayStartValue: broker.account.equityAtDayStart } : {}),
        }
      : { ...state, prices, cash: (await readPaperAccount(trx, actor.accountId, config.paperStartingCash)).cash };
    const preview = assess(input, policy, now, config.orderPreviewTtlSeconds);
    await keep(trx, actor, state, preview);
    return preview;
  });
}

/** The preview's answer: the checks as an approval would run them now, and what they would lead to. */
function assess(input: Decision, policy: Policy | null, now: Date, ttlSeconds: number): OrderPreview {
  const standing = standingOf(input, policy, now);
  const { killSwitch, account } = standing;
  const { quote, checks } = checksOf(input, policy, account, now);
  const switchCheck = {
    check: 'kill_switch',
    passed: !killSwitch.engaged,
    message: standing.engages
      ? `${standing.engages} Approving engages the account kill switch.`
      : killSwitch.engaged
        ? `The ${killSwitch.level} kill switch is engaged (${killSwitch.reason ?? 'no reason given'}).`
        : 'No kill switch is engaged.',
  };
  const trade = tradeOf(input.row);
  const notional = worstCaseNotional(trade, quote.price);
  const held = account.held.get(trade.symbol) ?? new D(0);
  const heldAfter = trade.side === 'buy' ? held.plus(trade.quantity) : D.max(held.minus(trade.quantity), 0);
  const weightAfter = account.totalValue.isZero() ? new D(1) : heldAfter.times(quote.price).dividedBy(account.totalValue);
  const failed = checks.some((c) => !c.passed);
  return {
    id: newId('prv', now.getTime()),
    order_id: input.row.id,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + ttlSeconds * 1000).toISOString(),
    policy_version: policy?.version ?? null,
    price: num(quote.price),
    price_as_of: quote.as_of.toISOString(),
    notional: num(notional),
    cash: num(input.cash),
    cash_after: num(roundMoney(trade.side === 'buy' ? input.cash.minus(notional) : input.cash.plus(notional))),
    weight_after: Number(weightAfter.toFixed(6)),
    target_weight: policy ? (policy.target_allocation.find((t) => t.symbol === trade.symbol)?.weight ?? 0) : null,
    checks: [switchCheck, ...checks],
    decision: killSwitch.engaged ? 'refuse' : failed ? 'block' : 'approve',
  };
}

/** Stores the preview, keeping the order's latest few and letting go of the account's long expired ones. */
async function keep(db: Queryable, actor: Actor<'previewOrder'>, state: TriggerState, preview: OrderPreview): Promise<void> {
  const now = new Date(preview.created_at);
  await db
    .insertInto('order_previews')
    .values({
      id: preview.id,
      account_id: actor.accountId,
      order_id: preview.order_id,
      client_id: actor.clientId,
      created_at: now,
      expires_at: new Date(preview.expires_at),
      policy_version: preview.policy_version,
      price: String(preview.price),
      decision: preview.decision,
      body: JSON.stringify(preview),
    })
    .execute();
  await db
    .deleteFrom('order_previews')
    .where((eb) =>
      eb.or([
        eb.and([eb('account_id', '=', actor.accountId), eb('expires_at', '<', new Date(now.getTime() - KEPT_EXPIRED_MS))]),
        eb.and([
          eb('order_id', '=', state.row.id),
          eb(
            'id',
            'not in',
            eb
              .selectFrom('order_previews')
              .select('id')
              .where('order_id', '=', state.row.id)
              .orderBy('created_at', 'desc')
              .orderBy('id', 'desc')
              .limit(KEPT_PER_ORDER),
          ),
        ]),
      ]),
    )
    .execute();
}

/**
 * An approval bound to a preview (`preview_id`): the preview of this order, still saying what approving does — else
 * 409 `preview-stale` naming each reason (the order stays proposed: nothing was written yet), or 404 for a preview
 * that is not this order's. Runs in the approval's decision (OrderService.judge), under its locks, once the order is
 * known to be proposed and its policy valid, before anything is written.
 */
export async function bindPreview(
  db: Queryable,
  state: TriggerState,
  previewId: string,
  prices: Decision['prices'],
  now: Date,
): Promise<void> {
  const preview = await db
    .selectFrom('order_previews')
    .select(['id', 'created_at', 'expires_at', 'policy_version', 'price'])
    .where('id', '=', previewId)
    .where('order_id', '=', state.row.id)
    .where('account_id', '=', state.row.account_id)
    .executeTakeFirst();
  if (!preview) throw new NotFoundError(`There is no preview ${previewId} of order ${state.row.id}.`);
  const reasons: string[] = [];
  const why: string[] = [];
  if (new Date(preview.expires_at) <= now) {
    reasons.push('expired');
    why.push(`it expired at ${new Date(preview.expires_at).toISOString()}`);
  }
  const policy = state.policy instanceof PolicyInvalidError ? null : state.policy;
  const version = state.policy instanceof PolicyInvalidError ? state.policy.version : (policy?.version ?? null);
  if (version !== preview.policy_version) {
    reasons.push('policy_changed');
    why.push(`it was made under policy version ${preview.policy_version ?? 'none'}, and version ${version ?? 'none'} is in force`);
  }
  const previewed = dec(preview.price);
  const price = prices.quote(state.row.symbol, now).price;
  const moved = price.minus(previewed).abs().dividedBy(previewed);
  const limit = dec(policy?.limits.max_price_deviation ?? DEFAULT_PRICE_DEVIATION);
  if (moved.greaterThan(limit)) {
    reasons.push('price_moved');
    why.push(
      `the price of ${state.row.symbol} moved from ${previewed.toFixed(2)} to ${price.toFixed(2)} ` +
        `(${moved.times(100).toFixed(2)} %, beyond the policy's ${limit.times(100).toFixed(2)} %)`,
    );
  }
  const { killSwitch } = state;
  if (killSwitch.engaged && killSwitch.engaged_at && new Date(killSwitch.engaged_at) > new Date(preview.created_at)) {
    reasons.push('kill_switch_engaged');
    why.push(`the ${killSwitch.level} kill switch was engaged since (${killSwitch.reason ?? 'no reason given'})`);
  }
  if (reasons.length === 0) return;
  throw new ProblemError(
    'preview-stale',
    `The preview ${previewId} is stale: ${why.join('; ')}. The order is still proposed; preview it again.`,
    { preview_id: previewId, stale_reasons: reasons },
  );
}

/** The order's column that records the preview an approval was bound to. */
export const previewFields = (bound: { previewId?: string }): Fields => (bound.previewId ? { preview_id: bound.previewId } : {});
