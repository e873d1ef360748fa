import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';

export type Queryable = Kysely<Database> | Transaction<Database>;

/**
 * The database as a use case sees it: queries, transactions and commit hooks. A store bound to a transaction
 * (`Services.transaction`) makes every use case run inside that transaction, so an outer caller (such as the
 * idempotency layer) commits a use case's effect together with its own writes, or neither. Inside it, a use case's
 * own transaction is a savepoint: released when the use case's work returns, rolled back when it throws — what the
 * use case keeps or drops is exactly what it would commit or roll back on its own.
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

  /** Runs `work` in a transaction: a new one committed at the end, or a savepoint of the one the store is bound to. */
  async transaction<T>(work: (trx: Transaction<Database>, store: Store) => Promise<T>): Promise<T> {
    if (this.db.isTransaction) return this.savepoint(this.db as Transaction<Database>, work);
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

  /** A nested transaction: its commit hooks join the enclosing transaction's when it is released, and go when it rolls back. */
  private async savepoint<T>(trx: Transaction<Database>, work: (trx: Transaction<Database>, store: Store) => Promise<T>): Promise<T> {
    const nested = new Store(trx);
    // One name for every level: PostgreSQL releases and rolls back to the most recent savepoint of a name.
    await sql`savepoint use_case`.execute(trx);
    let result: T;
    try {
      result = await work(trx, nested);
    } catch (error) {
      await sql`rollback to savepoint use_case`.execute(trx);
      throw error;
    }
    await sql`release savepoint use_case`.execute(trx);
    this.hooks.push(...nested.hooks);
    return result;
  }
}
