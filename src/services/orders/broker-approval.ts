// Approving an order of an account connected to a broker: the broker's account, positions, prices and clock are read
// first (nothing is locked while it answers), written into the books, and the decision is the paper broker's — the
// same checks, on what the broker states, with its buying power and its start-of-day equity. An approved order is
// recorded `submitted` and sent at once (sender.ts); the answer is the order as it stands after that first try.
import type { Transaction } from 'kysely';
import type { Database, Order as OrderRow } from '../../../db/schema.js';
import type { Actor } from '../../auth/authorize.js';
import type { BrokerPort } from '../../brokers/port.js';
import { brokerName } from '../brokerage/directory.js';
import { mirrorBooks } from '../brokerage/mirror.js';
import { BrokerSender } from '../brokerage/sender.js';
import { brokerProblem, readBrokerForOrder, type BrokerSnapshot } from '../brokerage/snapshot.js';
import { applyBrokerOrder } from '../brokerage/apply.js';
import { AT_BROKER } from '../brokerage/progress.js';
import type { ServiceContext } from '../context.js';
import { NotFoundError } from '../errors.js';
import { lockPaperAccount, startOfUtcDay } from '../ledger.js';
import type { Decided, Decision, Outcome } from './decision.js';
import { eventsOf } from './decision.js';
import { record, type Step } from './transitions.js';
import { lockForApproval } from './trigger-state.js';
import { previewFields } from './preview.js';
import { orderView, viewsOf, type Order } from './views.js';

/** What an approval read before its transaction: the account's broker, and what a connected account's states. */
export interface PreparedApproval {
  port: BrokerPort | undefined;
  broker?: BrokerSnapshot;
}

/** What the order service lends a broker's approval: its decision and its transaction. */
export interface Judge {
  judge(trx: Transaction<Database>, actor: Actor<'approveOrder'>, now: Date, input: Decision): Promise<Decided>;
  settle(work: (trx: Transaction<Database>, now: Date) => Promise<Outcome>): Promise<Order>;
}

export async function approveAtBroker(
  ctx: ServiceContext,
  judge: Judge,
  actor: Actor<'approveOrder'>,
  orderId: string,
  port: BrokerPort,
  previewId?: string,
  prepared?: BrokerSnapshot,
): Promise<Order> {
  const { store, config, clock } = ctx;
  const name = brokerName(port.id);
  // Read before any transaction; a keyed call's was (OrderService.prepareApproval): its transaction is open here.
  const broker = prepared ?? (await readBrokerForOrder(store.db, port, ctx.prices, actor.accountId, orderId));

  const keyed = store.inTransaction;
  const sender = new BrokerSender(ctx);
  let claimed: { row: OrderRow; at: Date } | undefined;
  // Every verdict but an approval is a problem, which settle raises: what it yields is the order sent.
  const decided = await judge.settle(async (trx, now) => {
    await lockPaperAccount(trx, actor.accountId, config.paperStartingCash);
    await mirrorBooks(trx, actor.accountId, broker.account, broker.positions, now);
    const state = await lockForApproval(trx, actor.accountId, orderId, startOfUtcDay(now), now, actor.clientId);
    if (!state) throw new NotFoundError(`There is no order ${orderId}.`);
    const bound = previewId === undefined ? {} : { previewId };
    const verdict = await judge.judge(trx, actor, now, {
      ...state,
      ...bound,
      prices: broker.prices,
      cash: broker.account.cash,
      buyingPower: broker.account.buyingPower,
      ...(broker.account.equityAtDayStart ? { dayStartValue: broker.account.equityAtDayStart } : {}),
    });
    if (!('approved' in verdict)) return verdict;
    const { row } = state;
    const step: Step = { to: 'submitted', at: now, clientId: actor.clientId, reason: `approved; sent to ${name}`, ...bound };
    const rests = !broker.clock.isOpen;
    const submitted = await record(trx, row, [step], state, {
      broker_id: port.id,
      submit_by: new Date(now.getTime() + config.brokers.submitWindowMs),
      // Keyed, the order is due for the sync once the decision commits; else the first try is this call's, claimed
      // in the decision's statement.
      ...(keyed ? { next_submit_at: now } : { next_submit_at: sender.claimUntil(now), submit_attempts: 1 }),
      // A day order sent while the market is closed waits at the broker for the next session.
      rests_until: rests ? broker.clock.nextOpen : null,
      ...previewFields(bound),
    });
    claimed = { row: submitted, at: now };
    return { order: orderView(submitted, [...state.events, ...eventsOf(row, [step], state.actorName)], now) };
  });
  if (keyed) {
    // A keyed call: the decision commits with the key's answer, and only then is the order sent (the instance's sync
    // sends what is due): an order never reaches the broker while the decision to send it could still roll back.
    store.onCommit(() => ctx.brokers.touched?.(actor.accountId));
    return decided;
  }
  await sender.send(actor.accountId, claimed!.row, port, claimed!.at);
  ctx.brokers.touched?.(actor.accountId);
  const row = await store.db.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirstOrThrow();
  return (await viewsOf(store.db, [row], clock.now()))[0]!;
}

/**
 * Cancelling an order the broker holds: the broker is asked, and the order ends `cancelled` when it confirms (its
 * answer right after, or its update later); until then it stays as it is. Undefined when the broker does not hold the
 * order (never sent, or still being sent): the order is cancelled here, as on the paper broker, and the sender never
 * sends it.
 */
export async function cancelAtBroker(
  ctx: ServiceContext,
  accountId: string,
  orderId: string,
  port: BrokerPort,
): Promise<Order | undefined> {
  const { store, clock } = ctx;
  const row = await store.db
    .selectFrom('orders')
    .selectAll()
    .where('id', '=', orderId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (!row || row.broker_id !== port.id || row.next_submit_at !== null || !(AT_BROKER as readonly string[]).includes(row.status))
    return undefined;
  const name = brokerName(port.id);
  try {
    await port.cancel(orderId);
    const order = await port.orderByClientId(orderId);
    if (order) await applyBrokerOrder(store, accountId, order, name, clock.now());
  } catch (error) {
    throw brokerProblem(error, name);
  }
  const after = await store.db.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirstOrThrow();
  return (await viewsOf(store.db, [after], clock.now()))[0]!;
}
