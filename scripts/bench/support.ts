// Shared pieces of `make bench`: a throwaway PostgreSQL database, the service as a child process (compiled, as
// production runs it), baseline servers, the CPU and memory they use, and single requests (the load generators are
// load.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { sql } from 'kysely';
import pg from 'pg';
import type { Db } from '../../db/connect.js';
import { freePort } from '../../test/support/server.js';

export { freePort };

export const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** A new empty database on the local server; `drop` removes it (and any connection still open to it). */
export async function benchDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `ias_bench_${randomBytes(4).toString('hex')}`;
  await admin(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}

/** Every server this process started: killed when it exits, however it exits (a failed case leaves none behind). */
const started = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of started) child.kill('SIGKILL');
});
/** The child is stopped with the bench, whatever way the bench ends. */
export function track(child: ChildProcess): void {
  started.add(child);
  child.once('exit', () => started.delete(child));
}

export interface Service {
  url: string;
  pid: number;
  child: ChildProcess;
  /** The service's first log lines with a warning, an error or a non-2xx answer (empty for a baseline). */
  notable: string[];
  stop(): Promise<void>;
}

/** `node dist/src/main.js` (build first) on `databaseUrl`; resolves once it logs "serving". */
export async function startService(databaseUrl: string, env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<Service> {
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeArgs, 'dist/src/main.js'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      BASE_URL: `http://127.0.0.1:${port}`,
      DASHBOARD_PORT: '0',
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'info',
      // The limits are measured by their own case; here they must not cut the load short.
      RATE_LIMIT_PER_MINUTE: '1000000000',
      TOKEN_RATE_LIMIT_PER_MINUTE: '1000000000',
      // Every service of the bench shares one database, so each is an instance of one deployment and its webhook
      // worker takes its share of the deliveries: all must allow the bench's local receiver (an instance that did
      // not refused its share, to be sent again 5 s later by another: the 5 s lag measured once).
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      ...env,
    },
    // Request logs go to a pipe the bench drains, as they would to a log collector.
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  track(child);
  // Ready once /healthz answers (whatever the log level prints); the request log is drained like a collector would,
  // keeping the first lines that report a warning, an error or an answer other than 2xx (what a failed case shows).
  const notable: string[] = [];
  const NOTABLE = /"status":[13-5]|"level":[456]0/;
  child.stdout.on('data', (chunk: Buffer) => {
    const text = chunk.toString('latin1');
    if (notable.length >= 20 || !NOTABLE.test(text)) return;
    for (const line of text.split('\n')) if (NOTABLE.test(line) && notable.length < 20) notable.push(line.slice(0, 400));
  });
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  for (;;) {
    if (exited !== undefined) throw new Error(`the service exited with ${exited} before serving`);
    const ok = await request(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    child,
    notable,
    stop: () => terminate(child),
  };
}

/** SIGTERM, resolved once the process has exited. */
function terminate(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** Resident set size of a process, in MiB (Linux). */
export function rssMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}

export type BaselineKind = 'node' | 'fastify' | 'express';

/** A baseline server in its own process (`scripts/bench/baseline.mjs`) answering every request with `status`, `headers` and `body`. */
export async function startBaseline(kind: BaselineKind, body: string, headers: Record<string, string>, status = 200): Promise<Service> {
  const port = await freePort();
  const child = spawn(process.execPath, ['scripts/bench/baseline.mjs', kind, String(port)], {
    env: { ...process.env, BASELINE_BODY: body, BASELINE_HEADERS: JSON.stringify(headers), BASELINE_STATUS: String(status) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  track(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`baseline exited with ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    child,
    notable: [],
    stop: () => terminate(child),
  };
}

/** CPU time (user + system) a process and its children (cluster workers) have used so far, in ms. */
export function cpuMs(pid: number): number {
  const ticks = (id: number) => {
    try {
      const fields = readFileSync(`/proc/${id}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return Number(fields[11]) + Number(fields[12]);
    } catch {
      return 0;
    }
  };
  let children: number[];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    children = [];
  }
  return ([pid, ...children].reduce((sum, id) => sum + ticks(id), 0) * 1000) / 100;
}

/** One request with a small JSON reply (set-up and the open-loop cases). */
export function request(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; agent?: http.Agent } = {},
): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? 'GET', headers: options.headers, agent: options.agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), headers: res.headers }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

export async function token(url: string, clientId: string, secret: string): Promise<string> {
  const response = await request(`${url}/oauth/token`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
    },
    body: 'grant_type=client_credentials',
  });
  if (response.status !== 200) throw new Error(`token: ${response.status} ${response.body}`);
  return (JSON.parse(response.body) as { access_token: string }).access_token;
}

/** CPU time (ms) of PostgreSQL's backends serving `database`, by process id (root reads their /proc). */
export async function backendCpu(db: Db, database: string): Promise<Map<number, number>> {
  const rows = await sql<{
    pid: number;
  }>`select pid from pg_stat_activity where datname = ${database} and backend_type = 'client backend'`.execute(db.kysely);
  const cpu = new Map<number, number>();
  for (const { pid } of rows.rows) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      cpu.set(pid, ((Number(fields[11]) + Number(fields[12])) * 1000) / 100);
    } catch {
      // a backend that ended meanwhile
    }
  }
  return cpu;
}

/**
 * The investment policy a bench's or the cluster test's holder signs (US; VTI 60 %, BND 40 %), with limits a run does
 * not meet unless told otherwise (`limits`), consenting to the disclosure in force (`disclosureVersion`).
 */
export function holderPolicy(disclosureVersion: unknown, signer = 'Bench Holder', limits: Record<string, unknown> = {}) {
  return {
    limits: {
      max_order_notional: 50_000,
      max_position_weight: 0.9,
      max_daily_notional: 1_000_000,
      max_daily_loss: 50_000,
      allowed_markets: ['US'],
      ...limits,
    },
    target_allocation: [
      { symbol: 'VTI', weight: 0.6 },
      { symbol: 'BND', weight: 0.4 },
    ],
    consent: { disclosure_version: disclosureVersion, accepted: true, signer_name: signer },
  };
}
