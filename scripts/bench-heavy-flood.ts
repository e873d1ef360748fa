// Benchmark: another client's authenticated read (GET /v1/brokers) while one client floods the heavy computation,
// goal feasibility, from a process of its own (scripts/bench/background-traffic.ts), as issue 20 measured it:
// - GraphQL documents of 40 heavy goalFeasibility aliases (100 years, contributions, σ about 0.9) twice a second;
// - the same with 9 aliases, the most of those the cost limit admits, so that they are computed;
// - 100 heavy evaluateGoalFeasibility MCP tool calls at a time, each its own request, again as soon as all are answered.
// Against quiet phases in the same run, in the order Q G A M M A G Q (each condition's two phases pooled, so a steady
// drift of the machine cancels out). The service runs compiled with its defaults (compute pool, CPU budget of 10 s a
// minute per client), but without the route limit, which would stop a one-address attacker first (an attacker may
// have many addresses); each attacking phase is a new client, with a fresh budget. Prints a JSON line last.
// Usage: npm run bench:heavy   (PostgreSQL at BENCH_DATABASE_URL, default the local server; build first)
import { spawn } from 'node:child_process';
import { migrateToLatest, openDatabase } from '../db/connect.js';
import { loadConfig } from '../src/config.js';
import { createServices } from '../src/services/index.js';
import { benchDatabase, request, startService, token } from './bench/support.js';

const PHASE_SECONDS = Number(process.env.HEAVY_PHASE_SECONDS ?? 8);

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))]!;

const database = await benchDatabase();
const db = await openDatabase({ databaseUrl: database.url });
await migrateToLatest(db.kysely);
const services = await createServices(
  loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'silent', BCRYPT_COST: '4', DASHBOARD_PORT: '0' }),
  db,
);
const service = await startService(database.url, { BCRYPT_COST: '4' });
let clients = 0;
const newToken = async (scopes: string[]) => {
  const created = await services.clients.create({ accountEmail: `heavy${++clients}@example.com`, scopes });
  return token(service.url, created.client_id, created.client_secret);
};

try {
  const reader = await newToken(['read']);
  const read = () => request(`${service.url}/v1/brokers`, { headers: { authorization: `Bearer ${reader}` } });
  /** Reads one after another for the phase's length: each one's latency. */
  const reads = async () => {
    const times: number[] = [];
    const until = performance.now() + PHASE_SECONDS * 1000;
    while (performance.now() < until) {
      const start = performance.now();
      const response = await read();
      if (response.status !== 200) throw new Error(`read: ${response.status} ${response.body}`);
      times.push(performance.now() - start);
    }
    return times;
  };
  const attack = async (env: Record<string, string>) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/bench/background-traffic.ts'], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: { ...process.env, URL: service.url, TOKEN: await newToken(['read', 'mcp']), ...env },
    });
    await new Promise((resolve) => child.once('message', resolve)); // started
    const times = await reads();
    const done = new Promise<{ sent: number; seconds: number; statuses: Record<string, number> }>((resolve) =>
      child.once('message', resolve as (value: unknown) => void),
    );
    child.send('stop');
    return { times, ...(await done) };
  };

  // Warm-up: the read path, and the compute pool's threads (they start with the first computation).
  const warm = await request(`${service.url}/v1/goals/feasibility`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await newToken(['read'])}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      capital: 10000,
      target: 5000000,
      horizon_years: 100,
      market: 'US',
      monthly_contribution: 2000,
      assumptions: { expected_return: 0.3, volatility: 0.9 },
    }),
  });
  if (warm.status !== 200) throw new Error(`feasibility: ${warm.status} ${warm.body}`);
  await reads();

  const conditions = {
    graphql: { KIND: 'graphql-feasibility', ALIASES: '40', PER_SECOND: '2' },
    admissible: { KIND: 'graphql-feasibility', ALIASES: '9', PER_SECOND: '2' },
    mcp: { KIND: 'mcp-feasibility', CALLS: '100', CONNECTIONS: '100' },
  } as const;
  type Condition = keyof typeof conditions;
  const quiet: number[] = [];
  const under: Record<Condition, { times: number[]; statuses: Record<string, number> }> = {
    graphql: { times: [], statuses: {} },
    admissible: { times: [], statuses: {} },
    mcp: { times: [], statuses: {} },
  };
  const attacked = async (condition: Condition) => {
    const run = await attack(conditions[condition]);
    under[condition].times.push(...run.times);
    for (const [status, n] of Object.entries(run.statuses))
      under[condition].statuses[status] = (under[condition].statuses[status] ?? 0) + n;
  };
  quiet.push(...(await reads()));
  for (const condition of ['graphql', 'admissible', 'mcp', 'mcp', 'admissible', 'graphql'] as const) await attacked(condition);
  quiet.push(...(await reads()));

  const quietP99 = percentile(quiet, 99);
  const summary = (condition: Condition) => {
    const p99 = percentile(under[condition].times, 99);
    return {
      readP99Ms: p99,
      readP50Ms: percentile(under[condition].times, 50),
      reads: under[condition].times.length,
      ratio: p99 / quietP99,
      attacker: under[condition].statuses,
    };
  };
  const result = {
    quietP99Ms: quietP99,
    quietP50Ms: percentile(quiet, 50),
    quietReads: quiet.length,
    graphql: summary('graphql'),
    admissible: summary('admissible'),
    mcp: summary('mcp'),
  };
  for (const condition of ['graphql', 'admissible', 'mcp'] as const) {
    const r = result[condition];
    console.log(
      `${condition}: read p99 ${r.readP99Ms.toFixed(1)} ms vs ${quietP99.toFixed(1)} ms quiet ` +
        `(${r.ratio.toFixed(2)}×; p50 ${r.readP50Ms.toFixed(2)} ms); attacker ${JSON.stringify(r.attacker)}`,
    );
  }
  console.log(JSON.stringify(result));
} finally {
  await service.stop();
  await db.close();
  await database.drop();
}
process.exit(0);
