// Benchmark: a legitimate client's token requests and authenticated reads while 32 connections flood the token
// endpoint with wrong secrets from ever-changing addresses and client ids (so no rate limit stops them: the worst
// case for bcrypt). Prints p99s with and without the flood, measured in the same run, and a JSON line last.
// Usage: npm run bench:flood   (PostgreSQL at BENCH_DATABASE_URL, default the local server; build first)
import http from 'node:http';
import { migrateToLatest, openDatabase } from '../db/connect.js';
import { loadConfig } from '../src/config.js';
import { createServices } from '../src/services/index.js';
import { benchDatabase, request, startService } from './bench/support.js';

const FLOOD_CONNECTIONS = 32;
const SAMPLES = Number(process.env.FLOOD_SAMPLES ?? 400);
// Reads are fast: enough of them that a p99 is not two or three stray samples.
const READ_SAMPLES = 5 * SAMPLES;

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
const services = await createServices(loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'silent', BCRYPT_COST: '10', DASHBOARD_PORT: '0' }), db);
// Production settings but a trusted proxy hop, so the flood can pretend to come from everywhere.
const service = await startService(database.url, { BCRYPT_COST: '10', TRUST_PROXY: '1', RATE_LIMIT_PER_MINUTE: '300', TOKEN_RATE_LIMIT_PER_MINUTE: '30', TOKEN_FAILURE_LIMIT_PER_MINUTE: '10' });
try {
  const client = await services.clients.create({ accountEmail: 'legit@example.com', scopes: ['read'] });
  const legitHeaders = { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '192.0.2.1' };
  const tokenBody = new URLSearchParams({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret }).toString();
  const tokenRequest = () => request(`${service.url}/oauth/token`, { method: 'POST', headers: legitHeaders, body: tokenBody });
  const first = await tokenRequest();
  const token = (JSON.parse(first.body) as { access_token: string }).access_token;
  // The legitimate client stays under its address's limits: one token request and reads spread over the minute.
  let address = 0;
  const read = () => request(`${service.url}/v1/brokers`, { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': `192.0.2.${2 + (address++ % 200)}` } }).then((r) => r.status);
  const token1 = () => tokenRequest().then((r) => r.status);
  await timed(READ_SAMPLES, read); // warm-up: the quiet sample is of a warm process, as the one under the flood is
  const quiet = { read: await timed(READ_SAMPLES, read) };

  let flooding = true;
  let floodRequests = 0;
  const statuses: Record<string, number> = {};
  const agent = new http.Agent({ keepAlive: true, maxSockets: FLOOD_CONNECTIONS });
  const flood = Array.from({ length: FLOOD_CONNECTIONS }, async (_, c) => {
    let i = 0;
    while (flooding) {
      i++;
      const body = new URLSearchParams({ grant_type: 'client_credentials', client_id: `ias_client_guess${c}_${i}`, client_secret: 'wrong' }).toString();
      const response = await request(`${service.url}/oauth/token`, { method: 'POST', agent, headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': `10.${c}.${(i >> 8) & 255}.${i & 255}` }, body }).catch(() => ({ status: 0 }));
      statuses[response.status] = (statuses[response.status] ?? 0) + 1;
      floodRequests++;
    }
  });
  await new Promise((resolve) => setTimeout(resolve, 1000));
  // New legitimate token requests: each from its own address (as many clients would be), so limits do not apply.
  let legit = 0;
  const tokenUnderFlood = await timed(SAMPLES, () => request(`${service.url}/oauth/token`, { method: 'POST', headers: { ...legitHeaders, 'x-forwarded-for': `192.0.2.${100 + (legit++ % 100)}` }, body: tokenBody }).then((r) => r.status));
  const readUnderFlood = await timed(READ_SAMPLES, read);
  flooding = false;
  await Promise.all(flood);
  agent.destroy();

  const result = {
    tokenP99Ms: p99(tokenUnderFlood),
    readP99Ms: p99(readUnderFlood),
    readP99QuietMs: p99(quiet.read),
    readP50Ms: p50(readUnderFlood),
    readP50QuietMs: p50(quiet.read),
    readP99Ratio: p99(readUnderFlood) / p99(quiet.read),
    floodRequests,
    floodStatuses: statuses,
    tokenP99QuietMs: p99(await timed(10, token1)),
  };
  console.log(`legitimate token request under the flood: p99 ${result.tokenP99Ms.toFixed(0)} ms (target ≤ 500)`);
  console.log(`authenticated read: p99 ${result.readP99Ms.toFixed(1)} ms under the flood vs ${result.readP99QuietMs.toFixed(1)} ms without (${result.readP99Ratio.toFixed(2)}×, target ≤ 1.5×; p50 ${result.readP50Ms.toFixed(2)} vs ${result.readP50QuietMs.toFixed(2)} ms)`);
  console.log(`flood: ${floodRequests} requests, statuses ${JSON.stringify(statuses)}`);
  console.log(JSON.stringify(result));
} finally {
  await service.stop();
  await db.close();
  await database.drop();
}
process.exit(0);
