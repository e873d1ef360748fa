// Benchmark: a legitimate client's token requests and authenticated reads while 32 connections flood the token
// endpoint with wrong secrets from ever-changing addresses and client ids (so no rate limit stops them: the worst
// case for bcrypt). Prints p99s with and without the flood, measured in the same run, and a JSON line last.
// Every phase is the same steps (a second's pause, new legitimate token requests, then the reads), so that the flood
// is the only difference. A run without any flood (FLOOD_CONNECTIONS=0) shows how far two quiet conditions differ
// (BENCHMARKS.md, why the code is as it is).
// Usage: npm run bench:flood   (PostgreSQL at BENCH_DATABASE_URL, default the local server; build first)
import { spawn } from 'node:child_process';
import { migrateToLatest, openDatabase } from '../db/connect.js';
import { loadConfig } from '../src/config.js';
import { createServices } from '../src/services/index.js';
import { benchDatabase, request, startService } from './bench/support.js';

const FLOOD_CONNECTIONS = Number(process.env.FLOOD_CONNECTIONS ?? 32);
const SAMPLES = Number(process.env.FLOOD_SAMPLES ?? 400);
// Reads are fast: enough of them that a p99 is not two or three stray samples.
const READ_SAMPLES = 5 * SAMPLES;
const WARM_UP_PHASES = Number(process.env.FLOOD_WARM_UP_PHASES ?? 3);

function p50(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}

function p99(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]!;
}

async function timed(n: number, call: () => Promise<number>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    const status = await call();
    if (status !== 200) throw new Error(`status ${status}`);
    times.push(performance.now() - start);
  }
  return times;
}

const database = await benchDatabase();
const db = await openDatabase({ databaseUrl: database.url });
await migrateToLatest(db.kysely);
const services = await createServices(
  loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'silent', BCRYPT_COST: '10', DASHBOARD_PORT: '0' }),
  db,
);
// Production settings but a trusted proxy hop, so the flood can pretend to come from everywhere.
const service = await startService(database.url, {
  BCRYPT_COST: '10',
  TRUST_PROXY: '1',
  RATE_LIMIT_PER_MINUTE: '300',
  TOKEN_RATE_LIMIT_PER_MINUTE: '30',
  TOKEN_FAILURE_LIMIT_PER_MINUTE: '10',
});
try {
  const client = await services.clients.create({ accountEmail: 'legit@example.com', scopes: ['read'] });
  const legitHeaders = { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '192.0.2.1' };
  const tokenBody = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: client.client_id,
    client_secret: client.client_secret,
  }).toString();
  const tokenRequest = () => request(`${service.url}/oauth/token`, { method: 'POST', headers: legitHeaders, body: tokenBody });
  const first = await tokenRequest();
  const token = (JSON.parse(first.body) as { access_token: string }).access_token;
  // The legitimate client stays under its address's limits: one token request and reads spread over the minute.
  let address = 0;
  const read = () =>
    request(`${service.url}/v1/brokers`, {
      headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': `192.0.2.${2 + (address++ % 200)}` },
    }).then((r) => r.status);
  // New legitimate token requests: each from its own address (as many clients would be), so limits do not apply.
  let legit = 0;
  const phase = async (tokens: number, reads: number) => {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const token = await timed(tokens, () =>
      request(`${service.url}/oauth/token`, {
        method: 'POST',
        headers: { ...legitHeaders, 'x-forwarded-for': `192.0.2.${100 + (legit++ % 100)}` },
        body: tokenBody,
      }).then((r) => r.status),
    );
    return { token, read: await timed(reads, read) };
  };

  // Other traffic comes from a process of its own (scripts/bench/background-traffic.ts), as an attacker's would: the
  // flood or, as the control, cheap requests (404s) paced at the rate the flood achieved. Without the control, any
  // traffic at all would count as the flood's: on two cores, paced 404s alone raise the read p99.
  let phaseNumber = 0;
  const background = async <T>(kind: 'flood' | 'paced', perSecond: number, during: () => Promise<T>) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/bench/background-traffic.ts'], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: {
        ...process.env,
        URL: service.url,
        KIND: kind,
        CONNECTIONS: String(FLOOD_CONNECTIONS),
        PER_SECOND: String(perSecond),
        PHASE: String(++phaseNumber),
      },
    });
    await new Promise((resolve) => child.once('message', resolve)); // started
    const result = await during();
    const done = new Promise<{ sent: number; seconds: number; statuses: Record<string, number> }>((resolve) =>
      child.once('message', resolve as (value: unknown) => void),
    );
    child.send('stop');
    return { result, ...(await done) };
  };

  for (let i = 0; i < WARM_UP_PHASES; i++) await phase(SAMPLES, READ_SAMPLES); // warm-up: the token path too
  // Quiet, flooded and paced phases in the order Q F P P F Q, each condition's two phases pooled: the read p99 still
  // falls for half a minute after the start, and an order symmetric in time cancels a steady fall, which one quiet
  // phase followed by one flooded phase would count as the flood's.
  type Sample = { token: number[]; read: number[] };
  const quiet: Sample = { token: [], read: [] };
  const underFlood: Sample = { token: [], read: [] };
  const paced: Sample = { token: [], read: [] };
  const pool = (into: Sample, from: Sample) => {
    into.token.push(...from.token);
    into.read.push(...from.read);
  };
  const half = () => phase(SAMPLES / 2, READ_SAMPLES / 2);
  let floodRequests = 0;
  let floodSeconds = 0;
  const statuses: Record<string, number> = {};
  const flooded = async () => {
    const run = await background('flood', 0, half);
    floodRequests += run.sent;
    floodSeconds += run.seconds;
    for (const [status, count] of Object.entries(run.statuses)) statuses[status] = (statuses[status] ?? 0) + count;
    pool(underFlood, run.result);
  };
  pool(quiet, await half());
  await flooded();
  const floodRate = floodRequests / floodSeconds;
  pool(paced, (await background('paced', floodRate, half)).result);
  pool(paced, (await background('paced', floodRate, half)).result);
  await flooded();
  pool(quiet, await half());
  const tokenUnderFlood = underFlood.token;
  const readUnderFlood = underFlood.read;

  const result = {
    tokenP99Ms: p99(tokenUnderFlood),
    readP99Ms: p99(readUnderFlood),
    readP99QuietMs: p99(quiet.read),
    readP50Ms: p50(readUnderFlood),
    readP50QuietMs: p50(quiet.read),
    readP99Ratio: p99(readUnderFlood) / p99(quiet.read),
    readP99PacedMs: p99(paced.read),
    readP99VsPacedRatio: p99(readUnderFlood) / p99(paced.read),
    floodPerSecond: floodRate,
    floodRequests,
    floodStatuses: statuses,
    tokenP99QuietMs: p99(quiet.token),
  };
  console.log(`legitimate token request under the flood: p99 ${result.tokenP99Ms.toFixed(0)} ms (target ≤ 500)`);
  console.log(
    `authenticated read: p99 ${result.readP99Ms.toFixed(1)} ms under the flood vs ${result.readP99QuietMs.toFixed(1)} ms without ` +
      `(${result.readP99Ratio.toFixed(2)}×, target ≤ 1.5×; p50 ${result.readP50Ms.toFixed(2)} vs ${result.readP50QuietMs.toFixed(2)} ms)`,
  );
  console.log(
    `… vs ${result.readP99PacedMs.toFixed(1)} ms under cheap requests at the flood's rate (${result.readP99VsPacedRatio.toFixed(2)}×)`,
  );
  console.log(`flood: ${floodRequests} requests (${floodRate.toFixed(0)}/s), statuses ${JSON.stringify(statuses)}`);
  console.log(JSON.stringify(result));
} finally {
  await service.stop();
  await db.close();
  await database.drop();
}
process.exit(0);
