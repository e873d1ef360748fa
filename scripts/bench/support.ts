// Shared pieces of `make bench`: a throwaway PostgreSQL database, the service as a child process (compiled, as
// production runs it), baseline servers, and two load generators (closed-loop throughput with autocannon, open-loop
// fixed-rate latency with plain http).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import autocannon from 'autocannon';
import pg from 'pg';
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

export interface Service {
  url: string;
  pid: number;
  child: ChildProcess;
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
      RATE_LIMIT_PER_MINUTE: '1000000',
      TOKEN_RATE_LIMIT_PER_MINUTE: '1000000',
      ...env,
    },
    // Request logs go to a pipe the bench drains, as they would to a log collector.
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // Ready once /healthz answers (whatever the log level prints); the request log is drained like a collector would.
  child.stdout!.resume();
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  for (;;) {
    if (exited !== undefined) throw new Error(`the service exited with ${exited} before serving`);
    const ok = await request(`http://127.0.0.1:${port}/healthz`).then((r) => r.status === 200, () => false);
    if (ok) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    child,
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

/** A baseline server in its own process (`scripts/bench/baseline.mjs`) answering every request with `body` and `headers`. */
export async function startBaseline(kind: 'node' | 'express', body: string, headers: Record<string, string>): Promise<Service> {
  const port = await freePort();
  const child = spawn(process.execPath, ['scripts/bench/baseline.mjs', kind, String(port)], {
    env: { ...process.env, BASELINE_BODY: body, BASELINE_HEADERS: JSON.stringify(headers) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`baseline exited with ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    child,
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
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    children = [];
  }
  return ([pid, ...children].reduce((sum, id) => sum + ticks(id), 0) * 1000) / 100;
}

export interface Throughput {
  /** Server CPU time per answered request, in µs (when the server's pid was given). */
  cpuMicrosPerRequest?: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/** Closed-loop load: `connections` keep-alive connections sending as fast as answers come back. */
export async function throughput(url: string, options: { headers?: Record<string, string>; connections?: number; duration?: number; amount?: number; pid?: number } = {}): Promise<Throughput> {
  const cpuBefore = options.pid ? cpuMs(options.pid) : 0;
  const result = await autocannon({
    url,
    headers: options.headers,
    connections: options.connections ?? 10,
    ...(options.amount ? { amount: options.amount } : { duration: options.duration ?? 8 }),
  });
  const answered = result.requests.total;
  return {
    ...(options.pid && answered > 0 ? { cpuMicrosPerRequest: ((cpuMs(options.pid) - cpuBefore) * 1000) / answered } : {}),
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

export interface Latencies {
  offeredPerSecond: number;
  completed: number;
  statuses: Record<string, number>;
  p50: number;
  p99: number;
  achievedPerSecond: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * Open-loop load: starts `count` requests at `rate` per second whatever the server does (a slow server builds a
 * queue, as real clients would), and reports latencies from each request's scheduled start.
 */
export async function fixedRate(count: number, rate: number, send: (i: number, agent: http.Agent) => Promise<number>): Promise<Latencies> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const start = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(
      send(i, agent).then(
        (status) => {
          latencies.push(performance.now() - due);
          statuses[status] = (statuses[status] ?? 0) + 1;
        },
        () => {
          statuses.error = (statuses.error ?? 0) + 1;
        },
      ),
    );
  }
  await Promise.all(pending);
  const elapsed = (performance.now() - start) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { offeredPerSecond: rate, completed: latencies.length, statuses, p50: percentile(latencies, 50), p99: percentile(latencies, 99), achievedPerSecond: latencies.length / elapsed };
}

/** One request with a small JSON reply (set-up and the open-loop cases). */
export function request(url: string, options: { method?: string; headers?: Record<string, string>; body?: string; agent?: http.Agent } = {}): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
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
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}` },
    body: 'grant_type=client_credentials',
  });
  if (response.status !== 200) throw new Error(`token: ${response.status} ${response.body}`);
  return (JSON.parse(response.body) as { access_token: string }).access_token;
}
