import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { pino } from 'pino';
import { loadDocument } from '../../src/document.js';
import { McpCatalogue } from '../../src/mcp/server.js';
import type { Services } from '../../src/services/index.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { callTool, connectMcp, sameProblem } from '../support/mcp.js';
import { createPolicy, manualClock, propose } from '../support/trading.js';

/** Failures through MCP: isError results carrying the problem document REST answers for the same call. */
describe('MCP tool errors carry the problem documents REST answers', () => {
  let server: TestServer;
  const clock = manualClock('2026-11-20T15:00:00Z');

  before(async () => {
    server = await startTestServer({}, { clock });
  });
  after(() => server.close());

  /** An account with a policy, its REST token, and the stock MCP client on the same token. */
  async function holder(limits: Record<string, unknown> = {}) {
    const account = await server.account(['read', 'write', 'trade', 'mcp']);
    await createPolicy(server, account.token, { limits });
    const mcp = await connectMcp(server, account.token);
    const post = (path: string, json?: unknown) => server.api.post(path, { token: account.token, json });
    const failure = async (name: string, args: Record<string, unknown>) => {
      const answer = await callTool(mcp, name, args);
      expect(answer.ok, `${name} unexpectedly succeeded`).to.equal(false);
      expect(answer.result.structuredContent).to.equal(undefined);
      return answer.problem;
    };
    /** The preview an approval over MCP must be bound to. */
    const previewed = async (id: string) => (await callTool(mcp, 'previewOrder', { id })).value.id as string;
    return { ...account, mcp, post, failure, previewed };
  }

  it('a trigger the order state refuses: the same 409 invalid-state problem', async () => {
    const { mcp, post, failure, previewed, ...account } = await holder();
    const [order] = await propose(server, account, [{ symbol: 'BND', side: 'buy', quantity: '3' }]);
    await post(`/v1/orders/${order!.id}/reject`);
    for (const trigger of ['approve', 'reject', 'cancel']) {
      const rest = await post(`/v1/orders/${order!.id}/${trigger}`);
      expect(rest.status).to.equal(409);
      // Over MCP an approval names a preview; the order's state refuses it first.
      const problem = await failure(`${trigger}Order`, { id: order!.id, ...(trigger === 'approve' ? { preview_id: 'prv_any' } : {}) });
      expect(sameProblem(problem)).to.deep.equal(sameProblem(rest.body));
      expect(problem).to.include({ type: `${server.url}/problems/invalid-state`, current_state: 'rejected' });
      expect(problem.request_id).to.be.a('string');
    }
    await mcp.close();
  });

  it('an approval the checks refuse: the order is blocked and the 422 checks-failed problem lists the same checks', async () => {
    const limits = { max_order_notional: 1e12, max_daily_notional: 1e12, max_position_weight: 1 };
    const viaMcp = await holder(limits);
    const viaRest = await holder(limits);
    const [mcpOrder] = await propose(server, viaMcp, [{ symbol: 'VTI', side: 'buy', quantity: '100000' }]);
    const [restOrder] = await propose(server, viaRest, [{ symbol: 'VTI', side: 'buy', quantity: '100000' }]);
    const problem = await viaMcp.failure('approveOrder', { id: mcpOrder!.id, preview_id: await viaMcp.previewed(mcpOrder!.id) });
    const rest = await viaRest.post(`/v1/orders/${restOrder!.id}/approve`);
    expect(rest.status).to.equal(422);
    const { order: mcpView, ...mcpRest } = sameProblem(problem);
    const { order: restView, ...restRest } = sameProblem(rest.body);
    expect(mcpRest).to.deep.equal(restRest);
    expect(problem.failed_checks.map((f: { check: string }) => f.check)).to.include('risk.buying_power');
    expect(mcpView).to.deep.include({ id: mcpOrder!.id, status: 'blocked' });
    expect((await server.api.get(`/v1/orders/${mcpOrder!.id}`, { token: viaMcp.token })).body).to.deep.equal(mcpView);
    expect((restView as { status: string }).status).to.equal('blocked');
    await viaMcp.mcp.close();
    await viaRest.mcp.close();
  });

  it('an approval under an engaged kill switch: the same 409 kill-switch-engaged problem, the order stays proposed', async () => {
    const { mcp, post, failure, previewed, ...account } = await holder();
    const [first, second] = await propose(server, account, [
      { symbol: 'VTI', side: 'buy', quantity: '1' },
      { symbol: 'BND', side: 'buy', quantity: '1' },
    ]);
    await post('/v1/kill-switch', { reason: 'stop' });
    const problem = await failure('approveOrder', { id: first!.id, preview_id: await previewed(first!.id) });
    const rest = await post(`/v1/orders/${second!.id}/approve`);
    expect(rest.status).to.equal(409);
    expect(sameProblem(problem)).to.deep.equal(sameProblem(rest.body));
    expect(problem.type).to.equal(`${server.url}/problems/kill-switch-engaged`);
    expect((await callTool(mcp, 'getOrder', { id: first!.id })).value.status).to.equal('proposed');
    await mcp.close();
  });

  it('domain refusals: the same problem for not-found, unsupported-market, consent, policy-required, assistant and report-date failures', async () => {
    const { mcp, token } = await holder();
    const fresh = await server.account(['read', 'write', 'trade', 'mcp']);
    const freshMcp = await connectMcp(server, fresh.token);
    const cases: [Client, string, string, Record<string, unknown>, string, string, unknown?][] = [
      [mcp, token, 'getOrder', { id: 'ord_missing' }, 'not-found', '/v1/orders/ord_missing'],
      [mcp, token, 'getPolicy', { version: 99 }, 'not-found', '/v1/policies/99'],
      [
        mcp,
        token,
        'evaluateGoalFeasibility',
        { capital: 1, target: 2, horizon_years: 1, market: 'ZZ' },
        'unsupported-market',
        '/v1/goals/feasibility',
        'json',
      ],
      [mcp, token, 'generateIdeas', { mode: 'assistant', market: 'US' }, 'assistant-not-configured', '/v1/ideas/generate', 'json'],
      [mcp, token, 'generateDailyReport', { date: '2026-11-21' }, 'report-date-out-of-range', '/v1/reports/daily', 'json'],
      [freshMcp, fresh.token, 'generateIdeas', { mode: 'invest_cash', market: 'US' }, 'policy-required', '/v1/ideas/generate', 'json'],
      [
        freshMcp,
        fresh.token,
        'createPolicy',
        {
          limits: { max_order_notional: 1, max_position_weight: 1, max_daily_notional: 1, max_daily_loss: 1, allowed_markets: ['US'] },
          target_allocation: [{ symbol: 'VTI', weight: 1 }],
        },
        'consent-required',
        '/v1/policies',
        'json',
      ],
    ];
    for (const [client, restToken, name, args, slug, path, json] of cases) {
      const answer = await callTool(client, name, args);
      const rest = json ? await server.api.post(path, { token: restToken, json: args }) : await server.api.get(path, { token: restToken });
      expect(answer.ok, name).to.equal(false);
      expect(answer.problem.type, name).to.equal(`${server.url}/problems/${slug}`);
      expect(sameProblem(answer.problem), name).to.deep.equal(sameProblem(rest.body));
    }
    await mcp.close();
    await freshMcp.close();
  });

  it('invalid arguments: the validation problem REST answers, pointing into the tool arguments', async () => {
    const { mcp, token } = await holder();
    const goal = { capital: -1, horizon_years: 10, market: 'US', colour: 'blue' };
    const problem = await callTool(mcp, 'evaluateGoalFeasibility', goal);
    const rest = await server.api.post('/v1/goals/feasibility', { token, json: goal });
    expect(rest.status).to.equal(400);
    const byPointer = (errors: { pointer: string }[]) => [...errors].sort((a, b) => a.pointer.localeCompare(b.pointer));
    expect(byPointer(problem.problem.errors)).to.deep.equal(byPointer(rest.body.errors));
    expect(problem.problem.errors.map((e: { pointer: string }) => e.pointer).sort()).to.deep.equal(['/capital', '/colour', '/target']);
    const { errors: _a, ...mcpRest } = sameProblem(problem.problem);
    const { errors: _b, ...restRest } = sameProblem(rest.body);
    expect(mcpRest).to.deep.equal(restRest);
    // A parameter is named by its argument, where REST points into the query.
    const page = await callTool(mcp, 'listOrders', { limit: 0 });
    expect(page.problem.errors).to.deep.equal([{ pointer: '/limit', detail: 'must be >= 1' }]);
    expect((await server.api.get('/v1/orders?limit=0', { token })).body.errors).to.deep.equal([
      { pointer: '/query/limit', detail: 'must be >= 1' },
    ]);
    await mcp.close();
  });

  it("answers an unknown tool, an unknown resource and a missing policy as JSON-RPC errors, the last carrying REST's problem", async () => {
    const fresh = await server.account(['read', 'mcp']);
    const mcp = await connectMcp(server, fresh.token);
    const rejection = async (work: Promise<unknown>) =>
      work.then(
        () => expect.fail('unexpectedly succeeded'),
        (error: unknown) => error as McpError,
      );
    expect(await rejection(mcp.callTool({ name: 'dropTables', arguments: {} }))).to.include({ code: -32602 });
    expect(await rejection(mcp.readResource({ uri: 'ias://nothing' }))).to.include({ code: -32002 });
    const missing = await rejection(mcp.readResource({ uri: 'ias://policies/current' }));
    expect(missing.code).to.equal(-32002);
    const rest = await server.api.get('/v1/policies/current', { token: fresh.token });
    expect(sameProblem(missing.data as Record<string, unknown>)).to.deep.equal(sameProblem(rest.body));
    await mcp.close();
  });

  it('answers an unexpected failure as the internal-error problem, without its message', async () => {
    const catalogue = new McpCatalogue(loadDocument(), server.url);
    const failing = { killSwitch: { get: () => Promise.reject(new Error('connection string postgres://secret')) } } as unknown as Services;
    const caller = {
      principal: {
        accountId: 'acct_1',
        clientId: 'ias_client_1',
        scopes: new Set(['read', 'mcp']),
        generation: 1,
        tokenId: 't',
        expiresAt: Date.now() + 60_000,
      },
      origin: { ip: '127.0.0.1', userAgent: null },
      requestId: 'req-1',
      log: pino({ level: 'silent' }),
    };
    const result = await catalogue.callTool(failing, caller, 'getKillSwitch', {});
    expect(result.isError).to.equal(true);
    const text = (result.content[0] as { text: string }).text;
    expect(JSON.parse(text)).to.include({ type: `${server.url}/problems/internal-error`, status: 500, request_id: 'req-1' });
    expect(text).to.not.include('secret');
  });
});
