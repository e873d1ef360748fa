// What `make cluster` takes from the machine: Debian's haproxy and pgbouncer (installed when missing, as .ci/run
// installs Chromium), PostgreSQL and Redis as the machine has them (started when they do not answer, as .ci/run
// does), free ports, and a database.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createClient } from 'redis';
import pg from 'pg';
import { answers, isRoot, Managed, waitFor } from './processes.js';

const log = (line: string) => process.stdout.write(`${line}\n`);

function installed(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Each command, from its Debian package when it is missing (root with apt-get); otherwise an error naming it. */
export function ensurePackages(packages: Record<string, string>): void {
  const missing = Object.entries(packages).filter(([command]) => !installed(command));
  if (missing.length === 0) return;
  const names = missing.map(([, pkg]) => pkg);
  if (!isRoot() || !installed('apt-get')) {
    throw new Error(
      `missing ${missing.map(([c]) => c).join(', ')}: install ${names.join(' ')} (Debian: apt-get install ${names.join(' ')})`,
    );
  }
  log(`Installing ${names.join(', ')} from Debian's packages`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () => execFileSync('apt-get', ['install', '-y', '-qq', ...names], { env, stdio: 'ignore' });
  try {
    install();
  } catch {
    execFileSync('apt-get', ['update', '-qq'], { env, stdio: 'ignore' });
    install();
  }
}

async function postgresAnswers(url: string): Promise<boolean> {
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

/**
 * PostgreSQL at `adminUrl`, started with pg_ctlcluster when it does not answer and the machine has a cluster; the
 * returned function stops it again when it was started here (and does nothing otherwise).
 */
export async function ensurePostgres(adminUrl: string): Promise<() => void> {
  if (await postgresAnswers(adminUrl)) return () => {};
  if (!installed('pg_ctlcluster') || !existsSync('/etc/postgresql')) throw new Error(`no PostgreSQL answers at ${adminUrl}`);
  const version = readdirSync('/etc/postgresql').sort().at(-1)!;
  log(`PostgreSQL is not answering; starting the local cluster (${version} main)`);
  execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'start'], { stdio: 'inherit' });
  await waitFor('PostgreSQL', () => postgresAnswers(adminUrl), 30_000);
  return () => {
    log('Stopping the PostgreSQL cluster started for the cluster');
    execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'stop'], { stdio: 'inherit' });
  };
}

async function redisAnswers(url: string): Promise<boolean> {
  const client = createClient({ url, socket: { connectTimeout: 1000, reconnectStrategy: false } });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    if (client.isOpen) await client.quit().catch(() => undefined);
  }
}

/** Redis at `url`, or a redis-server of this cluster's own on that port (no persistence) when none answers there. */
export async function ensureRedis(url: string, logFile: string): Promise<Managed | undefined> {
  if (await redisAnswers(url)) return undefined;
  ensurePackages({ 'redis-server': 'redis-server' });
  const { hostname, port } = new URL(url);
  log(`Redis is not answering at ${url}; starting one for the cluster`);
  const redis = new Managed('redis', {
    command: 'redis-server',
    args: ['--bind', hostname, '--port', port || '6379', '--save', '', '--appendonly', 'no'],
    log: logFile,
  });
  await waitFor('Redis', () => redisAnswers(url), 10_000, redis);
  return redis;
}

/** Fails naming every port of `ports` that something already listens on. */
export async function ensureFree(ports: Record<string, number>): Promise<void> {
  const busy: string[] = [];
  for (const [what, port] of Object.entries(ports)) if (await answers(port)) busy.push(`${port} (${what})`);
  if (busy.length > 0) throw new Error(`ports in use: ${busy.join(', ')}; choose another CLUSTER_PORT`);
}

/** Runs one statement as the administrator (create or drop a database). */
export async function admin(adminUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Creates the database `name` unless it exists. */
export async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount === 0) await client.query(`create database "${name}"`);
  } finally {
    await client.end();
  }
}
