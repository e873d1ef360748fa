// The load generators of `make bench`: closed-loop throughput (wrk, or autocannon without it) and open-loop
// fixed-rate latency with plain http.
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import autocannon from 'autocannon';
import { cpuMs } from './support.js';

export interface Throughput {
  /** Server CPU time per answered request, in µs (when the server's pid was given). */
  cpuMicrosPerRequest?: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/**
 * What each request sends when it is not a GET without a body: `method` and `body`; `keyed`, a fresh Idempotency-Key on
 * every request (a prefix new to each measurement and a count), over `paths` in turn (the URL's own path is ignored).
 */
export interface LoadRequest {
  method: string;
  body?: string;
  keyed?: { paths: string[] };
}

/** wrk's script for a LoadRequest (its arguments follow the URL). */
const REQUEST_SCRIPT = 'scripts/bench/request.lua';

/**
 * The closed-loop load generator: wrk (Debian's package, in C) when it is installed, else autocannon. autocannon
 * parses every answer in JavaScript and, on these two cores, tops out near 35k requests/s, about what one worker of
 * the service now serves: it cannot show what a second worker adds. BENCH_LOAD_GENERATOR=autocannon forces it.
 */
export const loadGenerator: 'wrk' | 'autocannon' =
  process.env.BENCH_LOAD_GENERATOR === 'autocannon' || spawnSync('wrk', ['--version']).error ? 'autocannon' : 'wrk';

export interface LoadOptions {
  headers?: Record<string, string>;
  connections?: number;
  duration?: number;
  amount?: number;
  pid?: number;
  request?: LoadRequest;
}

/**
 * Closed-loop load: `connections` keep-alive connections sending as fast as answers come back, for `duration`
 * seconds (wrk or autocannon) or for `amount` requests (autocannon).
 */
export async function throughput(url: string, options: LoadOptions = {}): Promise<Throughput> {
  const cpuBefore = options.pid ? cpuMs(options.pid) : 0;
  const connections = options.connections ?? 10;
  const run =
    loadGenerator === 'wrk' && !options.amount
      ? await wrk(url, connections, options.duration ?? 8, options.headers ?? {}, options.request)
      : await cannon(url, connections, options);
  return {
    ...(options.pid && run.answered > 0 ? { cpuMicrosPerRequest: ((cpuMs(options.pid) - cpuBefore) * 1000) / run.answered } : {}),
    ...run.result,
  };
}

async function cannon(url: string, connections: number, options: LoadOptions) {
  const { method, body, keyed } = options.request ?? {};
  const prefix = `${randomUUID()}-`;
  let sent = 0;
  const result = await autocannon({
    url,
    headers: options.headers,
    connections,
    ...(method ? { method: method as autocannon.Request['method'], body } : {}),
    ...(keyed
      ? {
          requests: [
            {
              setupRequest: (request: autocannon.Request) => ({
                ...request,
                path: keyed.paths[sent % keyed.paths.length],
                headers: { ...request.headers, 'Idempotency-Key': `${prefix}${++sent}` },
              }),
            },
          ],
        }
      : {}),
    ...(options.amount ? { amount: options.amount } : { duration: options.duration ?? 8 }),
  });
  return {
    answered: result.requests.total,
    result: {
      requestsPerSecond: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      non2xx: result.non2xx,
      errors: result.errors + result.timeouts,
    },
  };
}

/** One wrk thread (the lightest load on cores the service shares), its summary parsed. */
async function wrk(url: string, connections: number, seconds: number, headers: Record<string, string>, request?: LoadRequest) {
  const args = [
    '-t1',
    `-c${connections}`,
    `-d${Math.round(seconds)}s`,
    '--latency',
    ...Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]),
    ...(request ? ['-s', REQUEST_SCRIPT] : []),
    url,
    ...(request ? ['--', request.method, request.body ?? '', ...(request.keyed ? [`${randomUUID()}-`, ...request.keyed.paths] : [])] : []),
  ];
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`wrk exited with ${code}: ${text}`))));
  });
  const number = (pattern: RegExp) => Number(pattern.exec(output)?.[1] ?? 0);
  const milliseconds = (percent: number) => {
    const match = new RegExp(`^\\s*${percent}%\\s+([\\d.]+)(us|ms|s)\\s*$`, 'm').exec(output);
    if (!match) return NaN;
    return Number(match[1]) * ({ us: 0.001, ms: 1, s: 1000 } as Record<string, number>)[match[2]!]!;
  };
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  return {
    answered: number(/(\d+) requests in/),
    result: {
      requestsPerSecond: number(/Requests\/sec:\s+([\d.]+)/),
      p50: milliseconds(50),
      p99: milliseconds(99),
      non2xx: number(/Non-2xx or 3xx responses: (\d+)/),
      errors: socketErrors ? socketErrors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
    },
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

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * Open-loop load: starts `count` requests at `rate` per second whatever the server does (a slow server builds a
 * queue, as real clients would), and reports latencies from each request's scheduled start.
 */
export async function fixedRate(
  count: number,
  rate: number,
  send: (i: number, agent: http.Agent) => Promise<number>,
  samples?: number[],
): Promise<Latencies> {
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
  samples?.push(...latencies);
  latencies.sort((a, b) => a - b);
  return {
    offeredPerSecond: rate,
    completed: latencies.length,
    statuses,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    achievedPerSecond: latencies.length / elapsed,
  };
}
