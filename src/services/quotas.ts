// Quotas per account (issue 34): what one account may do in a minute, whatever client, address, channel or instance
// it does it from — counted in the shared window counters (Redis when configured). The rate limits in src/http/ are
// per address and client; a tenant has many of both, and these are what keep it from starving the others. Each is a
// `RateLimit-Policy` of the operation's answers; past it the call is 429 quota-exceeded with Retry-After, before it
// runs. A counter store that cannot answer refuses nothing (as the rate limits do).
import { QuotaExceededError } from '../compute/cpu-budget.js';
import type { Quota } from '../counters/quota.js';
import type { WindowCounter } from '../counters/window-counters.js';
import { ACCOUNT_QUOTAS, type QuotaLimits, type QuotaName } from '../config.js';
import { Metered } from './goals.js';

export const QUOTA_WINDOW_MS = 60_000;

export { ACCOUNT_QUOTAS, type QuotaLimits, type QuotaName } from '../config.js';

export class AccountQuotas {
  constructor(
    private readonly counterOf: (name: QuotaName) => WindowCounter,
    readonly limits: QuotaLimits,
  ) {}

  /** Counts one `name` for the account: the quota left, or 429 when this one is over it. */
  async take(name: QuotaName, accountId: string): Promise<Quota | undefined> {
    const count = await this.counterOf(name).add(accountId);
    if (!count) return undefined;
    const limit = this.limits[name];
    const quota: Quota = { name, limit, remaining: Math.max(limit - count.total, 0), resetTime: count.resetTime, key: accountId };
    if (count.total > limit) {
      throw new QuotaExceededError(
        quota,
        `This account has made its ${limit} ${ACCOUNT_QUOTAS[name].what} of this minute (from every client and interface); ` +
          'retry after Retry-After seconds.',
      );
    }
    return quota;
  }

  /** Runs `work` once the quota allows it, its answer carrying the quota left (the `RateLimit` headers). */
  async metered<T>(name: QuotaName, accountId: string, work: () => Promise<T>): Promise<Metered<T>> {
    const quota = await this.take(name, accountId);
    return new Metered(await work(), quota);
  }
}
