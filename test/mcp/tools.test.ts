import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { operationScopes } from '../../generated/operation-scopes.js';
import { readFileSync } from 'node:fs';
import { startTestServer, type TestServer } from '../support/server.js';
import { connectMcp } from '../support/mcp.js';

/** The operations as the published document states them, read here without the service's own Contract. */
const spec = JSON.parse(readFileSync(new URL('../../generated/openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, { operationId?: string; summary?: string; description?: string }>>;
};
const operations = new Map(
  Object.values(spec.paths).flatMap((item) =>
    Object.entries(item).flatMap(([method, o]) =>
      o && typeof o === 'object' && o.operationId ? [[o.operationId, { ...o, method: method.toUpperCase() }] as const] : [],
    ),
  ),
);

function references(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(references);
  if (!node || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([key, value]) => (key === '$ref' || key === 'discriminator' ? [key] : references(value)));
}

describe('MCP tools: one per bearer operation, derived from openapi.yaml', () => {
  let server: TestServer;
  let client: Client;
  let tools: Map<string, Tool>;

  before(async () => {
    server = await startTestServer();
    client = await connectMcp(server, await server.token(['mcp']));
    tools = new Map((await client.listTools()).tools.map((t) => [t.name, t]));
  });
  after(async () => {
    await client.close();
    await server.close();
  });

  it(
    'lists exactly the operations that take a bearer token, named by operationId; ' +
      'signup, login, contact, challenge and the token endpoint are not tools',
    () => {
      expect([...tools.keys()].sort()).to.deep.equal(Object.keys(operationScopes).sort());
      for (const anonymous of ['issueToken', 'signUp', 'logIn', 'sendContactMessage', 'getChallenge'])
        expect(tools.has(anonymous)).to.equal(false);
    },
  );

  it('takes title and description from the operation, and names the scopes the tool needs', () => {
    expect(tools.get('approveOrder')!.title).to.equal('Approve a proposed order');
    expect(tools.get('approveOrder')!.description).to.include('Requires the scopes `trade` and `mcp`.');
    for (const [name, tool] of tools) {
      const operation = operations.get(name)!;
      expect(tool.title).to.equal(operation.summary);
      expect(tool.description).to.include(operation.summary!).and.include(operation.description!.trim());
      const scope = (operationScopes as Record<string, readonly (readonly string[])[]>)[name]![0]![0]!;
      expect(tool.description).to.include(`Requires the scopes \`${scope}\` and \`mcp\`.`);
    }
  });

  it('flattens path and query parameters and body members into one closed input schema', () => {
    const feasibility = tools.get('evaluateGoalFeasibility')!.inputSchema;
    expect(feasibility.required).to.deep.equal(['capital', 'target', 'horizon_years', 'market']);
    expect(feasibility.properties).to.include.keys(
      'capital',
      'target',
      'horizon_years',
      'market',
      'monthly_contribution',
      'confidence',
      'assumptions',
    );
    expect(feasibility.additionalProperties).to.equal(false);

    const reject = tools.get('rejectOrder')!.inputSchema;
    expect(reject.required).to.deep.equal(['id']);
    expect(Object.keys(reject.properties!)).to.deep.equal(['id', 'reason']);
    expect(reject.properties!.id).to.include({ type: 'string', description: 'The order id (`ord_...`).' });

    const orders = tools.get('listOrders')!.inputSchema;
    expect(orders.required).to.equal(undefined);
    expect(Object.keys(orders.properties!)).to.deep.equal(['status', 'symbol', 'idea_id', 'limit', 'cursor']);
    expect((orders.properties!.status as { enum: string[] }).enum).to.include('proposed');
    expect(tools.get('getKillSwitch')!.inputSchema).to.deep.equal({ type: 'object', properties: {}, additionalProperties: false });
  });

  it('gives every tool a self-contained output schema: its success response, references inlined', () => {
    for (const [name, tool] of tools) {
      expect(tool.outputSchema, name).to.include({ type: 'object' });
      expect(references(tool.inputSchema).concat(references(tool.outputSchema)), name).to.deep.equal([]);
    }
    const order = tools.get('approveOrder')!.outputSchema!;
    expect(order.properties).to.include.keys('id', 'status', 'events', 'fill_price', 'average_fill_price', 'filled_quantity', 'broker');
    expect((order.properties!.status as { enum: string[] }).enum)
      .to.include('filled')
      .and.include('partially_filled');
    expect(order.required).to.include('average_fill_price').and.include('broker');
  });

  it('annotates honestly: reads read-only, approve/reject/cancel destructive, repeat-safe writes idempotent, the world closed but for webhook sends', () => {
    const hints = (name: string) => {
      const { title: _title, ...rest } = tools.get(name)!.annotations!;
      return rest;
    };
    const reads = Object.keys(operationScopes).filter((name) => operations.get(name)!.method === 'GET');
    for (const name of [...reads, 'evaluateGoalFeasibility'])
      expect(hints(name), name).to.deep.equal({ readOnlyHint: true, openWorldHint: false });
    for (const name of ['approveOrder', 'rejectOrder', 'cancelOrder']) {
      expect(hints(name), name).to.deep.equal({ readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false });
    }
    for (const name of ['generateDailyReport', 'engageKillSwitch']) {
      expect(hints(name), name).to.deep.equal({ readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    }
    for (const name of ['createPolicy', 'generateIdeas']) {
      expect(hints(name), name).to.deep.equal({ readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false });
    }
    for (const [name, tool] of tools) expect(tool.annotations!.title, name).to.equal(tool.title);
    const open = [...tools.values()].filter((tool) => tool.annotations!.openWorldHint).map((tool) => tool.name);
    expect(open.sort()).to.deep.equal(['recoverWebhookEndpointDeliveries', 'testWebhookEndpoint']);
  });

  it('documents the tools at /docs/mcp, linked from the API reference /docs renders', async () => {
    const spec = await server.api.get('/openapi.json');
    expect(spec.body.info.description).to.include('[MCP server](/docs/mcp)');
    const page = await fetch(`${server.url}/docs/mcp`);
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-security-policy')).to.include("default-src 'self'");
    const html = await page.text();
    expect(html).to.include(`<code>${server.url}/mcp</code>`);
    for (const [name] of tools) expect(html, name).to.include(`<code>${name}</code>`);
    expect(html).to.match(/<code>approveOrder<\/code>[^<]*<\/dt><dd>scopes <code>trade mcp<\/code> · destructive, idempotent/);
    expect(html).to.match(
      /<code>testWebhookEndpoint<\/code>[^<]*<\/dt><dd>scopes <code>write mcp<\/code> · additive, not idempotent, sends to a webhook endpoint/,
    );
    expect(html).to.include('<code>ias://policies/current</code>');
    expect(html).to.include('a batch (an array) is refused with HTTP 400 and the JSON-RPC error <code>-32600</code>');
    expect(html).to.include(
      `only from its own origin (<code>${server.url}</code>) or one the operator allows; another <code>Origin</code> is 403`,
    );
  });

  it('lists the current disclosure (markdown) and the current policy (JSON) as resources', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => [r.uri, r.mimeType])).to.deep.equal([
      ['ias://disclosures/current', 'text/markdown'],
      ['ias://policies/current', 'application/json'],
    ]);
  });
});
