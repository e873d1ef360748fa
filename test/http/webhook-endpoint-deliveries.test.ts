// Webhook endpoints over the API (issue 36, point 4), what is delivered: a test event verified with the
// `standardwebhooks` package, a rotated secret whose deliveries verify with the old and the new secret, the attempts
// list showing a receiver's 500, recovery sending a failed delivery again, the test sends' quota.
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { newSigningSecret } from '../../src/services/webhooks/signing.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { Receiver, until, type Received } from '../support/webhook-receiver.js';

const verify = (secret: string, request: Received) =>
  new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as { type: string; data: unknown };

describe('/v1/webhook-endpoints: test events, rotation, delivery attempts and recovery over REST', () => {
  let server: TestServer;
  let receiver: Receiver;

  before(async () => {
    server = await startTestServer({
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      // One retry, 200 ms after the first attempt: a delivery a receiver answers 500 is failed within a second.
      WEBHOOK_RETRY_SCHEDULE: '200ms',
      WEBHOOK_POLL_MS: '20',
      ACCOUNT_WEBHOOK_TESTS_PER_MINUTE: '4',
    });
    receiver = await new Receiver().listen();
  });
  after(async () => {
    await receiver?.close();
    await server?.close();
  });
  beforeEach(() => {
    receiver.answer = () => ({ status: 204 });
  });

  const at = (id: string, suffix = '') => `/v1/webhook-endpoints/${id}${suffix}`;
  /** A new account's endpoint at the receiver, with its secret and a token that may change it. */
  async function endpoint() {
    const { token } = await server.account(['read', 'write']);
    const created = await server.api.post('/v1/webhook-endpoints', { token, json: { url: receiver.url, event_types: ['order.filled'] } });
    expect(created.status, created.text).to.equal(201);
    return { token, id: created.body.id as string, secret: created.body.secret as string };
  }
  const sendTest = async (token: string, id: string) => {
    const sent = await server.api.post(at(id, '/test'), { token });
    expect(sent.status, sent.text).to.equal(202);
    return sent;
  };
  const received = (eventId: string, count = 1) =>
    until(`${count} deliveries of ${eventId}`, () => receiver.of(eventId).length >= count && receiver.of(eventId));

  it('POST /test queues a webhook.test event, delivered signed with the endpoint’s secret (standardwebhooks verifies it)', async () => {
    const { token, id, secret } = await endpoint();
    const sent = await sendTest(token, id);
    expect(sent.body).to.include({ event_type: 'webhook.test', endpoint_id: id });
    expect(sent.body.delivery_id).to.match(/^whd_/);
    expect(sent.headers.get('ratelimit-policy')).to.include('"webhook-tests"; q=4; w=60');
    const [request] = await received(sent.body.event_id);
    expect(verify(secret, request!)).to.deep.equal({
      type: 'webhook.test',
      timestamp: sent.body.queued_at,
      data: { endpoint_id: id, message: 'A test event sent to this endpoint.' },
    });
    expect(() => verify(newSigningSecret(), request!)).to.throw();
    expect((await server.api.get('/v1/events', { token })).body.data).to.deep.equal([]);
  });

  it('rotate-secret answers a new secret once; deliveries carry two signatures, each secret alone verifies one', async () => {
    const { token, id, secret } = await endpoint();
    const rotated = await server.api.post(at(id, '/rotate-secret'), { token });
    expect(rotated.status, rotated.text).to.equal(200);
    expect(rotated.headers.get('cache-control')).to.equal('no-store');
    expect(rotated.body.secret)
      .to.match(/^whsec_/)
      .and.not.equal(secret);
    const overlap = Date.parse(rotated.body.previous_secret_expires_at) - Date.now();
    expect(overlap).to.be.within(23.9 * 3600_000, 24 * 3600_000);
    const { secret: _secret, ...after } = rotated.body;
    expect((await server.api.get(at(id), { token })).body).to.deep.equal(after);

    const [request] = await received((await sendTest(token, id)).body.event_id);
    const signatures = String(request!.headers['webhook-signature']).split(' ');
    expect(signatures).to.have.length(2);
    for (const key of [secret, rotated.body.secret]) {
      expect(verify(key, request!).type).to.equal('webhook.test');
      const alone = signatures.filter((signature) => {
        try {
          verify(key, { ...request!, headers: { ...request!.headers, 'webhook-signature': signature } });
          return true;
        } catch {
          return false;
        }
      });
      expect(alone, 'one signature per secret').to.have.length(1);
    }
    expect(() => verify(newSigningSecret(), request!)).to.throw();
  });

  it('the deliveries list shows each attempt a 500 answered (status, duration, body), newest first, in pages', async () => {
    receiver.answer = () => ({ status: 500, body: 'down for maintenance' });
    const { token, id } = await endpoint();
    const sent = (await sendTest(token, id)).body;
    const attempts = await until('two attempts, the delivery failed', async () => {
      const page = (await server.api.get(at(id, '/deliveries'), { token })).body;
      return page.data.length === 2 && page.data[0].delivery_status === 'failed' && page.data;
    });
    expect(attempts.map((a: { attempt: number }) => a.attempt)).to.deep.equal([2, 1]);
    for (const attempt of attempts) {
      expect(attempt).to.include({
        delivery_id: sent.delivery_id,
        event_id: sent.event_id,
        event_type: 'webhook.test',
        response_status: 500,
        error: null,
        response_body: 'down for maintenance',
        delivery_status: 'failed',
      });
      expect(attempt.duration_ms).to.be.a('number').at.least(0);
      expect(Date.parse(attempt.attempted_at)).to.be.at.least(Date.parse(sent.queued_at));
    }
    expect(attempts[1].next_retry_at, 'the retry the first attempt scheduled').to.be.a('string');
    expect(attempts[0].next_retry_at, 'none after the last').to.equal(null);

    const first = await server.api.get(at(id, '/deliveries?limit=1'), { token });
    expect(first.body.data).to.deep.equal([attempts[0]]);
    const second = await server.api.get(at(id, `/deliveries?limit=1&cursor=${first.body.next_cursor}`), { token });
    expect(second.body).to.deep.equal({ data: [attempts[1]], next_cursor: null });
  });

  it('a receiver that is down shows connection errors without a status', async () => {
    const down = await new Receiver().listen();
    const url = down.url;
    await down.close();
    const { token } = await server.account(['read', 'write']);
    const id = (await server.api.post('/v1/webhook-endpoints', { token, json: { url, event_types: ['order.filled'] } })).body.id;
    await sendTest(token, id);
    const [attempt] = await until('the refused attempt', async () => {
      const data = (await server.api.get(at(id, '/deliveries'), { token })).body.data;
      return data.length > 0 && data;
    });
    expect(attempt).to.include({ response_status: null, error: 'connection refused', response_body: null });
  });

  it('recover queues the failed deliveries since a time again: the same event is delivered again, and then succeeds', async () => {
    receiver.answer = () => ({ status: 500 });
    const { token, id, secret } = await endpoint();
    const since = new Date(Date.now() - 1000).toISOString();
    const sent = (await sendTest(token, id)).body;
    await until(
      'the delivery failed',
      async () => (await server.api.get(at(id, '/deliveries'), { token })).body.data[0]?.delivery_status === 'failed',
    );
    await received(sent.event_id, 2);

    receiver.answer = () => ({ status: 204 });
    const recovered = await server.api.post(at(id, '/recover'), { token, json: { since } });
    expect(recovered.status, recovered.text).to.equal(202);
    expect(recovered.body).to.deep.equal({ since, queued: 1, next_since: null });
    const [, , again] = await received(sent.event_id, 3);
    expect(again!.headers['webhook-id']).to.equal(sent.event_id);
    expect(verify(secret, again!).type).to.equal('webhook.test');
    const [last] = await until('the third attempt logged', async () => {
      const data = (await server.api.get(at(id, '/deliveries'), { token })).body.data;
      return data.length === 3 && data;
    });
    expect(last).to.include({ attempt: 3, response_status: 204, delivery_status: 'succeeded', delivery_id: sent.delivery_id });

    // Nothing failed is left; a later `since` holds nothing; one past the events' retention is refused.
    expect((await server.api.post(at(id, '/recover'), { token, json: { since } })).body).to.include({ queued: 0 });
    const old = await server.api.post(at(id, '/recover'), { token, json: { since: new Date(Date.now() - 31 * 86_400_000).toISOString() } });
    expect(old.status).to.equal(422);
    expect(old.body.type).to.equal(`${server.url}/problems/recovery-window-exceeded`);
    expect(Date.parse(old.body.oldest_since) - (Date.now() - 30 * 86_400_000)).to.be.within(-60_000, 0);
    expect(receiver.of(sent.event_id)).to.have.length(3);
  });

  it('a disabled endpoint is sent no test (409 webhook-endpoint-disabled); an account’s test sends a minute are bounded (429)', async () => {
    const { token, id } = await endpoint();
    await server.api.request('PATCH', at(id), { token, json: { enabled: false } });
    const refused = await server.api.post(at(id, '/test'), { token });
    expect(refused.status).to.equal(409);
    expect(refused.body.type).to.equal(`${server.url}/problems/webhook-endpoint-disabled`);
    await server.api.request('PATCH', at(id), { token, json: { enabled: true } });

    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await server.api.post(at(id, '/test'), { token })).status);
    // The refused one counted too: the quota counts calls of the account, whatever they answer.
    expect(statuses).to.deep.equal([202, 202, 202, 429, 429]);
    const past = await server.api.post(at(id, '/test'), { token });
    expect(past.body).to.include({ type: 'https://iana.org/assignments/http-problem-types#quota-exceeded' });
    expect(past.body['violated-policies']).to.deep.equal(['webhook-tests']);
    expect(past.headers.get('retry-after')).to.match(/^\d+$/);
  });
});
