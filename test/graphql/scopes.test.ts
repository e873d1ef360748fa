import { expect } from 'chai';
import { getDirectiveValues, type GraphQLObjectType } from 'graphql';
import { operationScopes } from '../../generated/operation-scopes.js';
import { Contract } from '../../src/contract/operations.js';
import { loadDocument } from '../../src/document.js';
import { createGraphQLSchema } from '../../src/graphql/schema.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { graphql } from './support.js';

const SCOPES = ['read', 'write', 'trade', 'mcp'];
const schema = createGraphQLSchema();
const contract = new Contract(loadDocument());

/** Arguments that pass GraphQL's own validation for each root field that requires some. */
const ARGUMENTS: Record<string, string> = {
  order: '(id: "ord_missing")',
  idea: '(id: "idea_missing")',
  policy: '(version: 1)',
  dailyReport: '(date: "2026-01-01")',
  event: '(id: "evt_missing")',
  goalFeasibility: '(input: {capital: 1000, target: 2000, horizon_years: 5, market: "US"})',
  createPolicy:
    '(input: {limits: {max_order_notional: 1000, max_position_weight: 1, max_daily_notional: 1000, max_daily_loss: 100, allowed_markets: ["US"]}, ' +
    'target_allocation: [{symbol: "VTI", weight: 1}]})',
  generateIdeas: '(input: {mode: rebalance, market: "US"})',
  previewOrder: '(id: "ord_missing")',
  approveOrder: '(id: "ord_missing")',
  rejectOrder: '(id: "ord_missing")',
  cancelOrder: '(id: "ord_missing")',
  generateDailyReport: '(input: {date: "2026-01-01"})',
  engageKillSwitch: '(input: {reason: "scope test"})',
  webhookEndpoint: '(id: "we_missing")',
  webhookEndpointDeliveries: '(id: "we_missing")',
  createWebhookEndpoint: '(input: {url: "https://hooks.example.com/scope", event_types: ["order.filled"]})',
  updateWebhookEndpoint: '(id: "we_missing", input: {enabled: false})',
  deleteWebhookEndpoint: '(id: "we_missing")',
  rotateWebhookEndpointSecret: '(id: "we_missing")',
  testWebhookEndpoint: '(id: "we_missing")',
  recoverWebhookEndpointDeliveries: '(id: "we_missing", input: {since: "2026-01-01T00:00:00Z"})',
};

const rootFields = (
  [
    ['query', schema.getQueryType()!],
    ['mutation', schema.getMutationType()!],
  ] as [string, GraphQLObjectType][]
).flatMap(([keyword, type]) =>
  Object.values(type.getFields()).map((field) => {
    const operationId = getDirectiveValues(schema.getDirective('operation')!, field.astNode!)!.id as keyof typeof operationScopes;
    return {
      keyword,
      name: field.name,
      operationId,
      required: operationScopes[operationId][0][0],
      text: `${keyword} { ${field.name}${ARGUMENTS[field.name] ?? ''} { __typename } }`,
    };
  }),
);

/** The REST request of an operation, with placeholder path parameters (a scope refusal comes before validation). */
function restRequest(operationId: string) {
  const operation = contract.operation(operationId);
  const path = operation.path.replace(/\{[^}]+\}/g, (p) => (p === '{version}' ? '1' : p === '{date}' ? '2026-01-01' : 'missing'));
  return { method: operation.method, path, json: operation.body ? {} : undefined };
}

describe('/graphql scopes: every root field needs exactly its REST operation’s scope', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('covers every root field', () => {
    expect(rootFields).to.have.length(33);
    expect(new Set(rootFields.map((f) => f.required))).to.deep.equal(new Set(['read', 'write', 'trade']));
  });

  for (const field of rootFields) {
    it(`${field.name} (${field.operationId}) is refused without scope ${field.required}, as REST refuses it, and runs with it alone`, async () => {
      const lacking = await server.token(SCOPES.filter((s) => s !== field.required));
      const refused = await graphql(server, field.text, { token: lacking });
      expect(refused.status).to.equal(200);
      expect(refused.body.data).to.deep.equal({ [field.name]: null });
      const [error] = refused.body.errors!;
      expect(error.path).to.deep.equal([field.name]);
      const { code, ...problem } = error.extensions;
      expect(code).to.equal('INSUFFICIENT_SCOPE');
      expect(problem.required_scope).to.equal(field.required);

      const request = restRequest(field.operationId);
      const rest = await server.api.request(request.method, request.path, { token: lacking, json: request.json });
      expect(rest.status).to.equal(403);
      const { instance: _instance, request_id: _requestId, ...restProblem } = rest.body;
      expect(problem).to.deep.equal(restProblem);

      const allowed = await graphql(server, field.text, { token: await server.token([field.required]) });
      for (const other of allowed.body.errors ?? [])
        expect(other.extensions.code, JSON.stringify(other)).to.not.equal('INSUFFICIENT_SCOPE');
    });
  }

  it('refuses a read-only token’s trade mutation with a scope error and changes nothing', async () => {
    const reader = await server.account(['read']);
    const response = await graphql(server, 'mutation { engageKillSwitch(input: {reason: "read-only"}) { engaged } }', {
      token: reader.token,
    });
    expect(response.body.errors![0].extensions).to.include({ code: 'INSUFFICIENT_SCOPE', status: 403, required_scope: 'trade' });
    expect((await graphql(server, '{ killSwitch { engaged } }', { token: reader.token })).body.data).to.deep.equal({
      killSwitch: { engaged: false },
    });
  });

  it('does not ask GraphQL callers for the mcp scope', async () => {
    const token = await server.token(['read']);
    expect((await graphql(server, '{ killSwitch { engaged } }', { token })).body).to.deep.equal({
      data: { killSwitch: { engaged: false } },
    });
  });
});
