import { createHash } from 'node:crypto';
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

/** Named prepared statements a PostgreSQL connection may hold unless configured (DATABASE_PREPARED_STATEMENTS). */
export const DEFAULT_PREPARED_STATEMENTS = 256;

export interface GuardOptions {
  /** The longest wait for one query's answer (none when absent: scripts and tests that load large data sets). */
  timeoutMs?: number;
  /**
   * Named prepared statements, at most this many on a connection (0: none, every statement sent unnamed, as a
   * transaction-pooling PgBouncer without prepared-statement support needs).
   */
  preparedStatements: number;
  /** Told how long each wait for a connection took, in seconds (the metrics' pool wait; set after opening). */
  onWait?: (seconds: number) => void;
}

/** Transaction control and session statements: cheap to parse, sent unnamed. */
const UNNAMED_COMMANDS = [
  ...['begin', 'commit', 'rollback', 'savepoint', 'release', 'set', 'reset', 'show', 'start', 'end', 'deallocate', 'discard'],
  ...['listen', 'unlisten', 'lock', 'create', 'alter', 'drop', 'comment', 'grant', 'revoke', 'truncate', 'vacuum', 'analyze', 'do'],
];
const UNNAMED = new RegExp(`^\\s*(${UNNAMED_COMMANDS.join('|')})\\b`, 'i');

/** Names already computed, by text (the service's texts are a few dozen; emptied if texts that vary fill it). */
const names = new Map<string, string>();

/** The name a statement is prepared under: its text's hash, so that one text is one statement on every connection. */
export function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `ias_${createHash('sha1').update(text).digest('base64url').slice(0, 22)}`;
    if (names.size >= 1024) names.clear();
    names.set(text, name);
  }
  return name;
}

/**
 * Gives every query at most `timeoutMs` for an answer (when given). pg's own `query_timeout` leaves the connection
 * waiting for the lost answer, so the ROLLBACK that follows waits a full timeout again; here the connection is
 * discarded at once (released with an error, which the pool destroys) and everything else sent on it fails immediately,
 * so a request against a frozen database answers within one timeout.
 *
 * Statements are sent as named prepared statements (pg's `name`): PostgreSQL parses and plans a statement once per
 * connection instead of on every request. pg keeps a connection's statements as long as the connection lives, so their
 * number is bounded here: a connection that has prepared `preparedStatements` distinct texts is closed when it is next
 * released (the pool opens a fresh one), rather than reaching into pg to drop statements one by one. The service's
 * statements are a few dozen texts; the bound is met only by statements whose text varies with their input (an `in`
 * list of a varying length).
 */
export function guardedPool(pool: pg.Pool, options: GuardOptions): PostgresPool {
  const { timeoutMs, preparedStatements } = options;
  const guarded = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const guard = (client: pg.PoolClient): PostgresPoolClient => {
    let broken: QueryTimeoutError | undefined;
    const prepared = new Set<string>();
    let full = false;
    const config = (text: string, values: unknown[] | undefined): pg.QueryConfig => {
      if (preparedStatements === 0 || UNNAMED.test(text)) return { text, values };
      const name = statementName(text);
      if (!prepared.has(name)) {
        if (prepared.size >= preparedStatements) {
          full = true;
          return { text, values };
        }
        prepared.add(name);
      }
      return { name, text, values };
    };
    return {
      query: ((sql: unknown, parameters?: ReadonlyArray<unknown>) => {
        if (typeof sql !== 'string') return client.query(sql as never);
        if (broken) return Promise.reject(broken);
        return new Promise((resolve, reject) => {
          const timer =
            timeoutMs === undefined
              ? undefined
              : setTimeout(() => {
                  broken = new QueryTimeoutError(timeoutMs);
                  client.release(broken);
                  reject(broken);
                }, timeoutMs);
          client.query(config(sql, parameters as unknown[] | undefined)).then(
            (result) => {
              clearTimeout(timer);
              resolve(result as never);
            },
            (error: unknown) => {
              clearTimeout(timer);
              reject(broken ?? (error as Error));
            },
          );
        });
      }) as PostgresPoolClient['query'],
      release: () => {
        if (broken) return;
        // A connection that holds as many statements as it may is ended; the pool replaces it.
        if (full) guarded.delete(client);
        client.release(full);
      },
    };
  };
  return {
    async connect() {
      const started = performance.now();
      const client = await pool.connect();
      options.onWait?.((performance.now() - started) / 1000);
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
