import type { Request } from 'express';
import type { Order } from '../services/orders/views.js';
import type { Calls } from './channel.js';
import type { FieldLabels, PageError, Shown } from './present.js';

export type Decision = 'approve' | 'reject';

const LABELS: FieldLabels = { '/path/id': 'order', '/reason': 'reason' };

/** The reason a decision form carries, trimmed (a blank one is none: the body leaves it out, as an API client would). */
export function reasonOf(req: Request): string | undefined {
  const given = (req.body as { reason?: unknown } | undefined)?.reason;
  return typeof given === 'string' && given.trim() !== '' ? given.trim() : undefined;
}

/**
 * The person's decision on one order, through the pipeline: `approveOrder` (kill switch, policy, risk gate, fill) or
 * `rejectOrder` with the reason. The order as it stands after it, or the problem as the page shows it.
 */
export function decide(calls: Calls, decision: Decision, orderId: string, reason: string | undefined): Promise<Shown<Order>> {
  const path = { id: orderId };
  return decision === 'approve'
    ? calls.operation('approveOrder', { path }, LABELS)
    : calls.operation('rejectOrder', { path, body: reason === undefined ? {} : { reason } }, LABELS);
}

/** What a decision on several orders did: how many ended in each state (or were refused), and the first refusal. */
export interface Decided {
  tally: Record<string, number>;
  firstError: PageError | null;
}

/**
 * The same decision on each order in turn, one `decide` each, as the API would take them one by one: a refusal of one
 * (blocked by its checks, no longer proposed) is counted and the others go on; a problem with the form itself (an
 * invalid reason: the same for every order) ends the batch and is the answer.
 */
export async function decideEach(
  calls: Calls,
  decision: Decision,
  orderIds: string[],
  reason: string | undefined,
): Promise<Shown<Decided>> {
  const decided: Decided = { tally: {}, firstError: null };
  for (const id of orderIds) {
    const done = await decide(calls, decision, id, reason);
    if (!done.ok && done.slug === 'validation-error') return done;
    const key = done.ok ? done.value.status : done.slug === 'checks-failed' ? 'blocked' : 'refused';
    decided.tally[key] = (decided.tally[key] ?? 0) + 1;
    if (!done.ok) decided.firstError ??= done.error;
  }
  return { ok: true, value: decided };
}
