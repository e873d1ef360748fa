// `make bench`: the service against baselines it starts itself, each result a ratio measured in the same run (this
// machine's load varies; absolute numbers from different runs are not comparable). Not part of `make test`.
// Usage: make bench [CASES="read observability cluster memory operations approvals webhooks orders feasibility flood heavy"]
// (read: GET /v1/brokers against node:http, fastify and express serving its bytes; operations: a keyed write and a
// GraphQL read against node:http and fastify serving theirs).
// Writes BENCHMARKS.md (a table, the targets, the machine and date, and the raw JSON); a run of some cases (CASES=…)
// writes .bench/BENCHMARKS.partial.md instead.
import { migrateToLatest, openDatabase, type Db } from '../db/connect.js';
import { loadConfig } from '../src/config.js';
import { createServices, type Services } from '../src/services/index.js';
import { feasibilityCase } from './bench/cases-feasibility.js';
import { floodCase, heavyCase } from './bench/cases-floods.js';
import { observabilityCase } from './bench/cases-observability.js';
import { operationsCase } from './bench/cases-operations.js';
import { clusterCase, memoryCase, readCase, warmRead } from './bench/cases-reads.js';
import { approvalsCase, ordersCase, webhooksCase } from './bench/cases-trading.js';
import type { Bench, Reading } from './bench/context.js';
import { writeReport } from './bench/report.js';
import { benchDatabase, startService, token, type Service } from './bench/support.js';

const ALL = [
  'read',
  'observability',
  'cluster',
  'memory',
  'operations',
  'approvals',
  'webhooks',
  'orders',
  'feasibility',
  'flood',
  'heavy',
] as const;
type Case = (typeof ALL)[number];
const chosen = new Set<Case>((process.env.CASES?.split(/[\s,]+/).filter(Boolean) as Case[] | undefined) ?? ALL);

const database = await benchDatabase();
const config = loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'silent', BCRYPT_COST: '4', DASHBOARD_PORT: '0' });
const db: Db = await openDatabase({ databaseUrl: database.url });
await migrateToLatest(db.kysely);
const services: Services = await createServices(config, db);
let accounts = 0;

async function client(service: Service, scopes = ['read', 'write', 'trade']) {
  const created = await services.clients.create({ accountEmail: `bench${++accounts}@example.com`, scopes });
  return {
    accountId: created.account_id,
    clientId: created.client_id,
    token: await token(service.url, created.client_id, created.client_secret),
    tokenFor: (other: Service) => token(other.url, created.client_id, created.client_secret),
  };
}

const bench: Bench = { database, db, duration: Number(process.env.BENCH_SECONDS ?? 8), rows: [], raw: {}, client };

try {
  // The floods first, on a quiet machine: after the orders case PostgreSQL is still vacuuming a million rows, which
  // their p99s would measure.
  if (chosen.has('heavy')) await heavyCase(bench);
  if (chosen.has('flood')) floodCase(bench);
  const single = await startService(database.url);
  const reader = await client(single, ['read']);
  const reading: Reading = { single, reader, readUrl: `${single.url}/v1/brokers`, auth: { Authorization: `Bearer ${reader.token}` } };
  if (chosen.has('read') || chosen.has('cluster')) await warmRead(reading);
  if (chosen.has('read')) await readCase(bench, reading);
  if (chosen.has('observability')) await observabilityCase(bench, reading);
  if (chosen.has('memory')) await memoryCase(bench, reading);
  if (chosen.has('cluster')) await clusterCase(bench, reading);
  // Before the approvals and the million orders: PostgreSQL vacuums after them, on the cores this computation needs.
  if (chosen.has('feasibility')) await feasibilityCase(bench, single);
  // Its writes leave idempotency records and dead rows for PostgreSQL to vacuum, as the approvals and orders do.
  if (chosen.has('operations')) await operationsCase(bench, single);
  if (chosen.has('approvals')) await approvalsCase(bench, single, reading.auth);
  if (chosen.has('webhooks')) await webhooksCase(bench);
  if (chosen.has('orders')) await ordersCase(bench, single);
  await single.stop();
} finally {
  await db.close();
  await database.drop();
}

// A run of some cases (CASES=…) is not the record: it goes to .bench/, and BENCHMARKS.md keeps the last full run.
writeReport(bench.rows, bench.raw, process.env.CASES ? '.bench/BENCHMARKS.partial.md' : 'BENCHMARKS.md');
process.exit(0);
