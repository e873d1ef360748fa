// The approval path rehearsed before the service says ready (src/services/orders/rehearsal.ts): every connection of
// the pool runs it, in transactions that roll back, and nothing of it is left in the database or the metrics.
import { expect } from 'chai';
import { sql, type Kysely } from 'kysely';
import { pino } from 'pino';
import { openDatabase, type Db } from '../../db/connect.js';
import type { Database } from '../../db/schema.js';
import { loadConfig } from '../../src/config.js';
import { activeMetrics, stopMetrics } from '../../src/observability/metrics.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { SimulatedPriceSource } from '../../src/services/market-data.js';
import { storeIdea } from '../../src/services/orders/propose.js';
import { dec } from '../../src/services/money.js';
import { ApiClient } from '../support/client.js';
import { createTestDatabase, testBackend, type TestDatabase } from '../support/database.js';

/** The rows of every table of the database, by table. */
async function rowCounts(db: Kysely<Database>): Promise<Record<string, number>> {
  const tables = await sql<{ name: string }>`select table_name as name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`.execute(db);
  const counts: Record<string, number> = {};
  for (const { name } of tables.rows)
    counts[name] = (await sql<{ n: number }>`select count(*)::int as n from ${sql.table(name)}`.execute(db)).rows[0]!.n;
  return counts;
}

/** What the metrics have counted so far of orders: transitions, events, approvals. */
async function counted(): Promise<{ transitions: number; events: number; approvals: number }> {
  const metrics = activeMetrics()!;
  const total = (values: { value: number }[]) => values.reduce((sum, v) => sum + v.value, 0);
  return {
    transitions: total((await metrics.transitions.get()).values),
    events: total((await metrics.events.get()).values),
    approvals: total((await metrics.approvals.get()).values),
  };
}

/** The prepared statements of each of the pool's `size` connections (held at once: each is another connection). */
async function heldAtOnce(db: Db, size: number): Promise<{ statement: string; executions: number }[][]> {
  let arrived = 0;
  let all!: () => void;
  const together = new Promise<void>((resolve) => (all = resolve));
  return Promise.all(
    Array.from({ length: size }, () =>
      db.kysely.transaction().execute(async (trx) => {
        const plans = await sql<{ statement: string; executions: number }>`select regexp_replace(statement, '\\s+', ' ', 'g') as statement,
          (generic_plans + custom_plans)::int as executions from pg_prepared_statements`.execute(trx);
        if (++arrived === size) all();
        await together;
        return plans.rows;
      }),
    ),
  );
}

interface Instance {
  running: RunningServer;
  db: Db;
  logged: { msg: string; approvals?: number; ms?: number }[];
}

describe('the warm-up before ready (PostgreSQL)', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  const instances: Instance[] = [];
  let metricsWereOn = false;

  /** An instance of the service on the test database, with a pool of its own. */
  async function start(env: Record<string, string>, prices = new SimulatedPriceSource()): Promise<Instance> {
    const db = await openDatabase({ databaseUrl: database.url!, poolSize: 4 });
    const config = loadConfig({
      ...{ PORT: '0', DASHBOARD_PORT: '0', METRICS_PORT: '0', HOST: '127.0.0.1', BCRYPT_COST: '4', WEBHOOK_THREAD: 'false' },
      ...env,
    });
    const logged: Instance['logged'] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void logged.push(JSON.parse(line) as Instance['logged'][number]) });
    const instance = { running: await startServer(config, db, logger, { overrides: { prices } }), db, logged };
    instances.push(instance);
    return instance;
  }

  before(async function () {
    if ((await testBackend()) !== 'postgres') this.skip();
    database = await createTestDatabase();
    metricsWereOn = activeMetrics() !== undefined;
    // A first start makes what every start keeps (the signing key, the HMAC keys): the starts measured find them.
    const first = await start({ WARM_UP_APPROVALS: '0' });
    instances.pop();
    await first.running.drain();
    await first.db.close();
  });
  after(async () => {
    for (const { running, db } of instances) {
      await running.drain();
      await db.close();
    }
    if (!metricsWereOn) stopMetrics();
    await database?.drop();
  });

  it('rehearses approvals on every connection of two instances starting at once, and leaves no row and no count behind', async () => {
    const rows = await rowCounts(database.db.kysely);
    const metrics = await counted();
    const [one, two] = await Promise.all([start({ WARM_UP_APPROVALS: '40' }), start({ WARM_UP_APPROVALS: '40' })]);
    for (const { logged } of [one, two]) {
      const rehearsed = logged.find((line) => line.msg === 'approval path rehearsed');
      // One round: a transaction on each of the pool's four connections at once, ten approvals each.
      expect(rehearsed?.approvals).to.equal(40);
    }
    expect(await rowCounts(database.db.kysely)).to.deep.equal(rows);
    expect(await counted()).to.deep.equal(metrics);

    // On every connection of the pool each statement of an approval's transaction has run past the plans PostgreSQL
    // makes for a prepared statement's first five executions.
    for (const plans of await heldAtOnce(one.db, 4)) {
      for (const statement of ['select * from "paper_accounts"', 'select "o".*, case when', 'with "moved" as (update "orders"'])
        expect(plans.find((p) => p.statement.startsWith(statement))?.executions, statement).to.be.at.least(6);
    }

    // The service then answers as it would have: an approval fills, and is counted.
    const api = new ApiClient(`http://127.0.0.1:${one.running.port}`);
    const client = await one.running.services.clients.create({
      accountEmail: 'after-warm-up@example.com',
      scopes: ['read', 'write', 'trade'],
    });
    const form = { grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret };
    const token = (await api.post('/oauth/token', { form })).body.access_token as string;
    const disclosure = (await api.get('/v1/disclosures/current', { token })).body.version as number;
    const policy = await api.post('/v1/policies', {
      token,
      json: {
        limits: {
          max_order_notional: 50_000,
          max_position_weight: 0.8,
          max_daily_notional: 500_000,
          max_daily_loss: 50_000,
          allowed_markets: ['US'],
        },
        target_allocation: [{ symbol: 'VTI', weight: 1 }],
        consent: { disclosure_version: disclosure, accepted: true, signer_name: 'After Warm-up' },
      },
    });
    expect(policy.status).to.equal(201);
    const [order] = (
      await storeIdea(database.db.kysely, new SimulatedPriceSource(), new Date(), {
        accountId: client.account_id,
        clientId: client.client_id,
        mode: 'rebalance',
        market: 'US',
        rationale: 'after the warm-up',
        trades: [{ market: 'US', symbol: 'VTI', side: 'buy', quantity: dec('1'), order_type: 'market', limit_price: null }],
      })
    ).orders;
    const approved = await api.post(`/v1/orders/${order!.id}/approve`, { token });
    expect(approved.status).to.equal(200);
    expect(approved.body.status).to.equal('filled');
    // Its events are stored (the feed shows them once every older transaction has ended: events/service.ts).
    const events = await database.db.kysely.selectFrom('events').select('type').where('account_id', '=', client.account_id).execute();
    expect(events.map((e) => e.type)).to.have.members([
      'policy.created',
      'idea.generated',
      'order.proposed',
      'order.submitted',
      'order.filled',
    ]);
    const after = await counted();
    expect(after.approvals).to.equal(metrics.approvals + 1);
    expect(after.transitions).to.equal(metrics.transitions + 2);
  });

  it('starts and says ready when the rehearsal fails, as it did before there was one, and leaves nothing behind', async () => {
    const rows = await rowCounts(database.db.kysely);
    // Prices that fail once asked for a quote: the rehearsal's idea cannot be stored.
    const failing = Object.assign(new SimulatedPriceSource(), {
      quote: () => {
        throw new Error('no prices today');
      },
    });
    const instance = await start({ WARM_UP_APPROVALS: '40' }, failing);
    expect(instance.logged.some((line) => line.msg === 'approval path rehearsal failed')).to.equal(true);
    const ready = await new ApiClient(`http://127.0.0.1:${instance.running.port}`).get('/readyz');
    expect(ready.status).to.equal(200);
    expect(await rowCounts(database.db.kysely)).to.deep.equal(rows);
  });
});
