import { DASHBOARD_CLIENT_ID, type Actor } from '../auth/authorize.js';
import type { Quota } from '../counters/quota.js';
import type { WindowCount, WindowCounter } from '../counters/window-counters.js';
import { ProblemError } from '../problems.js';

/** The budget's policy name (`RateLimit-Policy`, `violated-policies`) and its window. */
export const CPU_POLICY = 'cpu';
export const CPU_WINDOW_MS = 60_000;

export type { Quota };

const secondsUntil = (time: Date | undefined) =>
  time ? Math.max(1, Math.ceil((time.getTime() - Date.now()) / 1000)) : CPU_WINDOW_MS / 1000;

/** A spent budget: `quota-exceeded` naming the policy and when the window ends; REST adds the policy's headers. */
export class QuotaExceededError extends ProblemError {
  constructor(
    readonly quota: Quota,
    detail: string,
  ) {
    super('quota-exceeded', detail, { 'violated-policies': [quota.name] }, secondsUntil(quota.resetTime) * 1000);
    this.name = 'QuotaExceededError';
  }
}

/**
 * Each client's CPU time for heavy computations, per minute (a fixed window from its first charge), in the shared
 * counters (Redis when configured: one budget for every instance). Checked before a computation and charged after it
 * with what the worker measured, so computations admitted together may take a client past the limit by what they
 * cost (at most the pool's slots' worth); the next one is refused. A store that cannot answer refuses nothing.
 */
export class CpuBudget {
  constructor(
    private readonly counter: WindowCounter,
    readonly limitMs: number,
  ) {}

  /** Whom a computation is charged to: the API client (a dashboard session, its account). */
  static keyOf(actor: Actor): string {
    return actor.clientId === DASHBOARD_CLIENT_ID ? `${DASHBOARD_CLIENT_ID}:${actor.accountId}` : actor.clientId;
  }

  /** Refuses (429) a caller whose budget for this window is spent. */
  async check(key: string): Promise<void> {
    const count = await this.counter.get(key);
    if (count && count.total >= this.limitMs) {
      throw new QuotaExceededError(
        this.quota(key, count),
        `This client has used its ${this.limitMs} ms of CPU time for heavy computations (goal feasibility, on every interface) in this minute; ` +
          'retry after Retry-After seconds.',
      );
    }
  }

  /** Charges `cpuMs` (whole milliseconds, at least 1) and answers what is left; undefined when the store cannot say. */
  async charge(key: string, cpuMs: number): Promise<Quota | undefined> {
    const count = await this.counter.add(key, Math.max(1, Math.ceil(cpuMs)));
    return count && this.quota(key, count);
  }

  private quota(key: string, count: WindowCount): Quota {
    return { name: CPU_POLICY, limit: this.limitMs, remaining: Math.max(this.limitMs - count.total, 0), resetTime: count.resetTime, key };
  }
}
