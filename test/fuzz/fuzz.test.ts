import http from 'node:http';
import { expect } from 'chai';
import fc from 'fast-check';
import { loadDocument } from '../../src/document.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { createPolicy } from '../support/trading.js';
import { ContractFuzzer, type Case, type Credentials, type Finding } from './fuzzer.js';

// The in-repo fuzzer, seeded and bounded: every operation with valid and invalid inputs (headers and path values
// included), with and without a token, then sequences that follow the spec's links. Each answer is held to the
// contract; a finding prints a curl reproduction.
const SEED = 20261122;
const RUNS = Number(process.env.FUZZ_RUNS ?? 1200);

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function report(findings: Finding[]): string {
  const unique = new Map(findings.map((f) => [`${f.operationId}: ${f.problem}`, f]));
  return [...unique.values()].map((f) => `${f.operationId}: ${f.problem}\n  ${f.curl}`).join('\n');
}

describe('contract fuzzing (property-based, seeded)', function () {
  this.timeout(240_000);
  const document = loadDocument() as Json;
  const fuzzer = new ContractFuzzer(document);
  let server: TestServer;
  let credentials: Credentials;
  let baseUrl: string;

  before(async () => {
    server = await startTestServer();
    baseUrl = `http://127.0.0.1:${server.running.port}`;
    const full = await server.account(['read', 'write', 'trade', 'mcp']);
    await createPolicy(server, full.token);
    const basic = await server.createClient(['read']);
    credentials = { full: full.token, readOnly: await server.token(['read']), basic: `${basic.client_id}:${basic.client_secret}` };
  });
  after(() => server.close());

  it(`holds ${RUNS} generated requests over every operation to the contract`, async () => {
    const cases: Case[] = fc.sample(fuzzer.allCases(credentials), { seed: SEED, numRuns: RUNS });
    const findings: Finding[] = [];
    const seen = new Set<string>();
    for (const testCase of cases) {
      seen.add(testCase.operationId);
      const finding = await fuzzer.check(server.running.port, baseUrl, testCase);
      if (finding) findings.push(finding);
    }
    expect(seen.size, 'operations reached').to.equal(fuzzer.operations.length);
    expect(findings, report(findings)).to.deep.equal([]);
  });

  it('follows the links of every answer (ideas to their orders, a policy to its version, pages to the next)', async () => {
    const findings: Finding[] = [];
    const answers: { operationId: string; status: number; body: Json }[] = [];
    const operation = (id: string) => fuzzer.operations.find((o) => o.operationId === id)!;
    const send = async (operationId: string, target: string, body?: unknown) => {
      const op = operation(operationId);
      const headers: [string, string][] = [['Authorization', `Bearer ${credentials.full}`]];
      if (body !== undefined) headers.push(['Content-Type', 'application/json']);
      const testCase: Case = { operationId, request: { method: op.method, target, headers, body: body === undefined ? undefined : JSON.stringify(body) }, breaks: undefined };
      const finding = await fuzzer.check(server.running.port, baseUrl, testCase);
      if (finding) findings.push(finding);
      const response = await fetch(`${baseUrl}${target}`, { method: op.method, headers: Object.fromEntries(headers), body: testCase.request.body });
      return { status: response.status, body: (await response.json().catch(() => ({}))) as Json };
    };
    const pointer = (body: Json, expression: string) =>
      expression
        .replace('$response.body#', '')
        .split('/')
        .slice(1)
        .reduce<unknown>((node, key) => (node as Json | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], body);

    // Seeds: what a partner's session produces.
    const seeds: [string, string, unknown?][] = [
      ['generateIdeas', '/v1/ideas/generate', { mode: 'rebalance', market: 'US' }],
      ['generateIdeas', '/v1/ideas/generate', { mode: 'invest_cash', market: 'US' }],
      ['listPolicies', '/v1/policies?limit=1'],
      ['listIdeas', '/v1/ideas?limit=1'],
      ['listOrders', '/v1/orders?limit=2'],
      ['listBrokers', '/v1/brokers?limit=1'],
      ['generateDailyReport', '/v1/reports/daily', { date: new Date().toISOString().slice(0, 10) }],
    ];
    const queue: { operationId: string; status: number; body: Json; depth: number }[] = [];
    for (const [operationId, target, body] of seeds) queue.push({ operationId, ...(await send(operationId, target, body)), depth: 0 });
    let followed = 0;
    while (queue.length) {
      const answer = queue.shift()!;
      answers.push(answer);
      if (answer.depth >= 3) continue;
      const declared = document.paths && fuzzer.operations.find((o) => o.operationId === answer.operationId)!.responses[String(answer.status)];
      const links = ((declared?.$ref ? undefined : declared)?.links ?? {}) as Json;
      for (const link of Object.values(links) as Json[]) {
        const target = operation(link.operationId);
        const values = Object.fromEntries(Object.entries((link.parameters ?? {}) as Record<string, string>).map(([name, expression]) => [name, pointer(answer.body, expression)]));
        if (Object.values(values).some((v) => v === undefined || v === null)) continue;
        let path = target.path;
        const query: string[] = [];
        for (const [name, value] of Object.entries(values)) {
          const parameter = target.parameters.find((p) => p.name === name);
          if (parameter?.in === 'path') path = path.replace(`{${name}}`, encodeURIComponent(String(value)));
          else query.push(`${name}=${encodeURIComponent(String(value))}`);
        }
        const next = await send(link.operationId, `${path}${query.length ? `?${query.join('&')}` : ''}`, target.body?.required ? {} : undefined);
        followed++;
        queue.push({ operationId: link.operationId, ...next, depth: answer.depth + 1 });
      }
    }
    expect(followed, 'links followed').to.be.greaterThan(10);
    const reached = new Set(answers.map((a) => a.operationId));
    for (const operationId of ['getOrder', 'approveOrder', 'getPolicy', 'getIdea', 'getDailyReport']) expect(reached, operationId).to.include(operationId);
    expect(findings, report(findings)).to.deep.equal([]);
  });

  describe('catches what it must', () => {
    // A fake server that breaks the contract in one way per path; the fuzzer must report each.
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
});
