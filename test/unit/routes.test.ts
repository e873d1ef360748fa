import { expect } from 'chai';
import { OpenAPIBackend, type Operation } from 'openapi-backend';
import { loadDocument } from '../../src/document.js';
import { parseMatchedRequest, RouteTable } from '../../src/http/routes.js';

// The route table must answer exactly as openapi-backend's router would, only without rebuilding its operations.
describe('route table', () => {
  const document = loadDocument();
  const backend = new OpenAPIBackend({ definition: structuredClone(document), validate: false, quick: true, ignoreTrailingSlashes: false });
  let reference: OpenAPIBackend['router'];
  let operations: Operation[];
  let table: RouteTable;
  before(async () => {
    await backend.init();
    reference = backend.router;
    operations = reference.getOperations();
    table = new RouteTable(operations);
  });

  const referenceMatch = (method: string, path: string) => {
    try {
      return { kind: 'operation', operation: reference.matchOperation({ method, path, headers: {} }, true) as Operation };
    } catch (error) {
      return { kind: (error as Error).message.startsWith('405') ? 'method-not-allowed' : 'not-found' };
    }
  };

  it('matches every operation of the spec as openapi-backend does, with and without a trailing slash', () => {
    expect(operations.length).to.be.greaterThan(20);
    for (const operation of operations) {
      const path = operation.path.replace(/\{[^}]+\}/g, 'x1');
      for (const candidate of [path, `${path}/`]) {
        const ours = table.match(operation.method, candidate);
        const theirs = referenceMatch(operation.method, candidate);
        expect(ours.kind, `${operation.method} ${candidate}`).to.equal(theirs.kind);
        if (ours.kind === 'operation') expect(ours.operation.operationId, candidate).to.equal(theirs.operation!.operationId);
      }
    }
  });

  it('prefers a literal path over a template that also matches', () => {
    const literal = operations.find(
      (op) =>
        !op.path.includes('{') &&
        operations.some((other) => other.path.includes('{') && new RegExp(`^${other.path.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(op.path)),
    );
    expect(literal, 'a literal path that a template also matches (/v1/policies/current and /v1/policies/{version})').to.exist;
    const match = table.match(literal!.method, literal!.path);
    expect(match.kind === 'operation' && match.operation.operationId).to.equal(literal!.operationId);
  });

  it('answers 405 with every method the path allows, and 404 for unknown paths, as openapi-backend does', () => {
    const match = table.match('delete', '/v1/orders/ord_1');
    expect(match.kind).to.equal(referenceMatch('delete', '/v1/orders/ord_1').kind).and.equal('method-not-allowed');
    if (match.kind === 'method-not-allowed') expect(match.allowed).to.include('GET');
    expect(table.match('get', '/v1/nothing-here').kind).to.equal('not-found');
    expect(referenceMatch('get', '/v1/nothing-here').kind).to.equal('not-found');
  });

  it('has only parameters the direct parse covers: path, plain query and header ones', () => {
    const parameters = operations.flatMap(
      (op) =>
        (op.parameters ?? []) as {
          in: string;
          name: string;
          content?: unknown;
          explode?: boolean;
          style?: string;
          schema?: { type?: unknown };
        }[],
    );
    expect(parameters.length).to.be.greaterThan(10);
    for (const parameter of parameters) {
      expect(['path', 'query', 'header'], parameter.name).to.include(parameter.in);
      expect(parameter.content, parameter.name).to.equal(undefined);
      expect(parameter.explode, parameter.name).to.equal(undefined);
      expect(parameter.style, parameter.name).to.equal(undefined);
      if (parameter.in === 'query') expect(parameter.schema?.type, parameter.name).to.not.equal('array');
    }
  });

  it('parses a matched request exactly as openapi-backend does', () => {
    for (const operation of operations) {
      const path = operation.path.replace(/\{[^}]+\}/g, (_, i: number) => `v%20${i}%C3%A9`);
      for (const candidate of [path, `${path}/`]) {
        const request = {
          method: operation.method.toUpperCase(),
          path: candidate,
          query: { limit: '5', status: ['filled', 'rejected'], cursor: '' },
          headers: { authorization: 'Bearer x', 'content-type': 'application/json', 'idempotency-key': 'k' },
          body: operation.method === 'post' ? { a: 1, nested: { b: [1, 2] } } : undefined,
        };
        expect(parseMatchedRequest(table, request, operation), `${operation.method} ${candidate}`).to.deep.equal(
          reference.parseRequest(request, operation),
        );
        const text = { ...request, body: '{"a":1}' };
        expect(parseMatchedRequest(table, text, operation)).to.deep.equal(reference.parseRequest(text, operation));
      }
    }
  });
});
