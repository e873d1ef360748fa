// Not part of make bench: a CPU profile of the service under the bench's authenticated read, for finding what a
// request costs. Usage: npx tsx scripts/bench/profile-read.ts [seconds]; writes .profile/*.cpuprofile and prints
// the functions with the most self time.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadConfig } from '../../src/config.js';
import { migrateToLatest, openDatabase } from '../../db/connect.js';
import { createServices } from '../../src/services/index.js';
import { throughput } from './load.js';
import { benchDatabase, startService, token } from './support.js';

const seconds = Number(process.argv[2] ?? 6);
const database = await benchDatabase();
const db = await openDatabase({ databaseUrl: database.url });
await migrateToLatest(db.kysely);
const services = await createServices(
  loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'silent', BCRYPT_COST: '4', DASHBOARD_PORT: '0' }),
  db,
);
rmSync('.profile', { recursive: true, force: true });
const service = await startService(database.url, {}, ['--cpu-prof', '--cpu-prof-dir=.profile']);
try {
  const created = await services.clients.create({ accountEmail: 'profile@example.com', scopes: ['read'] });
  const bearer = await token(service.url, created.client_id, created.client_secret);
  await throughput(`${service.url}/v1/brokers`, { headers: { Authorization: `Bearer ${bearer}` }, duration: 2 });
  const run = await throughput(`${service.url}/v1/brokers`, {
    headers: { Authorization: `Bearer ${bearer}` },
    duration: seconds,
    pid: service.pid,
  });
  console.log(`${run.requestsPerSecond.toFixed(0)} req/s, ${run.cpuMicrosPerRequest?.toFixed(0)} µs CPU per request`);
} finally {
  await service.stop();
  await db.close();
  await database.drop();
}
const file = readdirSync('.profile')
  .map((f) => `.profile/${f}`)
  .sort((a, b) => readFileSync(b).length - readFileSync(a).length)[0]!;
const profile = JSON.parse(readFileSync(file, 'utf8')) as {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
};
const self = new Map<string, number>();
const time = new Map<number, number>();
profile.samples.forEach((id, i) => time.set(id, (time.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
for (const node of profile.nodes) {
  const where = node.callFrame.url.replace(/^.*node_modules\//, '').replace(/^.*\/work\/[^/]+\//, '');
  const key = `${node.callFrame.functionName || '(anonymous)'} ${where}:${node.callFrame.lineNumber + 1}`;
  self.set(key, (self.get(key) ?? 0) + (time.get(node.id) ?? 0));
}
const busy = [...self].filter(([key]) => !key.startsWith('(idle)')).reduce((sum, [, t]) => sum + t, 0);
for (const [key, t] of [...self]
  .filter(([k]) => !k.startsWith('(idle)'))
  .sort((a, b) => b[1] - a[1])
  .slice(0, 40))
  console.log(`${((100 * t) / busy).toFixed(1).padStart(5)}%  ${key}`);

// Inclusive time of the service's own functions and its middleware (what each step of a request costs in all).
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const node of profile.nodes as { id: number; children?: number[] }[])
  for (const child of node.children ?? []) parent.set(child, node.id);
const inclusive = new Map<string, number>();
for (const node of profile.nodes) {
  const t = time.get(node.id) ?? 0;
  if (!t || node.callFrame.functionName === '(idle)') continue;
  const seen = new Set<string>();
  for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
    const frame = byId.get(id)!.callFrame;
    if (!/dist\/(src|handlers|db)\/|rate-limit|router\/|express\/lib|openapi-backend|ajv|pino|jose/.test(frame.url)) continue;
    const file = frame.url.replace(/^.*node_modules\//, '').replace(/^.*\/work\/[^/]+\//, '');
    const key = `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber + 1}`;
    if (seen.has(key)) continue;
    seen.add(key);
    inclusive.set(key, (inclusive.get(key) ?? 0) + t);
  }
}
console.log('--- inclusive');
for (const [key, t] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, 45))
  console.log(`${((100 * t) / busy).toFixed(1).padStart(5)}%  ${key}`);
