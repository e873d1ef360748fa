import type { Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Store } from './store.js';

/**
 * Work that takes an account's paper-account lock, one at a time per account in this process, the others waiting for
 * their turn here rather than in PostgreSQL. A transaction waiting for the row lock holds one of the pool's
 * connections all the while: one account's burst of idea generations (the ideas quota admits 30 at once) held all 10,
 * and every other account's requests waited for a connection behind them (another account's portfolio read took
 * 0.4–1 s, scripts/bench-quota-flood.ts). The row lock still orders the turns of several processes, each of which
 * then holds at most one connection waiting for it.
 */
export class AccountTurns {
  /** Per account, the end of the last turn asked for (it never rejects); gone once nothing waits. */
  private readonly last = new Map<string, Promise<void>>();

  /** Runs `work` once every earlier turn of the account in this process has ended, in the order they were asked for. */
  run<T>(accountId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.last.get(accountId);
    const result = previous ? previous.then(work) : work();
    const ended = result.then(
      () => undefined,
      () => undefined,
    );
    this.last.set(accountId, ended);
    void ended.then(() => {
      if (this.last.get(accountId) === ended) this.last.delete(accountId);
    });
    return result;
  }

  /** Accounts with a turn running or waiting (for tests). */
  get size(): number {
    return this.last.size;
  }
}

/** This process's turns for the paper-account lock. */
export const paperAccountTurns = new AccountTurns();

/**
 * `store.transaction(work)` for work that locks the account's paper account, in the account's turn. Inside a
 * transaction (an Idempotency-Key's, which already holds a connection) it waits in PostgreSQL as before: a turn held by
 * a call that needs a connection, from a pool full of calls that hold one while waiting for that turn, would never end.
 */
export function paperAccountTransaction<T>(
  store: Store,
  accountId: string,
  work: (trx: Transaction<Database>, store: Store) => Promise<T>,
): Promise<T> {
  if (store.inTransaction) return store.transaction(work);
  return paperAccountTurns.run(accountId, () => store.transaction(work));
}
