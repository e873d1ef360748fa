// PgBouncer for `make cluster`: deploy/pgbouncer.ini as it stands, with the keys that differ on this machine replaced
// (its port, the user list, the PostgreSQL address, the timeouts the instances run with), run as the postgres
// account when this is root (PgBouncer refuses to run as root).
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { account, answers, isRoot, Managed, waitFor } from './processes.js';

export interface PoolerOptions {
  /** The PostgreSQL server, as its administrator reaches it (host, port and user are taken from it). */
  adminUrl: string;
  port: number;
  /** Where its configuration goes (a folder of its own, readable by the account it runs as). */
  dir: string;
  log: string;
  /** The instances' statement and idle-in-transaction timeouts, applied per server session. */
  statementTimeoutMs: number;
  idleInTransactionTimeoutMs: number;
}

export interface Pooler {
  process: Managed;
  /** DATABASE_URL of the instances for `database`, through PgBouncer. */
  url(database: string): string;
  /** The keys of deploy/pgbouncer.ini this run replaced, as `key = value` lines. */
  replaced: string[];
}

/** deploy/pgbouncer.ini with each key of `values` given that value (`*` is the fallback database's line). */
export function withValues(template: string, values: Record<string, string>): { text: string; replaced: string[] } {
  const replaced: string[] = [];
  const text = template
    .split('\n')
    .map((line) => {
      const key = /^\s*([\w*]+)\s*=/.exec(line)?.[1];
      if (key === undefined || !(key in values)) return line;
      replaced.push(`${key} = ${values[key]}`);
      return `${key} = ${values[key]}`;
    })
    .join('\n');
  const missing = Object.keys(values).filter((key) => !replaced.some((line) => line.startsWith(`${key} =`)));
  if (missing.length > 0) throw new Error(`deploy/pgbouncer.ini has no ${missing.join(', ')}`);
  return { text, replaced };
}

export async function startPooler(options: PoolerOptions): Promise<Pooler> {
  const server = new URL(options.adminUrl);
  const user = decodeURIComponent(server.username || 'postgres');
  // Clients authenticate to PgBouncer with this password (SCRAM, as in production); PgBouncer logs in to PostgreSQL
  // as the same user, with the same password when the server asks for one.
  const password = decodeURIComponent(server.password) || randomBytes(18).toString('base64url');
  const runAs = isRoot() ? (account('postgres') ?? account('nobody')) : undefined;
  mkdirSync(options.dir, { recursive: true });
  const userlist = join(options.dir, 'userlist.txt');
  const ini = join(options.dir, 'pgbouncer.ini');
  const { text, replaced } = withValues(readFileSync('deploy/pgbouncer.ini', 'utf8'), {
    '*':
      `host=${server.hostname} port=${server.port || 5432} connect_query='SET statement_timeout = ${options.statementTimeoutMs}; ` +
      `SET idle_in_transaction_session_timeout = ${options.idleInTransactionTimeoutMs}'`,
    listen_port: String(options.port),
    auth_file: userlist,
    admin_users: user,
    stats_users: user,
  });
  writeFileSync(ini, text);
  writeFileSync(userlist, `"${user}" "${password}"\n`, { mode: 0o600 });
  if (runAs) {
    for (const path of [options.dir, ini, userlist]) chownSync(path, runAs.uid, runAs.gid);
    chmodSync(options.dir, 0o700);
  }
  const pooler = new Managed('pgbouncer', { command: 'pgbouncer', args: [ini], log: options.log, as: runAs });
  const url = (database: string) =>
    `postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${options.port}/${encodeURIComponent(database)}`;
  await waitFor('PgBouncer to listen', () => answers(options.port), 10_000, pooler);
  return { process: pooler, url, replaced };
}

/** `select 1` through PgBouncer, answered by PostgreSQL: the pooler reaches the server for `database`. */
export async function poolerAnswers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}
