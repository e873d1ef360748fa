// Webhook endpoints over the API (issue 36, point 4): create (the secret once), read, list, change, delete, with the
// scopes the contract declares, another account's endpoint not found, the URL rules, Idempotency-Key and the
// per-account limit. Deliveries, tests, rotation and recovery: webhook-endpoint-deliveries.test.ts.
import { expect } from 'chai';
import { Visitor } from '../support/dashboard-visitor.js';
import { startTestServer, type TestServer } from '../support/server.js';

const HOOK = 'https://hooks.example.com/ias';

describe('/v1/webhook-endpoints: endpoints managed over REST', () => {
  let server: TestServer;
  let accounts = 0;

  before(async () => {
    server = await startTestServer({ POW_DIFFICULTY: '4' });
  });
  after(() => server.close());

  /** A new account with a client holding `scopes`, and its email (for another client of the same account). */
  const holder = async (scopes = ['read', 'write']) => {
    const email = `endpoints${++accounts}@example.com`;
    return { ...(await server.account(scopes, email)), email };
  };
  const create = (token: string, json: unknown = { url: HOOK, event_types: ['order.filled'] }, headers: Record<string, string> = {}) =>
    server.api.post('/v1/webhook-endpoints', { token, json, headers });
  const at = (id: string, suffix = '') => `/v1/webhook-endpoints/${id}${suffix}`;
  const patch = (token: string, id: string, json: unknown) => server.api.request('PATCH', at(id), { token, json });
  const remove = (token: string, id: string) => server.api.request('DELETE', at(id), { token });
  const problem = (slug: string) => `${server.url}/problems/${slug}`;

  it('POST answers 201 with the signing secret, shown this once: Location, no-store; GET and the list never show it', async () => {
    const { token } = await holder();
    const created = await create(token, { url: HOOK, event_types: ['order.filled', 'kill_switch.engaged'], description: 'Order desk' });
    expect(created.status, created.text).to.equal(201);
    const { secret, ...endpoint } = created.body;
    expect(secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.headers.get('location')).to.equal(at(endpoint.id));
    expect(created.headers.get('cache-control')).to.equal('no-store');
    expect(endpoint).to.deep.include({
      url: HOOK,
      description: 'Order desk',
      event_types: ['order.filled', 'kill_switch.engaged'],
      enabled: true,
      disabled_reason: null,
      previous_secret_expires_at: null,
    });
    expect(endpoint.id).to.match(/^we_/);
    const read = await server.api.get(at(endpoint.id), { token });
    const list = await server.api.get('/v1/webhook-endpoints', { token });
    expect(read.body).to.deep.equal(endpoint);
    expect(list.body).to.deep.equal({ data: [endpoint], next_cursor: null });
    for (const answer of [read, list]) expect(answer.text).to.not.include(secret.slice('whsec_'.length));
  });

  it('lists newest first, a page at a time', async () => {
    const { token } = await holder();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await create(token)).body.id);
    const first = await server.api.get('/v1/webhook-endpoints?limit=2', { token });
    expect(first.body.data.map((e: { id: string }) => e.id)).to.deep.equal([ids[2], ids[1]]);
    const second = await server.api.get(`/v1/webhook-endpoints?limit=2&cursor=${first.body.next_cursor}`, { token });
    expect(second.body).to.deep.include({ next_cursor: null });
    expect(second.body.data.map((e: { id: string }) => e.id)).to.deep.equal([ids[0]]);
  });

  it('a read-only token reads, and every change is 403 insufficient-scope naming write; nothing changes', async () => {
    const owner = await holder();
    const endpoint = (await create(owner.token)).body;
    const { secret: _secret, ...before } = endpoint;
    const reader = await server.token(['read'], owner.email);
    const writes = [
      () => create(reader),
      () => patch(reader, endpoint.id, { enabled: false }),
      () => remove(reader, endpoint.id),
      () => server.api.post(at(endpoint.id, '/rotate-secret'), { token: reader }),
      () => server.api.post(at(endpoint.id, '/test'), { token: reader }),
      () => server.api.post(at(endpoint.id, '/recover'), { token: reader, json: { since: new Date().toISOString() } }),
    ];
    for (const write of writes) {
      const refused = await write();
      expect(refused.status, refused.text).to.equal(403);
      expect(refused.body).to.include({ type: problem('insufficient-scope'), required_scope: 'write' });
      expect(refused.headers.get('www-authenticate')).to.include('error="insufficient_scope"').and.include('scope="write"');
    }
    expect((await server.api.get(at(endpoint.id), { token: reader })).body).to.deep.equal(before);
    expect((await server.api.get('/v1/webhook-endpoints', { token: reader })).body.data).to.deep.equal([before]);
    expect((await server.api.get(at(endpoint.id, '/deliveries'), { token: reader })).body).to.deep.equal({ data: [], next_cursor: null });
  });

  it('another account’s endpoint is 404 not-found to every operation, and stays as it was', async () => {
    const owner = await holder();
    const endpoint = (await create(owner.token)).body;
    const { secret: _secret, ...before } = endpoint;
    const { token } = await holder();
    const calls = [
      () => server.api.get(at(endpoint.id), { token }),
      () => patch(token, endpoint.id, { enabled: false }),
      () => remove(token, endpoint.id),
      () => server.api.post(at(endpoint.id, '/rotate-secret'), { token }),
      () => server.api.post(at(endpoint.id, '/test'), { token }),
      () => server.api.get(at(endpoint.id, '/deliveries'), { token }),
      () => server.api.post(at(endpoint.id, '/recover'), { token, json: { since: new Date().toISOString() } }),
    ];
    for (const call of calls) {
      const answer = await call();
      expect(answer.status, answer.text).to.equal(404);
      expect(answer.body.type).to.equal(problem('not-found'));
    }
    expect((await server.api.get('/v1/webhook-endpoints', { token })).body.data).to.deep.equal([]);
    expect((await server.api.get(at(endpoint.id), { token: owner.token })).body).to.deep.equal(before);
  });

  it('a URL the rules refuse is 422 webhook-url-refused naming /url and the rule, on POST and on PATCH; nothing is made or changed', async () => {
    const { token } = await holder();
    for (const [url, rule] of [
      ['http://hooks.example.com/ias', 'must be an https:// URL'],
      ['https://10.1.2.3/ias', '10.1.2.3 is a private address (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16)'],
      ['https://localhost/ias', 'names localhost, a loopback address'],
      ['https://partner:secret@hooks.example.com/ias', 'must not carry a user name or password'],
    ]) {
      const refused = await create(token, { url, event_types: ['order.filled'] });
      expect(refused.status, url).to.equal(422);
      expect(refused.body).to.include({ type: problem('webhook-url-refused'), title: 'Webhook URL refused', status: 422 });
      expect(refused.body.errors).to.have.length(1);
      expect(refused.body.errors[0].pointer).to.equal('/url');
      expect(refused.body.errors[0].detail, url).to.include(rule);
    }
    expect((await server.api.get('/v1/webhook-endpoints', { token })).body.data).to.deep.equal([]);
    const endpoint = (await create(token)).body;
    const refused = await patch(token, endpoint.id, { url: 'https://169.254.169.254/latest', description: 'metadata' });
    expect(refused.status).to.equal(422);
    expect(refused.body.errors[0]).to.include({ pointer: '/url' });
    expect(refused.body.errors[0].detail).to.include('link-local');
    expect((await server.api.get(at(endpoint.id), { token })).body).to.include({ url: HOOK, description: '' });
  });

  it('PATCH changes what its body names: URL, types, description; disabling and enabling', async () => {
    const { token } = await holder();
    const endpoint = (await create(token)).body;
    const changed = await patch(token, endpoint.id, {
      url: 'https://hooks.example.com/ias-v2',
      event_types: ['policy.created', 'order.blocked'],
      description: 'Second receiver',
    });
    expect(changed.status, changed.text).to.equal(200);
    expect(changed.body).to.deep.include({
      id: endpoint.id,
      url: 'https://hooks.example.com/ias-v2',
      event_types: ['policy.created', 'order.blocked'],
      description: 'Second receiver',
      enabled: true,
      created_at: endpoint.created_at,
    });
    expect(changed.body).to.not.have.property('secret');
    expect(Date.parse(changed.body.updated_at)).to.be.at.least(Date.parse(endpoint.updated_at));

    const disabled = await patch(token, endpoint.id, { enabled: false });
    expect(disabled.body).to.include({ enabled: false, disabled_reason: 'disabled by hand', url: 'https://hooks.example.com/ias-v2' });
    expect(disabled.body.disabled_at).to.be.a('string');
    const enabled = await patch(token, endpoint.id, { enabled: true });
    expect(enabled.body).to.include({ enabled: true, disabled_reason: null, disabled_at: null });
    expect((await server.api.get(at(endpoint.id), { token })).body).to.deep.equal(enabled.body);

    for (const body of [{}, { secret: 'whsec_mine' }, { event_types: [] }, { event_types: ['order.done'] }]) {
      const refused = await patch(token, endpoint.id, body);
      expect(refused.status, JSON.stringify(body)).to.equal(400);
      expect(refused.body.type).to.equal(problem('validation-error'));
    }
  });

  it('DELETE answers the deleted endpoint; then it is 404 to reads and to DELETE', async () => {
    const { token } = await holder();
    const [kept, gone] = [(await create(token)).body, (await create(token)).body];
    const deleted = await remove(token, gone.id);
    expect(deleted.status, deleted.text).to.equal(200);
    expect(deleted.body).to.deep.equal({ id: gone.id, deleted: true });
    expect((await server.api.get(at(gone.id), { token })).status).to.equal(404);
    expect((await server.api.get(at(gone.id, '/deliveries'), { token })).status).to.equal(404);
    expect((await remove(token, gone.id)).status).to.equal(404);
    expect((await server.api.get('/v1/webhook-endpoints', { token })).body.data.map((e: { id: string }) => e.id)).to.deep.equal([kept.id]);
  });

  it('an Idempotency-Key replay of POST answers the same endpoint and secret, marked replayed, and makes no second', async () => {
    const { token } = await holder();
    const body = { url: HOOK, event_types: ['order.filled'] };
    const first = await create(token, body, { 'Idempotency-Key': 'create-endpoint-1' });
    const again = await create(token, body, { 'Idempotency-Key': 'create-endpoint-1' });
    expect(first.status).to.equal(201);
    expect(again.status).to.equal(201);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(first.headers.get('idempotent-replayed')).to.equal(null);
    expect(again.body).to.deep.equal(first.body);
    expect(again.headers.get('location')).to.equal(first.headers.get('location'));
    const reused = await create(token, { ...body, description: 'another' }, { 'Idempotency-Key': 'create-endpoint-1' });
    expect(reused.status).to.equal(422);
    expect(reused.body.type).to.equal(problem('idempotency-key-reused'));
    expect((await server.api.get('/v1/webhook-endpoints', { token })).body.data.map((e: { id: string }) => e.id)).to.deep.equal([
      first.body.id,
    ]);
  });

  it('an account holds at most 16 endpoints: the 17th is 409 limit-reached, also when they are asked for at once', async () => {
    const { token } = await holder();
    for (let i = 0; i < 12; i++) expect((await create(token)).status).to.equal(201);
    // The last four places asked for by ten at once: four get one (each creation counts under a lock of the account).
    const answers = await Promise.all(Array.from({ length: 10 }, () => create(token)));
    expect(answers.filter((a) => a.status === 201)).to.have.length(4);
    const refused = answers.filter((a) => a.status !== 201);
    expect(refused.map((a) => a.status)).to.deep.equal([409, 409, 409, 409, 409, 409]);
    expect(refused[0]!.body).to.include({ type: problem('limit-reached'), limit: 16 });
    const listed = await server.api.get('/v1/webhook-endpoints?limit=100', { token });
    expect(listed.body.data).to.have.length(16);
    expect((await remove(token, listed.body.data[0].id)).status).to.equal(200);
    expect((await create(token)).status).to.equal(201);
  });

  it('the dashboard’s Webhooks page runs the same operations: what the API made is there, what it adds the API lists', async () => {
    const email = 'dashboard-hooks@example.com';
    const password = 'a long and unusual passphrase';
    await server.services.people.setPassword(email, password, 'Hook Person');
    const { token } = await server.account(['read', 'write'], email);
    const fromApi = (await create(token, { url: 'https://hooks.example.com/from-api', event_types: ['order.filled'] })).body;
    const visitor = new Visitor(server.dashboardUrl);
    await visitor.logIn(email, password);
    expect((await visitor.page('/developer/webhooks')).html).to.include('https://hooks.example.com/from-api');

    const form = { url: 'https://hooks.example.com/from-dashboard', event_types: 'policy.created', description: 'Desk' };
    expect((await visitor.submit('/developer/webhooks', form, '/developer/webhooks')).status).to.equal(303);
    const listed = (await server.api.get('/v1/webhook-endpoints', { token })).body.data;
    expect(listed[0]).to.deep.include({ url: form.url, event_types: ['policy.created'], description: 'Desk' });
    // The rules are the operation's: the same refusal, as the form's error.
    const refused = await visitor.submit('/developer/webhooks', { ...form, url: 'http://hooks.example.com/' }, '/developer/webhooks');
    expect(refused.status).to.equal(422);
    expect(await refused.text()).to.include('must be an https:// URL');
    // The contract's validator reads the form (an event type is the contract's pattern), as it reads a request.
    const unknown = await visitor.submit('/developer/webhooks', { ...form, event_types: 'order.done' }, '/developer/webhooks');
    expect(unknown.status).to.equal(400);
    expect(await unknown.text()).to.include('<strong>Event types to send</strong> must match pattern');

    const disabled = await visitor.submit(`/developer/webhooks/${fromApi.id}/disable`, {}, `/developer/webhooks/${fromApi.id}`);
    expect(disabled.status).to.equal(303);
    expect((await server.api.get(at(fromApi.id), { token })).body).to.include({ enabled: false, disabled_reason: 'disabled by hand' });
    // A disabled endpoint is offered no test event (the operation would refuse it: webhook-endpoint-disabled).
    const page = (await visitor.page(`/developer/webhooks/${fromApi.id}`)).html;
    expect(page).to.include('>Enable</button>').and.not.include('Send test event');
    expect((await visitor.submit(`/developer/webhooks/${fromApi.id}/delete`, {}, `/developer/webhooks/${fromApi.id}`)).status).to.equal(
      303,
    );
    expect((await server.api.get(at(fromApi.id), { token })).status).to.equal(404);
  });
});
