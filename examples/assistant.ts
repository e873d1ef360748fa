// An AI assistant's side of /mcp: a stock OAuth client (oauth4webapi) gets a token holding `mcp` and the scopes of
// the tools it will call, for the MCP endpoint as resource (RFC 8707); the stock MCP SDK client then lists the tools
// and calls one. Usage: tsx assistant.ts BASE_URL CLIENT_ID CLIENT_SECRET
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import * as oauth from 'oauth4webapi';

const [baseUrl, clientId, clientSecret] = process.argv.slice(2) as [string, string, string];
const issuer = new URL(baseUrl);
const options = issuer.protocol === 'http:' ? { [oauth.allowInsecureRequests]: true } : {};

const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...options }));
const client: oauth.Client = { client_id: clientId };
const grant = await oauth.clientCredentialsGrantRequest(
  as,
  client,
  oauth.ClientSecretBasic(clientSecret),
  { scope: 'read mcp', resource: `${baseUrl}/mcp` },
  options,
);
const { access_token } = await oauth.processClientCredentialsResponse(as, client, grant);

const mcp = new Client({ name: 'example-assistant', version: '1.0.0' });
await mcp.connect(
  new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${access_token}` } } }),
);
const { tools } = await mcp.listTools();
const result = await mcp.callTool({
  name: 'evaluateGoalFeasibility',
  arguments: { capital: 10000, target: 25000, horizon_years: 10, market: 'US', monthly_contribution: 200 },
});
if (result.isError) throw new Error(`the tool failed: ${JSON.stringify(result.content)}`);
const feasibility = result.structuredContent as { probability: number; required_growth_rate: number };
console.log(
  JSON.stringify({ tools: tools.length, probability: feasibility.probability, required_growth_rate: feasibility.required_growth_rate }),
);
await mcp.close();
