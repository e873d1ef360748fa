// Quotas per account (issue 34, point 1): idea generations, policy versions, daily report generations and webhook
// test sends a minute, counted for the account whatever client, interface or address calls — each a RateLimit-Policy
// of its answers, and past it 429 quota-exceeded naming the policy, with Retry-After, on every channel; another
// account is not touched.
import { expect } from 'chai';
import { graphql } from '../graphql/support.js';
import { Visitor } from '../support/dashboard-visitor.js';
import { callTool, connectMcp } from '../support/mcp.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { createPolicy, policyBody } from '../support/trading.js';

describe('quotas per account', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      POW_DIFFICULTY: '6',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      ACCOUNT_IDEAS_PER_MINUTE: '3',
      ACCOUNT_POLICIES_PER_MINUTE: '2',
      ACCOUNT_REPORTS_PER_MINUTE: '2',
      ACCOUNT_WEBHOOK_TESTS_PER_MINUTE: '1',
    });
  });
  after(() => server.close());

  const ideas = { mode: 'invest_cash', market: 'US' };
  const quotaExceeded = (body: any, policy: string) => {
    expect(body.type, JSON.stringify(body)).to.equal('https://iana.org/assignments/http-problem-types#quota-exceeded');
    expect(body['violated-policies']).to.deep.equal([policy]);
  };

  it('counts idea generations for the account over its clients, REST, GraphQL and MCP, and refuses the one past it', async () => {
    const first = await server.account(['read', 'write', 'trade', 'mcp'], 'ideas@example.com');
    await createPolicy(server, first.token);
    // Another client of the same account.
    const second = await server.account(['read', 'trade'], 'ideas@example.com');
    expect(second.accountId).to.equal(first.accountId);
    const other = await server.token(['read', 'write', 'trade']);
    const rest = await server.api.post('/v1/ideas/generate', { token: first.token, json: ideas });
    expect(rest.status, rest.text).to.equal(201);
    expect(rest.headers.get('ratelimit-policy')).to.match(/"ideas"; q=3; w=60/);
    expect(rest.headers.get('ratelimit')).to.match(/"ideas"; r=2; t=\d+/);
    const viaGraphql = await graphql(server, 'mutation { generateIdeas(input: {mode: invest_cash, market: "US"}) { notes } }', {
      token: second.token,
    });
    expect(viaGraphql.body.errors, JSON.stringify(viaGraphql.body.errors)).to.equal(undefined);
    const mcp = await connectMcp(server, first.token);
    try {
      expect((await callTool(mcp, 'generateIdeas', ideas)).ok).to.equal(true);
      const refused = await callTool(mcp, 'generateIdeas', ideas);
      expect(refused.ok).to.equal(false);
      if (!refused.ok) quotaExceeded(refused.problem, 'ideas');
    } finally {
      await mcp.close();
    }
    const past = await server.api.post('/v1/ideas/generate', { token: first.token, json: ideas });
    expect(past.status).to.equal(429);
    quotaExceeded(past.body, 'ideas');
    expect(Number(past.headers.get('retry-after'))).to.be.within(1, 60);
    expect(past.body.detail).to.equal(
      'This account has made its 3 idea generations of this minute (from every client and interface); retry after Retry-After seconds.',
    );
    // Another account is not touched.
    await createPolicy(server, other);
    expect((await server.api.post('/v1/ideas/generate', { token: other, json: ideas })).status).to.equal(201);
  });

  it('counts policy versions and daily report generations for the account', async () => {
    const { token } = await server.account(['read', 'write', 'trade']);
    for (const status of [201, 201, 429]) {
      const answer = await server.api.post('/v1/policies', { token, json: await policyBody(server, token) });
      expect(answer.status).to.equal(status);
      if (status === 429) quotaExceeded(answer.body, 'policies');
    }
    for (const status of [200, 200, 429]) {
      const answer = await server.api.post('/v1/reports/daily', { token, json: { date: '2026-11-20' } });
      expect(answer.status).to.be.within(status, status + 1);
      if (status === 429) quotaExceeded(answer.body, 'reports');
    }
  });

  it('counts webhook test sends of the account in the dashboard', async () => {
    const email = 'quota@example.com';
    await server.services.people.setPassword(email, 'a long and unusual passphrase', 'Quota Person');
    const account = await server.account(['read'], email);
    const endpoint = await server.services.webhooks.create(account.accountId, {
      url: 'http://127.0.0.1:9/hook',
      eventTypes: ['order.filled'],
    });
    const visitor = new Visitor(server.dashboardUrl);
    await visitor.logIn(email, 'a long and unusual passphrase');
    const first = await visitor.submit(`/developer/webhooks/${endpoint.id}/test`, {}, `/developer/webhooks/${endpoint.id}`);
    expect(first.status).to.equal(303);
    const second = await visitor.submit(`/developer/webhooks/${endpoint.id}/test`, {}, `/developer/webhooks/${endpoint.id}`);
    expect(second.status).to.equal(429);
    expect(await second.text()).to.include('1 webhook test sends of this minute');
  });

  it('holds an account to 16 webhook endpoints and 20 active API clients: the next is 409 limit-reached until one goes', async () => {
    const email = 'limits@example.com';
    await server.services.people.setPassword(email, 'a long and unusual passphrase', 'Limit Person');
    const account = await server.account(['read'], email);
    const visitor = new Visitor(server.dashboardUrl);
    await visitor.logIn(email, 'a long and unusual passphrase');
    const endpoint = () =>
      visitor.submit('/developer/webhooks', { url: 'http://127.0.0.1:9/hook', event_types: 'order.filled' }, '/developer/webhooks');
    for (let i = 0; i < 16; i++) expect((await endpoint()).status, `endpoint ${i + 1}`).to.be.within(200, 303);
    const seventeenth = await endpoint();
    expect(seventeenth.status).to.equal(409);
    expect(await seventeenth.text()).to.include('This account has its 16 webhook endpoints');
    // As the operator's CLI meets it: the problem names the limit.
    const refused = await server.services.webhooks
      .create(account.accountId, { url: 'http://127.0.0.1:9/hook', eventTypes: ['order.filled'] })
      .catch((error: { slug: string; extensions: unknown }) => [error.slug, error.extensions]);
    expect(refused).to.deep.equal(['limit-reached', { limit: 16 }]);
    const [first] = await server.services.webhooks.list({ accountId: account.accountId });
    await server.services.webhooks.remove('operator', first!.id);
    expect((await endpoint()).status).to.be.within(200, 303);

    // The account's own client (server.account) is one of its 20.
    const client = (name: string) => visitor.submit('/developer/clients', { name, scopes: 'read' }, '/developer');
    for (let i = 1; i < 20; i++) expect((await client(`client ${i}`)).status, `client ${i}`).to.be.within(200, 303);
    const twentyFirst = await client('one too many');
    expect(twentyFirst.status).to.equal(409);
    expect(await twentyFirst.text()).to.include('This account has its 20 active API clients');
  });
});
