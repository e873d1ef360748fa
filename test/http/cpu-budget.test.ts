import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { graphql } from '../graphql/support.js';
import { callTool, connectMcp } from '../support/mcp.js';
import { startServiceProcess, type ServiceProcess } from '../support/process.js';
import { closeTestRedis, connectTestRedis, TEST_REDIS_URL as REDIS_URL, type TestRedis } from '../support/redis.js';
import { until } from '../support/poll.js';
import { startTestServer, type TestServer } from '../support/server.js';

const QUOTA_EXCEEDED = 'https://iana.org/assignments/http-problem-types#quota-exceeded';
const path = '/v1/goals/feasibility';
const goal = (i: number) => ({ capital: 10_000, target: 50_000 + i, horizon_years: 20, market: 'US', monthly_contribution: 200 });
const query = (i: number) =>
  `{ goalFeasibility(input: {capital: 10000, target: ${50_000 + i}, horizon_years: 20, market: "US", monthly_contribution: 200}) { probability } }`;

describe('the CPU budget of heavy computations: charged per client where it is spent, one budget for REST, GraphQL and MCP', () => {
  // 1 ms a minute: the first computation of a window is admitted and spends it all (every one costs at least 1 ms).
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ CPU_BUDGET_MS_PER_MINUTE: '1' });
  });
  after(() => server.close());

  async function caller() {
    const token = await server.token(['read', 'mcp']);
    return { token, mcp: await connectMcp(server, token) };
  }
  const rest = (token: string, i: number) => server.api.post(path, { token, json: goal(i) });

  function expectRestRefused(response: Awaited<ReturnType<typeof rest>>) {
    expect(response.status).to.equal(429);
    expect(response.body).to.include({ type: QUOTA_EXCEEDED, title: 'Too many requests', status: 429 });
    expect(response.body['violated-policies']).to.deep.equal(['cpu']);
    expect(response.body.detail).to.match(/used its 1 ms of CPU time for heavy computations/);
    expect(Number(response.headers.get('retry-after'))).to.be.within(1, 60);
    expect(response.headers.get('cache-control')).to.equal('no-store');
    expect(response.headers.get('ratelimit')).to.match(/^"route"; r=\d+; t=\d+, "cpu"; r=0; t=\d+$/);
    expect(response.headers.get('ratelimit-policy')).to.match(
      /^"route"; q=\d+; w=60; pk=:[A-Za-z0-9+/=]+:, "cpu"; q=1; w=60; pk=:[A-Za-z0-9+/=]+:$/,
    );
  }
  function expectGraphQLRefused(response: Awaited<ReturnType<typeof graphql>>) {
    expect(response.status).to.equal(200);
    expect(response.body.data).to.deep.equal({ goalFeasibility: null });
    expect(response.body.errors).to.have.length(1);
    const { extensions } = response.body.errors![0];
    expect(extensions).to.include({ code: 'QUOTA_EXCEEDED', type: QUOTA_EXCEEDED, status: 429 });
    expect(extensions['violated-policies']).to.deep.equal(['cpu']);
    expect(extensions.retry_after).to.be.within(1, 60);
  }
  async function expectMcpRefused(mcp: Client, i: number) {
    const call = await callTool(mcp, 'evaluateGoalFeasibility', goal(i));
    expect(call.ok).to.equal(false);
    expect(call.problem).to.include({ type: QUOTA_EXCEEDED, status: 429 });
    expect(call.problem['violated-policies']).to.deep.equal(['cpu']);
    expect(call.problem.retry_after).to.be.within(1, 60);
  }

  it('spent over REST, refuses the client on REST, GraphQL and MCP with 429 quota-exceeded, each in its own format', async () => {
    const { token, mcp } = await caller();
    try {
      const first = await rest(token, 0);
      expect(first.status).to.equal(200);
      // The budget left after this computation, beside the route limit's.
      expect(first.headers.get('ratelimit')).to.match(/^"route"; r=\d+; t=\d+, "cpu"; r=0; t=(60|59)$/);
      expect(first.headers.get('ratelimit-policy')).to.match(/, "cpu"; q=1; w=60; pk=:[A-Za-z0-9+/=]+:$/);
      expectRestRefused(await rest(token, 1));
      expectGraphQLRefused(await graphql(server, query(2), { token }));
      await expectMcpRefused(mcp, 3);
      // Reads are not heavy computations: the budget does not touch them.
      expect((await server.api.get('/v1/kill-switch', { token })).status).to.equal(200);
    } finally {
      await mcp.close();
    }
  });

  it('spent over MCP or GraphQL, refuses the client on the other interfaces too', async () => {
    const viaMcp = await caller();
    const viaGraphql = await caller();
    try {
      expect((await callTool(viaMcp.mcp, 'evaluateGoalFeasibility', goal(0))).ok).to.equal(true);
      expectRestRefused(await rest(viaMcp.token, 1));
      expectGraphQLRefused(await graphql(server, query(2), { token: viaMcp.token }));

      const spent = await graphql(server, query(0), { token: viaGraphql.token });
      expect(spent.body.errors).to.equal(undefined);
      expect(spent.body.data.goalFeasibility.probability).to.be.a('number');
      expectRestRefused(await rest(viaGraphql.token, 1));
      await expectMcpRefused(viaGraphql.mcp, 2);
    } finally {
      await viaMcp.mcp.close();
      await viaGraphql.mcp.close();
    }
  });

  it('charges each client its own budget: another client is served', async () => {
    const spender = await server.token(['read']);
    expect((await rest(spender, 0)).status).to.equal(200);
    expect((await rest(spender, 1)).status).to.equal(429);
    const other = await server.token(['read']);
    const served = await rest(other, 2);
    expect(served.status).to.equal(200);
    expect(served.headers.get('ratelimit')).to.match(/"cpu"; r=0; t=\d+$/);
  });

  it('refuses nothing while the shared counters cannot answer (Redis unreachable), and then announces no cpu policy', async () => {
    const unreachable = await startTestServer({ REDIS_URL: 'redis://127.0.0.1:1', CPU_BUDGET_MS_PER_MINUTE: '1' });
    try {
      const token = await unreachable.token(['read']);
      for (let i = 0; i < 3; i++) {
        const response = await unreachable.api.post(path, { token, json: goal(i) });
        expect(response.status).to.equal(200);
        expect(response.headers.get('ratelimit-policy')).to.not.include('"cpu"');
      }
    } finally {
      await unreachable.close();
    }
  });

  describe('shared through Redis by two server processes on one PostgreSQL', () => {
    const prefix = `ias-test:${randomBytes(4).toString('hex')}:`;
    let redis: TestRedis | undefined;
    let database: TestServer | undefined;
    const processes: ServiceProcess[] = [];
    before(async function () {
      this.timeout(120_000);
      redis = await connectTestRedis();
      if (!redis) this.skip(); // no Redis answers (TEST_REDIS_URL); make test says so before it starts
      database = await startTestServer();
      if (!database.database.url) this.skip(); // two processes need PostgreSQL
      const env = {
        DATABASE_URL: database.database.url,
        BASE_URL: database.url,
        REDIS_URL,
        RATE_LIMIT_REDIS_PREFIX: prefix,
        CPU_BUDGET_MS_PER_MINUTE: '1',
      };
      processes.push(...(await Promise.all([startServiceProcess(env), startServiceProcess(env)])));
    });
    after(async () => {
      for (const p of processes) p.stop();
      await database?.close();
      await closeTestRedis(redis, prefix);
    });

    it('gives the client one budget on both instances, kept under the configured prefix', async () => {
      const post = (p: ServiceProcess, token: string, i: number) =>
        fetch(`http://127.0.0.1:${p.port}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(goal(i)),
        });
      // Each instance connects to Redis in the background; until then computations would pass uncharged.
      for (const p of processes) {
        const ready = async () =>
          ((await (await fetch(`http://127.0.0.1:${p.port}/readyz`)).json()) as { checks: { rate_limit_store?: string } }).checks
            .rate_limit_store === 'ok';
        await until('an instance to connect to Redis', ready, { attempts: 100, intervalMs: 50 });
      }
      const token = await database!.token(['read']);
      expect((await post(processes[0]!, token, 0)).status).to.equal(200);
      const refused = await post(processes[1]!, token, 1);
      expect(refused.status).to.equal(429);
      expect(((await refused.json()) as Record<string, unknown>)['violated-policies']).to.deep.equal(['cpu']);
      expect((await redis!.keys(`${prefix}cpu:*`)).length).to.equal(1);
    });
  });
});
