import { expect } from 'chai';
import { getIntrospectionQuery } from 'graphql';
import { auditServer } from 'graphql-http';
import { startTestServer, type TestServer } from '../support/server.js';
import { graphql } from './support.js';

describe('/graphql over HTTP: authentication before execution, GraphQL over HTTP compliance', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  /** REST's answer to the same credentials, for comparison. */
  const restPortfolio = (headers: Record<string, string>) => server.api.get('/v1/portfolio', { headers });

  for (const [situation, headers] of [
    ['no Authorization header', {}],
    ['a token that is not a JWT', { authorization: 'Bearer not-a-token' }],
    ['a header that is not Bearer', { authorization: 'Basic dXNlcjpwYXNz' }],
  ] as const) {
    it(`answers 401 with REST's WWW-Authenticate and a problem for ${situation}, and runs nothing`, async () => {
      const { token } = await server.account(['read', 'trade']);
      const response = await graphql(server, 'mutation { engageKillSwitch(input: {reason: "should never run"}) { engaged } }', { headers });
      expect(response.status).to.equal(401);
      expect(response.headers.get('content-type')).to.match(/^application\/problem\+json/);
      const rest = await restPortfolio(headers);
      expect(response.headers.get('www-authenticate'))
        .to.equal(rest.headers.get('www-authenticate'))
        .and.match(/^Bearer realm=/);
      expect(response.body).to.include({ type: rest.body.type, title: rest.body.title, status: 401, instance: '/graphql' });
      expect(response.body.request_id).to.be.a('string');
      expect((await server.api.get('/v1/kill-switch', { token })).body.engaged).to.equal(false);
    });
  }

  it('answers 401 for a revoked client, on GET as well', async () => {
    const client = await server.createClient(['read']);
    const issued = await server.services.tokens.issue({ ...client, generation: 1 }, ['read']);
    await server.services.clients.revoke(client.client_id);
    const response = await fetch(`${server.api.baseUrl}/graphql?query=${encodeURIComponent('{ killSwitch { engaged } }')}`, {
      headers: { authorization: `Bearer ${issued.access_token}` },
    });
    expect(response.status).to.equal(401);
    expect(response.headers.get('www-authenticate')).to.include('error="invalid_token"');
  });

  it('allows introspection only with a valid token, whatever its scope', async () => {
    expect((await graphql(server, getIntrospectionQuery())).status).to.equal(401);
    const token = await server.token(['mcp']);
    const response = await graphql(server, getIntrospectionQuery(), { token });
    expect(response.status).to.equal(200);
    expect(response.body.errors).to.equal(undefined);
    expect(response.body.data.__schema.types.map((t: { name: string }) => t.name)).to.include.members(['Order', 'Portfolio', 'Mutation']);
  });

  it('answers queries over GET and refuses mutations over GET', async () => {
    const token = await server.token(['read', 'trade']);
    const get = (query: string) =>
      fetch(`${server.api.baseUrl}/graphql?query=${encodeURIComponent(query)}`, {
        headers: { authorization: `Bearer ${token}`, accept: 'application/graphql-response+json' },
      });
    const query = await get('{ killSwitch { engaged } }');
    expect(query.status).to.equal(200);
    expect(await query.json()).to.deep.equal({ data: { killSwitch: { engaged: false } } });
    const mutation = await get('mutation { engageKillSwitch(input: {reason: "over GET"}) { engaged } }');
    expect(mutation.status).to.equal(405);
    expect((await server.api.get('/v1/kill-switch', { token })).body.engaged).to.equal(false);
  });

  it('answers a media type (415), a method (405) or an Accept (406) it does not take with the problem document REST answers', async () => {
    const token = await server.token(['read']);
    const query = JSON.stringify({ query: '{ killSwitch { engaged } }' });
    const send = async (method: string, headers: Record<string, string>, body?: string) => {
      const response = await fetch(`${server.url}/graphql`, { method, headers: { authorization: `Bearer ${token}`, ...headers }, body });
      return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
    };
    for (const [response, status, slug] of [
      [await send('POST', { 'content-type': 'text/plain' }, query), 415, 'unsupported-media-type'],
      [await send('POST', {}, query), 415, 'unsupported-media-type'],
      [await send('PUT', { 'content-type': 'application/json' }, query), 405, 'method-not-allowed'],
      [await send('POST', { 'content-type': 'application/json', accept: 'text/html' }, query), 406, 'not-acceptable'],
    ] as const) {
      expect(response.status, slug).to.equal(status);
      expect(response.headers.get('content-type'), slug).to.equal('application/problem+json; charset=utf-8');
      expect(response.body, slug).to.include({ type: `${server.url}/problems/${slug}`, status, instance: '/graphql' });
      expect(response.body.detail, slug).to.be.a('string').and.not.empty;
      expect(response.body.request_id, slug).to.be.a('string');
    }
  });

  it('is linked from /docs', async () => {
    const docs = await fetch(`${server.api.baseUrl}/docs`);
    expect(await docs.text()).to.include('<a href="/graphql"><code>/graphql</code></a>');
  });

  it('passes graphql-http’s audit with no MUST or SHOULD failure', async function () {
    this.timeout(60_000);
    const token = await server.token(['read']);
    const results = await auditServer({
      url: `${server.api.baseUrl}/graphql`,
      fetchFn: (input: RequestInfo, init: RequestInit = {}) => {
        const headers = new Headers(init.headers);
        headers.set('authorization', `Bearer ${token}`);
        return fetch(input, { ...init, headers });
      },
    });
    expect(results.length).to.be.greaterThan(40);
    const failures = results
      .filter((r) => r.status !== 'ok' && /^(MUST|SHOULD) /.test(r.name))
      .map((r) => `${r.name}: ${'reason' in r ? r.reason : ''}`);
    expect(failures).to.deep.equal([]);
  });
});
