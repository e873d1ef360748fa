import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { pino } from 'pino';
import { openDatabase, type Db } from '../../db/connect.js';
import { loadConfig } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { THREAD_NICE } from '../../src/webhooks/threaded.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { Receiver, until, WEBHOOK_ENV } from '../support/webhook-receiver.js';
import { drainServer, freePort } from '../support/server.js';

describe('webhooks: instances, restarts and private networks', () => {
  let database: TestDatabase;
  let receiver: Receiver;

  beforeEach(async () => {
    database = await createTestDatabase();
    receiver = await new Receiver().listen();
  });
  afterEach(async () => {
    await receiver.close();
    await database.drop();
  });

  /** A service on `database`: its own pool on PostgreSQL (another instance), the same embedded database otherwise. */
  async function instance(
    env: Record<string, string> = WEBHOOK_ENV,
  ): Promise<{ running: RunningServer; url: string; stop(): Promise<void> }> {
    const db: Db = database.url ? await openDatabase({ databaseUrl: database.url, poolSize: 5 }) : database.db;
    const port = await freePort();
    // One BASE_URL for every instance: a token is issued for it (its audience), whichever instance issued it.
    const config = loadConfig({
      PORT: String(port),
      HOST: '127.0.0.1',
      BASE_URL: 'http://ias.test',
      LOG_LEVEL: 'silent',
      BCRYPT_COST: '4',
      DASHBOARD_PORT: '0',
      RATE_LIMIT_PER_MINUTE: '1000000',
      ...env,
    });
    const running = await startServer(config, db, pino({ level: 'silent' }));
    return {
      running,
      url: `http://127.0.0.1:${port}`,
      async stop() {
        await drainServer(running);
        if (database.url) await db.close();
      },
    };
  }

  async function holderOn(running: RunningServer, url: string) {
    const client = await running.services.clients.create({
      accountEmail: `holder-${Math.random().toString(36).slice(2)}@example.com`,
      scopes: ['read', 'trade'],
    });
    const token = (await running.services.tokens.issue({ ...client, generation: 1 }, ['read', 'trade'])).access_token;
    const endpoint = await running.services.webhooks.create(client.account_id, {
      url: receiver.url,
      eventTypes: ['order.filled', 'order.proposed'],
    });
    const call = (path: string, body?: unknown) =>
      fetch(`${url}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then((r) => r.json());
    const disclosure = await call('/v1/disclosures/current');
    await call('/v1/policies', {
      limits: {
        max_order_notional: 50_000,
        max_position_weight: 0.8,
        max_daily_notional: 500_000,
        max_daily_loss: 50_000,
        allowed_markets: ['US'],
      },
      target_allocation: [
        { symbol: 'VTI', weight: 0.6 },
        { symbol: 'BND', weight: 0.4 },
      ],
      consent: { disclosure_version: disclosure.version, accepted: true, signer_name: 'Test Holder' },
    });
    return { token, endpoint, call, accountId: client.account_id };
  }

  /** The ids of the account's order events, once at least `count` are listed. */
  const feedIds = (call: (path: string) => Promise<any>, count: number) =>
    until('the events in the feed', async () => {
      const page = await call('/v1/events?limit=100');
      const ids = (page.data as any[]).filter((e) => e.type === 'order.filled' || e.type === 'order.proposed').map((e) => e.id as string);
      return ids.length >= count && ids;
    });

  it('two instances on one database deliver each event once', async function () {
    if (!database.url) this.skip(); // the embedded database serves one process: there is one instance
    const [a, b] = [await instance(), await instance()];
    try {
      // On PostgreSQL each instance delivers from a thread of its own (WEBHOOK_THREAD's default).
      expect([a.running.webhookDelivery, b.running.webhookDelivery]).to.deep.equal(['thread', 'thread']);
      if (existsSync('/proc/self/task')) {
        // Linux: the threads run at a lower priority than the one answering requests (the 19th field of a task's stat).
        const nice = (task: string) =>
          Number(
            readFileSync(`/proc/self/task/${task}/stat`, 'utf8')
              .replace(/^.*\) /s, '')
              .split(' ')[16],
          );
        expect(nice(String(process.pid))).to.equal(0);
        await until(
          'both webhook threads lowered',
          () => readdirSync('/proc/self/task').filter((task) => nice(task) === THREAD_NICE).length >= 2,
        );
      }
      const holder = await holderOn(a.running, a.url);
      const ideas = await holder.call('/v1/ideas/generate', { mode: 'invest_cash', market: 'US' });
      const orders = ideas.ideas[0].orders as { id: string }[];
      // Approvals through both instances at once.
      const statuses = await Promise.all(
        orders.map((o, i) =>
          fetch(`${i % 2 ? a.url : b.url}/v1/orders/${o.id}/approve`, {
            method: 'POST',
            headers: { authorization: `Bearer ${holder.token}` },
          }).then((r) => r.status),
        ),
      );
      expect(statuses).to.deep.equal(orders.map(() => 200));
      const ids = await feedIds(holder.call, orders.length * 2);
      expect(ids.length).to.equal(orders.length * 2);
      await until('every event delivered', () => ids.every((id) => receiver.of(id).length > 0));
      await until('both workers idle', async () => {
        const pending = await a.running.services.webhooks.deliveries('operator', holder.endpoint.id, 500);
        return pending.every((d) => d.status === 'succeeded');
      });
      for (const id of ids) expect(receiver.of(id), id).to.have.length(1);
      expect(receiver.received).to.have.length(ids.length);
    } finally {
      await a.stop();
      await b.stop();
    }
  });

  it('a restart with undelivered events delivers them', async () => {
    receiver.answer = () => ({ status: 503 });
    const first = await instance();
    const holder = await holderOn(first.running, first.url);
    const generated = await holder.call('/v1/ideas/generate', { mode: 'invest_cash', market: 'US' });
    const ids = await feedIds(holder.call, generated.ideas[0].orders.length);
    await until('a failed attempt', () => receiver.received.length > 0);
    await first.stop();
    receiver.answer = () => ({ status: 200 });
    const second = await instance();
    try {
      let rows: Awaited<ReturnType<typeof second.running.services.webhooks.deliveries>> = [];
      const log = await until('all settled', async () => {
        rows = await second.running.services.webhooks.deliveries('operator', holder.endpoint.id);
        return rows.length === ids.length && rows.every((d) => d.status === 'succeeded') && rows;
      }).catch((error: Error) => {
        throw new Error(`${error.message}: ${JSON.stringify(rows)} of ${ids.length}`);
      });
      expect(log.map((d) => d.event_id).sort()).to.deep.equal([...ids].sort());
    } finally {
      await second.stop();
    }
  });

  it('without WEBHOOK_ALLOW_PRIVATE_NETWORKS a private URL is refused, naming the rule', async () => {
    const service = await instance({});
    try {
      const { account_id: accountId } = await service.running.services.clients.create({
        accountEmail: 'private@example.com',
        scopes: ['read'],
      });
      const refused = async (url: string) => {
        try {
          await service.running.services.webhooks.create(accountId, { url, eventTypes: ['order.filled'] });
        } catch (error) {
          return (error as { fields?: { field: string; detail: string }[] }).fields?.[0];
        }
        throw new Error(`${url} was accepted`);
      };
      expect(await refused(receiver.url)).to.deep.include({ field: 'url' });
      expect((await refused(receiver.url))!.detail).to.contain('https://');
      expect((await refused('https://127.0.0.1/hooks'))!.detail).to.contain('loopback');
      expect((await refused('https://10.1.2.3/hooks'))!.detail).to.contain('private address');
      expect((await refused('https://169.254.169.254/latest'))!.detail).to.contain('link-local');
      expect((await refused('https://100.64.0.1/'))!.detail).to.contain('carrier-grade NAT');
      expect((await refused('https://[::ffff:127.0.0.1]/'))!.detail).to.contain('IPv4-mapped');
      expect((await refused('https://[fd00:ec2::254]/'))!.detail).to.contain('private IPv6');
      expect((await refused('https://localhost:8443/'))!.detail).to.contain('loopback');
      const accepted = await service.running.services.webhooks.create(accountId, {
        url: 'https://hooks.example.com/in',
        eventTypes: ['order.filled'],
      });
      expect(accepted.url).to.equal('https://hooks.example.com/in');
    } finally {
      await service.stop();
    }
  });
});
