import http from 'node:http';
import { expect } from 'chai';
import fc from 'fast-check';
import { loadDocument } from '../../src/document.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { createPolicy } from '../support/trading.js';
import { callTool, connectMcp } from '../support/mcp.js';
import { ContractFuzzer, type Case, type Credentials, type Finding } from './fuzzer.js';

// The in-repo fuzzer, seeded and bounded: every operation with valid and invalid inputs (headers and path values
// included), with and without a token, then sequences that follow the spec's links. Each answer is held to the
// contract; a finding prints a curl reproduction.
const SEED = Number(process.env.FUZZ_SEED ?? 20261122); // fixed unless a longer run asks for another
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
    // Deep enough to reach the business logic: generated markets are mostly supported ones (MarketCode's enum
    // branch), so requests naming a market are answered, not only refused with 422 unsupported-market.
    for (const operationId of ['evaluateGoalFeasibility', 'generateIdeas', 'getPortfolio']) {
      const answered = [...(fuzzer.statuses.get(operationId) ?? new Map<number, number>())].filter(([status]) => status < 300).reduce((n, [, count]) => n + count, 0);
      expect(answered, `${operationId} answered 2xx`).to.be.greaterThan(0);
    }
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

  it('holds MCP tool calls with generated arguments (valid and invalid) to the tools\' schemas and problems', async () => {
    const client = await connectMcp(server, credentials.full);
    try {
      const { tools } = await client.listTools();
      expect(tools.length).to.be.greaterThan(10);
      const failures: string[] = [];
      for (const tool of tools) {
        const schema = tool.inputSchema as Json;
        const samples = [
          ...fc.sample(fuzzer.schemas.valid(schema), { seed: SEED, numRuns: 6 }),
          ...fc.sample(fuzzer.schemas.invalid(schema).filter((v) => v !== null && typeof v === 'object' && !Array.isArray(v)), { seed: SEED, numRuns: 4 }),
        ] as Record<string, unknown>[];
        for (const args of samples) {
          const call = `${tool.name}(${JSON.stringify(args).slice(0, 200)})`;
          try {
            const result = await callTool(client, tool.name, args);
            if (!result.ok) {
              const problem = result.problem as Json;
              if (!problem?.type || !problem.title || !problem.status) failures.push(`${call}: an error without a problem document`);
              else if (problem.status >= 500 && problem.status !== 503) failures.push(`${call}: ${problem.status} ${problem.detail}`);
            }
          } catch (error) {
            // The SDK refuses arguments that break the tool's input schema as a JSON-RPC error: that is a refusal too.
            if (!/-32602|Invalid|validation/i.test(String(error))) failures.push(`${call}: ${String(error).slice(0, 200)}`);
          }
        }
      }
      expect(failures, failures.join('\n')).to.deep.equal([]);
    } finally {
      await client.close();
    }
  });

  it('holds GraphQL mutations and queries with generated variables to GraphQL over HTTP and its problems', async () => {
    const fields: [string, string, Json][] = [
      ['goalFeasibility', 'query($input: GoalFeasibilityRequest!) { goalFeasibility(input: $input) { probability } }', document.components.schemas.GoalFeasibilityRequest],
      ['createPolicy', 'mutation($input: PolicyCreateRequest!) { createPolicy(input: $input) { version } }', document.components.schemas.PolicyCreateRequest],
      ['generateIdeas', 'mutation($input: GenerateIdeasRequest!) { generateIdeas(input: $input) { ideas { id } notes } }', document.components.schemas.GenerateIdeasRequest],
    ];
    const failures: string[] = [];
    const answered: Record<string, number> = {};
    for (const [name, query, schema] of fields) {
      expect(schema, name).to.be.an('object');
      // Valid inputs in the supported market (any two capitals are well-formed, most unsupported: 422).
      const inUs = (value: unknown) => (value && typeof value === 'object' && 'market' in value ? { ...value, market: 'US' } : value);
      const inputs = [...fc.sample(fuzzer.schemas.valid(schema).map(inUs), { seed: SEED, numRuns: 12 }), ...fc.sample(fuzzer.schemas.invalid(schema), { seed: SEED, numRuns: 8 })];
      for (const input of inputs) {
        const response = await fetch(`${baseUrl}/graphql`, {
          method: 'POST',
          headers: { authorization: `Bearer ${credentials.full}`, 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json' },
          body: JSON.stringify({ query, variables: { input } }),
        });
        const call = `${name}(${JSON.stringify(input).slice(0, 200)})`;
        if (response.status >= 500) failures.push(`${call}: HTTP ${response.status}`);
        const body = (await response.json().catch(() => undefined)) as Json | undefined;
        if (!body || (!('data' in body) && !('errors' in body) && !('type' in body))) failures.push(`${call}: not a GraphQL response or a problem`);
        if (body?.data?.[name]) answered[name] = (answered[name] ?? 0) + 1;
        for (const error of (body?.errors ?? []) as Json[]) {
          if (error.extensions?.code === 'INTERNAL_ERROR' || (error.extensions?.status >= 500 && error.extensions?.status !== 503)) failures.push(`${call}: ${error.message}`);
        }
      }
    }
    expect(failures, failures.join('\n')).to.deep.equal([]);
    // Generated valid inputs do get executed, not all refused by GraphQL validation (random policies mostly fail the
    // business rules — unknown symbols, an outdated disclosure — so createPolicy is not counted).
    for (const name of ['goalFeasibility', 'generateIdeas']) expect(answered[name] ?? 0, `${name} answered with data`).to.be.greaterThan(0);
  });

  describe('catches what it must', () => {
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
});
