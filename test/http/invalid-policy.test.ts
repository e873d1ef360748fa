import { expect } from 'chai';
import { graphql } from '../graphql/support.js';
import { rpc } from '../support/mcp.js';
import { AdjustablePrices } from '../support/prices.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { createPolicy, manualClock, propose } from '../support/trading.js';

// Before limits were bounded, `"max_order_notional": 1e400` was accepted (Infinity passed `exclusiveMinimum: 0`) and
// stored by JSON.stringify as null; ideas and approvals then failed with 500 until a new version was signed. Such
// rows are written here below the API, exactly as that code wrote them, and every interface is asked about them.
describe('a policy version stored before limits were bounded (a null limit from 1e400) is 409 policy-invalid wherever it is read or used, never a 500', () => {
  let server: TestServer;
  const clock = manualClock('2026-11-20T15:00:00Z');

  before(async () => {
    server = await startTestServer({}, { clock, prices: new AdjustablePrices() });
  });
  after(() => server.close());

  /** An account whose version 1 is valid and version 2 was stored with `limits` changed as given (Infinity → null). */
  async function holderOfInvalidPolicy(limits: Record<string, unknown> = { max_order_notional: Infinity }) {
    const account = await server.account(['read', 'trade', 'write', 'mcp']);
    await createPolicy(server, account.token);
    const { db } = server.context.store;
    const v1 = await db.selectFrom('policies').selectAll().where('account_id', '=', account.accountId).executeTakeFirstOrThrow();
    await db
      .insertInto('policies')
      .values({
        ...v1,
        version: 2,
        limits: JSON.stringify({ ...v1.limits, ...limits }),
        target_allocation: JSON.stringify(v1.target_allocation),
        consent: JSON.stringify(v1.consent),
      })
      .execute();
    const [order, other] = await propose(server, account, [
      { symbol: 'VTI', side: 'buy', quantity: '1' },
      { symbol: 'BND', side: 'buy', quantity: '1' },
    ]);
    return { ...account, order: order!, other: other! };
  }

  const expectPolicyInvalid = (problem: Record<string, unknown>, invalid = ['max_order_notional']) => {
    expect(problem).to.deep.include({
      type: `${server.url}/problems/policy-invalid`,
      title: 'Policy invalid',
      status: 409,
      policy_version: 2,
      invalid_limits: invalid,
    });
    expect(problem.detail).to.match(/^Policy version 2 cannot be used: .*Sign a new policy version \(POST \/v1\/policies\)/);
  };

  it('REST: reads and uses answer 409; the list leaves the version out; the order stays proposed; reject, reports and a new version still work', async () => {
    const { token, order, other } = await holderOfInvalidPolicy();
    const ideasBefore = (await server.api.get('/v1/ideas', { token })).body.data.length;

    const current = await server.api.get('/v1/policies/current', { token });
    expect(current.status).to.equal(409);
    expectPolicyInvalid(current.body);
    expect((await server.api.get('/v1/policies/2', { token })).status).to.equal(409);
    expect((await server.api.get('/v1/policies/1', { token })).status).to.equal(200);
    expect((await server.api.get('/v1/policies', { token })).body.data.map((p: { version: number }) => p.version)).to.deep.equal([1]);

    const ideas = await server.api.post('/v1/ideas/generate', { token, json: { mode: 'rebalance', market: 'US' } });
    expect(ideas.status).to.equal(409);
    expectPolicyInvalid(ideas.body);
    expect((await server.api.get('/v1/ideas', { token })).body.data).to.have.length(ideasBefore);

    const approved = await server.api.post(`/v1/orders/${order.id}/approve`, { token });
    expect(approved.status).to.equal(409);
    expectPolicyInvalid(approved.body);
    const unchanged = (await server.api.get(`/v1/orders/${order.id}`, { token })).body;
    expect(unchanged.status).to.equal('proposed');
    expect(unchanged.events).to.have.length(1);
    expect((await server.api.get('/v1/portfolio?market=US', { token })).body.holdings).to.deep.equal([]);

    expect((await server.api.post(`/v1/orders/${other.id}/reject`, { token, json: { reason: 'no' } })).body.status).to.equal('rejected');
    expect((await server.api.post('/v1/reports/daily', { token, json: { date: '2026-11-20' } })).status).to.equal(201);

    await createPolicy(server, token);
    expect((await server.api.get('/v1/policies/current', { token })).body.version).to.equal(3);
    expect((await server.api.get('/v1/policies', { token })).body.data.map((p: { version: number }) => p.version)).to.deep.equal([3, 1]);
    expect((await server.api.post(`/v1/orders/${order.id}/approve`, { token })).body.status).to.equal('filled');
    expect((await server.api.get('/v1/policies/2', { token })).status, 'the stored version is kept, still refused').to.equal(409);
  });

  it('treats any limit the declared bounds exclude alike: one above the maximum the old schema let through, one missing', async () => {
    const { token } = await holderOfInvalidPolicy({ max_daily_loss: 1e300, max_daily_notional: undefined });
    const current = await server.api.get('/v1/policies/current', { token });
    expect(current.status).to.equal(409);
    expect(current.body.invalid_limits).to.deep.equal(['max_daily_notional', 'max_daily_loss']);
  });

  it('GraphQL: currentPolicy, policy, generateIdeas and approveOrder are POLICY_INVALID errors; policies lists the valid versions', async () => {
    const { token, order } = await holderOfInvalidPolicy();
    const read = await graphql(server, '{ currentPolicy { version } policy(version: 2) { version } policies { data { version } } }', {
      token,
    });
    expect(read.body.data).to.deep.equal({ currentPolicy: null, policy: null, policies: { data: [{ version: 1 }] } });
    // Sibling fields resolve concurrently; GraphQL lists their errors in the order they were raised.
    expect(read.body.errors!.map((e) => e.path[0]).sort()).to.deep.equal(['currentPolicy', 'policy']);
    for (const error of read.body.errors!) {
      expect(error.extensions.code).to.equal('POLICY_INVALID');
      expectPolicyInvalid(error.extensions);
    }
    const used = await graphql(
      server,
      `mutation { generateIdeas(input: {mode: rebalance, market: "US"}) { notes } approveOrder(id: "${order.id}") { status } }`,
      { token },
    );
    expect(used.body.data).to.deep.equal({ generateIdeas: null, approveOrder: null });
    expect(used.body.errors!.map((e) => e.extensions.code)).to.deep.equal(['POLICY_INVALID', 'POLICY_INVALID']);
  });

  it('MCP: the tools answer isError with the policy-invalid problem, the policy resource a JSON-RPC error carrying it', async () => {
    const { token, order } = await holderOfInvalidPolicy();
    const tool = async (name: string, args: Record<string, unknown> = {}) =>
      (await rpc(server, token, 'tools/call', { name, arguments: args })).body.result;
    for (const [name, args] of [
      ['getCurrentPolicy', {}],
      ['getPolicy', { version: 2 }],
      ['generateIdeas', { mode: 'invest_cash', market: 'US' }],
      ['approveOrder', { id: order.id, preview_id: 'prv_none' }],
    ] as const) {
      const result = await tool(name, args);
      expect(result.isError, name).to.equal(true);
      expectPolicyInvalid(JSON.parse(result.content[0].text));
    }
    expect((await tool('listPolicies')).structuredContent.data.map((p: { version: number }) => p.version)).to.deep.equal([1]);
    const resource = await rpc(server, token, 'resources/read', { uri: 'ias://policies/current' });
    expectPolicyInvalid(resource.body.error.data);
  });

  it('dashboard: the policy page says which version is invalid and offers the form to sign a new one', async () => {
    const { accountId } = await holderOfInvalidPolicy();
    const { token: session } = await server.services.sessions.create(accountId, { ip: '127.0.0.1', userAgent: 'test' });
    const page = await fetch(`${server.dashboardUrl}/policy`, { headers: { cookie: `ias_session=${session}` } });
    expect(page.status).to.equal(200);
    const text = await page.text();
    expect(text).to.include('Policy version 2 cannot be used: max_order_notional is not a number from 0.01 to 1000000000000');
    expect(text).to.include('<form method="post" action="/policy"');
  });
});
