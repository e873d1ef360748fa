// Not part of make bench: a CPU profile of the service under one of the bench's loads, for finding what a request
// costs. Usage: npx tsx scripts/bench/profile-read.ts [read|write|graphql] [seconds] (after `node scripts/build.mjs`):
// `read` is GET /v1/brokers, `write` the keyed PATCH /v1/webhook-endpoints/{id} and `graphql` the brokers query of the
// operations case. Writes .profile/*.cpuprofile and prints the server CPU per request by stage of the pipeline
// (profile-stages.ts) and the functions with the most self time. PROFILE_ENV adds to the service's environment.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadConfig } from '../../src/config.js';
import { migrateToLatest, openDatabase } from '../../db/connect.js';
import { createServices } from '../../src/services/index.js';
import { BROKERS_QUERY, webhookEndpoints } from './cases-operations.js';
import { throughput, type LoadRequest } from './load.js';
import { stages, stageTable, type CpuProfile } from './profile-stages.js';
import { benchDatabase, startService, token } from './support.js';

const kind = (process.argv[2] ?? 'read') as 'read' | 'write' | 'graphql';
const seconds = Number(process.argv[3] ?? 6);
if (!['read', 'write', 'graphql'].includes(kind)) throw new Error(`profile-read: a load is read, write or graphql, not ${kind}`);
const database = await benchDatabase();
const db = await openDatabase({ databaseUrl: database.url });
await migrateToLatest(db.kysely);
const services = await createServices(
  loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'silent', BCRYPT_COST: '4', DASHBOARD_PORT: '0' }),
  db,
);
rmSync('.profile', { recursive: true, force: true });
// PROFILE_ENV: the service's environment besides the bench's (JSON), e.g. '{"LOG_LEVEL":"warn"}' to see a read unlogged.
const env = JSON.parse(process.env.PROFILE_ENV ?? '{}') as Record<string, string>;
const service = await startService(database.url, env, ['--cpu-prof', '--cpu-prof-dir=.profile']);
let answered: number;
try {
  const created = await services.clients.create({ accountEmail: 'profile@example.com', scopes: ['read', 'write'] });
  const headers = {
    Authorization: `Bearer ${await token(service.url, created.client_id, created.client_secret)}`,
    'Content-Type': 'application/json',
  };
  let url = `${service.url}/v1/brokers`;
  let request: LoadRequest | undefined;
  if (kind === 'write') {
    const paths = await webhookEndpoints(service.url, headers);
    url = `${service.url}${paths[0]}`;
    request = { method: 'PATCH', body: JSON.stringify({ description: 'profile' }), keyed: { paths } };
  } else if (kind === 'graphql') {
    url = `${service.url}/graphql`;
    request = { method: 'POST', body: JSON.stringify({ query: BROKERS_QUERY }) };
  }
  await throughput(url, { headers, request, duration: 2, connections: 32 });
  const run = await throughput(url, { headers, request, duration: seconds, connections: 32, pid: service.pid });
  if (run.non2xx > 0) throw new Error(`${run.non2xx} answers were not 2xx`);
  answered = run.requestsPerSecond * seconds;
  console.log(`${kind}: ${run.requestsPerSecond.toFixed(0)} req/s, ${run.cpuMicrosPerRequest?.toFixed(0)} µs CPU per request (profiled)`);
} finally {
  await service.stop();
  await db.close();
  await database.drop();
}
const file = readdirSync('.profile')
  .map((f) => `.profile/${f}`)
  .sort((a, b) => readFileSync(b).length - readFileSync(a).length)[0]!;
const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
console.log(`\n${stageTable(stages(profile, answered, seconds))}\n`);

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const self = new Map<string, number>();
let busy = 0;
profile.samples.forEach((id, i) => {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame as { functionName: string; url: string; lineNumber: number };
  if (functionName === '(idle)') return;
  const key = `${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '').replace(/^.*\/work\/[^/]+\//, '')}:${lineNumber + 1}`;
  self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0));
  busy += profile.timeDeltas[i] ?? 0;
});
console.log('self time (whole profile, start-up included):');
for (const [key, t] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30))
  console.log(`${((100 * t) / busy).toFixed(1).padStart(5)}%  ${key}`);
