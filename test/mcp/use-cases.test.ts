import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { callTool, connectMcp } from '../support/mcp.js';
import { createPolicy, manualClock, propose } from '../support/trading.js';

const TODAY = '2026-11-20';

/** Every tool's use case through MCP and REST on one account: the same answer. */
describe('MCP tools answer what REST answers, on the same account', () => {
  let server: TestServer;
  let account: { token: string; accountId: string; clientId: string };
  let mcp: Client;
  const clock = manualClock(`${TODAY}T15:00:00Z`);

  before(async () => {
    server = await startTestServer({}, { clock });
    account = await server.account(['read', 'write', 'trade', 'mcp']);
    await createPolicy(server, account.token);
    mcp = await connectMcp(server, account.token);
  });
  after(async () => {
    await mcp.close();
    await server.close();
  });

  const rest = async (path: string, json?: unknown) => {
    const response =
      json === undefined
        ? await server.api.get(path, { token: account.token })
        : await server.api.post(path, { token: account.token, json });
    expect(response.status, `${path}: ${response.text}`).to.be.within(200, 201);
    return response.body;
  };
  const tool = async (name: string, args: Record<string, unknown> = {}) => {
    const answer = await callTool(mcp, name, args);
    expect(answer.ok, `${name}: ${JSON.stringify(answer)}`).to.equal(true);
    expect(JSON.parse((answer.result.content[0] as { text: string }).text), `${name}: the text rendering`).to.deep.equal(answer.value);
    return answer.value;
  };

  it('evaluateGoalFeasibility returns the same numbers as POST /v1/goals/feasibility', async () => {
    const goal = { capital: 10000, target: 25000, horizon_years: 10, market: 'US', monthly_contribution: 200, confidence: 0.7 };
    const answer = await tool('evaluateGoalFeasibility', goal);
    expect(answer).to.deep.equal(await rest('/v1/goals/feasibility', goal));
    expect(answer.probability).to.be.a('number').within(0, 1);
    expect(answer.required_growth_rate).to.be.closeTo((25000 / 10000) ** (1 / 10) - 1, 1e-12);
  });

  it('the reads answer what their GET answers', async () => {
    const reads: [string, Record<string, unknown>, string][] = [
      ['getCurrentDisclosure', {}, '/v1/disclosures/current'],
      ['getCurrentPolicy', {}, '/v1/policies/current'],
      ['listPolicies', { limit: 1 }, '/v1/policies?limit=1'],
      ['getPolicy', { version: 1 }, '/v1/policies/1'],
      ['getPortfolio', { market: 'US' }, '/v1/portfolio?market=US'],
      ['getPortfolio', {}, '/v1/portfolio'],
      ['listBrokers', { limit: 2 }, '/v1/brokers?limit=2'],
      ['getKillSwitch', {}, '/v1/kill-switch'],
    ];
    for (const [name, args, path] of reads) expect(await tool(name, args), name).to.deep.equal(await rest(path));
  });

  it('generateIdeas proposes what REST then reads, and the idea and order reads agree', async () => {
    const { ideas } = await tool('generateIdeas', { mode: 'invest_cash', market: 'US' });
    expect(ideas).to.have.length(1);
    const idea = ideas[0];
    expect(await rest(`/v1/ideas/${idea.id}`)).to.deep.equal(idea);
    expect(await tool('getIdea', { id: idea.id })).to.deep.equal(idea);
    expect(await tool('listIdeas', { mode: 'invest_cash' })).to.deep.equal(await rest('/v1/ideas?mode=invest_cash'));
    const order = idea.orders[0];
    expect(await tool('getOrder', { id: order.id })).to.deep.equal(await rest(`/v1/orders/${order.id}`));
    expect(await tool('listOrders', { idea_id: idea.id, limit: 5 })).to.deep.equal(await rest(`/v1/orders?idea_id=${idea.id}&limit=5`));
  });

  it('approveOrder, rejectOrder and cancelOrder move the order REST then reads, with the MCP client in its events', async () => {
    const [toApprove, toReject, toCancel] = await propose(server, account, [
      { symbol: 'VTI', side: 'buy', quantity: '2' },
      { symbol: 'BND', side: 'buy', quantity: '3' },
      { symbol: 'VTI', side: 'buy', quantity: '1' },
    ]);
    const preview = await tool('previewOrder', { id: toApprove!.id });
    const approved = await tool('approveOrder', { id: toApprove!.id, preview_id: preview.id });
    expect(approved).to.include({ status: 'filled', filled_quantity: 2 });
    expect(approved.events.find((e: { to: string }) => e.to === 'submitted').client_id).to.equal(account.clientId);
    expect(await rest(`/v1/orders/${toApprove!.id}`)).to.deep.equal(approved);
    const rejected = await tool('rejectOrder', { id: toReject!.id, reason: 'not now' });
    expect(rejected.events.at(-1)).to.include({ to: 'rejected', reason: 'not now' });
    expect(await rest(`/v1/orders/${toReject!.id}`)).to.deep.equal(rejected);
    const cancelled = await tool('cancelOrder', { id: toCancel!.id });
    expect(cancelled.status).to.equal('cancelled');
    expect(await rest(`/v1/orders/${toCancel!.id}`)).to.deep.equal(cancelled);
    expect(await tool('getPortfolio', { market: 'US' })).to.deep.equal(await rest('/v1/portfolio?market=US'));
  });

  it('generateDailyReport stores the report REST reads, and the report reads agree', async () => {
    const report = await tool('generateDailyReport', { date: TODAY });
    expect(report.date).to.equal(TODAY);
    expect(await rest(`/v1/reports/daily/${TODAY}`)).to.deep.equal(report);
    expect(await tool('getDailyReport', { date: TODAY })).to.deep.equal(report);
    expect(await tool('listDailyReports', { from: TODAY, to: TODAY })).to.deep.equal(
      await rest(`/v1/reports/daily?from=${TODAY}&to=${TODAY}`),
    );
  });

  it('createPolicy makes the version REST then reads as current, consent recorded from the MCP request', async () => {
    const disclosure = await tool('getCurrentDisclosure');
    const created = await tool('createPolicy', {
      limits: {
        max_order_notional: 40000,
        max_position_weight: 0.7,
        max_daily_notional: 300000,
        max_daily_loss: 30000,
        allowed_markets: ['US'],
      },
      target_allocation: [
        { symbol: 'VTI', weight: 0.5 },
        { symbol: 'BND', weight: 0.5 },
      ],
      consent: { disclosure_version: disclosure.version, accepted: true, signer_name: 'Assistant User' },
    });
    expect(created.version).to.equal(2);
    expect(created.consent).to.include({ disclosure_version: disclosure.version, signer_name: 'Assistant User' });
    expect(await rest('/v1/policies/current')).to.deep.equal(created);
  });

  it('engageKillSwitch engages the switch REST then reads', async () => {
    const engaged = await tool('engageKillSwitch', { reason: 'assistant saw a crash' });
    expect(engaged).to.include({ engaged: true, reason: 'assistant saw a crash', engaged_by: account.clientId, level: 'account' });
    expect(await rest('/v1/kill-switch')).to.deep.equal(engaged);
    expect(await tool('engageKillSwitch', { reason: 'again' }), 'engaging twice changes nothing').to.deep.equal(engaged);
  });

  it('the resources hold what getCurrentDisclosure and getCurrentPolicy answer', async () => {
    const disclosure = await rest('/v1/disclosures/current');
    const [text] = (await mcp.readResource({ uri: 'ias://disclosures/current' })).contents;
    expect(text).to.deep.include({ uri: 'ias://disclosures/current', mimeType: 'text/markdown', text: disclosure.text });
    expect(text!._meta).to.deep.equal({ version: disclosure.version, sha256: disclosure.sha256, title: disclosure.title });
    const [policy] = (await mcp.readResource({ uri: 'ias://policies/current' })).contents;
    expect(policy!.mimeType).to.equal('application/json');
    expect(JSON.parse((policy as { text: string }).text)).to.deep.equal(await rest('/v1/policies/current'));
  });
});
