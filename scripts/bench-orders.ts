// Benchmark: GET /v1/orders pagination with a million orders on one account. Prints the cost of deep pages and
// filtered pages as ratios to the first page, measured in the same run (keyset pagination should stay near 1).
// Usage: npm run bench:orders [-- ORDERS]   (PostgreSQL at BENCH_DATABASE_URL, default the local server)
import { PAPER_ONLY } from '../src/services/brokerage/directory.js';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { migrateToLatest, openDatabase } from '../db/connect.js';
import { authorize } from '../src/auth/authorize.js';
import { systemClock } from '../src/clock.js';
import { loadConfig } from '../src/config.js';
import { SimulatedPriceSource } from '../src/services/market-data.js';
import { OrderService } from '../src/services/orders/service.js';
import type { OrderFilter } from '../src/services/orders/views.js';
import { Store } from '../src/services/store.js';

const total = Number(process.argv[2] ?? 1_000_000);
const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const name = `ias_bench_${randomBytes(4).toString('hex')}`;

async function admin(statement: string) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  await client.query(statement);
  await client.end();
}

async function timeIt(run: () => Promise<unknown>, repeat = 50): Promise<number> {
  await run();
  const start = process.hrtime.bigint();
  for (let i = 0; i < repeat; i++) await run();
  return Number(process.hrtime.bigint() - start) / 1e6 / repeat;
}

await admin(`create database ${name}`);
const url = new URL(adminUrl);
url.pathname = `/${name}`;
const db = await openDatabase({ databaseUrl: url.toString() });
try {
  const k = db.kysely;
  await migrateToLatest(k);
  await k.insertInto('accounts').values({ id: 'acct_bench', email: 'bench@example.com', name: 'bench' }).execute();
  await k
    .insertInto('ideas')
    .values({ id: 'idea_bench', account_id: 'acct_bench', mode: 'rebalance', market: 'US', rationale: 'bench', created_by_client_id: 'c' })
    .execute();
  console.log(`inserting ${total.toLocaleString()} orders…`);
  await sql`
    insert into orders (id, account_id, idea_id, market, currency, symbol, side, quantity, order_type, notional, status, expires_at)
    select 'ord_' || lpad(i::text, 12, '0'), 'acct_bench', case when i % 1000 = 0 then 'idea_bench' end, 'US', 'USD',
           (array['VTI','BND','QQQ','GLD','AAPL'])[1 + i % 5], 'buy', 1, 'market', 100,
           (array['filled','rejected','cancelled','blocked','expired'])[1 + (i / 7) % 5], now() + interval '1 day'
    from generate_series(1, ${total}) as i`.execute(k);
  // Another account's orders interleaved with the same id range, so the plan must use the per-account index.
  await k.insertInto('accounts').values({ id: 'acct_other', email: 'other@example.com', name: 'other' }).execute();
  await sql`
    insert into orders (id, account_id, market, currency, symbol, side, quantity, order_type, notional, status, expires_at)
    select 'ord_' || lpad(i::text, 12, '0') || 'x', 'acct_other', 'US', 'USD', 'VTI', 'buy', 1, 'market', 100, 'filled', now() + interval '1 day'
    from generate_series(1, ${Math.floor(total / 4)}) as i`.execute(k);
  await sql`analyze orders`.execute(k);

  const orders = new OrderService({
    store: new Store(k),
    clock: systemClock,
    prices: new SimulatedPriceSource(),
    brokers: PAPER_ONLY,
    config: loadConfig({}),
  });
  const principal = {
    accountId: 'acct_bench',
    clientId: 'bench',
    scopes: new Set(['read']),
    generation: 1,
    tokenId: 'bench',
    expiresAt: Infinity,
  };
  const actor = authorize(principal, 'listOrders', { ip: '127.0.0.1', userAgent: 'bench' });
  const listOrders = (filter: OrderFilter) => orders.list(actor, filter);
  const first = await listOrders({ limit: 20 });
  const deepId = `ord_${String(Math.floor(total * 0.1)).padStart(12, '0')}`;
  const deepKey = Buffer.from(JSON.stringify({ k: deepId })).toString('base64url');
  const cases: [string, OrderFilter][] = [
    ['second page', { limit: 20, cursor: first.next_cursor! }],
    ['page at 90 % depth', { limit: 20, cursor: deepKey }],
    ['status=rejected', { limit: 20, status: 'rejected' }],
    ['symbol=GLD, deep', { limit: 20, symbol: 'GLD', cursor: deepKey }],
    ['idea_id filter', { limit: 20, idea_id: 'idea_bench' }],
  ];
  const baseline = await timeIt(() => listOrders({ limit: 20 }));
  console.log(`first page (baseline): ${baseline.toFixed(2)} ms`);
  for (const [label, filter] of cases) {
    const ms = await timeIt(() => listOrders(filter));
    console.log(`${label.padEnd(22)} ${(ms / baseline).toFixed(2)}× baseline (${ms.toFixed(2)} ms)`);
  }
  const plan = await sql<{
    'QUERY PLAN': string;
  }>`explain select * from orders where account_id = 'acct_bench' and id < ${deepId} order by id desc limit 21`.execute(k);
  console.log(plan.rows.map((r) => r['QUERY PLAN']).join('\n'));
} finally {
  await db.close();
  await admin(`drop database if exists ${name} with (force)`);
}
