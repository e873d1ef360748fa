import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { authorize } from '../../src/auth/authorize.js';
import { evaluateFeasibility } from '../../src/services/feasibility.js';
import { ProblemError } from '../../src/problems.js';
import { graphql } from '../graphql/support.js';
import { callTool, connectMcp } from '../support/mcp.js';
import { startServiceProcess, waitForOutput } from '../support/process.js';
import { startTestServer, type TestServer } from '../support/server.js';

const path = '/v1/goals/feasibility';

/** A goal at the top of the domain (100 years with contributions, σ 0.9: the longest log grids); `i` makes each its own. */
const heavy = (i: number) => ({
  capital: 10_000,
  target: 5_000_000,
  horizon_years: 100,
  market: 'US',
  monthly_contribution: 2000,
  assumptions: { expected_return: 0.3, volatility: 0.9 - i * 0.001 },
});

/** Settles with the first value `condition` accepts among `promises`, or rejects once every one has settled without one. */
function firstWhere<T>(promises: Promise<T>[], condition: (value: T) => boolean, none: string): Promise<T> {
  return new Promise((resolve, reject) => {
    for (const promise of promises) void promise.then((value) => condition(value) && resolve(value), reject);
    void Promise.allSettled(promises).then(() => reject(new Error(none)));
  });
}

describe('heavy computations on the compute pool (goal feasibility off the event loop)', () => {
  describe('with one thread and 8 places to wait', () => {
    let server: TestServer;
    let token: string;
    before(async () => {
      server = await startTestServer({ COMPUTE_THREADS: '1', COMPUTE_QUEUE_LENGTH: '8' });
      token = await server.token(['read']);
    });
    after(() => server.close());

    it('answers what the computation answers in-process', async () => {
      const response = await server.api.post(path, { token, json: heavy(0) });
      expect(response.status).to.equal(200);
      expect(response.body).to.deep.equal(JSON.parse(JSON.stringify(evaluateFeasibility(heavy(0)))));
    });

    it('answers a read while the computations it admitted are still running: they wait on the pool, not on the event loop', async () => {
      const order: string[] = [];
      const burst = Array.from({ length: 16 }, (_, i) =>
        server.api.post(path, { token, json: heavy(i + 1) }).then((response) => {
          order.push(`heavy ${response.status}`);
          return response;
        }),
      );
      // A refusal says the pool was full when it was admitted: one computation running and eight waiting.
      await firstWhere(burst, (response) => response.status === 503, 'no computation was refused: the pool never filled');
      const read = await server.api.get('/v1/kill-switch', { token });
      order.push('read');
      const answers = await Promise.all(burst);
      expect(read.status).to.equal(200);
      expect(
        answers.every((r) => r.status === 200 || r.status === 503),
        JSON.stringify(order),
      ).to.equal(true);
      expect(order.indexOf('read'), JSON.stringify(order)).to.be.lessThan(order.lastIndexOf('heavy 200'));
    });
  });

  describe('with one thread and one place to wait: a full pool answers 503 service-busy at once', () => {
    let server: TestServer;
    let token: string;
    let mcp: Client;
    before(async () => {
      server = await startTestServer({ COMPUTE_THREADS: '1', COMPUTE_QUEUE_LENGTH: '1' });
      token = await server.token(['read', 'mcp']);
      mcp = await connectMcp(server, token);
    });
    after(async () => {
      await mcp.close();
      await server.close();
    });

    const busyProblem = (problem: Record<string, unknown>) => {
      expect(problem).to.include({ type: `${server.url}/problems/service-busy`, title: 'Service busy', status: 503 });
      expect(problem.detail).to.match(/nothing was computed/);
    };

    it('REST: a problem with Retry-After; the computations admitted are answered', async () => {
      const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => server.api.post(path, { token, json: heavy(i) })));
      const refused = answers.filter((r) => r.status === 503);
      expect(refused.length).to.be.greaterThan(0);
      // The first two to arrive take the thread and the place: they always complete.
      expect(answers.filter((r) => r.status === 200).length).to.be.at.least(2);
      expect(refused.length + answers.filter((r) => r.status === 200).length).to.equal(16);
      for (const response of refused) {
        busyProblem(response.body);
        expect(response.headers.get('retry-after')).to.equal('1');
        expect(response.headers.get('content-type')).to.match(/^application\/problem\+json/);
      }
    });

    it('GraphQL: the fields beyond the pool fail alone, each with SERVICE_BUSY and retry_after', async () => {
      // Every field of a query starts in the same turn of the event loop: the first two are admitted, the rest refused.
      const fields = Array.from(
        { length: 5 },
        (_, i) =>
          `g${i}: goalFeasibility(input: {capital: 10000, target: ${20000 + i}, horizon_years: 10, market: "US", monthly_contribution: 100}) { probability }`,
      );
      const response = await graphql(server, `{ ${fields.join(' ')} }`, { token });
      expect(response.status).to.equal(200);
      expect(response.body.data.g0.probability).to.be.a('number');
      expect(response.body.data.g1.probability).to.be.a('number');
      expect([response.body.data.g2, response.body.data.g3, response.body.data.g4]).to.deep.equal([null, null, null]);
      expect(response.body.errors!.map((e: { path: string[] }) => e.path[0])).to.deep.equal(['g2', 'g3', 'g4']);
      for (const error of response.body.errors!) {
        expect(error.extensions).to.include({
          code: 'SERVICE_BUSY',
          type: `${server.url}/problems/service-busy`,
          status: 503,
          retry_after: 1,
        });
      }
    });

    it('MCP: a tool error carrying the problem and retry_after', async () => {
      const calls = await Promise.all(Array.from({ length: 16 }, (_, i) => callTool(mcp, 'evaluateGoalFeasibility', heavy(i))));
      const refused = calls.filter((c) => !c.ok);
      expect(refused.length).to.be.greaterThan(0);
      expect(calls.filter((c) => c.ok).length).to.be.at.least(2);
      for (const call of refused) {
        busyProblem(call.problem);
        expect(call.problem.retry_after).to.equal(1);
      }
    });
  });

  it('closes the pool when the server drains: a computation asked for afterwards is refused with 503', async () => {
    const server = await startTestServer({ COMPUTE_THREADS: '2' });
    try {
      const token = await server.token(['read']);
      expect((await server.api.post(path, { token, json: heavy(0) })).status).to.equal(200);
      const principal = await server.services.tokens.authenticate(`Bearer ${token}`);
      const actor = authorize(principal, 'evaluateGoalFeasibility', { ip: '127.0.0.1', userAgent: null }, 'rest');
      await server.running.drain();
      const refused = await server.services.goals.evaluateFeasibility(actor, heavy(1)).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).to.be.instanceOf(ProblemError);
      expect(refused).to.include({ slug: 'service-unavailable' });
    } finally {
      await server.database.drop();
    }
  });

  it('compiled (dist/, as `make run` starts it): computes on its pool, and exits 0 on SIGTERM once drained', async function () {
    this.timeout(240_000); // compiling dist/ when a source changed takes a minute on a busy machine
    await promisify(execFile)(process.execPath, ['scripts/build.mjs']);
    const service = await startServiceProcess({ COMPUTE_THREADS: '2' }, undefined, 'dist/src/main.js');
    try {
      const { id, secret } = service.credentials();
      const base = `http://127.0.0.1:${service.port}`;
      const issued = await fetch(`${base}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id: id, client_secret: secret, scope: 'read' }),
      });
      const { access_token: token } = (await issued.json()) as { access_token: string };
      const answers = await Promise.all(
        [0, 1, 2].map((i) =>
          fetch(`${base}${path}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify(heavy(i)),
          }),
        ),
      );
      for (const [i, answer] of answers.entries()) {
        expect(answer.status).to.equal(200);
        expect(await answer.json()).to.deep.equal(JSON.parse(JSON.stringify(evaluateFeasibility(heavy(i)))));
      }
      // Files it reads beside its code are found from dist/ too: the guides of docs/.
      expect((await fetch(`${base}/docs/guides/rate-limits`)).status, 'a guide, served by the compiled service').to.equal(200);
      const stopped = waitForOutput(service.child, /"msg":"stopped"/);
      expect(await service.terminate()).to.equal(0);
      await stopped;
    } finally {
      service.stop();
    }
  });
});
