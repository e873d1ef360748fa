import type { Request } from 'express';
import type { Order } from '../services/orders/views.js';
import type { Calls } from './channel.js';
import type { FieldLabels, PageError, Shown } from './present.js';

/** A person's decision on one order: an approval bound to the preview they were shown, or a rejection with its reason. */
export type Decision = { decision: 'approve'; previewId: string } | { decision: 'reject'; reason: string | undefined };

const LABELS: FieldLabels = { '/path/id': 'order', '/reason': 'reason', '/preview_id': 'preview' };

/** The reason a decision form carries, trimmed (a blank one is none: the body leaves it out, as an API client would). */
export function reasonOf(req: Request): string | undefined {
  const given = (req.body as { reason?: unknown } | undefined)?.reason;
  return typeof given === 'string' && given.trim() !== '' ? given.trim() : undefined;
}

/** The preview a confirmation form carries (none: the form is not a confirmation, and the preview comes first). */
export function previewIdOf(req: Request): string | undefined {
  const given = (req.body as { preview_id?: unknown } | undefined)?.preview_id;
  return typeof given === 'string' && given !== '' ? given : undefined;
}

/**
 * The person's decision on one order, through the pipeline: `approveOrder` bound to the preview (refused as
 * `preview-stale` when it no longer holds; else the kill switch, policy, risk gate and fill) or `rejectOrder` with the
 * reason. The order as it stands after it, or the problem as the page shows it.
 */
export function decide(calls: Calls, orderId: string, decision: Decision): Promise<Shown<Order>> {
  const path = { id: orderId };
  if (decision.decision === 'approve') return calls.operation('approveOrder', { path, body: { preview_id: decision.previewId } }, LABELS);
  const { reason } = decision;
  return calls.operation('rejectOrder', { path, body: reason === undefined ? {} : { reason } }, LABELS);
}

/** The preview of an order as the pipeline answers it (`previewOrder`: changes nothing about the order). */
export const preview = (calls: Calls, orderId: string) => calls.operation('previewOrder', { path: { id: orderId } }, LABELS);

/** What decisions on several orders did: how many ended in each state (or were refused), the first refusal, the stale previews. */
export interface Decided {
  tally: Record<string, number>;
  firstError: PageError | null;
  /** Approvals refused because their preview no longer held (`preview-stale`): the order and what changed. */
  stale: { orderId: string; detail: string }[];
}

/**
 * A decision on each order in turn, one `decide` each, as the API would take them one by one: a refusal of one
 * (blocked by its checks, a stale preview, no longer proposed) is counted and the others go on; a problem with the form
 * itself (an invalid reason: the same for every order) ends the batch and is the answer.
 */
export async function decideEach(calls: Calls, decisions: [orderId: string, Decision][]): Promise<Shown<Decided>> {
  const decided: Decided = { tally: {}, firstError: null, stale: [] };
  for (const [id, decision] of decisions) {
    const done = await decide(calls, id, decision);
    if (!done.ok && done.slug === 'validation-error') return done;
    if (!done.ok && done.slug === 'preview-stale') {
      decided.stale.push({ orderId: id, detail: done.error.detail });
      continue;
    }
    const key = done.ok ? done.value.status : done.slug === 'checks-failed' ? 'blocked' : 'refused';
    decided.tally[key] = (decided.tally[key] ?? 0) + 1;
    if (!done.ok) decided.firstError ??= done.error;
  }
  return { ok: true, value: decided };
}
