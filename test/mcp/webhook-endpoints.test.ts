// Webhook endpoints over MCP (issue 36, point 4): a tool per operation, the same pipeline as REST. Create, read,
// change, delete and the scopes each needs; rotation, failed attempts and recovery: webhook-endpoint-deliveries.test.ts.
import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Webhook } from 'standardwebhooks';
import { startTestServer, type TestServer } from '../support/server.js';
import { callTool, connectMcp, rpc, sameProblem } from '../support/mcp.js';
import { Receiver, until } from '../support/webhook-receiver.js';

describe('MCP webhook endpoint tools: create, list, change, delete, test and its delivery attempts', () => {
  let server: TestServer;
  let receiver: Receiver;
  let token: string;
  let mcp: Client;

  before(async () => {
    server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_MS: '20' });
    receiver = await new Receiver().listen();
    token = (await server.account(['read', 'write', 'mcp'], 'mcp-hooks@example.com')).token;
    mcp = await connectMcp(server, token);
  });
  after(async () => {
    await mcp?.close();
    await receiver?.close();
    await server?.close();
  });

  const tool = async (name: string, args: Record<string, unknown> = {}) => {
    const answer = await callTool(mcp, name, args);
    expect(answer.ok, `${name}: ${JSON.stringify(answer)}`).to.equal(true);
    return answer.value;
  };
  const at = (id: string) => `/v1/webhook-endpoints/${id}`;
  const problem = (slug: string) => `${server.url}/problems/${slug}`;
  /** A new endpoint at the receiver, without its secret. */
  const endpointAtReceiver = async () => {
    const { secret: _secret, ...endpoint } = await tool('createWebhookEndpoint', { url: receiver.url, event_types: ['order.filled'] });
    return endpoint;
  };

  it('createWebhookEndpoint answers the secret once; listWebhookEndpoints and getWebhookEndpoint answer what REST does, without it', async () => {
    const created = await tool('createWebhookEndpoint', { url: receiver.url, event_types: ['order.filled'], description: 'Assistant' });
    const { secret, ...endpoint } = created;
    expect(secret).to.match(/^whsec_/);
    expect(endpoint).to.deep.include({ url: receiver.url, description: 'Assistant', enabled: true });
    const listed = await tool('listWebhookEndpoints', { limit: 100 });
    expect(listed).to.deep.equal((await server.api.get('/v1/webhook-endpoints?limit=100', { token })).body);
    expect(listed.data.map((e: { id: string }) => e.id)).to.include(endpoint.id);
    expect(await tool('getWebhookEndpoint', { id: endpoint.id })).to.deep.equal(endpoint);

    const test = await tool('testWebhookEndpoint', { id: endpoint.id });
    expect(test).to.include({ event_type: 'webhook.test', endpoint_id: endpoint.id });
    const [request] = await until('the test event', () => receiver.of(test.event_id).length > 0 && receiver.of(test.event_id));
    const payload = new Webhook(secret).verify(request!.body, request!.headers as Record<string, string>) as { type: string };
    expect(payload.type).to.equal('webhook.test');
    const attempts = await until('the attempt logged', async () => {
      const page = await tool('listWebhookEndpointDeliveries', { id: endpoint.id });
      return page.data.length > 0 && page.data;
    });
    expect(attempts[0]).to.include({
      event_id: test.event_id,
      delivery_id: test.delivery_id,
      response_status: 204,
      delivery_status: 'succeeded',
    });
  });

  it('a refused URL is an isError result with webhook-url-refused pointing at the /url argument; nothing is made', async () => {
    const before = (await tool('listWebhookEndpoints', { limit: 100 })).data.length;
    const refused = await callTool(mcp, 'createWebhookEndpoint', { url: 'ftp://hooks.example.com/', event_types: ['order.filled'] });
    expect(refused.ok).to.equal(false);
    expect(refused.problem).to.include({ type: `${server.url}/problems/webhook-url-refused`, status: 422 });
    expect(refused.problem.errors).to.deep.equal([{ pointer: '/url', detail: 'must be an http:// or https:// URL' }]);
    expect((await tool('listWebhookEndpoints', { limit: 100 })).data).to.have.length(before);
  });

  it('needs write and mcp to change, read and mcp to look; the tools that send to the endpoint say they reach the open world', async () => {
    const reader = await server.token(['read', 'mcp'], 'mcp-hooks@example.com');
    const refused = await rpc(server, reader, 'tools/call', {
      name: 'createWebhookEndpoint',
      arguments: { url: receiver.url, event_types: ['order.filled'] },
    });
    expect(refused.status).to.equal(403);
    expect(refused.body.required_scope).to.equal('write mcp');
    const listed = await rpc(server, reader, 'tools/call', { name: 'listWebhookEndpoints', arguments: {} });
    expect(listed.body.result.structuredContent.data.length).to.be.above(0);

    const { tools } = await mcp.listTools();
    const hints = (name: string) => {
      const { title: _title, ...rest } = tools.find((t) => t.name === name)!.annotations!;
      return rest;
    };
    for (const name of ['testWebhookEndpoint', 'recoverWebhookEndpointDeliveries'])
      expect(hints(name), name).to.deep.equal({ readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true });
    expect(hints('createWebhookEndpoint')).to.deep.equal({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
    });
    for (const name of ['updateWebhookEndpoint', 'deleteWebhookEndpoint'])
      expect(hints(name), name).to.deep.equal({ readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false });
    expect(hints('rotateWebhookEndpointSecret')).to.deep.equal({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
    });
  });

  it('updateWebhookEndpoint changes URL, event types, description and enabled, answering what REST’s GET then reads', async () => {
    const endpoint = await endpointAtReceiver();
    const changed = await tool('updateWebhookEndpoint', {
      id: endpoint.id,
      url: 'https://hooks.example.com/ias-v2',
      event_types: ['policy.created', 'order.blocked'],
      description: 'Second receiver',
      enabled: false,
    });
    expect(changed).to.deep.include({
      id: endpoint.id,
      url: 'https://hooks.example.com/ias-v2',
      event_types: ['policy.created', 'order.blocked'],
      description: 'Second receiver',
      enabled: false,
      disabled_reason: 'disabled by hand',
      created_at: endpoint.created_at,
    });
    expect(changed).to.not.have.property('secret');
    expect(changed.disabled_at).to.be.a('string');
    expect((await server.api.get(at(endpoint.id), { token })).body).to.deep.equal(changed);

    const enabled = await tool('updateWebhookEndpoint', { id: endpoint.id, enabled: true });
    expect(enabled).to.include({ enabled: true, disabled_reason: null, disabled_at: null, description: 'Second receiver' });
    expect((await server.api.get(at(endpoint.id), { token })).body).to.deep.equal(enabled);
  });

  it('a refused change is an isError result with REST’s problem, and the endpoint stays as it was', async () => {
    const endpoint = await endpointAtReceiver();
    const refusals: [Record<string, unknown>, string, number][] = [
      [{ url: 'ftp://hooks.example.com/', description: 'not kept' }, 'webhook-url-refused', 422],
      [{ event_types: [], enabled: false }, 'validation-error', 400],
      [{ secret: 'whsec_mine' }, 'validation-error', 400],
    ];
    for (const [args, type, status] of refusals) {
      const refused = await callTool(mcp, 'updateWebhookEndpoint', { id: endpoint.id, ...args });
      expect(refused.ok, JSON.stringify(args)).to.equal(false);
      expect(refused.problem, JSON.stringify(args)).to.include({ type: problem(type), status });
      const rest = await server.api.request('PATCH', at(endpoint.id), { token, json: args });
      expect(sameProblem(refused.problem)).to.deep.equal(sameProblem(rest.body));
    }
    expect(await tool('getWebhookEndpoint', { id: endpoint.id })).to.deep.equal(endpoint);
  });

  it('deleteWebhookEndpoint answers the deleted endpoint; then getWebhookEndpoint is a not-found isError result, REST’s GET 404', async () => {
    const endpoint = await endpointAtReceiver();
    expect(await tool('deleteWebhookEndpoint', { id: endpoint.id })).to.deep.equal({ id: endpoint.id, deleted: true });
    const gone = await callTool(mcp, 'getWebhookEndpoint', { id: endpoint.id });
    expect(gone.ok).to.equal(false);
    expect(gone.problem).to.include({ type: problem('not-found'), status: 404 });
    const rest = await server.api.get(at(endpoint.id), { token });
    expect(rest.status).to.equal(404);
    expect(sameProblem(gone.problem)).to.deep.equal(sameProblem(rest.body));
    expect((await callTool(mcp, 'deleteWebhookEndpoint', { id: endpoint.id })).problem).to.include({ type: problem('not-found') });
    const listed = await tool('listWebhookEndpoints', { limit: 100 });
    expect(listed.data.map((e: { id: string }) => e.id)).to.not.include(endpoint.id);
  });

  it('a read and mcp token is refused update, delete, rotate, test and recover: 403 naming write mcp; nothing changes', async () => {
    const endpoint = await endpointAtReceiver();
    const reader = await connectMcp(server, await server.token(['read', 'mcp'], 'mcp-hooks@example.com'));
    try {
      const calls: [string, Record<string, unknown>][] = [
        ['updateWebhookEndpoint', { id: endpoint.id, enabled: false }],
        ['deleteWebhookEndpoint', { id: endpoint.id }],
        ['rotateWebhookEndpointSecret', { id: endpoint.id }],
        ['testWebhookEndpoint', { id: endpoint.id }],
        ['recoverWebhookEndpointDeliveries', { id: endpoint.id, since: new Date(Date.now() - 60_000).toISOString() }],
      ];
      for (const [name, args] of calls) {
        const refused = await callTool(reader, name, args).then(
          () => expect.fail(`${name} was not refused`),
          (error: unknown) => error,
        );
        expect(refused, name).to.be.instanceOf(StreamableHTTPError);
        const { code, message } = refused as StreamableHTTPError;
        expect(code, name).to.equal(403);
        const body = JSON.parse(message.slice(message.indexOf('{')));
        expect(body, name).to.include({ type: problem('insufficient-scope'), required_scope: 'write mcp' });
      }
      expect((await callTool(reader, 'getWebhookEndpoint', { id: endpoint.id })).value).to.deep.equal(endpoint);
      const attempts = await callTool(reader, 'listWebhookEndpointDeliveries', { id: endpoint.id });
      expect(attempts.value).to.deep.equal({ data: [], next_cursor: null });
    } finally {
      await reader.close();
    }
  });
});
