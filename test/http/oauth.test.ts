import { expect } from 'chai';
import { base64url } from 'jose';
import * as oauth from 'oauth4webapi';
import { startTestServer, type TestServer } from '../support/server.js';

const insecure = { [oauth.allowInsecureRequests]: true };

describe('OAuth 2.1 client credentials', () => {
  let server: TestServer;
  let as: oauth.AuthorizationServer;

  before(async () => {
    server = await startTestServer();
    const issuer = new URL(server.url);
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
  });
  after(() => server.close());

  async function grant(clientId: string, auth: oauth.ClientAuth, parameters: Record<string, string> = {}) {
    const response = await oauth.clientCredentialsGrantRequest(as, { client_id: clientId }, auth, parameters, insecure);
    return oauth.processClientCredentialsResponse(as, { client_id: clientId }, response);
  }

  async function grantError(clientId: string, auth: oauth.ClientAuth, parameters: Record<string, string> = {}) {
    try {
      await grant(clientId, auth, parameters);
    } catch (error) {
      return error as oauth.ResponseBodyError | oauth.WWWAuthenticateChallengeError;
    }
    throw new Error('the token request unexpectedly succeeded');
  }

  describe('POST /oauth/token', () => {
    it('issues a Bearer token to oauth4webapi with HTTP Basic, with every scope of the client when none is asked', async () => {
      const client = await server.createClient(['read', 'trade']);
      const token = await grant(client.client_id, oauth.ClientSecretBasic(client.client_secret));
      expect(token.token_type).to.equal('bearer');
      expect(token.expires_in).to.equal(3600);
      expect(token.scope).to.equal('read trade');
      const portfolio = await server.api.get('/v1/brokers', { token: token.access_token });
      expect(portfolio.status).to.not.equal(401);
    });

    it('issues a token with client_secret_post, narrowed to the requested scope', async () => {
      const client = await server.createClient(['read', 'write']);
      const token = await grant(client.client_id, oauth.ClientSecretPost(client.client_secret), { scope: 'read' });
      expect(token.scope).to.equal('read');
    });

    it('answers the token as JSON with Cache-Control: no-store and an RFC 9068 JWT', async () => {
      const client = await server.createClient(['read']);
      const response = await server.api.post('/oauth/token', {
        form: { grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret },
      });
      expect(response.status).to.equal(200);
      expect(response.headers.get('cache-control')).to.equal('no-store');
      const [header, payload] = response.body.access_token
        .split('.')
        .slice(0, 2)
        .map((part: string) => JSON.parse(new TextDecoder().decode(base64url.decode(part))));
      expect(header.typ).to.equal('at+jwt');
      expect(header.alg).to.be.oneOf(['ES256', 'EdDSA']);
      expect(payload).to.include({ iss: server.url, aud: server.url, sub: client.account_id, client_id: client.client_id, scope: 'read' });
      expect(payload.exp - payload.iat).to.equal(3600);
      expect(payload.jti).to.be.a('string');
    });

    it('refuses a wrong secret with 401 invalid_client and WWW-Authenticate: Basic', async () => {
      const client = await server.createClient(['read']);
      const error = await grantError(client.client_id, oauth.ClientSecretBasic('wrong-secret'));
      expect(error).to.be.instanceOf(oauth.WWWAuthenticateChallengeError);
      const response = (error as oauth.WWWAuthenticateChallengeError).response;
      expect(response.status).to.equal(401);
      expect(response.headers.get('www-authenticate')).to.match(/^Basic /);
      const raw = await server.api.post('/oauth/token', {
        form: { grant_type: 'client_credentials', client_id: client.client_id, client_secret: 'nope' },
      });
      expect(raw.status).to.equal(401);
      expect(raw.headers.get('content-type')).to.match(/^application\/json/);
      expect(raw.body).to.include({ error: 'invalid_client', status: 401 });
      expect(raw.body.type).to.equal(`${server.url}/problems/oauth-invalid-client`);
    });

    it('refuses an unknown client exactly like a wrong secret', async () => {
      const raw = await server.api.post('/oauth/token', {
        form: { grant_type: 'client_credentials', client_id: 'ias_client_unknown', client_secret: 'x' },
      });
      expect(raw.status).to.equal(401);
      expect(raw.body.error).to.equal('invalid_client');
    });

    it('refuses an unsupported grant type with 400 unsupported_grant_type', async () => {
      const client = await server.createClient(['read']);
      const response = await server.api.post('/oauth/token', {
        form: { grant_type: 'password', client_id: client.client_id, client_secret: client.client_secret },
      });
      expect(response.status).to.equal(400);
      expect(response.body.error).to.equal('unsupported_grant_type');
    });

    it('refuses a scope beyond the client with 400 invalid_scope', async () => {
      const client = await server.createClient(['read']);
      const error = (await grantError(client.client_id, oauth.ClientSecretBasic(client.client_secret), {
        scope: 'read trade',
      })) as oauth.ResponseBodyError;
      expect(error).to.be.instanceOf(oauth.ResponseBodyError);
      expect(error.status).to.equal(400);
      expect(error.error).to.equal('invalid_scope');
    });

    it('refuses a request that authenticates twice, or not at all, and one without grant_type', async () => {
      const client = await server.createClient(['read']);
      const basic = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
      const both = await server.api.post('/oauth/token', {
        headers: { authorization: basic },
        form: { grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret },
      });
      expect(both.status).to.equal(400);
      expect(both.body.error).to.equal('invalid_request');
      const none = await server.api.post('/oauth/token', { form: { grant_type: 'client_credentials' } });
      expect(none.status).to.equal(401);
      expect(none.body.error).to.equal('invalid_client');
      const noGrant = await server.api.post('/oauth/token', { headers: { authorization: basic }, form: { scope: 'read' } });
      expect(noGrant.status).to.equal(400);
      expect(noGrant.body.error).to.equal('invalid_request');
    });

    it('answers a JSON body with an RFC 6749 error, not a problem+json document', async () => {
      const response = await server.api.post('/oauth/token', { json: { grant_type: 'client_credentials' } });
      expect(response.status).to.equal(400);
      expect(response.headers.get('content-type')).to.match(/^application\/json/);
      expect(response.body.error).to.equal('invalid_request');
    });

    it('issues tokens to a rotated client only with its new secret', async () => {
      const client = await server.createClient(['read']);
      const rotated = await server.services.clients.rotate(client.client_id);
      const old = await grantError(client.client_id, oauth.ClientSecretBasic(client.client_secret));
      expect(old).to.be.instanceOf(oauth.WWWAuthenticateChallengeError);
      const token = await grant(client.client_id, oauth.ClientSecretBasic(rotated!.client_secret));
      expect(token.access_token).to.be.a('string');
    });
  });

  describe('discovery documents', () => {
    it('publishes RFC 8414 authorization server metadata', async () => {
      const response = await server.api.get('/.well-known/oauth-authorization-server');
      expect(response.status).to.equal(200);
      expect(response.body).to.deep.include({
        issuer: server.url,
        token_endpoint: `${server.url}/oauth/token`,
        jwks_uri: `${server.url}/.well-known/jwks.json`,
        grant_types_supported: ['client_credentials'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        scopes_supported: ['read', 'write', 'trade', 'mcp'],
      });
    });

    it('publishes RFC 9728 protected resource metadata', async () => {
      const response = await server.api.get('/.well-known/oauth-protected-resource');
      expect(response.body).to.deep.include({
        resource: server.url,
        authorization_servers: [server.url],
        bearer_methods_supported: ['header'],
      });
    });

    it('publishes the verification key, and never a private part', async () => {
      const response = await server.api.get('/.well-known/jwks.json');
      expect(response.body.keys).to.have.length(1);
      const [key] = response.body.keys;
      expect(key.kid).to.equal(server.services.tokens.key.kid);
      expect(key).to.not.have.property('d');
    });
  });
});
