import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, Migrator, PostgresDialect, sql, type KyselyConfig, type Transaction } from 'kysely';
import pg from 'pg';
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
    return pg.types.getTypeParser(oid, format);
  },
};

export interface Db {
  kysely: Kysely<Database>;
  kind: 'postgres' | 'embedded';
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
}

function logger(onQuery: ((sql: string) => void) | undefined): KyselyConfig['log'] {
  return onQuery ? (event) => onQuery(event.query.sql) : undefined;
}

export async function openDatabase(options: OpenOptions): Promise<Db> {
  if (options.databaseUrl) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize ?? 10, types: pgTypes });
    // A client that loses its connection emits 'error'; unheard, that would crash the process. The query in flight
    // fails on its own (and becomes a 503), the pool replaces the client, and the next query finds out if it lasts.
    const ignore = () => {};
    pool.on('error', ignore);
    pool.on('connect', (client) => client.on('error', ignore));
    const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log: logger(options.onQuery) });
    return { kysely, kind: 'postgres', close: () => kysely.destroy() };
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
    dump: () => pglite.dumpDataDir('none'),
    close: async () => {
      await kysely.destroy();
      unlock();
    },
  };
}

export async function migrateToLatest(kysely: Kysely<Database>): Promise<void> {
  const migrator = new Migrator({ db: kysely, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    throw new Error(`migration ${failed ?? ''} failed: ${(error as Error).message}`);
  }
}

export async function ping(kysely: Kysely<Database> | Transaction<Database>): Promise<void> {
  await sql`select 1`.execute(kysely);
}
