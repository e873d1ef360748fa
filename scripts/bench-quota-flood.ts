// Benchmark and acceptance check of issue 34's per-account quotas: one account generating ideas (POST
// /v1/ideas/generate) from 20 loopback addresses for 15 s gets at most 120 accepted and the rest 429, while another
// account's portfolio read (GET /v1/portfolio) keeps its p99 ≤ 100 ms and ≤ 3 × quiet.
// - The attacker runs in a process of its own (scripts/bench/background-traffic.ts, KIND=ideas): CLIENTS clients of one
//   account holding a signed policy, CONNECTIONS connections from each of 20 addresses, each sending back to back.
// - The service runs compiled with its defaults for every limit — the route limit per address, the token limit and the
//   ideas quota are set here to their defaults (startService raises the first two for the other benches) — and its
//   counters in Redis as deployed (BENCH_REDIS_URL; `none` keeps them in memory), under a key prefix of this run's own.
//   The service sees each loopback address as a client of its own (TRUST_PROXY is off by default: req.ip is the socket's).
// - Phases Q F F Q, the quiet phases pooled and the flooded ones pooled (a steady drift of the machine cancels out).
//   Each flood is a new account on 20 addresses of its own (127.0.0.2–21, then 127.0.0.22–41), so each starts the
//   acceptance afresh: the quota and the route limit count in one-minute windows.
// - The victim reads one after another, at most READS_PER_SECOND, taking turns over addresses of its own (127.0.1.x),
//   enough that the route limit per address (300 a minute) never refuses it.
// Prints the attacker's answers, the CPU each side used (the machine is shared: what else ran shows as "the rest") and
// the read's p50/p99, then a JSON line; exits 1 when a target is missed (or on an error, the database dropped and the
// service stopped either way). QUOTA_TRACE=file writes every read's latency and the service's log lines of the 201s
// and reads; QUOTA_PROFILE=1 runs the service with --cpu-prof (.profile/); QUOTA_ATTACKER_NICE=19 runs the attacker
// at the lowest CPU priority (an attacker elsewhere takes none of the service's cores; here it takes up to one of two).
// Usage: npm run bench:quota   (PostgreSQL at BENCH_DATABASE_URL, default the local server)
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, setPriority } from 'node:os';
import http from 'node:http';
import { createClient } from 'redis';
import { migrateToLatest, openDatabase } from '../db/connect.js';
import { loadConfig } from '../src/config.js';
import { createServices } from '../src/services/index.js';
import { benchDatabase, cpuMs, holderPolicy, request, startService, token, track } from './bench/support.js';

const FLOOD_SECONDS = Number(process.env.QUOTA_FLOOD_SECONDS ?? 15);
const QUIET_SECONDS = Number(process.env.QUOTA_QUIET_SECONDS ?? 15);
const READS_PER_SECOND = Number(process.env.READS_PER_SECOND ?? 20);
const CLIENTS = Number(process.env.QUOTA_CLIENTS ?? 2);
const CONNECTIONS = Number(process.env.QUOTA_CONNECTIONS ?? 2);
const ATTACKER_NICE = Number(process.env.QUOTA_ATTACKER_NICE ?? 0);
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** A file for every read's phase, start (ms into it) and latency, and the service's log lines of 201s and reads. */
const TRACE = process.env.QUOTA_TRACE;
const TARGET = { accepted: 120, p99Ms: 100, ratio: 3 };

/** CPU time the whole machine has spent busy so far (every process, this bench's and others'), in ms (Linux). */
const machineBusyMs = () => {
  const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return (user! + nice! + system! + irq! + softirq! + steal!) * 10;
};
const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))]!;

const database = await benchDatabase();
const config = loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'silent', BCRYPT_COST: '4', DASHBOARD_PORT: '0' });
const redisPrefix = `ias:bench-quota:${randomBytes(4).toString('hex')}:`;
let db: Awaited<ReturnType<typeof openDatabase>> | undefined;
let service: Awaited<ReturnType<typeof startService>> | undefined;
let cleaned: Promise<void> | undefined;
const cleanUp = () =>
  (cleaned ??= (async () => {
    await service?.stop();
    await db?.close();
    await database.drop();
    // The counters this run left in Redis (the addresses a client got tokens from are kept a day).
    if (REDIS_URL !== 'none') {
      const redis = createClient({ url: REDIS_URL });
      await redis.connect();
      for await (const keys of redis.scanIterator({ MATCH: `${redisPrefix}*`, COUNT: 1000 })) if (keys.length) await redis.del(keys);
      await redis.close();
    }
  })());
// Interrupted (^C): the same clean-up as at the end.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void cleanUp().finally(() => process.exit(130)));

let failed: string[] = [];
try {
  db = await openDatabase({ databaseUrl: database.url });
  await migrateToLatest(db.kysely);
  const services = await createServices(config, db);
  const profile = process.env.QUOTA_PROFILE ? ['--cpu-prof', '--cpu-prof-dir=.profile'] : [];
  service = await startService(
    database.url,
    {
      BCRYPT_COST: '4',
      RATE_LIMIT_PER_MINUTE: String(config.rateLimitPerMinute),
      TOKEN_RATE_LIMIT_PER_MINUTE: String(config.tokenRateLimitPerMinute),
      ACCOUNT_IDEAS_PER_MINUTE: String(config.accountQuotas.ideas),
      TRUST_PROXY: 'false',
      ...(REDIS_URL === 'none' ? { REDIS_URL: '' } : { REDIS_URL, RATE_LIMIT_REDIS_PREFIX: redisPrefix }),
    },
    profile,
  );
  const url = service.url;
  // The service's warnings and errors (a Redis that stops answering in time makes every limit fail open), and the
  // trace's lines.
  const warnings: string[] = [];
  const trace: string[] = [];
  const TRACED = /"status":201|"path":"\/v1\/portfolio"/;
  service.child.stdout!.on('data', (chunk: Buffer) => {
    const text = chunk.toString('latin1');
    if (TRACE && TRACED.test(text))
      for (const line of text.split('\n')) if (TRACED.test(line)) trace.push(`${Math.round(performance.now())} ${line}`);
    if (!/"level":[456]0/.test(text)) return;
    for (const line of text.split('\n')) if (/"level":[456]0/.test(line) && warnings.length < 50) warnings.push(line.slice(0, 300));
  });
  const call = async (method: string, path: string, bearer: string, body?: unknown) => {
    const headers: Record<string, string> = { authorization: `Bearer ${bearer}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await request(`${url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }).catch(
      (error: Error) => {
        throw new Error(`${method} ${path}: ${error.message}`);
      },
    );
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${response.body}`);
    return JSON.parse(response.body) as Record<string, unknown>;
  };
  /** Tokens of `count` clients of one new account (`email`), the account holding a signed policy (test/support/trading.ts). */
  const account = async (email: string, scopes: string[], count = 1, policy = true) => {
    const tokens: string[] = [];
    for (let i = 0; i < count; i++) {
      const created = await services.clients.create({ accountEmail: email, scopes });
      tokens.push(await token(url, created.client_id, created.client_secret));
    }
    if (policy) {
      const disclosure = await call('GET', '/v1/disclosures/current', tokens[0]!);
      await call(
        'POST',
        '/v1/policies',
        tokens[0]!,
        holderPolicy(disclosure.version, 'Bench Holder', { max_position_weight: 0.8, max_daily_notional: 500_000 }),
      );
    }
    return tokens;
  };

  // The victim: one client of another account, its reads taking turns over addresses that each stay under half the
  // route limit over a minute.
  const [reader] = await account('reader@example.com', ['read'], 1, false);
  const readerAddresses = Math.ceil((READS_PER_SECOND * 60) / (config.rateLimitPerMinute / 2));
  const readerAgents = Array.from(
    { length: readerAddresses },
    (_, i) => new http.Agent({ keepAlive: true, maxSockets: 1, localAddress: `127.0.1.${i + 1}` }),
  );
  let turn = 0;
  /** Answers other than 200 to the victim (each a missed target). */
  const readStatuses: Record<string, number> = {};
  /**
   * Reads one after another for `seconds`, each starting at least 1/READS_PER_SECOND s after the last: each one's
   * latency, and the CPU used meanwhile, in cores: the machine's, the service's and this bench's.
   */
  const reads = async (seconds: number, label: string) => {
    const times: number[] = [];
    const [phaseStart, machine0, service0, self0] = [performance.now(), machineBusyMs(), cpuMs(service!.pid), process.cpuUsage()];
    while (performance.now() < phaseStart + seconds * 1000) {
      const start = performance.now();
      const status = await request(`${url}/v1/portfolio?market=US`, {
        headers: { authorization: `Bearer ${reader}` },
        agent: readerAgents[turn++ % readerAgents.length],
      }).then(
        (response) => response.status,
        () => 'error',
      );
      const end = performance.now();
      if (status !== 200) readStatuses[status] = (readStatuses[status] ?? 0) + 1;
      times.push(end - start);
      if (TRACE) trace.push(`${Math.round(end)} ${label} ${(start - phaseStart).toFixed(0)} ${(end - start).toFixed(1)}`);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, start + 1000 / READS_PER_SECOND - end)));
    }
    const elapsed = performance.now() - phaseStart;
    const self = process.cpuUsage(self0);
    const cores = {
      machine: (machineBusyMs() - machine0) / elapsed,
      service: (cpuMs(service!.pid) - service0) / elapsed,
      bench: (self.user + self.system) / 1000 / elapsed,
    };
    return { times, cores };
  };

  // Warm-up: the read path and an idea generation (another account's, so that neither flood's quota is touched).
  const [warm] = await account('warm@example.com', ['read', 'trade'], 1);
  await call('POST', '/v1/ideas/generate', warm!, { mode: 'invest_cash', market: 'US' });
  await reads(3, 'warm-up');

  /** A flood by a new account from 20 addresses of its own, with the victim's reads meanwhile. */
  const flood = async (phase: number) => {
    const tokens = await account(`ideas${phase}@example.com`, ['read', 'trade'], CLIENTS);
    const addresses = Array.from({ length: 20 }, (_, i) => `127.0.0.${2 + 20 * phase + i}`);
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/bench/background-traffic.ts'], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: {
        ...process.env,
        URL: url,
        KIND: 'ideas',
        TOKENS: tokens.join(','),
        ADDRESSES: addresses.join(','),
        CONNECTIONS: String(CONNECTIONS),
      },
    });
    track(child);
    setPriority(child.pid!, ATTACKER_NICE);
    await new Promise((resolve) => child.once('message', resolve)); // started
    const attacker0 = cpuMs(child.pid!);
    const { times, cores } = await reads(FLOOD_SECONDS, `F${phase + 1}`);
    const attackerCores = (cpuMs(child.pid!) - attacker0) / (FLOOD_SECONDS * 1000);
    const done = new Promise<{ statuses: Record<string, number>; seconds: number; sent: number }>((resolve) =>
      child.once('message', resolve as (value: unknown) => void),
    );
    child.send('stop');
    const { statuses, seconds, sent } = await done;
    const sum = (match: (status: string) => boolean) =>
      Object.entries(statuses).reduce((total, [status, n]) => total + (match(status) ? n : 0), 0);
    const accepted = sum((status) => /^2\d\d$/.test(status));
    const refused = sum((status) => status.startsWith('429'));
    const attacker = { sent, seconds, accepted, refused, other: sent - accepted - refused, statuses };
    return {
      times,
      attacker,
      cores: { ...cores, attacker: attackerCores },
      serviceUsPerRequest: (cores.service * FLOOD_SECONDS * 1e6) / sent,
    };
  };

  const [q1, f1, f2, q2] = [await reads(QUIET_SECONDS, 'Q1'), await flood(0), await flood(1), await reads(QUIET_SECONDS, 'Q2')];
  if (TRACE) writeFileSync(TRACE, trace.join('\n'));
  const quiet = [...q1.times, ...q2.times];
  const flooded = [...f1.times, ...f2.times];
  const result = {
    limits: { ideasPerMinute: config.accountQuotas.ideas, routePerMinute: config.rateLimitPerMinute, redis: REDIS_URL !== 'none' },
    floods: [f1, f2].map(({ times: _, ...rest }) => rest),
    quietP50Ms: percentile(quiet, 50),
    quietP99Ms: percentile(quiet, 99),
    quietReads: quiet.length,
    quietCores: [q1.cores, q2.cores],
    floodP50Ms: percentile(flooded, 50),
    floodP99Ms: percentile(flooded, 99),
    floodMaxMs: Math.max(...flooded),
    floodReads: flooded.length,
    ratio: percentile(flooded, 99) / percentile(quiet, 99),
    readStatuses,
    loadAverage: loadavg(),
  };
  /** CPU in cores: the service's, the attacker's, this bench's, and the rest of the machine's. */
  type Cores = { machine: number; service: number; bench: number; attacker?: number };
  /** What the machine spent beyond this bench's processes: PostgreSQL and Redis for both sides, and whatever else ran. */
  const rest = ({ machine, service, bench, attacker = 0 }: Cores) => machine - service - bench - attacker;
  const usage = (cores: Cores) =>
    `CPU (cores of ${cpus().length}): service ${cores.service.toFixed(2)}, ` +
    `${cores.attacker ? `attacker ${cores.attacker.toFixed(2)}, ` : ''}bench ${cores.bench.toFixed(2)}, ` +
    `the rest ${rest(cores).toFixed(2)} (PostgreSQL, Redis, other processes)`;
  result.floods.forEach(({ attacker: a, cores, serviceUsPerRequest }, i) => {
    console.log(
      `flood ${i + 1}: ${a.sent} idea generations in ${a.seconds.toFixed(1)} s: ${a.accepted} accepted, ${a.refused} 429, ` +
        `${a.other} other ${JSON.stringify(a.statuses)}; ${serviceUsPerRequest.toFixed(0)} µs of service CPU a request; ${usage(cores)}`,
    );
    if (a.accepted > TARGET.accepted) failed.push(`flood ${i + 1}: ${a.accepted} accepted > ${TARGET.accepted}`);
    if (a.other > 0) failed.push(`flood ${i + 1}: ${a.other} answers neither 2xx nor 429`);
  });
  [q1, q2].forEach(({ cores }, i) => console.log(`quiet ${i + 1}: ${usage(cores)}`));
  console.log(
    `read p50 ${result.quietP50Ms.toFixed(1)} / p99 ${result.quietP99Ms.toFixed(1)} ms quiet (${result.quietReads} reads); ` +
      `p50 ${result.floodP50Ms.toFixed(1)} / p99 ${result.floodP99Ms.toFixed(1)} ms under the flood (${result.floodReads} reads, ` +
      `max ${result.floodMaxMs.toFixed(1)}): p99 ${result.ratio.toFixed(2)}× quiet`,
  );
  if (result.floodP99Ms > TARGET.p99Ms) failed.push(`read p99 ${result.floodP99Ms.toFixed(1)} ms > ${TARGET.p99Ms} ms`);
  if (result.ratio > TARGET.ratio) failed.push(`read p99 ${result.ratio.toFixed(2)}× quiet > ${TARGET.ratio}×`);
  if (Object.keys(readStatuses).length) failed.push(`reads answered other than 200: ${JSON.stringify(readStatuses)}`);
  // Past a third of a core in a phase, something else competed for the cores: the run is not comparable.
  const others = Math.max(...[q1, f1, f2, q2].map(({ cores }) => rest(cores)));
  if (others > 0.33) console.log(`note: other work took up to ${others.toFixed(2)} cores in a phase: not a comparable run`);
  for (const line of warnings) console.log(`service: ${line}`);
  console.log(failed.length ? `MISSED: ${failed.join('; ')}` : 'met: every target');
  console.log(JSON.stringify({ ...result, restMaxCores: others, met: failed.length === 0, missed: failed }));
} catch (error) {
  failed = [String(error)];
  console.error(error);
} finally {
  await cleanUp();
}
process.exit(failed.length ? 1 : 0);
