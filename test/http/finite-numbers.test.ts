import { expect } from 'chai';
import { graphql } from '../graphql/support.js';
import { rpcText } from '../support/mcp.js';
import { startTestServer, type TestServer } from '../support/server.js';

// JSON.parse reads a number beyond the largest double (1e400) as Infinity, and JSON.stringify writes Infinity as
// null: a policy sent with one was once stored with a null limit. JSON.stringify cannot write such a request, so
// each is written as text: the member to test holds a marker that is replaced by the literal.
const MARK = '"@number@"';
const withLiteral = (value: unknown, literal: string) => {
  const text = JSON.stringify(value);
  if (!text.includes(MARK)) throw new Error('no marked member');
  return text.replace(MARK, literal);
};
const setAt = (value: Record<string, any>, path: string[], replacement: unknown): Record<string, any> => {
  const [head, ...rest] = path as [string, ...string[]];
  return { ...value, [head]: rest.length ? setAt(value[head], rest, replacement) : replacement };
};

describe('numbers that are not finite doubles (1e400) are refused on every interface, naming the field, and nothing is stored', () => {
  let server: TestServer;
  let disclosureVersion: string;

  before(async () => {
    server = await startTestServer();
    disclosureVersion = (await server.api.get('/v1/disclosures/current', { token: await server.token(['read']) })).body.version;
  });
  after(() => server.close());

  const policy = () => ({
    limits: {
      max_order_notional: 10000,
      max_position_weight: 0.7,
      max_daily_notional: 25000,
      max_daily_loss: 2000,
      allowed_markets: ['US'],
    },
    target_allocation: [{ symbol: 'VTI', weight: 1 }],
    rebalance_band: 0.05,
    consent: { disclosure_version: disclosureVersion, accepted: true, signer_name: 'Ada Lovelace' },
  });
  const goal = () => ({
    capital: 10000,
    target: 20000,
    horizon_years: 10,
    market: 'US',
    monthly_contribution: 100,
    confidence: 0.8,
    assumptions: { expected_return: 0.06, volatility: 0.15 },
  });

  async function expectNoPolicy(token: string) {
    expect((await server.api.get('/v1/policies', { token })).body.data).to.deep.equal([]);
    expect((await server.api.get('/v1/policies/current', { token })).status).to.equal(404);
  }

  const problemOf = (text: string) => JSON.parse(text) as { type: string; status: number; errors: { pointer: string; detail: string }[] };

  describe('REST', () => {
    const policyFields = [
      ['limits', 'max_order_notional'],
      ['limits', 'max_position_weight'],
      ['limits', 'max_daily_notional'],
      ['limits', 'max_daily_loss'],
      ['rebalance_band'],
      ['target_allocation', '0', 'weight'],
    ];
    for (const path of policyFields) {
      for (const literal of ['1e400', '-1e400']) {
        it(`POST /v1/policies with ${literal} in /${path.join('/')} is 400 validation-error naming it`, async () => {
          const token = await server.token(['read', 'trade']);
          const body =
            path[0] === 'target_allocation'
              ? { ...policy(), target_allocation: [{ symbol: 'VTI', weight: '@number@' }] }
              : setAt(policy(), path, '@number@');
          const response = await server.api.post('/v1/policies', {
            token,
            body: withLiteral(body, literal),
            headers: { 'content-type': 'application/json' },
          });
          expect(response.status).to.equal(400);
          expect(response.body.type).to.equal(`${server.url}/problems/validation-error`);
          expect(response.body.errors).to.deep.equal([{ pointer: `/${path.join('/')}`, detail: 'must be a finite number' }]);
          await expectNoPolicy(token);
        });
      }
    }

    for (const path of [
      ['capital'],
      ['target'],
      ['horizon_years'],
      ['monthly_contribution'],
      ['confidence'],
      ['assumptions', 'expected_return'],
      ['assumptions', 'volatility'],
    ]) {
      it(`POST /v1/goals/feasibility with 1e400 in /${path.join('/')} is 400 validation-error naming it`, async () => {
        const token = await server.token(['read']);
        const response = await server.api.post('/v1/goals/feasibility', {
          token,
          body: withLiteral(setAt(goal(), path, '@number@'), '1e400'),
          headers: { 'content-type': 'application/json' },
        });
        expect(response.status).to.equal(400);
        expect(response.body.errors).to.deep.equal([{ pointer: `/${path.join('/')}`, detail: 'must be a finite number' }]);
      });
    }
  });

  describe('GraphQL', () => {
    const createPolicy = `mutation Create($input: PolicyCreateRequest!) { createPolicy(input: $input) { version } }`;

    it('a 1e400 literal reaches the contract as Infinity and is a VALIDATION_ERROR pointing at the argument', async () => {
      const token = await server.token(['read', 'trade']);
      const limits =
        'max_order_notional: 1e400, max_position_weight: 0.7, max_daily_notional: 25000, max_daily_loss: 2000, allowed_markets: ["US"]';
      const consent = `disclosure_version: "${disclosureVersion}", accepted: true, signer_name: "Ada"`;
      const allocation = 'target_allocation: [{symbol: "VTI", weight: 1}]';
      const query = `mutation { createPolicy(input: {limits: {${limits}}, ${allocation}, consent: {${consent}}}) { version } }`;
      const response = await graphql(server, query, { token });
      expect(response.body.data).to.deep.equal({ createPolicy: null });
      const [error] = response.body.errors!;
      expect(error.extensions).to.deep.include({ code: 'VALIDATION_ERROR', status: 400 });
      expect(error.extensions.errors).to.deep.equal([{ pointer: '/input/limits/max_order_notional', detail: 'must be a finite number' }]);
      await expectNoPolicy(token);

      const feasibility = await graphql(
        server,
        '{ goalFeasibility(input: {capital: 1e400, target: 100, horizon_years: 1, market: "US"}) { probability } }',
        { token },
      );
      expect(feasibility.body.errors![0].extensions.errors).to.deep.equal([
        { pointer: '/input/capital', detail: 'must be a finite number' },
      ]);
    });

    it('a 1e400 in variables is refused by GraphQL’s own coercion before anything runs: HTTP 400 naming the variable and its member', async () => {
      const token = await server.token(['read', 'trade']);
      const body = withLiteral(
        { query: createPolicy, variables: { input: setAt(policy(), ['limits', 'max_daily_loss'], '@number@') } },
        '1e400',
      );
      const response = await graphql(server, createPolicy, { token, body });
      expect(response.status).to.equal(400);
      expect(response.body.data).to.equal(undefined);
      expect(response.body.errors![0].message).to.include('"$input"').and.include('"input.limits.max_daily_loss"').and.include('Infinity');
      await expectNoPolicy(token);
    });
  });

  describe('MCP', () => {
    const call = (token: string, name: string, args: unknown, literal: string) =>
      rpcText(server, token, withLiteral({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }, literal));

    it('a 1e400 in tool arguments is an isError validation-error naming the argument', async () => {
      const token = await server.token(['read', 'trade', 'mcp']);
      const created = await call(token, 'createPolicy', setAt(policy(), ['limits', 'max_order_notional'], '@number@'), '1e400');
      expect(created.status).to.equal(200);
      expect(created.body.result.isError).to.equal(true);
      const problem = problemOf(created.body.result.content[0].text);
      expect(problem).to.deep.include({ type: `${server.url}/problems/validation-error`, status: 400 });
      expect(problem.errors).to.deep.equal([{ pointer: '/limits/max_order_notional', detail: 'must be a finite number' }]);
      await expectNoPolicy(token);

      const evaluated = await call(token, 'evaluateGoalFeasibility', setAt(goal(), ['assumptions', 'volatility'], '@number@'), '-1e400');
      expect(problemOf(evaluated.body.result.content[0].text).errors).to.deep.equal([
        { pointer: '/assumptions/volatility', detail: 'must be a finite number' },
      ]);
    });
  });
});
