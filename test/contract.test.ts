import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'chai';
import { handlers, successShapes } from '../handlers/index.js';
import { useCases } from '../src/application/use-cases.js';
import { problemTypes } from '../generated/problem-types.js';
import { anchoredIn, resolved } from '../src/contract/refs.js';
import { loadDocument } from '../src/document.js';
import { MARKETS, supportedMarkets } from '../src/services/markets.js';
import { LIMIT_BOUNDS } from '../src/services/policy-limits.js';

const document = loadDocument() as any;
const operations = Object.values(document.paths as Record<string, Record<string, any>>).flatMap((item) =>
  Object.entries(item)
    .filter(([method]) => ['get', 'put', 'post', 'delete', 'patch'].includes(method))
    .map(([, operation]) => operation),
);

const resolve = (node: any): any => resolved(document, node);

describe('the contract and the code agree', () => {
  it('MarketCode lists exactly the supported markets, and admits any other two capitals (answered 422, not 400)', () => {
    const marketCode = document.components.schemas.MarketCode;
    const [supported, wellFormed] = marketCode.anyOf;
    expect(supported!.enum).to.deep.equal(supportedMarkets());
    expect(new RegExp(wellFormed!.pattern).test('FR')).to.equal(true);
    expect(new RegExp(marketCode.pattern).test('us')).to.equal(false);
  });

  it('the market table in the spec gives the defaults markets.ts ships, and none where it ships none', () => {
    const table = String(document.components.schemas.GoalFeasibilityRequest.properties.market.description);
    for (const code of supportedMarkets()) {
      const row = table.split('\n').find((line) => line.startsWith(`| ${code} |`));
      expect(row, code).to.be.a('string');
      const [, , currency, mu, sigma] = row!.split('|').map((cell) => cell.trim());
      const market = MARKETS[code]!;
      expect(currency, code).to.equal(market.currency);
      expect(mu, code).to.equal(market.assumptions ? String(market.assumptions.expected_return) : '—');
      expect(sigma, code).to.equal(market.assumptions ? String(market.assumptions.volatility) : '—');
    }
  });

  it('stored policies are held to the bounds PolicyLimits declares for each of its numbers', () => {
    const properties = document.components.schemas.PolicyLimits.properties as Record<
      string,
      { type: string; minimum?: number; maximum?: number }
    >;
    const numbers = Object.keys(properties).filter((name) => properties[name]!.type === 'number');
    expect(numbers.sort()).to.deep.equal(Object.keys(LIMIT_BOUNDS).sort());
    for (const [name, bounds] of Object.entries(LIMIT_BOUNDS)) {
      expect({ minimum: properties[name]!.minimum, maximum: properties[name]!.maximum }, name).to.deep.equal(bounds);
    }
  });

  it('every operationId is served, an anonymous one by its REST handler and a bearer one by its use case, and nothing else is', () => {
    const operationIds = operations.map((op) => op.operationId).sort();
    expect([...Object.keys(handlers), ...Object.keys(useCases)].sort()).to.deep.equal(operationIds);
    for (const id of Object.keys(successShapes)) expect(useCases, `the REST success shape of ${id}`).to.have.property(id);
  });

  it('every error response names declared problem types whose status is its own', () => {
    for (const operation of operations) {
      for (const [status, ref] of Object.entries(operation.responses as Record<string, any>)) {
        if (Number(status) < 400) continue;
        const response = resolve(ref);
        const mediaTypes = Object.keys(response.content ?? {});
        // /readyz answers 503 with its Readiness document, not a problem.
        if (!mediaTypes.includes('application/problem+json') && operation.operationId === 'getReadiness') continue;
        const slugs: string[] = response['x-problem-types'] ?? [];
        expect(slugs, `${operation.operationId} ${status}`).to.not.be.empty;
        for (const slug of slugs) {
          expect(problemTypes, `${operation.operationId} ${status}: ${slug}`).to.have.property(slug);
          expect((problemTypes as any)[slug].status, `${operation.operationId} ${status}: ${slug}`).to.equal(Number(status));
        }
      }
    }
  });

  it('every POST that takes a bearer token takes an Idempotency-Key header, declares 409 and 422, and marks replays; anonymous POSTs take none', () => {
    let keyed = 0;
    for (const [path, item] of Object.entries(document.paths as Record<string, any>)) {
      if (!item.post) continue;
      const names = (item.post.parameters ?? [])
        .map((p: any) => resolve(p))
        .filter((p: any) => p.in === 'header')
        .map((p: any) => p.name);
      const bearer = (item.post.security ?? []).some((r: any) => 'OAuth2' in r);
      if (!bearer) {
        expect(names, path).to.not.include('Idempotency-Key');
        continue;
      }
      keyed++;
      expect(names, path).to.include('Idempotency-Key');
      expect(Object.keys(item.post.responses), path).to.include.members(['409', '422']);
      for (const [status, response] of Object.entries(item.post.responses as Record<string, any>)) {
        if (status.startsWith('2'))
          expect(Object.keys(resolve(response).headers ?? {}), `${path} ${status}`).to.include('Idempotent-Replayed');
      }
    }
    expect(keyed).to.be.greaterThan(5);
  });

  it('every operation declares its security, with scopes drawn from the OAuth2 scheme', () => {
    const scopes = Object.keys(document.components.securitySchemes.OAuth2.flows.clientCredentials.scopes);
    for (const operation of operations) {
      expect(operation.security, operation.operationId).to.be.an('array');
      for (const requirement of operation.security) for (const scope of requirement.OAuth2 ?? []) expect(scopes).to.include(scope);
    }
  });

  describe('a contract a fuzzer and a code generator can go deep in', () => {
    const ajv = new Ajv2020.default({ strict: false });
    addFormats.default(ajv);
    ajv.addSchema(document, 'doc');
    const valid = (schema: any, value: unknown) => ajv.validate(anchoredIn(schema, 'doc'), value);

    it('every parameter and every request body has an example its own schema accepts', () => {
      for (const operation of operations) {
        for (const parameter of (operation.parameters ?? []).map(resolve)) {
          const where = `${operation.operationId} ${parameter.in} ${parameter.name}`;
          expect(parameter.example, where).to.not.equal(undefined);
          const value =
            parameter.schema.type === 'integer' && typeof parameter.example === 'string' ? Number(parameter.example) : parameter.example;
          expect(valid(parameter.schema, value), `${where}: ${ajv.errorsText()}`).to.equal(true);
        }
        for (const [mediaType, content] of Object.entries<any>(resolve(operation.requestBody)?.content ?? {})) {
          const examples =
            content.example !== undefined ? [content.example] : Object.values(content.examples ?? {}).map((e: any) => e.value);
          expect(examples, `${operation.operationId} ${mediaType}`).to.not.be.empty;
          for (const example of examples)
            expect(valid(content.schema, example), `${operation.operationId} ${mediaType}: ${ajv.errorsText()}`).to.equal(true);
        }
      }
    });

    it('every link names an operation and only parameters it has, from the response body', () => {
      const byId = new Map(operations.map((op) => [op.operationId, op]));
      let count = 0;
      for (const operation of operations) {
        for (const response of Object.values(operation.responses as Record<string, any>).map(resolve)) {
          for (const [name, link] of Object.entries((response.links ?? {}) as Record<string, any>)) {
            count++;
            const target = byId.get(link.operationId);
            expect(target, `${operation.operationId} → ${name}`).to.not.equal(undefined);
            const names = (target.parameters ?? []).map(resolve).map((p: any) => p.name);
            for (const [parameter, expression] of Object.entries(link.parameters as Record<string, string>)) {
              expect(names, `${operation.operationId} → ${name}`).to.include(parameter);
              expect(expression).to.match(/^\$response\.body#\/[a-z_0-9/]+$/);
            }
          }
        }
      }
      expect(count).to.be.greaterThan(10);
    });
  });
});
