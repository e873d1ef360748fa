import { sql } from 'kysely';
import type { Queryable } from './store.js';

/** How recent failures must be to count: a key with no failure for this long starts again from zero. */
export const FAILURE_WINDOW_MS = 60 * 60 * 1000;

export type FailureKind = 'email' | 'address';

/** After this many failures within the window, logins for the key are locked (email: a person; address: a client IP). */
export const LOCK_AFTER: Record<FailureKind, number> = { email: 5, address: 20 };
const FIRST_LOCK_MS = 30_000;
const MAX_LOCK_MS = 15 * 60 * 1000;

/** The lock after `failures` failures: none below the threshold, then 30 s doubling per failure, at most 15 minutes. */
export function lockFor(kind: FailureKind, failures: number): number {
  const over = failures - LOCK_AFTER[kind];
  return over < 0 ? 0 : Math.min(MAX_LOCK_MS, FIRST_LOCK_MS * 2 ** Math.min(over, 20));
}

export interface FailureState {
  failures: number;
  lockedUntil: Date | null;
}

/**
 * Recent failures per email address and per client address, in PostgreSQL so that every instance sees the same
 * count (an attacker spreading guesses across instances behind a load balancer gains nothing). An in-memory
 * counter would be cheaper, but it would forget on restart and split the count by instance.
 */
export class FailureCounters {
  constructor(private readonly db: Queryable) {}

  async state(kind: FailureKind, key: string, now: Date): Promise<FailureState> {
    const row = await this.db
      .selectFrom('failure_counters')
      .select(['failures', 'last_failure_at', 'locked_until'])
      .where('kind', '=', kind)
      .where('key', '=', key)
      .executeTakeFirst();
    if (!row || now.getTime() - new Date(row.last_failure_at).getTime() > FAILURE_WINDOW_MS) return { failures: 0, lockedUntil: null };
    const lockedUntil = row.locked_until && new Date(row.locked_until) > now ? new Date(row.locked_until) : null;
    return { failures: row.failures, lockedUntil };
  }

  /** Counts one failure (atomically, also under concurrent failures) and sets the lock it earns. */
  async record(kind: FailureKind, key: string, now: Date): Promise<FailureState> {
    const windowStart = new Date(now.getTime() - FAILURE_WINDOW_MS);
    const { failures } = await this.db
      .insertInto('failure_counters')
      .values({ kind, key, failures: 1, last_failure_at: now, locked_until: null })
      .onConflict((c) =>
        c.columns(['kind', 'key']).doUpdateSet({
          failures: sql<number>`case when failure_counters.last_failure_at < ${windowStart} then 1 else failure_counters.failures + 1 end`,
          last_failure_at: now,
        }),
      )
      .returning('failures')
      .executeTakeFirstOrThrow();
    const lock = lockFor(kind, failures);
    const lockedUntil = lock > 0 ? new Date(now.getTime() + lock) : null;
    if (lockedUntil)
      await this.db
        .updateTable('failure_counters')
        .set({ locked_until: lockedUntil })
        .where('kind', '=', kind)
        .where('key', '=', key)
        .execute();
    return { failures, lockedUntil };
  }

  async clear(kind: FailureKind, key: string): Promise<void> {
    await this.db.deleteFrom('failure_counters').where('kind', '=', kind).where('key', '=', key).execute();
  }

  /** Forgets counters whose window has passed and whose lock has ended. */
  async sweep(now: Date): Promise<void> {
    await this.db
      .deleteFrom('failure_counters')
      .where('last_failure_at', '<', new Date(now.getTime() - FAILURE_WINDOW_MS))
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
      .execute();
  }
}
