import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import {
  CompiledQuery,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryResult,
} from 'kysely';
import type { Database } from './schema.js';

/**
 * The running service's embedded database, lent to the operator CLI over a unix socket. PGlite is one session in
 * the service's process, so no other process can open the data directory while the service runs; instead the
 * service listens on `DATA_DIR/admin/db.sock` (the folder 0700, the socket 0600: only the service's user reaches it)
 * and runs what the CLI sends on its own database, one CLI connection at a time, each holding the same lock a
 * transaction of the service holds (the dialect's mutex), so the CLI's statements never interleave with a
 * request's transaction. The protocol is one JSON line per statement and one per answer.
 */

/** A CLI connection may hold the database this long at most, and stay idle this long, before it is cut (and rolled back). */
const SESSION_MS = 30_000;
const IDLE_MS = 10_000;
const MAX_LINE = 1 << 20;

export const adminSocketPath = (dataDir: string) => join(dataDir, 'admin', 'db.sock');

/** Dates travel tagged, so both ends see Date objects where the database gives them. */
function encode(value: unknown): string {
  return JSON.stringify(value, function (this: Record<string, unknown>, key, v: unknown) {
    const original = this[key];
    return original instanceof Date ? { $date: original.toISOString() } : typeof v === 'bigint' ? v.toString() : v;
  });
}
const isTaggedDate = (v: unknown): v is { $date: string } =>
  typeof v === 'object' && v !== null && typeof (v as { $date?: unknown }).$date === 'string' && Object.keys(v).length === 1;
const decode = (line: string): unknown => JSON.parse(line, (_k, v: unknown) => (isTaggedDate(v) ? new Date(v.$date) : v));

interface Request {
  sql: string;
  parameters: unknown[];
}
type Reply = { rows: unknown[]; numAffectedRows?: string } | { error: { message: string; code?: string } };

async function session(kysely: Kysely<Database>, socket: Socket): Promise<void> {
  socket.setTimeout(IDLE_MS, () => socket.destroy());
  const lines = createInterface({ input: socket, crlfDelay: Infinity });
  const next = lines[Symbol.asyncIterator]();
  let line = await next.next();
  if (line.done) return;
  const cut = setTimeout(() => socket.destroy(), SESSION_MS);
  try {
    await kysely.connection().execute(async (db) => {
      let inTransaction = false;
      try {
        while (!line.done) {
          if (line.value.length > MAX_LINE) return void socket.destroy();
          let reply: Reply;
          try {
            const request = decode(line.value) as Request;
            const verb = /^\s*(\w+)/.exec(request.sql)?.[1]?.toLowerCase();
            const result = await db.executeQuery(CompiledQuery.raw(request.sql, request.parameters ?? []));
            if (verb === 'begin' || verb === 'start') inTransaction = true;
            if (verb === 'commit' || verb === 'rollback' || verb === 'end') inTransaction = false;
            reply = {
              rows: result.rows,
              ...(result.numAffectedRows !== undefined ? { numAffectedRows: String(result.numAffectedRows) } : {}),
            };
          } catch (error) {
            const { message, code } = error as { message: string; code?: string };
            reply = { error: { message, ...(code ? { code } : {}) } };
          }
          socket.write(`${encode(reply)}\n`);
          line = await next.next();
        }
      } finally {
        if (inTransaction) await db.executeQuery(CompiledQuery.raw('rollback')).catch(() => {});
      }
    });
  } finally {
    clearTimeout(cut);
    socket.destroy();
  }
}

/** Serves the embedded database on DATA_DIR's admin socket; `close` stops listening and removes the socket. */
export async function serveAdminSocket(
  kysely: Kysely<Database>,
  dataDir: string,
  onError: (error: unknown) => void,
): Promise<{ close(): Promise<void> }> {
  const path = adminSocketPath(dataDir);
  mkdirSync(join(dataDir, 'admin'), { recursive: true, mode: 0o700 });
  chmodSync(join(dataDir, 'admin'), 0o700);
  // A socket file left by a service that died; this process holds the data directory's lock, so it is not in use.
  rmSync(path, { force: true });
  const server = createServer((socket) => {
    socket.on('error', () => {});
    session(kysely, socket).catch(onError);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  chmodSync(path, 0o600);
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        rmSync(path, { force: true });
      }),
  };
}

class SocketConnection implements DatabaseConnection {
  private readonly waiting: { resolve: (reply: Reply) => void; reject: (error: Error) => void }[] = [];

  constructor(private readonly socket: Socket) {
    const lines = createInterface({ input: socket, crlfDelay: Infinity });
    lines.on('line', (line) => this.waiting.shift()?.resolve(decode(line) as Reply));
    const fail = (error?: Error) => {
      for (const w of this.waiting.splice(0)) w.reject(error ?? new Error('the service closed the admin connection'));
    };
    socket.on('error', fail);
    socket.on('close', () => fail());
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const reply = await new Promise<Reply>((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.socket.write(`${encode({ sql: compiled.sql, parameters: compiled.parameters })}\n`);
    });
    if ('error' in reply) throw Object.assign(new Error(reply.error.message), reply.error.code ? { code: reply.error.code } : {});
    return { rows: reply.rows as R[], ...(reply.numAffectedRows !== undefined ? { numAffectedRows: BigInt(reply.numAffectedRows) } : {}) };
  }

  // eslint-disable-next-line require-yield -- Kysely's driver interface wants a generator; this one only refuses
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not supported over the admin socket');
  }

  close(): void {
    this.socket.end();
  }
}

class SocketDriver implements Driver {
  constructor(private readonly path: string) {}

  async init(): Promise<void> {}

  acquireConnection(): Promise<DatabaseConnection> {
    return new Promise((resolve, reject) => {
      const socket = createConnection(this.path);
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new SocketConnection(socket));
      });
      socket.once('error', reject);
    });
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as SocketConnection).close();
  }

  async destroy(): Promise<void> {}
}

/** A Kysely over the running service's embedded database (through its admin socket at `path`). */
export function adminSocketKysely(path: string): Kysely<Database> {
  const dialect: Dialect = {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new SocketDriver(path),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  };
  return new Kysely<Database>({ dialect });
}
