import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { expect } from 'chai';
import { loadDocument } from '../../src/document.js';
import { waitForOutput } from '../support/process.js';
import { ContractFuzzer, type Case } from './fuzzer.js';
import { ServiceWatch, type WatchLimits } from './watch.js';

type Json = Record<string, any>;

const MiB = 2 ** 20;

describe('the fuzzer catches what it must, against deliberately broken servers', () => {
  const document = loadDocument() as Json;
  const fuzzer = new ContractFuzzer(document);

  describe('answers that break the contract', () => {
    // A fake server that breaks the contract in one way per path (an undeclared status, a wrong media type, a body
    // against its schema, a header against its schema, a bare parser 400); the fuzzer must report each.
    let fake: http.Server;
    let port: number;
    before(async () => {
      fake = http.createServer((req, res) => {
        if (req.url!.startsWith('/healthz')) {
          res.writeHead(418, { 'content-type': 'application/json' }).end('{"status":"ok"}'); // undeclared status
        } else if (req.url!.startsWith('/openapi.json')) {
          res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>'); // wrong content type
        } else if (req.url!.startsWith('/readyz')) {
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"maybe"}'); // body violates its schema
        } else if (req.url!.startsWith('/v1/orders')) {
          // A declared 503 with a valid problem, but a Retry-After that is not the integer its schema says.
          const problem = { type: 'http://localhost:3000/problems/service-unavailable', title: 'Service unavailable', status: 503 };
          res.writeHead(503, { 'content-type': 'application/problem+json', 'retry-after': 'soon' }).end(JSON.stringify(problem));
        } else {
          res.socket!.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n'); // a bare parser 400
        }
      });
      await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
      port = (fake.address() as { port: number }).port;
    });
    after(() => new Promise<void>((resolve) => fake.close(() => resolve())));

    for (const [operationId, target, expected] of [
      ['getHealth', '/healthz', /418/],
      ['getOpenApiDocument', '/openapi.json', /media type text\/html is not declared/],
      ['getReadiness', '/readyz', /status/],
      ['getJsonWebKeySet', '/.well-known/jwks.json', /400/],
      ['listOrders', '/v1/orders', /header Retry-After: "soon" breaks its schema/],
    ] as const) {
      it(`reports ${operationId} answered as ${target} breaks it`, async () => {
        const testCase: Case = { operationId, request: { method: 'GET', target, headers: [] }, breaks: undefined };
        const finding = await fuzzer.check(port, `http://127.0.0.1:${port}`, testCase);
        expect(finding, 'a finding').to.not.equal(undefined);
        expect(finding!.problem).to.match(expected);
        expect(finding!.curl).to.include(target);
      });
    }
  });

  describe('a service too slow or too big, watched', () => {
    // broken-service.mjs, in a process of its own: at rest about 50 MiB, far under the test's bound of 192 MiB.
    const limits = (deadlineMs: number, sampleEveryMs = 50): WatchLimits => ({ rssBytes: 192 * MiB, deadlineMs, sampleEveryMs });
    let service: ChildProcess;
    let port: number;
    let watch: ServiceWatch | undefined;
    beforeEach(async () => {
      service = spawn(process.execPath, ['test/fuzz/broken-service.mjs'], { stdio: ['ignore', 'pipe', 'inherit'] });
      port = Number(/listening on (\d+)/.exec(await waitForOutput(service, /listening on \d+/))![1]);
    });
    afterEach(async () => {
      await watch?.stop();
      watch = undefined;
      if (service.exitCode === null && service.signalCode === null) {
        const exited = new Promise((resolve) => service.once('exit', resolve));
        service.kill('SIGKILL');
        await exited;
      }
    });
    const send = (watched: ContractFuzzer, operationId: string, method: string, target: string) =>
      watched.check(port, `http://127.0.0.1:${port}`, {
        operationId,
        request: { method, target, headers: [], body: method === 'POST' ? '{}' : undefined },
        breaks: undefined,
      });

    it('reports a request not answered within the deadline with its curl, and times the ones that are', async () => {
      watch = new ServiceWatch(service, limits(1_500));
      const watched = new ContractFuzzer(document, watch);
      await send(watched, 'getHealth', 'GET', '/healthz');
      expect(watch.findings, 'an answer in time').to.deep.equal([]);
      const finding = await send(watched, 'listOrders', 'GET', '/v1/orders?limit=2');
      expect(finding?.problem).to.equal('not answered within 1500 ms (the deadline)');
      expect(finding?.curl).to.equal(`curl -i --path-as-is -X GET 'http://127.0.0.1:${port}/v1/orders?limit=2'`);
      expect(watch.findings).to.deep.equal([{ problem: 'not answered within 1500 ms (the deadline)', requests: [finding!.curl] }]);
      expect(watch.slowest.curl, 'the slowest answer').to.include('/healthz');
      expect(watch.halted, 'one late request does not stop the run').to.equal(undefined);
    });

    it('reports memory over the bound after a request that keeps it, naming the request just sent', async () => {
      // Only the samples the test takes (a periodic one could land while the request is still in flight).
      watch = new ServiceWatch(service, limits(20_000, 600_000));
      const watched = new ContractFuzzer(document, watch);
      await send(watched, 'getHealth', 'GET', '/healthz');
      await watch.sample();
      expect(watch.findings, 'at rest, under the bound').to.deep.equal([]);
      await send(watched, 'getPortfolio', 'GET', '/v1/portfolio');
      await watch.sample();
      expect(watch.findings).to.have.length(1);
      expect(watch.findings[0]!.problem).to.match(/^RSS reached [\d,]+ MiB, over the 192 MiB bound$/);
      expect(watch.findings[0]!.requests).to.deep.equal([
        `just sent: curl -i --path-as-is -X GET 'http://127.0.0.1:${port}/v1/portfolio'`,
        `just sent: curl -i --path-as-is -X GET 'http://127.0.0.1:${port}/healthz'`,
      ]);
      expect(watch.maxRssBytes).to.be.greaterThan(256 * MiB);
      expect(watch.halted, 'under twice the bound the service is left running').to.equal(undefined);
    });

    it('reports a request that grows the service without answering while it is in flight, and kills the service at twice the bound', async () => {
      watch = new ServiceWatch(service, limits(20_000));
      const watched = new ContractFuzzer(document, watch);
      const exited = new Promise<NodeJS.Signals | null>((resolve) => service.once('exit', (_code, signal) => resolve(signal)));
      const finding = await send(watched, 'evaluateGoalFeasibility', 'POST', '/v1/goals/feasibility');
      expect(await exited).to.equal('SIGKILL');
      expect(finding?.problem).to.match(/^no HTTP answer/);
      const curl = `curl -i --path-as-is -X POST 'http://127.0.0.1:${port}/v1/goals/feasibility' --data-raw '{}'`;
      expect(watch.findings[0]!.problem).to.match(/over the 192 MiB bound$/);
      expect(watch.findings[0]!.requests).to.deep.equal([`in flight: ${curl}`]);
      expect(watch.halted).to.match(/^the watch killed the service at [\d,]+ MiB of RSS \(twice the bound\)$/);
      expect(watch.report()).to.include(watch.halted!);
      expect((await send(watched, 'getHealth', 'GET', '/healthz'))?.problem, 'nothing is sent after').to.equal(
        `no HTTP answer: not sent: ${watch.halted}`,
      );
    });
  });
});
