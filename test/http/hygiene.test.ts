import { expect } from 'chai';
import * as oauth from 'oauth4webapi';
import { rawExchange } from '../support/raw-connection.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('request hygiene and problem details', () => {
  let server: TestServer;
  let token: string;
  const feasibility = '/v1/goals/feasibility';
  const goal = { capital: 10000, target: 20000, horizon_years: 10, market: 'US' };

  before(async () => {
    server = await startTestServer({ BODY_LIMIT_BYTES: '2048' });
    token = await server.token(['read']);
  });
  after(() => server.close());

  function expectProblem(response: { status: number; headers: Headers; body: any; text: string }, status: number, slug: string) {
    expect(response.status, JSON.stringify(response.body)).to.equal(status);
    expect(response.headers.get('content-type')).to.match(/^application\/problem\+json/);
    expect(response.body.type).to.equal(`${server.url}/problems/${slug}`);
    expect(response.body.status).to.equal(status);
    expect(response.body.title).to.be.a('string').and.not.empty;
    expect(response.text).to.not.match(/\bat .*\.(ts|js):\d+/);
  }

  it('answers malformed JSON with 400 malformed-request', async () => {
    const response = await server.api.post(feasibility, { token, body: '{"capital": 1,', headers: { 'content-type': 'application/json' } });
    expectProblem(response, 400, 'malformed-request');
  });

  it('answers a body in an undeclared media type with 415', async () => {
    const response = await server.api.post(feasibility, { token, body: 'capital=1', headers: { 'content-type': 'text/plain' } });
    expectProblem(response, 415, 'unsupported-media-type');
  });

  it('answers a body over the size limit with 413', async () => {
    const response = await server.api.post(feasibility, { token, json: { ...goal, market: 'x'.repeat(4096) } });
    expectProblem(response, 413, 'payload-too-large');
  });

  it('answers an unknown path with 404 and a wrong method with 405 naming the allowed ones', async () => {
    expectProblem(await server.api.get('/v1/nothing-here', { token }), 404, 'not-found');
    const wrongMethod = await server.api.request('DELETE', feasibility, { token });
    expectProblem(wrongMethod, 405, 'method-not-allowed');
    expect(wrongMethod.headers.get('allow')).to.equal('POST');
  });

  it('answers 406 to an Accept header that allows no JSON, and serves one that does', async () => {
    expectProblem(await server.api.get('/healthz', { headers: { accept: 'text/html' } }), 406, 'not-acceptable');
    expect((await server.api.get('/healthz', { headers: { accept: 'text/html, application/json;q=0.5' } })).status).to.equal(200);
    expect((await server.api.get('/healthz', { headers: { accept: '*/*' } })).status).to.equal(200);
  });

  it('lists every failing field of an invalid request with a JSON pointer', async () => {
    const response = await server.api.post(feasibility, {
      token,
      json: { capital: -1, horizon_years: 'ten', market: 'US', surprise: true },
    });
    expectProblem(response, 400, 'validation-error');
    const pointers = response.body.errors.map((e: { pointer: string }) => e.pointer);
    expect(pointers).to.include.members(['/capital', '/target', '/horizon_years', '/surprise']);
    for (const error of response.body.errors) expect(error.detail).to.be.a('string').and.not.empty;
  });

  it('names each required member when the body is missing, in the problem’s detail too', async () => {
    const trader = await server.token(['trade']);
    const response = await server.api.post('/v1/kill-switch', { token: trader });
    expectProblem(response, 400, 'validation-error');
    expect(response.body.errors).to.deep.equal([{ pointer: '/reason', detail: 'is required' }]);
    expect(response.body.detail).to.equal('The request has 1 invalid field: reason is required.');
  });

  it('answers token requests missing a parameter in sentences, as RFC 6749 errors', async () => {
    const response = await server.api.post('/oauth/token', { form: {} });
    expect(response.status).to.equal(400);
    expect(response.body).to.include({ error: 'invalid_request', error_description: 'grant_type is required.' });
    const empty = await server.api.post('/oauth/token', { body: '', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(empty.body.error_description).to.equal('grant_type is required.');
  });

  it("answers the token endpoint's 405, 406, 413 and 415 in RFC 6749 format (application/json, error) with the problem's members", async () => {
    const wrongMethod = await server.api.request('GET', '/oauth/token', { unchecked: true });
    const notAcceptable = await server.api.post('/oauth/token', {
      form: { grant_type: 'client_credentials' },
      headers: { accept: 'text/html' },
    });
    const tooLarge = await server.api.post('/oauth/token', { form: { grant_type: 'client_credentials', scope: 'x'.repeat(4096) } });
    const latin1 = await server.api.post('/oauth/token', {
      body: 'grant_type=client_credentials',
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=latin1' },
    });
    for (const [response, status, slug] of [
      [wrongMethod, 405, 'method-not-allowed'],
      [notAcceptable, 406, 'not-acceptable'],
      [tooLarge, 413, 'payload-too-large'],
      [latin1, 415, 'unsupported-media-type'],
    ] as const) {
      expect(response.status, slug).to.equal(status);
      expect(response.headers.get('content-type'), slug).to.equal('application/json; charset=utf-8');
      expect(response.headers.get('cache-control'), slug).to.equal('no-store');
      expect(response.body, slug).to.include({ error: 'invalid_request', type: `${server.url}/problems/${slug}`, status });
      expect(response.body.error_description, slug).to.be.a('string').and.not.empty;
      expect(response.body.title, slug).to.be.a('string').and.not.empty;
    }
    expect(wrongMethod.headers.get('allow')).to.equal('POST');
    // The stock OAuth client reads the 413 as the OAuth error it is (it throws "response is not JSON" on problem+json).
    const as = { issuer: server.url, token_endpoint: `${server.url}/oauth/token` };
    const client = { client_id: 'ias_client_x' };
    const response = await oauth.clientCredentialsGrantRequest(
      as,
      client,
      oauth.ClientSecretPost('x'),
      { scope: 'x'.repeat(4096) },
      { [oauth.allowInsecureRequests]: true },
    );
    const error = await oauth.processClientCredentialsResponse(as, client, response).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(oauth.ResponseBodyError);
    expect(error).to.include({ error: 'invalid_request', status: 413 });
  });

  it('lets approve, reject and cancel take no body or an empty JSON object, as many clients send', async () => {
    const trader = await server.token(['trade']);
    for (const trigger of ['approve', 'reject', 'cancel']) {
      for (const options of [{}, { json: {} }, { body: '', headers: { 'content-type': 'application/json' } }]) {
        expectProblem(await server.api.post(`/v1/orders/ord_unknown/${trigger}`, { token: trader, ...options }), 404, 'not-found');
      }
    }
    const extra = await server.api.post('/v1/orders/ord_unknown/approve', { token: trader, json: { force: true } });
    expectProblem(extra, 400, 'validation-error');
    expect(extra.body.errors[0].pointer).to.equal('/force');
  });

  it('points at query parameters in their own location', async () => {
    const response = await server.api.get('/v1/orders?limit=0', { token });
    expectProblem(response, 400, 'validation-error');
    expect(response.body.errors[0].pointer).to.equal('/query/limit');
  });

  it('answers 400, never 500, to paths and values the database could not hold', async () => {
    expectProblem(await server.api.get('/v1/orders/%E0%A4%A', { token }), 400, 'malformed-request');
    expectProblem(await server.api.get('/v1/orders/ord_%00', { token }), 400, 'validation-error');
    expectProblem(await server.api.get('/v1/policies/99999999999999999999', { token }), 400, 'validation-error');
    const nulCursor = Buffer.from(JSON.stringify({ k: 'ord_\u0000' })).toString('base64url');
    expectProblem(await server.api.get(`/v1/orders?cursor=${nulCursor}`, { token }), 400, 'malformed-request');
  });

  it('echoes a given X-Request-Id, makes one up otherwise, and puts it in problems', async () => {
    const given = await server.api.get('/healthz', { headers: { 'x-request-id': 'trace-123' } });
    expect(given.headers.get('x-request-id')).to.equal('trace-123');
    const made = await server.api.get('/v1/nothing', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(made.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
    expect(made.body.request_id).to.equal(made.headers.get('x-request-id'));
  });

  it("answers what Node's parser refuses (a control character in a header) with a problem, not a bare 400", async () => {
    for (const header of ['Idempotency-Key: \x01', 'If-None-Match: 0\x1f']) {
      const answer = await rawExchange(server.running.port, `GET /openapi.json HTTP/1.1\r\nHost: x\r\n${header}\r\n\r\n`);
      expect(answer, header).to.match(/^HTTP\/1\.1 400 /);
      expect(answer).to.match(/Content-Type: application\/problem\+json/i);
      expect(answer).to.match(/X-Content-Type-Options: nosniff/i);
      const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
      expect(body).to.include({ status: 400, title: 'Malformed request' });
      expect(body.type).to.match(/\/problems\/malformed-request$/);
    }
  });

  it('sends X-Content-Type-Options: nosniff on every answer', async () => {
    for (const path of ['/v1/brokers', '/nothing', '/openapi.json', '/docs', '/problems', '/healthz']) {
      const response = await fetch(`http://127.0.0.1:${server.running.port}${path}`, { headers: { authorization: `Bearer ${token}` } });
      expect(response.headers.get('x-content-type-options'), path).to.equal('nosniff');
    }
    const graphql = await fetch(`http://127.0.0.1:${server.running.port}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"query":"{ __typename }"}',
    });
    expect(graphql.headers.get('x-content-type-options')).to.equal('nosniff');
  });

  it('reads integer path and query parameters only as plain decimals', async () => {
    for (const spelling of ['0x10', '1e3', '%20%31', '01', '1.0']) {
      const response = await server.api.get(`/v1/policies/${spelling}`, { token });
      expectProblem(response, 400, 'validation-error');
      expect(response.body.errors[0].pointer, spelling).to.equal('/path/version');
    }
    expect((await server.api.get('/v1/policies/1', { token })).status).to.equal(404);
    const limit = await server.api.get('/v1/orders?limit=0x10', { token });
    expectProblem(limit, 400, 'validation-error');
    expect(limit.body.errors[0].pointer).to.equal('/query/limit');
  });

  it('answers HEAD on every GET resource like GET, without a body, and lists HEAD where GET is allowed', async () => {
    for (const path of ['/openapi.json', '/v1/brokers', '/healthz']) {
      const send = (method: string) =>
        fetch(`http://127.0.0.1:${server.running.port}${path}`, { method, headers: { authorization: `Bearer ${token}` } });
      const [get, head] = [await send('GET'), await send('HEAD')];
      expect(head.status, path).to.equal(get.status);
      expect(head.headers.get('content-type'), path).to.equal(get.headers.get('content-type'));
      expect(await head.text(), path).to.equal('');
    }
    const wrong = await server.api.request('DELETE', '/v1/brokers', { token });
    expect(wrong.headers.get('allow')).to.include('HEAD');
  });

  it('checks the token before reading the body: no token and an unreadable body is 401, not 413 or 415', async () => {
    const unsupported = await server.api.post('/v1/policies', { body: 'x', headers: { 'content-type': 'text/plain' } });
    expectProblem(unsupported, 401, 'unauthorized');
    const malformed = await server.api.post('/v1/policies', { body: '{', headers: { 'content-type': 'application/json' } });
    expectProblem(malformed, 401, 'unauthorized');
    const huge = await server.api.post('/v1/policies', {
      body: `{"x":"${'a'.repeat(300_000)}"}`,
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(huge, 401, 'unauthorized');
  });

  it('ignores a body sent with GET', async () => {
    const response = await fetch(`http://127.0.0.1:${server.running.port}/v1/brokers`, {
      method: 'GET',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain', 'content-length': '3' },
      body: undefined,
    });
    expect(response.status).to.equal(200);
    const raw = await rawExchange(
      server.running.port,
      `GET /v1/brokers HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: text/plain\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc`,
    );
    expect(raw).to.match(/^HTTP\/1\.1 200 /);
  });

  it('keeps at most 512 characters of a User-Agent with a consent record', async () => {
    const [holder] = await Promise.all([server.account(['read', 'trade'])]);
    const long = 'a'.repeat(8025);
    const disclosure = await server.api.get('/v1/disclosures/current', { token: holder.token });
    const created = await server.api.post('/v1/policies', {
      token: holder.token,
      headers: { 'user-agent': long },
      json: {
        limits: {
          max_order_notional: 1000,
          max_position_weight: 0.8,
          max_daily_notional: 5000,
          max_daily_loss: 500,
          allowed_markets: ['US'],
        },
        target_allocation: [{ symbol: 'VTI', weight: 1 }],
        consent: { disclosure_version: disclosure.body.version, accepted: true, signer_name: 'Test Holder' },
      },
    });
    expect(created.status, created.text).to.equal(201);
    const row = await server.database.db.kysely
      .selectFrom('policies')
      .select('consent')
      .where('account_id', '=', holder.accountId)
      .executeTakeFirstOrThrow();
    const consent = (typeof row.consent === 'string' ? JSON.parse(row.consent) : row.consent) as { user_agent: string };
    expect(consent.user_agent).to.equal('a'.repeat(512));
  });

  it('answers a NUL byte in a client id at the token endpoint in RFC 6749 format', async () => {
    const requests: { headers: Record<string, string>; body: string }[] = [
      {
        headers: { authorization: 'Basic ADp4', 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
      },
      {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials&client_id=%00&client_secret=x',
      },
    ];
    for (const request of requests) {
      const response = await server.api.post('/oauth/token', request);
      expect(response.status).to.be.oneOf([400, 401]);
      expect(response.headers.get('content-type')).to.match(/^application\/json/);
      expect(response.body.error).to.be.oneOf(['invalid_request', 'invalid_client']);
    }
  });

  it('never sends X-Powered-By', async () => {
    const response = await server.api.get('/healthz');
    expect(response.headers.has('x-powered-by')).to.equal(false);
  });

  it('documents every problem type at its type URI', async () => {
    const problem = await server.api.get('/v1/nothing');
    const page = await fetch(problem.body.type);
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.match(/^text\/html/);
    expect(await page.text()).to.include('Not found');
  });
});
