import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';

export type Queryable = Kysely<Database> | Transaction<Database>;

/**
 * The database as a use case sees it: queries, transactions and commit hooks. A store bound to a transaction
 * (`Services.transaction`) makes every use case join that transaction instead of opening its own, so an outer
 * caller (such as the idempotency layer) commits a use case's effect together with its own writes, or neither.
 */
export class Store {
  private readonly hooks: (() => void)[];

  constructor(
    readonly db: Queryable,
    hooks?: (() => void)[],
  ) {
    this.hooks = hooks ?? [];
  }

  get inTransaction(): boolean {
    return this.db.isTransaction;
  }

  /** Runs `work` in a transaction: the store's own when it is bound to one, else a new one committed at the end. */
  async transaction<T>(work: (trx: Transaction<Database>, store: Store) => Promise<T>): Promise<T> {
    if (this.db.isTransaction) return work(this.db as Transaction<Database>, this);
    const hooks: (() => void)[] = [];
    const result = await this.db.transaction().execute((trx) => work(trx, new Store(trx, hooks)));
    for (const hook of hooks) hook();
    return result;
  }

  /** Runs `hook` once the work of this store has committed (at once outside a transaction; never after a rollback). */
  onCommit(hook: () => void): void {
    if (this.db.isTransaction) this.hooks.push(hook);
    else hook();
  }
}
