import { expect } from 'chai';
import { base64url } from 'jose';
import * as oauth from 'oauth4webapi';
import { startTestServer, type TestServer } from '../support/server.js';
import { callTool, connectMcp } from '../support/mcp.js';

const insecure = { [oauth.allowInsecureRequests]: true };

describe('POST /oauth/token with an RFC 8707 resource indicator', () => {
  let server: TestServer;
  let as: oauth.AuthorizationServer;
  let credentials: { client_id: string; client_secret: string };

  before(async () => {
    server = await startTestServer();
    const issuer = new URL(server.url);
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
    credentials = await server.createClient(['read', 'mcp']);
  });
  after(() => server.close());

  const claims = (token: string) => JSON.parse(new TextDecoder().decode(base64url.decode(token.split('.')[1]!)));
  const tokenFor = (resource: string) =>
    server.api.post('/oauth/token', { form: { grant_type: 'client_credentials', resource }, headers: { authorization: basic() } });
  const basic = () => `Basic ${Buffer.from(`${credentials.client_id}:${credentials.client_secret}`).toString('base64')}`;

  it('names this service with the resource of its protected resource metadata, which an MCP client sends', async () => {
    const metadata = await server.api.get('/.well-known/oauth-protected-resource');
    expect(metadata.body.resource).to.equal(server.url);
    const response = await oauth.clientCredentialsGrantRequest(
      as,
      { client_id: credentials.client_id },
      oauth.ClientSecretBasic(credentials.client_secret),
      { resource: metadata.body.resource },
      insecure,
    );
    const token = await oauth.processClientCredentialsResponse(as, { client_id: credentials.client_id }, response);
    expect(claims(token.access_token).aud).to.equal(server.url);
  });

  it('accepts the MCP endpoint and the base URL with a trailing slash; the audience stays the service, and the token works at /mcp', async () => {
    for (const resource of [`${server.url}/mcp`, `${server.url}/`, `${server.url}/mcp/`]) {
      const response = await tokenFor(resource);
      expect(response.status, `${resource}: ${response.text}`).to.equal(200);
      expect(claims(response.body.access_token).aud).to.equal(server.url);
    }
    const client = await connectMcp(server, (await tokenFor(`${server.url}/mcp`)).body.access_token);
    expect((await callTool(client, 'getKillSwitch')).ok).to.equal(true);
    await client.close();
  });

  it('answers invalid_target for another resource, a relative one, or one with a fragment', async () => {
    for (const resource of [
      'https://other.example/mcp',
      `${server.url}/v2`,
      `${server.url.replace('http:', 'https:')}`,
      '/mcp',
      `${server.url}#mcp`,
      'not a uri',
    ]) {
      const response = await tokenFor(resource);
      expect(response.status, resource).to.equal(400);
      expect(response.headers.get('content-type')).to.match(/^application\/json/);
      expect(response.body, resource).to.include({
        error: 'invalid_target',
        type: `${server.url}/problems/oauth-invalid-target`,
        title: 'Invalid target',
        status: 400,
      });
    }
  });

  it('is an error oauth4webapi understands', async () => {
    const response = await oauth.clientCredentialsGrantRequest(
      as,
      { client_id: credentials.client_id },
      oauth.ClientSecretBasic(credentials.client_secret),
      { resource: 'https://other.example' },
      insecure,
    );
    try {
      await oauth.processClientCredentialsResponse(as, { client_id: credentials.client_id }, response);
      expect.fail('the token request unexpectedly succeeded');
    } catch (error) {
      expect(error).to.be.instanceOf(oauth.ResponseBodyError);
      expect((error as oauth.ResponseBodyError).error).to.equal('invalid_target');
    }
  });

  it('checks the client before the resource: a wrong secret is invalid_client whatever the resource says', async () => {
    const response = await server.api.post('/oauth/token', {
      form: {
        grant_type: 'client_credentials',
        resource: 'https://other.example',
        client_id: credentials.client_id,
        client_secret: 'wrong',
      },
    });
    expect(response.status).to.equal(401);
    expect(response.body.error).to.equal('invalid_client');
  });
});
