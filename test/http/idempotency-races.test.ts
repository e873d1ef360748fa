import { expect } from 'chai';
import { sql } from 'kysely';
import { setTimeout as delay } from 'node:timers/promises';
import { startServiceProcess, type ServiceProcess } from '../support/process.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { createPolicy } from '../support/trading.js';

const slug = (body: { type?: string }) => body.type?.split('/').pop();

describe('Idempotency-Key under races: one instance, two instances, the compute pool', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('gives 12 concurrent identical keyed idea generations exactly one effect; the others replay it or get 409 with Retry-After', async () => {
    const token = await server.token();
    await createPolicy(server, token);
    const responses = await Promise.all(
      Array.from({ length: 12 }, () =>
        server.api.post('/v1/ideas/generate', {
          token,
          json: { mode: 'invest_cash', market: 'US' },
          headers: { 'idempotency-key': 'race-1' },
        }),
      ),
    );
    const created = responses.filter((r) => r.status === 201);
    expect(created.length, responses.map((r) => r.status).join(',')).to.be.at.least(1);
    for (const r of responses.filter((r) => r.status !== 201)) {
      expect(r.status).to.equal(409);
      expect(slug(r.body)).to.equal('idempotency-key-in-use');
      expect(r.headers.get('retry-after')).to.equal('1');
    }
    expect(new Set(created.map((r) => r.body.ideas[0].id)).size).to.equal(1);
    expect(created.filter((r) => r.headers.get('idempotent-replayed') === null).length).to.equal(1);
    const ideas = await server.api.get('/v1/ideas?limit=100', { token });
    expect(ideas.body.data.length).to.equal(1);
  });

  it('gives one effect when identical keyed requests race over two instances on one database', async function () {
    if (!server.database.url) this.skip(); // two processes need PostgreSQL: the embedded database serves one
    this.timeout(120_000);
    let second: ServiceProcess | undefined;
    try {
      // The same BASE_URL: tokens name it as their issuer and audience, so either instance accepts them.
      second = await startServiceProcess({ DATABASE_URL: server.database.url, BASE_URL: server.url });
      const token = await server.token();
      await createPolicy(server, token);
      const urls = [server.url.replace(/^https?:\/\/[^/]+/, `http://127.0.0.1:${server.running.port}`), `http://127.0.0.1:${second.port}`];
      const responses = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          fetch(`${urls[i % 2]}/v1/ideas/generate`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': 'race-2' },
            body: JSON.stringify({ mode: 'invest_cash', market: 'US' }),
          }).then(async (r) => ({ status: r.status, body: (await r.json()) as { ideas: { id: string }[] } })),
        ),
      );
      expect(
        responses.every((r) => r.status === 201 || r.status === 409),
        responses.map((r) => r.status).join(','),
      ).to.equal(true);
      expect(new Set(responses.filter((r) => r.status === 201).map((r) => r.body.ideas[0]!.id)).size).to.equal(1);
      const ideas = await server.api.get('/v1/ideas?limit=100', { token });
      expect(ideas.body.data.length).to.equal(1);
    } finally {
      second?.stop();
    }
  });

  it('computes a keyed goal feasibility outside the key’s transaction: no connection waits for the pool, and the answer replays', async function () {
    if (!server.database.url) this.skip(); // connection states are PostgreSQL's
    const token = await server.token(['read']);
    // Heavy: σ 2 over 100 years with a contribution, each request its own key, more than the pool runs at once.
    const goal = (i: number) => ({
      capital: 1000 + i,
      target: 5e6,
      horizon_years: 100,
      market: 'US',
      monthly_contribution: 300,
      assumptions: { expected_return: 0.2, volatility: 2 },
    });
    const ask = (i: number, key: string) =>
      server.api.post('/v1/goals/feasibility', { token, json: goal(i), headers: { 'idempotency-key': key } });
    const database = new URL(server.database.url).pathname.slice(1);
    let answered = false;
    let holding = 0;
    const requests = Promise.all(Array.from({ length: 16 }, (_, i) => ask(i, `goal-${i}`))).finally(() => (answered = true));
    // A transaction left open while its request waits for a thread (the keyed transaction around the computation)
    // lives as long as the computations queued before it, hundreds of milliseconds; the key's own reads and writes
    // last a few.
    while (!answered) {
      const states = await sql<{ count: number }>`select count(*)::int as count from pg_stat_activity
        where datname = ${database} and state = 'idle in transaction' and now() - xact_start > interval '250 milliseconds'`.execute(
        server.database.db.kysely,
      );
      holding = Math.max(holding, states.rows[0]!.count);
      await delay(5); // sampling pg_stat_activity while the requests run (the loop ends when they are answered)
    }
    const answers = await requests;
    expect(answers.map((a) => a.status)).to.deep.equal(Array(16).fill(200));
    expect(holding, 'connections idle in a transaction while computations waited').to.equal(0);
    const again = await ask(0, 'goal-0');
    expect(again.status).to.equal(200);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(again.body).to.deep.equal(answers[0]!.body);
    const other = await ask(1, 'goal-0');
    expect(other.status).to.equal(422);
    expect(slug(other.body)).to.equal('idempotency-key-reused');
  });
});
