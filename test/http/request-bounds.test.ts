import { expect } from 'chai';
import { graphql } from '../graphql/support.js';
import { rpc } from '../support/mcp.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** One number of a request: the smallest and largest values it accepts, and values just beyond them. */
interface Edge {
  path: string[];
  accepted: number[];
  refused: number[];
}

const ONE_DAY = 1 / 365.25;
const setAt = (value: Record<string, any>, path: string[], replacement: unknown): Record<string, any> => {
  const [head, ...rest] = path as [string, ...string[]];
  return { ...value, [head]: rest.length ? setAt(value[head], rest, replacement) : replacement };
};

describe('every number of a request is bounded where the spec says, at both edges', () => {
  let server: TestServer;
  let disclosureVersion: string;

  before(async () => {
    server = await startTestServer();
    disclosureVersion = (await server.api.get('/v1/disclosures/current', { token: await server.token(['read']) })).body.version;
  });
  after(() => server.close());

  describe('POST /v1/goals/feasibility', () => {
    const goal = {
      capital: 10000,
      target: 20000,
      horizon_years: 10,
      market: 'US',
      monthly_contribution: 100,
      assumptions: { expected_return: 0.06, volatility: 0.15 },
    };
    const edges: Edge[] = [
      { path: ['capital'], accepted: [0, 0.01, 1e12], refused: [-0.01, 0.009, 1e12 + 0.01] },
      { path: ['target'], accepted: [0.01, 1e12], refused: [0, 0.00999, 1e12 + 0.01] },
      { path: ['horizon_years'], accepted: [ONE_DAY, 100], refused: [0, 0.00273785, 100.00001] },
      { path: ['monthly_contribution'], accepted: [0, 0.01, 1e9], refused: [-0.01, 0.009, 1e9 + 0.01] },
      { path: ['confidence'], accepted: [0.5, 0.99], refused: [0.49999, 0.99001] },
      { path: ['assumptions', 'expected_return'], accepted: [-0.5, 1], refused: [-0.50001, 1.00001] },
      { path: ['assumptions', 'volatility'], accepted: [0, 2], refused: [-0.00001, 2.00001] },
    ];
    for (const { path, accepted, refused } of edges) {
      const pointer = `/${path.join('/')}`;
      it(`${pointer} accepts ${accepted.join(', ')} and refuses ${refused.join(', ')} naming it`, async () => {
        const token = await server.token(['read']);
        for (const value of accepted) {
          const response = await server.api.post('/v1/goals/feasibility', { token, json: setAt(goal, path, value) });
          expect(response.status, `${pointer} = ${value}: ${response.text}`).to.equal(200);
        }
        for (const value of refused) {
          const response = await server.api.post('/v1/goals/feasibility', { token, json: setAt(goal, path, value) });
          expect(response.status, `${pointer} = ${value}`).to.equal(400);
          expect(
            response.body.errors.map((e: { pointer: string }) => e.pointer),
            `${pointer} = ${value}`,
          ).to.deep.equal([pointer]);
        }
      });
    }

    it('refuses the request that grew the process by 450 MB a second (issue 20): a horizon and a target far below a day and a cent', async () => {
      const body = {
        capital: 2.225073858507203e-309,
        horizon_years: 1e-323,
        market: 'GB',
        target: 1e-5,
        assumptions: { expected_return: -1.1754943508222875e-38, volatility: 5.960464477539063e-8 },
        confidence: 0.5000000000000001,
        monthly_contribution: 695128708.4084313,
      };
      const response = await server.api.post('/v1/goals/feasibility', { token: await server.token(['read']), json: body });
      expect(response.status).to.equal(400);
      expect(response.body.errors.map((e: { pointer: string }) => e.pointer)).to.deep.equal(['/target', '/horizon_years']);
      const fixed = await server.api.post('/v1/goals/feasibility', {
        token: await server.token(['read']),
        json: { ...body, target: 1, horizon_years: 1, monthly_contribution: 0 },
      });
      expect(fixed.status, 'the capital is refused by the service, below the minor unit').to.equal(400);
      expect(fixed.body.errors).to.deep.equal([
        { pointer: '/capital', detail: "must be 0 or at least 0.01 GBP, the currency's minor unit" },
      ]);
    });

    it('holds amounts to the currency’s minor unit: whole yen in JP, where the schema’s 0.01 would pass', async () => {
      const token = await server.token(['read']);
      const yen = { ...goal, market: 'JP', capital: 0, target: 1, monthly_contribution: 1 };
      expect((await server.api.post('/v1/goals/feasibility', { token, json: yen })).status).to.equal(200);
      expect((await server.api.post('/v1/goals/feasibility', { token, json: { ...yen, capital: 1 } })).status).to.equal(200);
      const refused = await server.api.post('/v1/goals/feasibility', {
        token,
        json: { ...yen, capital: 0.99, target: 0.99, monthly_contribution: 0.5 },
      });
      expect(refused.status).to.equal(400);
      expect(refused.body.errors).to.deep.equal([
        { pointer: '/capital', detail: "must be 0 or at least 1 JPY, the currency's minor unit" },
        { pointer: '/target', detail: "must be at least 1 JPY, the currency's minor unit" },
        { pointer: '/monthly_contribution', detail: "must be 0 or at least 1 JPY, the currency's minor unit" },
      ]);
    });
  });

  describe('POST /v1/policies', () => {
    const policy = () => ({
      limits: {
        max_order_notional: 10000,
        max_position_weight: 0.7,
        max_daily_notional: 25000,
        max_daily_loss: 2000,
        allowed_markets: ['US'],
      },
      target_allocation: [
        { symbol: 'VTI', weight: 0.6 },
        { symbol: 'BND', weight: 0.4 },
      ],
      rebalance_band: 0.05,
      consent: { disclosure_version: disclosureVersion, accepted: true, signer_name: 'Ada Lovelace' },
    });
    const edges: Edge[] = [
      { path: ['limits', 'max_order_notional'], accepted: [0.01, 1e12], refused: [0, 0.009, 1e12 + 0.01] },
      { path: ['limits', 'max_daily_notional'], accepted: [0.01, 1e12], refused: [0, 0.009, 1e12 + 0.01] },
      { path: ['limits', 'max_daily_loss'], accepted: [0.01, 1e12], refused: [0, 0.009, 1e12 + 0.01] },
      { path: ['limits', 'max_position_weight'], accepted: [0, 1], refused: [-0.01, 1.01] },
      { path: ['rebalance_band'], accepted: [0, 0.5], refused: [-0.0001, 0.5001] },
    ];
    for (const { path, accepted, refused } of edges) {
      const pointer = `/${path.join('/')}`;
      it(`${pointer} accepts ${accepted.join(', ')} as sent and refuses ${refused.join(', ')} naming it`, async () => {
        const token = await server.token(['read', 'trade']);
        for (const value of accepted) {
          const response = await server.api.post('/v1/policies', { token, json: setAt(policy(), path, value) });
          expect(response.status, `${pointer} = ${value}: ${response.text}`).to.equal(201);
          expect(
            path.reduce((node: any, key) => node[key], response.body),
            pointer,
          ).to.equal(value);
        }
        const versions = (await server.api.get('/v1/policies', { token })).body.data.length;
        for (const value of refused) {
          const response = await server.api.post('/v1/policies', { token, json: setAt(policy(), path, value) });
          expect(response.status, `${pointer} = ${value}`).to.equal(400);
          expect(
            response.body.errors.map((e: { pointer: string }) => e.pointer),
            `${pointer} = ${value}`,
          ).to.deep.equal([pointer]);
        }
        expect((await server.api.get('/v1/policies', { token })).body.data).to.have.length(versions);
      });
    }

    it('/target_allocation/*/weight accepts 0 and 1 and refuses -0.1 and 1.1 naming it', async () => {
      const token = await server.token(['read', 'trade']);
      const allocation = [
        { symbol: 'VTI', weight: 1 },
        { symbol: 'BND', weight: 0 },
      ];
      expect((await server.api.post('/v1/policies', { token, json: { ...policy(), target_allocation: allocation } })).status).to.equal(201);
      for (const weight of [-0.1, 1.1]) {
        const response = await server.api.post('/v1/policies', {
          token,
          json: { ...policy(), target_allocation: [{ symbol: 'VTI', weight }] },
        });
        expect(response.status, String(weight)).to.equal(400);
        expect(response.body.errors.map((e: { pointer: string }) => e.pointer)).to.deep.equal(['/target_allocation/0/weight']);
      }
    });
  });

  describe('parameters', () => {
    it('limit accepts 1 and 100 and refuses 0 and 101; a policy version accepts 1 to 2147483647 and refuses 0 and 2147483648', async () => {
      const token = await server.token(['read']);
      for (const limit of [1, 100])
        expect((await server.api.get(`/v1/policies?limit=${limit}`, { token })).status, String(limit)).to.equal(200);
      for (const limit of [0, 101]) {
        const response = await server.api.get(`/v1/orders?limit=${limit}`, { token });
        expect(response.status, String(limit)).to.equal(400);
        expect(response.body.errors.map((e: { pointer: string }) => e.pointer)).to.deep.equal(['/query/limit']);
      }
      for (const version of [1, 2147483647])
        expect((await server.api.get(`/v1/policies/${version}`, { token })).status, String(version)).to.equal(404);
      for (const version of [0, 2147483648]) {
        const response = await server.api.get(`/v1/policies/${version}`, { token });
        expect(response.status, String(version)).to.equal(400);
        // 2147483648 breaks both the maximum and the int32 format: two errors, one field.
        expect(new Set(response.body.errors.map((e: { pointer: string }) => e.pointer))).to.deep.equal(new Set(['/path/version']));
      }
    });
  });

  it('GraphQL and MCP refuse the same values beyond the edges, naming the same fields', async () => {
    const token = await server.token(['read', 'trade', 'mcp']);
    const goal = { capital: 0.009, target: 100, horizon_years: 0.00273785, market: 'US' };
    const feasibility = await graphql(server, 'query($g: GoalFeasibilityRequest!) { goalFeasibility(input: $g) { probability } }', {
      token,
      variables: { g: goal },
    });
    expect(feasibility.body.errors![0].extensions.errors.map((e: { pointer: string }) => e.pointer)).to.deep.equal([
      '/input/horizon_years',
    ]);
    const cents = await graphql(server, 'query($g: GoalFeasibilityRequest!) { goalFeasibility(input: $g) { probability } }', {
      token,
      variables: { g: { ...goal, horizon_years: 1 } },
    });
    expect(cents.body.errors![0].extensions.errors.map((e: { pointer: string }) => e.pointer)).to.deep.equal(['/input/capital']);
    const page = await graphql(server, '{ policies(limit: 101) { next_cursor } }', { token });
    expect(page.body.errors![0].extensions.errors.map((e: { pointer: string }) => e.pointer)).to.deep.equal(['/limit']);

    const tool = async (name: string, args: Record<string, unknown>) => {
      const response = await rpc(server, token, 'tools/call', { name, arguments: args });
      expect(response.body.result.isError, name).to.equal(true);
      return JSON.parse(response.body.result.content[0].text).errors.map((e: { pointer: string }) => e.pointer);
    };
    expect(await tool('evaluateGoalFeasibility', goal)).to.deep.equal(['/horizon_years']);
    expect(await tool('evaluateGoalFeasibility', { ...goal, horizon_years: 1 })).to.deep.equal(['/capital']);
    expect(await tool('listPolicies', { limit: 101 })).to.deep.equal(['/limit']);
    const limits = {
      max_order_notional: 1e12 + 0.01,
      max_position_weight: 0.7,
      max_daily_notional: 25000,
      max_daily_loss: 2000,
      allowed_markets: ['US'],
    };
    const consent = { disclosure_version: disclosureVersion, accepted: true, signer_name: 'Ada' };
    expect(await tool('createPolicy', { limits, target_allocation: [{ symbol: 'VTI', weight: 1 }], consent })).to.deep.equal([
      '/limits/max_order_notional',
    ]);
  });
});
