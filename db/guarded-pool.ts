import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';

/** A query that got no answer in time: the database is frozen or unreachable; the request answers 503. */
export class QueryTimeoutError extends Error {
  readonly code = 'QUERY_TIMEOUT';

  constructor(timeoutMs: number) {
    super(`the database did not answer within ${timeoutMs} ms`);
    this.name = 'QueryTimeoutError';
  }
}

/**
 * Gives every query at most `timeoutMs` for an answer. pg's own `query_timeout` leaves the connection waiting for
 * the lost answer, so the ROLLBACK that follows waits a full timeout again; here the connection is discarded at
 * once (released with an error, which the pool destroys) and everything else sent on it fails immediately, so a
 * request against a frozen database answers within one timeout.
 */
export function guardedPool(pool: pg.Pool, timeoutMs: number): PostgresPool {
  const guarded = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const guard = (client: pg.PoolClient): PostgresPoolClient => {
    let broken: QueryTimeoutError | undefined;
    return {
      query: ((sql: unknown, parameters?: ReadonlyArray<unknown>) => {
        if (typeof sql !== 'string') return client.query(sql as never);
        if (broken) return Promise.reject(broken);
        return new Promise((resolve, reject) => {
          const timer = setTimeout(() => {
            broken = new QueryTimeoutError(timeoutMs);
            client.release(broken);
            reject(broken);
          }, timeoutMs);
          client.query(sql, parameters as unknown[]).then(
            (result) => {
              clearTimeout(timer);
              resolve(result as never);
            },
            (error: unknown) => {
              clearTimeout(timer);
              reject(broken ?? error);
            },
          );
        });
      }) as PostgresPoolClient['query'],
      release: () => {
        if (!broken) client.release();
      },
    };
  };
  return {
    async connect() {
      const client = await pool.connect();
      let wrapper = guarded.get(client);
      if (!wrapper) {
        wrapper = guard(client);
        guarded.set(client, wrapper);
      }
      return wrapper;
    },
    end: () => pool.end(),
  };
}
