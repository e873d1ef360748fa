import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { Receiver, until, WEBHOOK_ENV } from '../support/webhook-receiver.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { createPolicy, propose } from '../support/trading.js';

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
    expect((await server.services.webhooks.deliveries('operator', failing.endpoint.id)).find((d) => d.id === test.delivery_id)).to.include({
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
        (await server.services.webhooks.deliveries('operator', back.endpoint.id)).find((d) => d.id === ok.delivery_id)?.status ===
        'succeeded',
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
    expect(Date.parse(rotated.previous_secret_expires_at!) - Date.now()).to.be.within(23.9 * 3600_000, 24 * 3600_000);
    const test = await server.services.webhooks.sendTest('operator', endpoint.id);
    const [request] = await until('the test event', () => receiver.of(test.event_id).length > 0 && receiver.of(test.event_id));
    expect(request!.headers['webhook-signature']!.toString().split(' ')).to.have.length(2);
    expect(verify(endpoint.secret, request!)).to.include({ type: 'webhook.test' });
    expect(verify(rotated.secret, request!).data).to.deep.equal({
      endpoint_id: endpoint.id,
      message: 'A test event sent to this endpoint.',
    });
    await until(
      'the test delivery settled',
      async () => (await server.services.webhooks.deliveries('operator', endpoint.id))[0]?.status === 'succeeded',
    );
    await server.services.webhooks.retry('operator', endpoint.id, test.delivery_id).then(
      () => expect.fail('a succeeded delivery is not retried'),
      (error: Error) => expect(error.message).to.contain('no pending or failed delivery'),
    );
    // A disabled endpoint gets no test event: it would never be sent.
    await server.services.webhooks.setEnabled('operator', endpoint.id, false);
    await server.services.webhooks.sendTest('operator', endpoint.id).then(
      () => expect.fail('a disabled endpoint is sent no test'),
      (error: { slug: string }) => expect(error.slug).to.equal('webhook-endpoint-disabled'),
    );
    await server.services.webhooks.setEnabled('operator', endpoint.id, true);
    // A failed delivery stays retryable by hand: "Retry now" makes it due at once (and ends a pause, which keeps this
    // one from being sent before it is marked failed).
    const db = server.context.store.db;
    await db
      .updateTable('webhook_endpoints')
      .set({ paused_until: new Date(Date.now() + 3600_000) })
      .where('id', '=', endpoint.id)
      .execute();
    const later = await server.services.webhooks.sendTest('operator', endpoint.id);
    await db
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', next_attempt_at: null })
      .where('id', '=', later.delivery_id)
      .execute();
    await server.services.webhooks.retry('operator', endpoint.id, later.delivery_id);
    await until('the retried delivery', () => receiver.of(later.event_id).length > 0);
  });
});
