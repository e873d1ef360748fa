import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, Migrator, PostgresDialect, sql, type CompiledQuery, type KyselyConfig, type Transaction } from 'kysely';
import pg from 'pg';
import { DEFAULT_PREPARED_STATEMENTS, guardedPool, type GuardOptions } from './guarded-pool.js';
import { lockMigrations, TransactionLockAdapter } from './migration-lock.js';
import { migrations } from './migrations/index.js';
import { PGliteDialect } from './pglite-dialect.js';
import type { Database } from './schema.js';

const INT8 = 20;
const DATE = 1082;

/** Both backends return the same JavaScript types: int8 as number (counts), date as 'YYYY-MM-DD', numeric as string. */
const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8) return (value: string) => Number(value);
    if (oid === DATE) return (value: string) => value;
    return pg.types.getTypeParser(oid, format) as (value: string) => unknown;
  },
};

export interface Db {
  kysely: Kysely<Database>;
  kind: 'postgres' | 'embedded';
  /** PostgreSQL only: what it was opened with, for another pool of the same process (the webhook thread's). */
  open?: Pick<OpenOptions, 'databaseUrl' | 'timeouts' | 'preparedStatements'>;
  /**
   * Opens every connection the pool may hold, at once, so that the first requests do not queue behind their connections
   * being opened one by one, and runs `statements` on each (the hot paths' reads, with values that match nothing), so
   * each connection has them prepared before the first request. Nothing on the embedded database.
   */
  warm(statements?: CompiledQuery[]): Promise<void>;
  /** PostgreSQL only: the pool's size, its connections now, and a listener told each wait for one (the metrics'). */
  pool?: {
    size: number;
    counts(): { total: number; idle: number; waiting: number };
    onWait(listener: ((seconds: number) => void) | undefined): void;
  };
  close(): Promise<void>;
  /** Embedded only: a tarball of the data directory, to start another embedded database from. */
  dump?: () => Promise<Blob>;
}

export class DatabaseInUseError extends Error {
  constructor(dataDir: string, pid: number) {
    super(
      `The embedded database in ${dataDir} is open in another process (pid ${pid}). The embedded database serves one ` +
        `process at a time: stop that process first, or point both at a PostgreSQL server with DATABASE_URL.`,
    );
    this.name = 'DatabaseInUseError';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const lockFile = join(dataDir, 'service.pid');
  try {
    const holder = Number(readFileSync(lockFile, 'utf8'));
    if (holder && holder !== process.pid && isAlive(holder)) throw new DatabaseInUseError(dataDir, holder);
  } catch (error) {
    if (error instanceof DatabaseInUseError) throw error;
  }
  writeFileSync(lockFile, String(process.pid));
  return () => rmSync(lockFile, { force: true });
}

export interface OpenOptions {
  databaseUrl?: string;
  /** Folder of the embedded database; `memory://` keeps it in memory. */
  dataDir?: string;
  /** A tarball from `dumpDataDir` to start the embedded database from (tests clone one migrated database). */
  loadDataDir?: Blob;
  poolSize?: number;
  /** Sees the SQL of every statement run (BEGIN and COMMIT included): tests count statements with it. */
  onQuery?: (sql: string) => void;
  /** PostgreSQL only; absent = wait for ever (scripts and tests that load large data sets). */
  timeouts?: DatabaseTimeouts;
  /** PostgreSQL only: named prepared statements a connection may hold (default 256; 0 sends none). */
  preparedStatements?: number;
}

/** How long PostgreSQL may take before a request gives up on it (see docs/configuration.md). */
export interface DatabaseTimeouts {
  /** To open a connection or wait for a free one in the pool. */
  connectMs: number;
  /** For an answer to one query, measured here: the only one that fires when the server is frozen. */
  queryMs: number;
  /** Server side: a statement running longer is cancelled by PostgreSQL. */
  statementMs: number;
  /** Server side: a session idle inside a transaction longer than this is ended (its locks released). */
  idleInTransactionMs: number;
}

/** Kysely's PostgreSQL dialect with the migration lock held for a transaction, not a session (migration-lock.ts). */
class ServiceDialect extends PostgresDialect {
  override createAdapter() {
    return new TransactionLockAdapter();
  }
}

function logger(onQuery: ((sql: string) => void) | undefined): KyselyConfig['log'] {
  return onQuery ? (event) => onQuery(event.query.sql) : undefined;
}

export async function openDatabase(options: OpenOptions): Promise<Db> {
  if (options.databaseUrl) {
    const { timeouts } = options;
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 10,
      types: pgTypes,
      ...(timeouts
        ? {
            connectionTimeoutMillis: timeouts.connectMs,
            statement_timeout: timeouts.statementMs,
            idle_in_transaction_session_timeout: timeouts.idleInTransactionMs,
            // The service keeps the connections it opened (warm) for the next burst rather than closing them after
            // 10 s idle and opening them again under load.
            idleTimeoutMillis: 0,
          }
        : {}),
    });
    // A client that loses its connection emits 'error'; unheard, that would crash the process. The query in flight
    // fails on its own (and becomes a 503), the pool replaces the client, and the next query finds out if it lasts.
    const ignore = () => {};
    pool.on('error', ignore);
    pool.on('connect', (client) => client.on('error', ignore));
    const guardOptions: GuardOptions = {
      timeoutMs: timeouts?.queryMs,
      preparedStatements: options.preparedStatements ?? DEFAULT_PREPARED_STATEMENTS,
    };
    const guarded = guardedPool(pool, guardOptions);
    const dialect = new ServiceDialect({ pool: guarded });
    const kysely = new Kysely<Database>({ dialect, log: logger(options.onQuery) });
    const size = options.poolSize ?? 10;
    const warm = async (statements: CompiledQuery[] = []) => {
      // Through the guarded pool, so the statements are prepared under the names the requests will use.
      const clients = await Promise.all(Array.from({ length: size }, () => guarded.connect()));
      try {
        await Promise.all(
          clients.map(async (client) => {
            await client.query('select 1', []);
            for (const statement of statements) await client.query(statement.sql, statement.parameters);
          }),
        );
      } finally {
        for (const client of clients) client.release();
      }
    };
    return {
      kysely,
      kind: 'postgres',
      open: { databaseUrl: options.databaseUrl, timeouts: options.timeouts, preparedStatements: options.preparedStatements },
      warm,
      pool: {
        size,
        counts: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
        onWait: (listener) => (guardOptions.onWait = listener),
      },
      close: () => kysely.destroy(),
    };
  }
  const dataDir = options.dataDir ?? 'memory://';
  const unlock = dataDir.startsWith('memory://') ? () => {} : lockDataDir(dataDir);
  const pglite = await PGlite.create({
    dataDir,
    ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
    parsers: { [INT8]: (value: string) => Number(value), [DATE]: (value: string) => value },
  });
  const kysely = new Kysely<Database>({ dialect: new PGliteDialect(pglite), log: logger(options.onQuery) });
  return {
    kysely,
    kind: 'embedded',
    warm: async () => {},
    dump: () => pglite.dumpDataDir('none'),
    close: async () => {
      await kysely.destroy();
      unlock();
    },
  };
}

/**
 * Runs the pending migrations, all of them in one transaction that first takes the migrations' lock (migration-lock.ts):
 * one server session from BEGIN to COMMIT, also behind a transaction-pooling PgBouncer, and nothing left locked when
 * a migration fails. Processes starting together wait for each other; the second finds nothing left to do.
 */
export async function migrateToLatest(kysely: Kysely<Database>): Promise<void> {
  const { error, results } = await kysely.connection().execute(async (db) => {
    await sql`begin`.execute(db);
    let committed = false;
    try {
      await lockMigrations(db);
      // Kysely's own transaction would take its lock outside it; this one is already open (and holds the lock).
      const outcome = await new Migrator({
        db,
        provider: { getMigrations: async () => migrations },
        disableTransactions: true,
      }).migrateToLatest();
      if (!outcome.error) {
        await sql`commit`.execute(db);
        committed = true;
      }
      return outcome;
    } finally {
      if (!committed) await sql`rollback`.execute(db).catch(() => undefined);
    }
  });
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    throw new Error(`migration ${failed ?? ''} failed: ${(error as Error).message}`);
  }
}

/** Asks the database for `select 1`, giving up after `timeoutMs` (the query itself may go on until its own timeout). */
export async function ping(kysely: Kysely<Database> | Transaction<Database>, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([sql`select 1`.execute(kysely), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
