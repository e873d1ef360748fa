import { expect } from 'chai';
import { CompactSign, SignJWT, base64url } from 'jose';
import { startTestServer, type TestServer } from '../support/server.js';

describe('bearer tokens on /v1', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  const brokers = '/v1/brokers';

  /** A token signed with the service's key; `iat` is now unless the claims give one, `exp` a span or a NumericDate. */
  async function signed(claims: Record<string, unknown>, header: Record<string, unknown> = {}, expiresIn: string | number = '1h') {
    const key = server.services.tokens.key;
    const jwt = new SignJWT({ iss: server.url, aud: server.url, jti: 'test', ...claims })
      .setProtectedHeader({ alg: key.alg, typ: 'at+jwt', kid: key.kid, ...header })
      .setExpirationTime(expiresIn);
    if (claims.iat === undefined) jwt.setIssuedAt();
    return jwt.sign(key.privateKey);
  }

  async function liveClaims() {
    const client = await server.createClient(['read']);
    return { sub: client.account_id, client_id: client.client_id, scope: 'read', gen: 1 };
  }

  function expectInvalidToken(response: { status: number; headers: Headers; body: any }) {
    expect(response.status).to.equal(401);
    expect(response.headers.get('www-authenticate')).to.match(/^Bearer .*error="invalid_token"/);
    expect(response.headers.get('www-authenticate')).to.include(`resource_metadata="${server.url}/.well-known/oauth-protected-resource"`);
    expect(response.body.type).to.equal(`${server.url}/problems/unauthorized`);
  }

  it('answers a missing token with 401, a Bearer challenge naming the resource metadata, and a problem body', async () => {
    const response = await server.api.get(brokers);
    expect(response.status).to.equal(401);
    expect(response.headers.get('www-authenticate')).to.match(/^Bearer realm=/);
    expect(response.headers.get('www-authenticate')).to.not.include('error=');
    expect(response.headers.get('content-type')).to.match(/^application\/problem\+json/);
  });

  it('accepts a token signed for this API by its own key', async () => {
    const response = await server.api.get(brokers, { token: await signed(await liveClaims()) });
    expect(response.status).to.not.equal(401);
  });

  it('refuses a tampered token', async () => {
    const token = await signed(await liveClaims());
    const [h, p, s] = token.split('.');
    const payload = JSON.parse(new TextDecoder().decode(base64url.decode(p!)));
    const forged = `${h}.${base64url.encode(JSON.stringify({ ...payload, scope: 'read write trade' }))}.${s}`;
    expectInvalidToken(await server.api.get(brokers, { token: forged }));
  });

  it('refuses an expired token', async () => {
    expectInvalidToken(await server.api.get(brokers, { token: await signed(await liveClaims(), {}, '-1m') }));
  });

  it('refuses an alg:none token', async () => {
    const claims = {
      ...(await liveClaims()),
      iss: server.url,
      aud: server.url,
      iat: Math.floor(Date.now() / 1000),
      exp: Math.floor(Date.now() / 1000) + 600,
      jti: 'x',
    };
    const token = `${base64url.encode(JSON.stringify({ alg: 'none', typ: 'at+jwt' }))}.${base64url.encode(JSON.stringify(claims))}.`;
    expectInvalidToken(await server.api.get(brokers, { token }));
  });

  it('refuses an HMAC token keyed with the public key', async () => {
    const secret = new TextEncoder().encode(JSON.stringify(server.services.tokens.key.publicJwk));
    const token = await new SignJWT(await liveClaims())
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
      .setIssuer(server.url)
      .setAudience(server.url)
      .setIssuedAt()
      .setExpirationTime('1h')
      .setJti('x')
      .sign(secret);
    expectInvalidToken(await server.api.get(brokers, { token }));
  });

  it('refuses a token for another audience, another issuer, or of another JWT type', async () => {
    const claims = await liveClaims();
    expectInvalidToken(await server.api.get(brokers, { token: await signed({ ...claims, aud: 'https://elsewhere.example' }) }));
    expectInvalidToken(await server.api.get(brokers, { token: await signed({ ...claims, iss: 'https://elsewhere.example' }) }));
    expectInvalidToken(await server.api.get(brokers, { token: await signed(claims, { typ: 'JWT' }) }));
  });

  it('refuses a token whose header names critical parameters (crit), none of which the service understands', async () => {
    const key = server.services.tokens.key;
    const claims = { ...(await liveClaims()), iss: server.url, aud: server.url, jti: 'crit', iat: Math.floor(Date.now() / 1000) };
    const payload = new TextEncoder().encode(JSON.stringify({ ...claims, exp: claims.iat + 600 }));
    // Signed as a producer that understands `urn:example:hold` would sign it (RFC 7515 section 4.1.11).
    const token = await new CompactSign(payload)
      .setProtectedHeader({ alg: key.alg, typ: 'at+jwt', kid: key.kid, crit: ['urn:example:hold'], 'urn:example:hold': true })
      .sign(key.privateKey, { crit: { 'urn:example:hold': true } });
    expectInvalidToken(await server.api.get(brokers, { token }));
    expect((await server.api.get(brokers, { token: await signed(await liveClaims()) })).status).to.equal(200);
  });

  it('refuses a token whose nbf is ahead of the clock beyond the 60 s leeway, on REST, GraphQL and MCP, every time', async () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = await liveClaims();
    // The same claims with a past nbf, and one within the leeway, are accepted: only the time differs.
    expect((await server.api.get(brokers, { token: await signed({ ...claims, nbf: now - 5 }) })).status).to.equal(200);
    expect((await server.api.get(brokers, { token: await signed({ ...claims, nbf: now + 30 }) })).status).to.equal(200);
    const early = await signed({ ...claims, nbf: now + 3600 });
    for (let attempt = 0; attempt < 2; attempt++) {
      const response = await server.api.get(brokers, { token: early });
      expectInvalidToken(response);
      expect(response.body.detail).to.include('not valid yet');
    }
    const graphql = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${early}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ brokers(limit: 1) { next_cursor } }' }),
    });
    expectInvalidToken({ status: graphql.status, headers: graphql.headers, body: await graphql.json() });
    const mcp = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${early}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expectInvalidToken({ status: mcp.status, headers: mcp.headers, body: await mcp.json() });
  });

  it('refuses a token issued in the future, one that expires before it was issued, and an nbf that is not a number', async () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = await liveClaims();
    expectInvalidToken(await server.api.get(brokers, { token: await signed({ ...claims, iat: now + 3600 }, {}, now + 7200) }));
    expectInvalidToken(await server.api.get(brokers, { token: await signed({ ...claims, iat: now + 30 }, {}, now + 20) }));
    expectInvalidToken(await server.api.get(brokers, { token: await signed({ ...claims, nbf: 'now' }) }));
  });

  it('answers a token lacking the operation scope with 403 insufficient_scope naming the scope', async () => {
    const token = await server.token(['write']);
    const response = await server.api.get(brokers, { token });
    expect(response.status).to.equal(403);
    expect(response.headers.get('www-authenticate')).to.match(/error="insufficient_scope".*scope="read"/);
    expect(response.body).to.include({ type: `${server.url}/problems/insufficient-scope`, required_scope: 'read' });
  });

  it('stops accepting the outstanding tokens of a rotated or revoked client', async () => {
    for (const action of ['rotate', 'revoke'] as const) {
      const client = await server.createClient(['read']);
      const issued = await server.api.post('/oauth/token', {
        form: { grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret },
      });
      const { access_token } = issued.body as { access_token: string };
      expect((await server.api.get(brokers, { token: access_token })).status).to.not.equal(401);
      await server.services.clients[action](client.client_id);
      expectInvalidToken(await server.api.get(brokers, { token: access_token }));
    }
  });

  it('accepts its own lifetime (3600 s), and refuses an iat in the future or a longer lifetime', async () => {
    const account = await server.account(['read']);
    const now = Math.floor(Date.now() / 1000);
    const read = async (token: string) => server.api.get(brokers, { token });
    const mint = (iat: number, exp: number) =>
      signed({ sub: account.accountId, client_id: account.clientId, scope: 'read', gen: 1, iat, jti: `test-${iat}-${exp}` }, {}, exp);
    expect((await read(await mint(now, now + 3600))).status).to.equal(200);
    const future = await read(await mint(now + 3600, now + 4000));
    expect(future.status).to.equal(401);
    expect(future.headers.get('www-authenticate')).to.include('issued in the future');
    const long = await read(await mint(now, now + 10 * 365 * 86400));
    expect(long.status).to.equal(401);
    expect(long.headers.get('www-authenticate')).to.include('lives longer');
  });
});
