import type { ProblemError } from '../problems.js';
import { activeMetrics, type Channel } from './metrics.js';

type Outcome = { ok: true; value: unknown } | { ok: false; problem: ProblemError };

/**
 * What the metrics count of a use case's outcome, on every channel alike (the pipeline calls it): approvals by outcome
 * (`approved`, or the problem type that refused it) and a blocked one's failed checks by name, previews by what they
 * said, and refusals by a quota or the CPU budget (the route limits count theirs where they refuse: rate-limit-replies.ts).
 */
export function observeOutcome(operationId: string, outcome: Outcome): void {
  const metrics = activeMetrics();
  if (!metrics) return;
  if (operationId === 'approveOrder') {
    metrics.approvals.inc({ outcome: outcome.ok ? 'approved' : outcome.problem.slug });
    if (!outcome.ok && outcome.problem.slug === 'checks-failed') {
      const failed = outcome.problem.extensions.failed_checks as { check: string }[] | undefined;
      for (const { check } of failed ?? []) metrics.blocks.inc({ check });
    }
  } else if (operationId === 'previewOrder' && outcome.ok) {
    metrics.previews.inc({ decision: String((outcome.value as { decision?: unknown }).decision) });
  }
  if (!outcome.ok && outcome.problem.slug === 'quota-exceeded') {
    const [policy] = (outcome.problem.extensions['violated-policies'] as string[] | undefined) ?? ['unknown'];
    metrics.refusals.inc({ policy });
  }
}

/** A keyed call answered from its Idempotency-Key's stored answer. */
export function observeReplay(channel: Channel): void {
  activeMetrics()?.replays.inc({ channel });
}
