import { expect } from 'chai';
import { startBearerProxy } from '../support/bearer-proxy.js';
import { installConformanceSuite, runServerScenario } from '../support/mcp-conformance.js';
import { listeningSocket, startTestServer, type TestServer } from '../support/server.js';

/** The server scenarios of the official suite this server must pass (dns-rebinding-protection: MCP 2025-11-25). */
const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];

/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, pinned in test/mcp/conformance/) against
 * /mcp. It connects without a token, so it talks to a local proxy that adds one; the service's BASE_URL is the
 * proxy's URL, as behind any gateway, so the Host and Origin the suite sends name the service.
 */
describe('the official MCP conformance suite', () => {
  let suite: { node: string; cli: string };
  let server: TestServer;
  let proxy: Awaited<ReturnType<typeof startBearerProxy>>;

  before(async function () {
    this.timeout(300_000); // the first run downloads the suite and a Node 22 (tens of MB) from the npm registry
    suite = await installConformanceSuite();
    const { socket, port } = await listeningSocket();
    server = await startTestServer({ BASE_URL: `http://127.0.0.1:${port}` });
    proxy = await startBearerProxy(socket, Number(new URL(server.api.baseUrl).port), await server.token(['read', 'mcp']));
  });
  after(async () => {
    await proxy?.close();
    await server?.close();
  });

  for (const scenario of SCENARIOS) {
    it(`passes ${scenario}`, async function () {
      this.timeout(90_000);
      const result = await runServerScenario(suite, `${proxy.url}/mcp`, scenario);
      const failed = result.checks.filter((c) => c.status !== 'SUCCESS' && c.status !== 'INFO');
      expect(result.checks, result.output).to.not.be.empty;
      expect(failed, result.output).to.deep.equal([]);
      expect(result.code, result.output).to.equal(0);
    });
  }
});
