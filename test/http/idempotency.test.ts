import { expect } from 'chai';
import { sql } from 'kysely';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { createPolicy, policyBody, propose } from '../support/trading.js';
import { until } from '../support/poll.js';

const slug = (body: { type?: string }) => body.type?.split('/').pop();

describe('Idempotency-Key', () => {
  let server: TestServer;
  let llm: FakeLlm;

  before(async () => {
    llm = await startFakeLlm();
    server = await startTestServer({
      ASSISTANT_BASE_URL: llm.url,
      ASSISTANT_API_KEY: 'test-key',
      ASSISTANT_MODEL: 'fake-model',
      ASSISTANT_TIMEOUT_MS: '5000',
    });
    // A key that expired before anything ran: the service's own sweep must delete it (see the sweep test).
    const past = new Date(Date.now() - 60_000);
    await server.database.db.kysely
      .insertInto('idempotency_keys')
      .values({
        account_id: 'acc_gone',
        client_id: 'cli_gone',
        operation_id: 'engageKillSwitch',
        key: 'expired-before-start',
        fingerprint: 'x',
        status: 200,
        headers: '{}',
        body: null,
        content_type: 'application/json',
        created_at: past,
        expires_at: past,
      })
      .execute();
  });
  after(async () => {
    await server.close();
    await llm.close();
  });

  const engage = (token: string, key: string | undefined, reason: string) =>
    server.api.post('/v1/kill-switch', { token, json: { reason }, headers: key === undefined ? {} : { 'idempotency-key': key } });
  const policy = (token: string, maxOrder: number) => policyBody(server, token, { limits: { max_order_notional: maxOrder } });
  const versions = async (token: string) => (await server.api.get('/v1/policies?limit=100', { token })).body.data.length as number;

  it('replays the first answer (status, body, Location) with Idempotent-Replayed: true and applies it once', async () => {
    const token = await server.token();
    const body = await policy(token, 25_000);
    const first = await server.api.post('/v1/policies', { token, json: body, headers: { 'idempotency-key': 'policy-1' } });
    expect(first.status, first.text).to.equal(201);
    expect(first.headers.get('idempotent-replayed')).to.equal(null);
    // The same body with its members in another order is the same request.
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const again = await server.api.post('/v1/policies', { token, json: reordered, headers: { 'idempotency-key': 'policy-1' } });
    expect(again.status).to.equal(201);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(again.headers.get('location')).to.equal(first.headers.get('location'));
    expect(again.text).to.equal(first.text);
    expect(await versions(token)).to.equal(1);
  });

  it('treats no body and {} as the same request (approve takes either)', async () => {
    const account = await server.account();
    await createPolicy(server, account.token);
    const [order] = await propose(server, account, [{ symbol: 'VTI', side: 'buy', quantity: '1' }]);
    const first = await server.api.post(`/v1/orders/${order!.id}/approve`, {
      token: account.token,
      headers: { 'idempotency-key': 'approve-1' },
    });
    expect(first.status, first.text).to.equal(200);
    const again = await server.api.post(`/v1/orders/${order!.id}/approve`, {
      token: account.token,
      json: {},
      headers: { 'idempotency-key': 'approve-1' },
    });
    expect(again.status, again.text).to.equal(200);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(again.text).to.equal(first.text);
  });

  it('answers 422 idempotency-key-reused for the same key with another request, and changes nothing', async () => {
    const token = await server.token();
    expect((await engage(token, 'switch-1', 'first reason')).status).to.equal(200);
    const other = await engage(token, 'switch-1', 'another reason');
    expect(other.status).to.equal(422);
    expect(slug(other.body)).to.equal('idempotency-key-reused');
    expect(other.body.detail).to.include('switch-1');
    const state = await server.api.get('/v1/kill-switch', { token });
    expect(state.body.reason).to.equal('first reason');
  });

  it('scopes keys to the caller: another client with the same key gets its own effect', async () => {
    const [a, b] = [await server.token(), await server.token()];
    expect((await engage(a, 'shared-key', 'a')).status).to.equal(200);
    const second = await engage(b, 'shared-key', 'b');
    expect(second.status).to.equal(200);
    expect(second.headers.get('idempotent-replayed')).to.equal(null);
    expect((await server.api.get('/v1/kill-switch', { token: b })).body.reason).to.equal('b');
  });

  it('stores a final 4xx, rolls its effect back, and replays it', async () => {
    const token = await server.token();
    const body = await policy(token, 25_000);
    body.target_allocation = [{ symbol: 'NOPE', weight: 1 }];
    const refused = await server.api.post('/v1/policies', { token, json: body, headers: { 'idempotency-key': 'bad-policy' } });
    expect(refused.status, refused.text).to.equal(422);
    const replayed = await server.api.post('/v1/policies', { token, json: body, headers: { 'idempotency-key': 'bad-policy' } });
    expect(replayed.status).to.equal(422);
    expect(replayed.headers.get('idempotent-replayed')).to.equal('true');
    expect(replayed.body.type).to.equal(refused.body.type);
    expect(await versions(token)).to.equal(0);
  });

  it('refuses keys that are empty, longer than 255 or not visible ASCII with 400, storing nothing', async () => {
    const token = await server.token();
    for (const key of ['', 'x'.repeat(256), 'has space', 'tab\there', 'caf\u00e9']) {
      const response = await engage(token, key, 'bad key');
      expect(response.status, key).to.equal(400);
      expect(response.body.errors[0].pointer, key).to.equal('/header/idempotency-key');
    }
    expect((await engage(token, 'x'.repeat(255), 'longest key')).status).to.equal(200);
    const rows = await server.database.db.kysely
      .selectFrom('idempotency_keys')
      .select('key')
      .where('key', 'in', ['has space', 'tab\there'])
      .execute();
    expect(rows).to.deep.equal([]);
  });

  it('stores nothing for a call refused before it runs (401, 403, 406): the same key then runs the call', async () => {
    const account = await server.account(['read', 'write', 'trade']);
    const reader = await server.token(['read'], `reader.${account.accountId}@example.com`);
    const keyed = (token: string, key: string, headers: Record<string, string> = {}) =>
      server.api.post('/v1/kill-switch', {
        token,
        json: { reason: key },
        headers: { 'idempotency-key': key, ...headers },
        unchecked: true,
      });
    expect((await keyed('not-a-token', 'refused-401')).status).to.equal(401);
    expect((await keyed(reader, 'refused-403')).status).to.equal(403);
    expect((await keyed(account.token, 'refused-406', { accept: 'text/html' })).status).to.equal(406);
    const stored = await server.database.db.kysely
      .selectFrom('idempotency_keys')
      .select('key')
      .where('key', 'in', ['refused-401', 'refused-403', 'refused-406'])
      .execute();
    expect(stored).to.deep.equal([]);
    for (const key of ['refused-401', 'refused-403', 'refused-406']) {
      const ran = await keyed(account.token, key);
      expect(ran.status, key).to.equal(200);
      expect(ran.headers.get('idempotent-replayed'), key).to.equal(null);
    }
  });

  it('stores no 5xx: the failed attempt leaves nothing, and a retry with the same key runs again', async () => {
    const token = await server.token();
    await createPolicy(server, token);
    const generate = () =>
      server.api.post('/v1/ideas/generate', {
        token,
        json: { mode: 'assistant', market: 'US' },
        headers: { 'idempotency-key': 'flaky-llm' },
      });
    llm.reply({ status: 500 });
    const failed = await generate();
    expect(failed.status, failed.text).to.equal(502);
    expect(slug(failed.body)).to.equal('assistant-failed');
    const stored = await server.database.db.kysely.selectFrom('idempotency_keys').select('key').where('key', '=', 'flaky-llm').execute();
    expect(stored).to.deep.equal([]);

    llm.reply({
      content: JSON.stringify({ rationale: 'Buy bonds.', orders: [{ symbol: 'BND', side: 'buy', quantity: 10, order_type: 'market' }] }),
    });
    const asked = llm.requests.length;
    const retried = await generate();
    expect(retried.status, retried.text).to.equal(201);
    expect(retried.headers.get('idempotent-replayed')).to.equal(null);
    expect(llm.requests.length).to.equal(asked + 1);
    const replayed = await generate();
    expect(replayed.headers.get('idempotent-replayed')).to.equal('true');
    expect(replayed.body.ideas[0].id).to.equal(retried.body.ideas[0].id);
    expect(llm.requests.length).to.equal(asked + 1);
    expect((await server.api.get('/v1/ideas?limit=100', { token })).body.data.length).to.equal(1);
  });

  it('stores no keyed GraphQL mutation whose error is a 5xx problem: a retry runs it again', async () => {
    const token = await server.token();
    await createPolicy(server, token);
    const send = () =>
      fetch(`http://127.0.0.1:${server.running.port}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': 'gql-flaky' },
        body: JSON.stringify({ query: 'mutation { generateIdeas(input: { mode: assistant, market: "US" }) { ideas { id } } }' }),
      }).then(async (r) => ({ replayed: r.headers.get('idempotent-replayed'), body: await r.json() }));
    llm.reply({ status: 500 });
    const failed = await send();
    expect(failed.body.errors?.[0]?.extensions?.code, JSON.stringify(failed.body)).to.equal('ASSISTANT_FAILED');
    llm.reply({
      content: JSON.stringify({ rationale: 'Buy bonds.', orders: [{ symbol: 'BND', side: 'buy', quantity: 10, order_type: 'market' }] }),
    });
    const retried = await send();
    expect(retried.replayed).to.equal(null);
    expect(retried.body.data?.generateIdeas?.ideas, JSON.stringify(retried.body)).to.have.length(1);
    const replayed = await send();
    expect(replayed.replayed).to.equal('true');
    expect(replayed.body).to.deep.equal(retried.body);
    expect((await server.api.get('/v1/ideas?limit=100', { token })).body.data.length).to.equal(1);
  });

  it('deletes expired keys itself, after a stored answer', async () => {
    const token = await server.token();
    expect((await engage(token, 'sweep-trigger', 'sweep')).status).to.equal(200);
    const gone = async () =>
      (await server.database.db.kysely.selectFrom('idempotency_keys').select('key').where('key', '=', 'expired-before-start').execute())
        .length === 0;
    // The sweep runs after the commit, without delaying the answer: wait for it (a bounded number of looks).
    await until('the sweep to delete the expired key', gone, { attempts: 100, intervalMs: 20 });
  });

  it('runs a key again once its retention has passed', async () => {
    const token = await server.token();
    const body = await policy(token, 25_000);
    expect((await server.api.post('/v1/policies', { token, json: body, headers: { 'idempotency-key': 'old-key' } })).status).to.equal(201);
    await sql`update idempotency_keys set expires_at = now() - interval '1 second' where key = 'old-key'`.execute(
      server.database.db.kysely,
    );
    const again = await server.api.post('/v1/policies', { token, json: body, headers: { 'idempotency-key': 'old-key' } });
    expect(again.status).to.equal(201);
    expect(again.headers.get('idempotent-replayed')).to.equal(null);
    expect(await versions(token)).to.equal(2);
  });

  it('holds a key while its call runs: the same key is refused at once with 409 naming it, another key is not held', async function () {
    // The embedded database has one session: a second transaction waits for the first, so no call runs beside another.
    if (!server.database.url) this.skip();
    const token = await server.token();
    await createPolicy(server, token);
    let answer!: (reply: { content: string }) => void;
    llm.reply({ later: new Promise((resolve) => (answer = resolve)) });
    const asked = llm.requests.length;
    const generate = (key: string, mode = 'assistant') =>
      server.api.post('/v1/ideas/generate', { token, json: { mode, market: 'US' }, headers: { 'idempotency-key': key } });
    const first = generate('held');
    try {
      await until('the first call to be waiting on the assistant', () => llm.requests.length > asked);
      const busy = await generate('held');
      expect([busy.status, busy.body.detail]).to.deep.equal([
        409,
        'A request with Idempotency-Key "held" is still running; retry once it has finished.',
      ]);
      expect((await generate('not-held', 'invest_cash')).status).to.equal(201);
    } finally {
      answer({
        content: JSON.stringify({ rationale: 'Buy bonds.', orders: [{ symbol: 'BND', side: 'buy', quantity: 1, order_type: 'market' }] }),
      });
    }
    expect((await first).status).to.equal(201);
    llm.reply({ content: '{"rationale": "Nothing to do.", "orders": []}' });
  });

  it('replays a keyed GraphQL mutation, refuses the key with other variables, and rolls back a mutation that failed', async () => {
    const token = await server.token();
    const disclosure = await server.api.get('/v1/disclosures/current', { token });
    const query = 'mutation($input: PolicyCreateRequest!) { createPolicy(input: $input) { version } }';
    const input = {
      ...(await policy(token, 25_000)),
      consent: { disclosure_version: disclosure.body.version, accepted: true, signer_name: 'Test Holder' },
    };
    const send = (variables: unknown, key: string) =>
      fetch(`http://127.0.0.1:${server.running.port}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify({ query, variables }),
      }).then(async (r) => ({ status: r.status, replayed: r.headers.get('idempotent-replayed'), body: await r.json() }));
    const first = await send({ input }, 'gql-1');
    expect(first.status, JSON.stringify(first.body)).to.equal(200);
    const again = await send({ input }, 'gql-1');
    expect(again.replayed).to.equal('true');
    expect(again.body).to.deep.equal(first.body);
    expect(await versions(token)).to.equal(1);
    const other = await send({ input: { ...input, target_allocation: [{ symbol: 'VTI', weight: 1 }] } }, 'gql-1');
    expect(other.status).to.equal(422);
    expect(slug(other.body)).to.equal('idempotency-key-reused');
    const failed = await send({ input: { ...input, target_allocation: [{ symbol: 'NOPE', weight: 1 }] } }, 'gql-2');
    expect(failed.body.errors?.length).to.be.greaterThan(0);
    const failedAgain = await send({ input: { ...input, target_allocation: [{ symbol: 'NOPE', weight: 1 }] } }, 'gql-2');
    expect(failedAgain.replayed).to.equal('true');
    expect(await versions(token)).to.equal(1);
  });
});
