import { expect } from 'chai';
import { operationScopes } from '../../generated/operation-scopes.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { rpc } from '../support/mcp.js';

const ALL = ['read', 'write', 'trade', 'mcp'];
const TOOLS = Object.entries(operationScopes).map(([name, sets]) => ({ name, scope: sets[0][0] }));

/** Every scope rule of the REST suite, through MCP: the tool's own scope and `mcp`, each refused without the other. */
describe('MCP scopes: each tool needs mcp and the scope of its operation', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  const call = (token: string, name: string) => rpc(server, token, 'tools/call', { name, arguments: {} });

  it('answers every tool called without its operation scope 403, naming that scope and mcp', async () => {
    for (const { name, scope } of TOOLS) {
      const response = await call(await server.token(ALL.filter((s) => s !== scope)), name);
      expect(response.status, name).to.equal(403);
      expect(response.body, name).to.include({ type: `${server.url}/problems/insufficient-scope`, required_scope: `${scope} mcp` });
      expect(response.headers.get('www-authenticate'), name).to.include(`error="insufficient_scope"`).and.include(`scope="${scope} mcp"`);
    }
  });

  it('answers every tool called with its operation scope but without mcp 403, naming mcp', async () => {
    for (const { name, scope } of TOOLS) {
      const response = await call(await server.token([scope]), name);
      expect(response.status, name).to.equal(403);
      expect(response.body.required_scope, name).to.equal('mcp');
    }
  });

  it('runs every tool for a token holding exactly its scope and mcp (the answer may be a domain problem, never a scope refusal)', async () => {
    for (const { name, scope } of TOOLS) {
      const response = await call(await server.token([scope, 'mcp']), name);
      expect(response.status, name).to.equal(200);
      const result = response.body.result;
      if (result.isError) expect(JSON.parse(result.content[0].text).type, name).to.not.equal(`${server.url}/problems/insufficient-scope`);
    }
  });

  it('keeps a read-only assistant from trading, and asks write (not trade) for generateDailyReport', async () => {
    const reader = await server.token(['read', 'mcp']);
    for (const name of [
      'approveOrder',
      'rejectOrder',
      'cancelOrder',
      'generateIdeas',
      'createPolicy',
      'engageKillSwitch',
      'generateDailyReport',
    ]) {
      expect((await call(reader, name)).status, name).to.equal(403);
    }
    const trader = await server.token(['read', 'trade', 'mcp']);
    expect((await call(trader, 'generateDailyReport')).body.required_scope).to.equal('write mcp');
    const writer = await server.token(['write', 'mcp']);
    const report = await rpc(server, writer, 'tools/call', { name: 'generateDailyReport', arguments: { date: '2026-01-02' } });
    expect(report.body.result.structuredContent).to.include({ date: '2026-01-02' });
  });

  it('reads the resources with read and mcp only', async () => {
    for (const uri of ['ias://disclosures/current', 'ias://policies/current']) {
      const refused = await rpc(server, await server.token(['write', 'trade', 'mcp']), 'resources/read', { uri });
      expect(refused.status, uri).to.equal(403);
      expect(refused.body.required_scope).to.equal('read mcp');
    }
    const disclosure = await rpc(server, await server.token(['read', 'mcp']), 'resources/read', { uri: 'ias://disclosures/current' });
    expect(disclosure.body.result.contents[0].text).to.match(/^# Investment advisory disclosure/);
  });
});
