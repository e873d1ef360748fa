// Webhook endpoints over MCP (issue 36, point 4), what is delivered: a rotated secret whose deliveries verify with the
// old and the new secret (the `standardwebhooks` package), the attempts a receiver's 500 failed, recovery sending a
// failed delivery again. The same pipeline as REST (test/http/webhook-endpoint-deliveries.test.ts).
import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Webhook } from 'standardwebhooks';
import { newSigningSecret } from '../../src/services/webhooks/signing.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { callTool, connectMcp } from '../support/mcp.js';
import { Receiver, until, type Received } from '../support/webhook-receiver.js';

const verify = (secret: string, request: Received) =>
  new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as { type: string };

describe('MCP webhook endpoint tools: rotation, failed attempts and recovery', () => {
  let server: TestServer;
  let receiver: Receiver;
  let token: string;
  let mcp: Client;

  before(async () => {
    server = await startTestServer({
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      // One retry, 200 ms after the first attempt: a delivery a receiver answers 500 is failed within a second.
      WEBHOOK_RETRY_SCHEDULE: '200ms',
      WEBHOOK_POLL_MS: '20',
    });
    receiver = await new Receiver().listen();
    token = (await server.account(['read', 'write', 'mcp'])).token;
    mcp = await connectMcp(server, token);
  });
  after(async () => {
    await mcp?.close();
    await receiver?.close();
    await server?.close();
  });
  beforeEach(() => {
    receiver.answer = () => ({ status: 204 });
  });

  const tool = async (name: string, args: Record<string, unknown> = {}) => {
    const answer = await callTool(mcp, name, args);
    expect(answer.ok, `${name}: ${JSON.stringify(answer)}`).to.equal(true);
    return answer.value;
  };
  const endpointAtReceiver = async () =>
    (await tool('createWebhookEndpoint', { url: receiver.url, event_types: ['order.filled'] })) as { id: string; secret: string };
  const received = (eventId: string, count = 1) =>
    until(`${count} deliveries of ${eventId}`, () => receiver.of(eventId).length >= count && receiver.of(eventId));
  const attempts = (id: string, what: string, done: (data: Record<string, any>[]) => boolean) =>
    until(what, async () => {
      const { data } = await tool('listWebhookEndpointDeliveries', { id });
      return done(data) && (data as Record<string, any>[]);
    });

  it('rotateWebhookEndpointSecret answers a new secret once; a delivery then carries two signatures, each secret verifying one', async () => {
    const { id, secret } = await endpointAtReceiver();
    const rotated = await tool('rotateWebhookEndpointSecret', { id });
    expect(rotated.secret)
      .to.match(/^whsec_/)
      .and.not.equal(secret);
    const overlap = Date.parse(rotated.previous_secret_expires_at) - Date.now();
    expect(overlap).to.be.within(23.9 * 3600_000, 24 * 3600_000);
    const { secret: _secret, ...after } = rotated;
    expect(await tool('getWebhookEndpoint', { id })).to.deep.equal(after);
    expect((await server.api.get(`/v1/webhook-endpoints/${id}`, { token })).body).to.deep.equal(after);

    const sent = await tool('testWebhookEndpoint', { id });
    const [request] = await received(sent.event_id);
    const signatures = String(request!.headers['webhook-signature']).split(' ');
    expect(signatures).to.have.length(2);
    for (const key of [secret, rotated.secret]) {
      expect(verify(key, request!).type).to.equal('webhook.test');
      const alone = signatures.filter((signature) => {
        try {
          return !!verify(key, { ...request!, headers: { ...request!.headers, 'webhook-signature': signature } });
        } catch {
          return false;
        }
      });
      expect(alone, 'one signature per secret').to.have.length(1);
    }
    expect(() => verify(newSigningSecret(), request!)).to.throw();
  });

  it('listWebhookEndpointDeliveries shows each attempt a receiver answered 500, the delivery failed, as REST lists them', async () => {
    receiver.answer = () => ({ status: 500, body: 'down for maintenance' });
    const { id } = await endpointAtReceiver();
    const sent = await tool('testWebhookEndpoint', { id });
    const failed = await attempts(
      id,
      'two attempts, the delivery failed',
      (data) => data.length === 2 && data[0]!.delivery_status === 'failed',
    );
    expect(failed.map((a) => a.attempt)).to.deep.equal([2, 1]);
    for (const attempt of failed)
      expect(attempt).to.include({
        delivery_id: sent.delivery_id,
        event_id: sent.event_id,
        event_type: 'webhook.test',
        response_status: 500,
        response_body: 'down for maintenance',
        error: null,
        delivery_status: 'failed',
      });
    const rest = await server.api.get(`/v1/webhook-endpoints/${id}/deliveries`, { token });
    expect(rest.body).to.deep.equal({ data: failed, next_cursor: null });
  });

  it('recoverWebhookEndpointDeliveries { id, since } queues the failed delivery again: the receiver, answering 204 now, gets the event again', async () => {
    receiver.answer = () => ({ status: 500 });
    const { id, secret } = await endpointAtReceiver();
    const since = new Date(Date.now() - 1000).toISOString();
    const sent = await tool('testWebhookEndpoint', { id });
    await attempts(id, 'the delivery failed', (data) => data[0]?.delivery_status === 'failed');
    await received(sent.event_id, 2);

    receiver.answer = () => ({ status: 204 });
    expect(await tool('recoverWebhookEndpointDeliveries', { id, since })).to.deep.equal({ since, queued: 1, next_since: null });
    const [, , again] = await received(sent.event_id, 3);
    expect(verify(secret, again!).type).to.equal('webhook.test');
    const [last] = await attempts(id, 'the third attempt logged', (data) => data.length === 3);
    expect(last).to.include({ attempt: 3, response_status: 204, delivery_status: 'succeeded', delivery_id: sent.delivery_id });

    // Nothing failed is left; one past the events' retention is refused as REST refuses it.
    expect(await tool('recoverWebhookEndpointDeliveries', { id, since })).to.include({ queued: 0 });
    const old = await callTool(mcp, 'recoverWebhookEndpointDeliveries', {
      id,
      since: new Date(Date.now() - 31 * 86_400_000).toISOString(),
    });
    expect(old.ok).to.equal(false);
    expect(old.problem).to.include({ type: `${server.url}/problems/recovery-window-exceeded`, status: 422 });
    expect(receiver.of(sent.event_id)).to.have.length(3);
  });
});
