import { expect } from 'chai';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { TokenService } from '../../src/auth/tokens.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { callTool, connectMcp, rpc } from '../support/mcp.js';

describe('MCP at /mcp: transport and authorization', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  const metadataUrl = () => `${server.url}/.well-known/oauth-protected-resource`;

  async function refusal(promise: Promise<unknown>): Promise<StreamableHTTPError> {
    try {
      await promise;
    } catch (error) {
      expect(error).to.be.instanceOf(StreamableHTTPError);
      return error as StreamableHTTPError;
    }
    throw new Error('the MCP request unexpectedly succeeded');
  }

  it('the stock SDK client connects with a bearer token holding mcp and sees the server, its tools and resources', async () => {
    const client = await connectMcp(server, await server.token(['read', 'mcp']));
    expect(client.getServerVersion()).to.include({ name: 'investment-automation-service' });
    expect(client.getServerCapabilities()).to.have.keys('tools', 'resources');
    expect(client.getInstructions()).to.match(/problem document/);
    expect((await client.listTools()).tools).to.not.be.empty;
    expect((await client.listResources()).resources).to.not.be.empty;
    await client.close();
  });

  it('answers a request without a token 401 with the challenge REST sends plus scope="mcp", and a problem body', async () => {
    const rest = await server.api.get('/v1/orders');
    const response = await rpc(server, undefined, 'tools/list');
    expect(response.status).to.equal(401);
    expect(response.headers.get('www-authenticate')).to.equal(`${rest.headers.get('www-authenticate')}, scope="mcp"`);
    expect(response.headers.get('www-authenticate')).to.include(`resource_metadata="${metadataUrl()}"`);
    expect(response.headers.get('content-type')).to.match(/^application\/problem\+json/);
    expect(response.body).to.include({ type: `${server.url}/problems/unauthorized`, status: 401, instance: '/mcp' });
  });

  it('answers a malformed, forged or expired token 401 invalid_token, as REST does', async () => {
    const client = await server.createClient(['read', 'mcp']);
    const expiring = new TokenService(server.services.tokens.key, server.url, server.url, 0, server.services.clients);
    const expired = (await expiring.issue({ ...client, generation: 1 }, ['read', 'mcp'])).access_token;
    for (const token of ['not-a-jwt', `${await server.token(['read', 'mcp'])}x`, expired]) {
      const response = await rpc(server, token, 'tools/list');
      expect(response.status).to.equal(401);
      expect(response.headers.get('www-authenticate')).to.match(/error="invalid_token".*scope="mcp"/);
      expect(response.body.type).to.equal(`${server.url}/problems/unauthorized`);
    }
  });

  it('refuses a token issued for another audience (it is not for this service)', async () => {
    const client = await server.createClient(['read', 'mcp']);
    const elsewhere = new TokenService(server.services.tokens.key, server.url, 'https://other.example', 3600, server.services.clients);
    const { access_token } = await elsewhere.issue({ ...client, generation: 1 }, ['read', 'mcp']);
    const response = await rpc(server, access_token, 'tools/list');
    expect(response.status).to.equal(401);
    expect(response.headers.get('www-authenticate')).to.include('error="invalid_token"');
    const sdk = await refusal(connectMcp(server, access_token));
    expect(sdk.code).to.equal(401);
  });

  it('refuses a valid token without mcp with 403 insufficient_scope naming mcp, and so does the SDK client', async () => {
    const token = await server.token(['read', 'write', 'trade']);
    const response = await rpc(server, token, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'raw', version: '1' },
    });
    expect(response.status).to.equal(403);
    expect(response.headers.get('www-authenticate')).to.match(/error="insufficient_scope".*scope="mcp"/);
    expect(response.body).to.include({ type: `${server.url}/problems/insufficient-scope`, required_scope: 'mcp' });
    const sdk = await refusal(connectMcp(server, token));
    expect(sdk.code).to.equal(403);
    expect(sdk.message).to.include('insufficient-scope');
  });

  it("answers a tool call beyond the token's scopes with HTTP 403 naming the scopes; the SDK client surfaces it as a 403 error", async () => {
    const token = await server.token(['read', 'mcp']);
    const response = await rpc(server, token, 'tools/call', { name: 'approveOrder', arguments: { id: 'ord_1' } });
    expect(response.status).to.equal(403);
    expect(response.headers.get('www-authenticate')).to.match(/error="insufficient_scope".*scope="trade mcp"/);
    expect(response.body).to.include({ type: `${server.url}/problems/insufficient-scope`, required_scope: 'trade mcp' });
    const client = await connectMcp(server, token);
    const sdk = await refusal(callTool(client, 'approveOrder', { id: 'ord_1' }));
    expect(sdk.code).to.equal(403);
    expect(JSON.parse(sdk.message.slice(sdk.message.indexOf('{')))).to.include({ required_scope: 'trade mcp' });
    await client.close();
  });

  it('answers GET and DELETE 405 with Allow: POST (stateless: no stream to open, no session to end)', async () => {
    const token = await server.token(['read', 'mcp']);
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(`${server.url}/mcp`, { method, headers: { authorization: `Bearer ${token}` } });
      expect(response.status).to.equal(405);
      expect(response.headers.get('allow')).to.equal('POST');
      expect(await response.json()).to.include({ type: `${server.url}/problems/method-not-allowed` });
    }
  });

  it('answers transport mistakes with problems: 406 without the Streamable HTTP Accept, 415 for another body type, 400 for broken JSON', async () => {
    const token = await server.token(['read', 'mcp']);
    const notAcceptable = await rpc(server, token, 'tools/list', {}, { accept: 'application/json' });
    expect(notAcceptable.status).to.equal(406);
    expect(notAcceptable.body.type).to.equal(`${server.url}/problems/not-acceptable`);
    const post = (body: string, contentType: string) =>
      fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, accept: 'application/json, text/event-stream', 'content-type': contentType },
        body,
      });
    const wrongType = await post('{}', 'text/plain');
    expect(wrongType.status).to.equal(415);
    expect((await wrongType.json()).type).to.equal(`${server.url}/problems/unsupported-media-type`);
    const broken = await post('{"jsonrpc": ', 'application/json');
    expect(broken.status).to.equal(400);
    expect((await broken.json()).type).to.equal(`${server.url}/problems/malformed-request`);
  });

  it('keeps no session: every request is answered on its own, without Mcp-Session-Id', async () => {
    const token = await server.token(['read', 'mcp']);
    const listed = await rpc(server, token, 'tools/list');
    expect(listed.status).to.equal(200);
    expect(listed.headers.get('mcp-session-id')).to.equal(null);
    expect(listed.body.result.tools).to.be.an('array').that.is.not.empty;
  });
});
