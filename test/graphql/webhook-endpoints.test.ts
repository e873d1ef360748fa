// Webhook endpoints over GraphQL (issue 36, point 4): the same operations as REST, through the same pipeline.
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { startTestServer, type TestServer } from '../support/server.js';
import { Receiver, until } from '../support/webhook-receiver.js';
import { graphql } from './support.js';

const ENDPOINT = 'id url description event_types enabled disabled_reason previous_secret_expires_at';

describe('/graphql webhook endpoints: create, list, test, deliveries, change, rotate, recover, delete', () => {
  let server: TestServer;
  let receiver: Receiver;

  before(async () => {
    server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_MS: '20' });
    receiver = await new Receiver().listen();
  });
  after(async () => {
    await receiver?.close();
    await server?.close();
  });

  const create = (token: string, url: string, headers: Record<string, string> = {}) =>
    graphql(
      server,
      `mutation($url: String!) { createWebhookEndpoint(input: {url: $url, event_types: ["order.filled"]}) { ${ENDPOINT} secret } }`,
      {
        token,
        variables: { url },
        headers,
      },
    );

  it('creates an endpoint with its secret once, lists it without, and sends it a test event the secret verifies', async () => {
    const { token } = await server.account(['read', 'write']);
    const created = await create(token, receiver.url);
    expect(created.body.errors).to.equal(undefined);
    const { secret, ...endpoint } = created.body.data.createWebhookEndpoint;
    expect(secret).to.match(/^whsec_/);
    expect(endpoint).to.deep.include({ url: receiver.url, event_types: ['order.filled'], enabled: true, previous_secret_expires_at: null });
    const listed = await graphql(
      server,
      `{ webhookEndpoints { data { ${ENDPOINT} } next_cursor } webhookEndpoint(id: "${endpoint.id}") { id } }`,
      {
        token,
      },
    );
    expect(listed.body).to.deep.equal({
      data: { webhookEndpoints: { data: [endpoint], next_cursor: null }, webhookEndpoint: { id: endpoint.id } },
    });
    // The type has no secret: asking for it is a validation error of the document, nothing runs.
    expect((await graphql(server, '{ webhookEndpoints { data { secret } } }', { token })).status).to.equal(400);

    const sent = await graphql(
      server,
      `mutation { testWebhookEndpoint(id: "${endpoint.id}") { event_id delivery_id event_type endpoint_id } }`,
      {
        token,
      },
    );
    const test = sent.body.data.testWebhookEndpoint;
    expect(test).to.include({ event_type: 'webhook.test', endpoint_id: endpoint.id });
    const [request] = await until('the test event', () => receiver.of(test.event_id).length > 0 && receiver.of(test.event_id));
    const payload = new Webhook(secret).verify(request!.body, request!.headers as Record<string, string>) as {
      type: string;
      data: unknown;
    };
    expect(payload).to.include({ type: 'webhook.test' });
    const attempts = await until('the attempt logged', async () => {
      const answer = await graphql(
        server,
        `{ webhookEndpointDeliveries(id: "${endpoint.id}") { data { delivery_id event_id attempt response_status duration_ms delivery_status } } }`,
        { token },
      );
      const data = answer.body.data.webhookEndpointDeliveries.data;
      return data.length > 0 && data;
    });
    expect(attempts[0]).to.include({ delivery_id: test.delivery_id, event_id: test.event_id, attempt: 1, response_status: 204 });
    expect(attempts[0].duration_ms).to.be.a('number');
  });

  it('changes, rotates, recovers and deletes; a refused URL is WEBHOOK_URL_REFUSED pointing at /input/url', async () => {
    const { token } = await server.account(['read', 'write']);
    const { id, secret } = (await create(token, receiver.url)).body.data.createWebhookEndpoint;
    const changed = await graphql(
      server,
      `mutation { updateWebhookEndpoint(id: "${id}", input: {description: "Order desk", enabled: false}) { ${ENDPOINT} } }`,
      { token },
    );
    expect(changed.body.data.updateWebhookEndpoint).to.include({
      description: 'Order desk',
      enabled: false,
      disabled_reason: 'disabled by hand',
    });
    const refused = await graphql(
      server,
      `mutation { updateWebhookEndpoint(id: "${id}", input: {url: "ftp://hooks.example.com/"}) { id } }`,
      {
        token,
      },
    );
    expect(refused.body.data).to.deep.equal({ updateWebhookEndpoint: null });
    expect(refused.body.errors![0].extensions).to.deep.include({ code: 'WEBHOOK_URL_REFUSED', status: 422 });
    expect(refused.body.errors![0].extensions.errors).to.deep.equal([
      { pointer: '/input/url', detail: 'must be an http:// or https:// URL' },
    ]);

    const rotated = (
      await graphql(server, `mutation { rotateWebhookEndpointSecret(id: "${id}") { secret previous_secret_expires_at } }`, { token })
    ).body.data.rotateWebhookEndpointSecret;
    expect(rotated.secret)
      .to.match(/^whsec_/)
      .and.not.equal(secret);
    expect(rotated.previous_secret_expires_at).to.be.a('string');
    const since = new Date(Date.now() - 60_000).toISOString();
    const recovered = await graphql(
      server,
      `mutation { recoverWebhookEndpointDeliveries(id: "${id}", input: {since: "${since}"}) { since queued next_since } }`,
      { token },
    );
    expect(recovered.body.data.recoverWebhookEndpointDeliveries).to.deep.equal({ since, queued: 0, next_since: null });
    const deleted = await graphql(server, `mutation { deleteWebhookEndpoint(id: "${id}") { id deleted } }`, { token });
    expect(deleted.body.data.deleteWebhookEndpoint).to.deep.equal({ id, deleted: true });
    const gone = await graphql(server, `{ webhookEndpoint(id: "${id}") { id } }`, { token });
    expect(gone.body.errors![0].extensions.code).to.equal('NOT_FOUND');
  });

  it('keys createWebhookEndpoint like every mutation: a replay answers the same endpoint, and a read-only token changes nothing', async () => {
    const owner = await server.account(['read', 'write'], 'graphql-hooks@example.com');
    const first = await create(owner.token, receiver.url, { 'Idempotency-Key': 'graphql-create-1' });
    const again = await create(owner.token, receiver.url, { 'Idempotency-Key': 'graphql-create-1' });
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(again.body).to.deep.equal(first.body);
    const reader = await server.token(['read'], 'graphql-hooks@example.com');
    const refused = await create(reader, receiver.url);
    expect(refused.body.errors![0].extensions).to.include({ code: 'INSUFFICIENT_SCOPE', required_scope: 'write' });
    const listed = await graphql(server, '{ webhookEndpoints { data { id } } }', { token: reader });
    expect(listed.body.data.webhookEndpoints.data).to.deep.equal([{ id: first.body.data.createWebhookEndpoint.id }]);
  });
});
