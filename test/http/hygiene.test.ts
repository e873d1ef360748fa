import { expect } from 'chai';
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
    const response = await server.api.post(feasibility, { token, json: { capital: -1, horizon_years: 'ten', market: 'US', surprise: true } });
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
