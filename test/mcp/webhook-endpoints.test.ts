// Webhook endpoints over MCP (issue 36, point 4): a tool per operation, the same pipeline as REST.
import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Webhook } from 'standardwebhooks';
import { startTestServer, type TestServer } from '../support/server.js';
import { callTool, connectMcp, rpc } from '../support/mcp.js';
import { Receiver, until } from '../support/webhook-receiver.js';

describe('MCP webhook endpoint tools: create, list, test and its delivery attempts', () => {
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
});
