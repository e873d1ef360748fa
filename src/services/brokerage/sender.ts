// Sending approved orders to the connected broker: once, by the order's id as client order id. The approval records
// the decision (`submitted`, no broker order id yet) with its first try claimed, and tries at once; a timeout, a refused connection or a 5xx is
// tried again with the same id (the broker refuses a duplicate and the adapter then finds the order it placed), with
// backoff, by whichever instance claims it first, until the broker has it or the window closes: then it ends
// `rejected` with the reason, and is never sent later.
import { sql } from 'kysely';
import type { Order as OrderRow } from '../../../db/schema.js';
import { BrokerError, type BrokerPort } from '../../brokers/port.js';
import type { ServiceContext } from '../context.js';
import { effectiveKillSwitch } from '../kill-switch.js';
import { record, submitRequestOf } from '../orders/transitions.js';
import { lockOrder } from '../orders/trigger-state.js';
import { applyBrokerOrder } from './apply.js';
import { brokerName } from './directory.js';

/** The wait before try n + 1 (n ≥ 1): 1 s, 2 s, 4 s … at most 15 s. */
export function backoffMs(attempts: number): number {
  return Math.min(15_000, 1_000 * 2 ** Math.max(0, attempts - 1));
}

export class BrokerSender {
  constructor(private readonly ctx: ServiceContext) {}

  /** Until when a try claimed at `now` is its claimer's: BROKER_TIMEOUT_MS and a second. */
  claimUntil(now: Date): Date {
    return new Date(now.getTime() + this.ctx.config.brokers.timeoutMs + 1_000);
  }

  /**
   * Claims the order for one try (nobody else tries it until the deadline of this one), then sends it, or ends it
   * when its window closed. Answers false when the order was not this instance's to try now.
   */
  async attempt(accountId: string, orderId: string, port: BrokerPort): Promise<boolean> {
    const now = this.ctx.clock.now();
    const claimed = await this.ctx.store.db
      .updateTable('orders')
      .set({ next_submit_at: this.claimUntil(now), submit_attempts: sql`submit_attempts + 1` })
      .where('id', '=', orderId)
      .where('account_id', '=', accountId)
      .where('status', '=', 'submitted')
      .where('next_submit_at', '<=', now)
      .returningAll()
      .executeTakeFirst();
    if (!claimed) return false;
    await this.send(accountId, claimed, port, now);
    return true;
  }

  /**
   * The try of an order claimed for it at `now` (by attempt(), or by the approval that recorded the order with its
   * first try claimed: no sweep can take that try between the decision and the send).
   */
  async send(accountId: string, claimed: OrderRow, port: BrokerPort, now: Date): Promise<void> {
    const { store, clock } = this.ctx;
    const orderId = claimed.id;
    const name = brokerName(port.id);
    if (claimed.submit_by && claimed.submit_by.getTime() < now.getTime()) {
      // An earlier try that timed out may have reached the broker after all: what it placed is the answer.
      const placed = await port.orderByClientId(orderId).catch(() => undefined);
      if (placed) await applyBrokerOrder(store, accountId, placed, name, clock.now());
      else await this.end(accountId, orderId, `${name} could not be reached before the window to send the order closed; it was not sent`);
      return;
    }
    const killSwitch = await effectiveKillSwitch(store.db, accountId);
    if (killSwitch.engaged) {
      await this.end(
        accountId,
        orderId,
        `the ${killSwitch.level} kill switch was engaged before the order reached ${name}; it was not sent`,
        'cancelled',
      );
      return;
    }
    try {
      const placed = await port.submit(submitRequestOf(claimed));
      await applyBrokerOrder(store, accountId, placed, name, clock.now());
    } catch (error) {
      if (!(error instanceof BrokerError)) throw error;
      if (error.kind === 'unavailable' || error.kind === 'rate_limited') {
        const next = new Date(clock.now().getTime() + backoffMs(claimed.submit_attempts));
        await store.db
          .updateTable('orders')
          .set({ next_submit_at: next })
          .where('id', '=', orderId)
          .where('status', '=', 'submitted')
          .execute();
      } else {
        await this.end(accountId, orderId, `${name} refused the order: ${error.message}`);
      }
    }
  }

  /** The orders of `accountId` due for a try now, oldest first. */
  async due(accountId: string): Promise<string[]> {
    const rows = await this.ctx.store.db
      .selectFrom('orders')
      .select('id')
      .where('account_id', '=', accountId)
      .where('status', '=', 'submitted')
      .where('next_submit_at', '<=', this.ctx.clock.now())
      .orderBy('id')
      .limit(100)
      .execute();
    return rows.map((r) => r.id);
  }

  /** submitted → rejected (or cancelled by the kill switch), with why: the broker never took it. */
  private async end(accountId: string, orderId: string, reason: string, to: 'rejected' | 'cancelled' = 'rejected'): Promise<void> {
    const now = this.ctx.clock.now();
    await this.ctx.store.transaction(async (trx) => {
      const state = await lockOrder(trx, accountId, orderId, 'system');
      if (!state || state.row.status !== 'submitted' || state.row.next_submit_at === null) return;
      await record(trx, state.row, [{ to, at: now, clientId: null, reason }], state, { next_submit_at: null });
    });
  }
}
