import { expect } from 'chai';
import { getIntrospectionQuery, parse, validate } from 'graphql';
import { depthRule } from '../../src/graphql/depth.js';
import { LIMITS } from '../../src/graphql/limits.js';
import { createGraphQLSchema } from '../../src/graphql/schema.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { graphql, type GraphQLResponse } from './support.js';

describe('/graphql abuse limits: each refused before execution with a clear error', () => {
  let server: TestServer;
  let token: string;

  before(async () => {
    server = await startTestServer();
    token = await server.token(['read', 'trade']);
  });
  after(() => server.close());

  /** A refusal before execution: no data at all, one error naming the limit. */
  function expectRefused(response: GraphQLResponse, code: string) {
    expect(response.status, JSON.stringify(response.body)).to.equal(400);
    expect(response.body.data).to.equal(undefined);
    expect(response.body.errors).to.have.length(1);
    expect(response.body.errors![0].extensions.code).to.equal(code);
    return response.body.errors![0];
  }

  it(`refuses a document over ${LIMITS.maxDocumentLength} characters`, async () => {
    const query = `{ killSwitch { engaged } }${' '.repeat(LIMITS.maxDocumentLength)}`;
    const error = expectRefused(await graphql(server, query, { token }), 'QUERY_TOO_LARGE');
    expect(error.extensions).to.include({ limit: LIMITS.maxDocumentLength, actual: query.length });
    expect(error.message).to.include(String(LIMITS.maxDocumentLength));
  });

  it(`admits the schema's deepest paths, through fragments too, within the depth limit of ${LIMITS.maxDepth}`, async () => {
    const fragments = `
      query Deep { ideas { data { ...IdeaOrders } } dailyReports { data { decisions { failed_checks { check } } } } }
      fragment IdeaOrders on Idea { orders { ...OrderEvents } }
      fragment OrderEvents on Order { events { to } }`;
    const response = await graphql(server, fragments, { token });
    expect(response.body).to.deep.equal({ data: { ideas: { data: [] }, dailyReports: { data: [] } } });
  });

  it('refuses an operation nested deeper than the limit, counting through fragments once each', async () => {
    // schema.graphql has no cycle (its deepest path is 4 levels), so the rule is shown with lower limits.
    const document = parse(
      'query Q { ...Ideas } fragment Ideas on Query { ideas { data { ...Orders } } } fragment Orders on Idea { orders { events { to } } }',
    );
    const schema = createGraphQLSchema();
    expect(validate(schema, document, [depthRule(4)])).to.deep.equal([]);
    const errors = validate(schema, document, [depthRule(3)]);
    expect(errors).to.have.length(1);
    expect(errors[0]!.extensions).to.deep.include({ code: 'QUERY_TOO_DEEP', limit: 3, actual: 4 });
  });

  it('refuses introspection whose lists nest deeper than graphql’s own limit, and admits the standard introspection query', async () => {
    const nested = '{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }';
    const refused = await graphql(server, nested, { token });
    expect(refused.status).to.equal(400);
    expect(refused.body.errors![0].message).to.match(/[Mm]aximum introspection depth/);
    expect((await graphql(server, getIntrospectionQuery({ descriptions: true }), { token })).body.errors).to.equal(undefined);
  });

  it('counts pages at their limit and refuses an operation costing more than the maximum', async () => {
    const page = (limit: number) => `{ orders(limit: ${limit}) { data { id status events { to at } } next_cursor } }`;
    const cheap = await graphql(server, page(10), { token });
    expect(cheap.status).to.equal(200);
    expect(cheap.body.data.orders).to.deep.equal({ data: [], next_cursor: null });
    // 100 (root) + 100 × (data: 1 + id 1 + status 1 + events (1 + 3 × 2) + next_cursor 1) = 1100 for limit 100
    expect((await graphql(server, page(100), { token })).body.errors).to.equal(undefined);
    const aliased = `{ ${Array.from({ length: 10 }, (_, i) => `o${i}: orders(limit: 100) { data { id status events { to at } } }`).join(' ')} }`;
    const error = expectRefused(await graphql(server, aliased, { token }), 'QUERY_TOO_COSTLY');
    expect(error.extensions.limit).to.equal(LIMITS.maxCost);
    expect(error.extensions.actual).to.be.above(LIMITS.maxCost);
    expect(error.message).to.match(/costs \d+; at most 10000/);
  });

  it('takes a page size given in a variable into account, and leaves an out-of-range limit to the contract’s validation', async () => {
    const query = 'query Q($n: Int!) { ideas(limit: $n) { data { orders { id status symbol side events { to at } } } } }';
    expect((await graphql(server, query, { token, variables: { n: 5 } })).body.errors).to.equal(undefined);
    expectRefused(await graphql(server, query, { token, variables: { n: 100 } }), 'QUERY_TOO_COSTLY');
    const over = await graphql(server, '{ brokers(limit: 1000) { next_cursor } }', { token });
    expect(over.body.data).to.deep.equal({ brokers: null });
    expect(over.body.errors![0].extensions).to.deep.include({
      code: 'VALIDATION_ERROR',
      errors: [{ pointer: '/limit', detail: 'must be <= 100' }],
    });
  });

  it('checks a document sent again as the first time (parsed and validated once per text, its cost on every request)', async () => {
    const query = 'query Q($n: Int!) { ideas(limit: $n) { data { orders { id status symbol side events { to at } } } } }';
    for (const n of [5, 100, 5, 100]) {
      const answer = await graphql(server, query, { token, variables: { n } });
      if (n === 5) expect(answer.body.errors, `n = ${n}`).to.equal(undefined);
      else expectRefused(answer, 'QUERY_TOO_COSTLY');
    }
    const unknownField = '{ brokers { data { id nickname } } }';
    const first = await graphql(server, unknownField, { token });
    expect(first.status).to.equal(400);
    expect(first.body.errors![0].message).to.match(/nickname/);
    expect((await graphql(server, unknownField, { token })).body).to.deep.equal(first.body);
  });

  it('refuses many root fields: each use case costs 100', async () => {
    const many = `{ ${Array.from({ length: 101 }, (_, i) => `k${i}: killSwitch { engaged }`).join(' ')} }`;
    expectRefused(await graphql(server, many, { token }), 'QUERY_TOO_COSTLY');
  });

  it('refuses fragments spread in fragments (exponential when expanded) as too costly, without expanding them', async () => {
    let document = 'query Bomb { ...F0 }\n';
    for (let i = 0; i < 40; i++) document += `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }\n`;
    document += 'fragment F40 on Query { killSwitch { engaged } }';
    expectRefused(await graphql(server, document, { token }), 'QUERY_TOO_COSTLY');
  });

  describe('goalFeasibility costs what its computation costs: 0.75 a month of horizon with a contribution, 0.5 without', () => {
    const goal = (i: number, contribution: boolean) =>
      `g${i}: goalFeasibility(input: {capital: 10000, target: 5000000, horizon_years: 100, market: "US"` +
      `${contribution ? ', monthly_contribution: 2000' : ''}, assumptions: {expected_return: 0.3, volatility: 0.9${String(i).padStart(2, '0')}}})` +
      ' { probability }';
    const document = (count: number, contribution = true) =>
      `{ ${Array.from({ length: count }, (_, i) => goal(i, contribution)).join(' ')} }`;

    it('refuses issue 20’s document (46 aliases of 100-year goals with contributions, σ about 0.9) before anything runs', async () => {
      const inputs = 'capital:10000,target:5000000,horizon_years:100,market:"US",monthly_contribution:2000';
      const field = (i: number) =>
        `g${i}:goalFeasibility(input:{${inputs},assumptions:{expected_return:0.3,volatility:0.9${String(i).padStart(2, '0')}}}){probability}`;
      const query = `{${Array.from({ length: 46 }, (_, i) => field(i)).join(' ')}}`;
      expect(query.length).to.be.within(7000, LIMITS.maxDocumentLength);
      const error = expectRefused(await graphql(server, query, { token }), 'QUERY_TOO_COSTLY');
      // Each: 100 (root field) + 1200 months × 0.75 + 1 (probability).
      expect(error.extensions).to.include({ limit: LIMITS.maxCost, actual: 46 * 1001 });
    });

    it('admits nine 100-year goals with contributions (9009) and refuses ten (10010)', async () => {
      const nine = await graphql(server, document(9), { token });
      expect(nine.body.errors).to.equal(undefined);
      expect(Object.values(nine.body.data).map((g) => typeof (g as { probability: unknown }).probability)).to.deep.equal(
        Array(9).fill('number'),
      );
      expect(expectRefused(await graphql(server, document(10), { token }), 'QUERY_TOO_COSTLY').extensions.actual).to.equal(10 * 1001);
    });

    it('counts a goal without contributions at 0.5 a month (701 for 100 years), also when the input is a variable', async () => {
      expect(expectRefused(await graphql(server, document(15, false), { token }), 'QUERY_TOO_COSTLY').extensions.actual).to.equal(15 * 701);
      const input = { capital: 10000, target: 5000000, horizon_years: 100, market: 'US', monthly_contribution: 2000 };
      const aliases = Array.from({ length: 10 }, (_, i) => `v${i}: goalFeasibility(input: $goal) { probability }`).join(' ');
      const refused = await graphql(server, `query Q($goal: GoalFeasibilityRequest!) { ${aliases} }`, {
        token,
        variables: { goal: input },
      });
      expect(expectRefused(refused, 'QUERY_TOO_COSTLY').extensions.actual).to.equal(10 * 1001);
    });

    it('admits a handful of ordinary goals (30 years with contributions cost 371 each)', async () => {
      const fields = Array.from(
        { length: 5 },
        (_, i) =>
          `o${i}: goalFeasibility(input: {capital: ${20000 + i * 1000}, target: 400000, horizon_years: 30, market: "US", ` +
          'monthly_contribution: 500}) { probability }',
      );
      const response = await graphql(server, `{ ${fields.join(' ')} }`, { token });
      expect(response.status).to.equal(200);
      expect(response.body.errors).to.equal(undefined);
      expect(Object.keys(response.body.data)).to.deep.equal(['o0', 'o1', 'o2', 'o3', 'o4']);
    });
  });

  it('refuses a batch (a JSON array of operations) with a clear error', async () => {
    const response = await fetch(`${server.api.baseUrl}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify([{ query: '{ killSwitch { engaged } }' }, { query: '{ disclosure { version } }' }]),
    });
    expect(response.status).to.equal(400);
    const body = await response.json();
    expect(body.errors[0].extensions.code).to.equal('BATCHING_NOT_SUPPORTED');
    expect(body.errors[0].message).to.match(/one GraphQL operation per request/);
  });
});
