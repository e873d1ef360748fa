import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { pino } from 'pino';
import { Webhook } from 'standardwebhooks';
import { openDatabase, type Db } from '../../db/connect.js';
import { loadConfig } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { THREAD_NICE } from '../../src/webhooks/threaded.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { Receiver, until } from '../support/webhook-receiver.js';
import { freePort, startTestServer, type TestServer } from '../support/server.js';
import { createPolicy, propose } from '../support/trading.js';

/** Tests deliver to receivers on 127.0.0.1, quickly retried. */
const WEBHOOK_ENV = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s,1s,1s,1s,1s,1s', WEBHOOK_POLL_MS: '20' };

const verify = (secret: string, request: { headers: Record<string, unknown>; body: string }) =>
  new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as { type: string; timestamp: string; data: any };

describe('webhooks: signed deliveries to a real receiver', () => {
  let server: TestServer;
  let receiver: Receiver;

  before(async () => {
    server = await startTestServer(WEBHOOK_ENV);
  });
  after(() => server.close());
  beforeEach(async () => {
    receiver = await new Receiver().listen();
  });
  afterEach(() => receiver.close());

  /** An account with a policy and an endpoint at `url` for order.filled (and whatever `types` add). */
  async function subscriber(url: string, types = ['order.filled']) {
    const account = await server.account(['read', 'trade']);
    await createPolicy(server, account.token);
    const endpoint = await server.services.webhooks.create(account.accountId, { url, eventTypes: types });
    const approve = async (count: number) => {
      const orders = await propose(
        server,
        account,
        Array.from({ length: count }, () => ({ symbol: 'BND', side: 'buy' as const, quantity: '1' })),
      );
      for (const order of orders)
        expect((await server.api.post(`/v1/orders/${order.id}/approve`, { token: account.token })).body.status).to.equal('filled');
      approved += count;
      return orders;
    };
    // The feed lists an event once older transactions on the server have ended: poll for them, as a consumer does.
    let approved = 0;
    const filledEvents = () =>
      until('the events in the feed', async () => {
        const data = (await server.api.get('/v1/events?type=order.filled&limit=100', { token: account.token })).body.data as any[];
        return data.length >= approved && data;
      });
    return { account, endpoint, approve, filledEvents };
  }

  it('one approval → order.filled, signed as Standard Webhooks says, its webhook-id the event id of the feed', async () => {
    const { endpoint, approve, filledEvents } = await subscriber(receiver.url);
    expect(endpoint.secret).to.match(/^whsec_[A-Za-z0-9+/]+=*$/);
    const [order] = await approve(1);
    const [event] = await filledEvents();
    const [delivery] = await until('the delivery', () => receiver.of(event.id).length > 0 && receiver.of(event.id));
    const payload = verify(endpoint.secret, delivery!);
    expect(payload.type).to.equal('order.filled');
    expect(payload.timestamp).to.equal(event.timestamp);
    expect(payload.data).to.deep.equal(event.data);
    expect(payload.data.id).to.equal(order!.id);
    expect(JSON.parse(delivery!.body)).to.have.all.keys('type', 'timestamp', 'data');
    expect(delivery!.headers['webhook-signature']).to.match(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(() => verify(endpoint.secret, { ...delivery!, body: delivery!.body.replace('filled', 'failed') })).to.throw();
    const [logged] = await until('the log', async () => {
      const log = await server.services.webhooks.deliveries('operator', endpoint.id);
      return log[0]?.status === 'succeeded' && log;
    });
    expect(logged).to.include({ event_id: event.id, type: 'order.filled', attempts: 1, last_status_code: 204, next_attempt_at: null });
    expect(logged!.last_latency_ms).to.be.a('number');
  });

  it('a receiver that fails the first attempt gets the same webhook-id again on the retry', async () => {
    receiver.answer = (_request, index) => (index === 0 ? { status: 500, body: 'x'.repeat(5000) } : { status: 200 });
    const { endpoint, approve, filledEvents } = await subscriber(receiver.url);
    await approve(1);
    const [event] = await filledEvents();
    const both = await until('the retry', () => receiver.of(event.id).length >= 2 && receiver.of(event.id));
    for (const request of both) expect(verify(endpoint.secret, request).data.id).to.equal(event.data.id);
    expect(both[0]!.headers['webhook-id']).to.equal(both[1]!.headers['webhook-id']);
    const [logged] = await until('the log', async () => {
      const log = await server.services.webhooks.deliveries('operator', endpoint.id);
      return log[0]?.status === 'succeeded' && log;
    });
    expect(logged).to.include({ attempts: 2, last_status_code: 200 });
    const attempts = await server.context.store.db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where('delivery_id', '=', logged!.id)
      .orderBy('attempt')
      .execute();
    expect(attempts.map((a) => a.status_code)).to.deep.equal([500, 200]);
    expect(attempts[0]!.response_body, 'at most 1 KB of an answer is kept').to.have.length(1024);
    expect(attempts[0]!.next_retry_at).to.not.equal(null);
  });

  it('a receiver that is down during approvals gets every event once it is back', async () => {
    const port = receiver.port;
    await receiver.close();
    const { endpoint, approve, filledEvents } = await subscriber(`http://127.0.0.1:${port}/hooks`);
    await approve(5);
    const events = await filledEvents();
    expect(events).to.have.length(5);
    await until('failed attempts while down', async () => {
      const log = await server.services.webhooks.deliveries('operator', endpoint.id);
      return log.length === 5 && log.every((d) => d.attempts >= 1 && d.last_error === 'connection refused') && log;
    });
    await receiver.listen(port);
    await until('every event delivered', () => events.every((e) => receiver.of(e.id).length > 0));
    for (const event of events) expect(verify(endpoint.secret, receiver.of(event.id)[0]!).data).to.deep.equal(event.data);
  });

  it('410 Gone disables the endpoint; a redirect is a failure, not followed', async () => {
    receiver.answer = () => ({ status: 410 });
    const gone = await subscriber(receiver.url);
    await gone.approve(1);
    const disabled = await until('the endpoint disabled', async () => {
      const endpoint = await server.services.webhooks.get('operator', gone.endpoint.id);
      return !endpoint.enabled && endpoint;
    });
    expect(disabled.disabled_reason).to.contain('410');
    expect((await server.services.webhooks.deliveries('operator', gone.endpoint.id))[0]).to.include({
      status: 'failed',
      last_status_code: 410,
    });

    receiver.answer = (request) => (request.headers['webhook-id'] ? { status: 302 } : { status: 204 });
    const moved = await subscriber(receiver.url);
    await moved.approve(1);
    const [delivery] = await until('the redirect logged', async () => {
      const log = await server.services.webhooks.deliveries('operator', moved.endpoint.id);
      return log[0]?.last_status_code === 302 && log;
    });
    expect(delivery!.status).to.equal('pending');
    expect(delivery!.last_error).to.contain('redirects are not followed');
    expect(receiver.received.filter((r) => r.headers['webhook-id'] === undefined)).to.have.length(0);
  });

  it('an endpoint failing for 5 days is disabled with a notice; a success ends a failing streak', async () => {
    const db = server.context.store.db;
    const sixDaysAgo = new Date(Date.now() - 6 * 86_400_000);
    // Failing since six days: one more failure disables it, saying since when.
    receiver.answer = () => ({ status: 503 });
    const failing = await subscriber(receiver.url);
    await db.updateTable('webhook_endpoints').set({ failing_since: sixDaysAgo }).where('id', '=', failing.endpoint.id).execute();
    const test = await server.services.webhooks.sendTest('operator', failing.endpoint.id);
    const disabled = await until('the endpoint disabled', async () => {
      const endpoint = await server.services.webhooks.get('operator', failing.endpoint.id);
      return !endpoint.enabled && endpoint;
    });
    expect(disabled.disabled_reason)
      .to.contain(`every delivery failed since ${sixDaysAgo.toISOString().slice(0, 10)}`)
      .and.to.contain('5 days');
    expect((await server.services.webhooks.deliveries('operator', failing.endpoint.id)).find((d) => d.id === test.id)).to.include({
      status: 'pending',
      last_status_code: 503,
    });

    // Failing since six days too, but it answers now: the streak ends and it stays enabled.
    receiver.answer = () => ({ status: 204 });
    const back = await subscriber(receiver.url);
    await db.updateTable('webhook_endpoints').set({ failing_since: sixDaysAgo }).where('id', '=', back.endpoint.id).execute();
    const ok = await server.services.webhooks.sendTest('operator', back.endpoint.id);
    await until(
      'the test delivery settled',
      async () =>
        (await server.services.webhooks.deliveries('operator', back.endpoint.id)).find((d) => d.id === ok.id)?.status === 'succeeded',
    );
    const row = await db
      .selectFrom('webhook_endpoints')
      .select(['enabled', 'failing_since'])
      .where('id', '=', back.endpoint.id)
      .executeTakeFirstOrThrow();
    expect(row).to.deep.equal({ enabled: true, failing_since: null });
  });

  it('after a rotation both secrets sign for 24 hours; a test event and "retry now" go out like any delivery', async () => {
    const { endpoint } = await subscriber(receiver.url);
    const rotated = await server.services.webhooks.rotate('operator', endpoint.id);
    expect(rotated.secret).to.not.equal(endpoint.secret);
    expect(Date.parse(rotated.previous_secret_until!) - Date.now()).to.be.within(23.9 * 3600_000, 24 * 3600_000);
    const test = await server.services.webhooks.sendTest('operator', endpoint.id);
    const [request] = await until('the test event', () => receiver.of(test.event_id).length > 0 && receiver.of(test.event_id));
    expect(request!.headers['webhook-signature']!.toString().split(' ')).to.have.length(2);
    expect(verify(endpoint.secret, request!)).to.include({ type: 'webhook.test' });
    expect(verify(rotated.secret, request!).data).to.deep.equal({
      endpoint_id: endpoint.id,
      message: 'A test event sent from the dashboard.',
    });
    await until(
      'the test delivery settled',
      async () => (await server.services.webhooks.deliveries('operator', endpoint.id))[0]?.status === 'succeeded',
    );
    await server.services.webhooks.retry('operator', endpoint.id, test.id).then(
      () => expect.fail('a succeeded delivery is not retried'),
      (error: Error) => expect(error.message).to.contain('no pending or failed delivery'),
    );
    // A failed delivery stays retryable by hand: "Retry now" makes it due at once.
    receiver.answer = () => ({ status: 500 });
    await server.services.webhooks.setEnabled('operator', endpoint.id, false);
    const later = await server.services.webhooks.sendTest('operator', endpoint.id);
    await server.context.store.db
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', next_attempt_at: null })
      .where('id', '=', later.id)
      .execute();
    await server.services.webhooks.setEnabled('operator', endpoint.id, true);
    receiver.answer = () => ({ status: 204 });
    await server.services.webhooks.retry('operator', endpoint.id, later.id);
    await until('the retried delivery', () => receiver.of(later.event_id).length > 0);
  });
});

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
        const drained = running.drain();
        running.server.closeIdleConnections();
        running.dashboard.server.closeIdleConnections();
        await drained;
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
