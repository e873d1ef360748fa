import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'chai';
import { handlers, successShapes } from '../handlers/index.js';
import { useCases } from '../src/application/use-cases.js';
import { problemTypes } from '../generated/problem-types.js';
import { anchoredIn, resolved } from '../src/contract/refs.js';
import { loadDocument } from '../src/document.js';
import { createGraphQLSchema } from '../src/graphql/schema.js';
import { EVENT_TYPES } from '../src/services/events/outbox.js';
import { ALLOWED_TRIGGERS } from '../src/services/orders/views.js';
import { MARKETS, supportedMarkets } from '../src/services/markets.js';
import { LIMIT_BOUNDS, OPTIONAL_LIMIT_BOUNDS } from '../src/services/policy-limits.js';

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
    const bounded = { ...LIMIT_BOUNDS, ...OPTIONAL_LIMIT_BOUNDS };
    expect(numbers.sort()).to.deep.equal(Object.keys(bounded).sort());
    const required = document.components.schemas.PolicyLimits.required as string[];
    expect(Object.keys(OPTIONAL_LIMIT_BOUNDS).filter((name) => required.includes(name))).to.deep.equal([]);
    for (const [name, bounds] of Object.entries(bounded)) {
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
      // A POST that changes nothing and answers something new each time (a preview) says why it takes no key.
      if (!bearer || item.post['x-not-keyed']) {
        expect(names, path).to.not.include('Idempotency-Key');
        if (bearer) expect(item.post['x-not-keyed'], path).to.be.a('string').with.length.above(20);
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

  describe('order states and event types: the code knows what the contract declares', () => {
    /** The Orders tag's transition table: one row per `| from | trigger | condition | to | effects |`. */
    const transitions = () =>
      String(document.tags.find((t: { name: string }) => t.name === 'Orders').description)
        .split('\n')
        .filter((line) => line.startsWith('| ') && !line.startsWith('| from |'))
        .map((line) => line.split('|').map((cell) => cell.trim()))
        .map(([, from, trigger, , to]) => ({ from: from!.split(', '), trigger: trigger!, to: to! }));

    it('OrderStatus is the states the code knows, partially_filled among them, each with the triggers the Orders tag gives it', () => {
      const states = document.components.schemas.OrderStatus.enum as string[];
      expect(states).to.deep.equal(Object.keys(ALLOWED_TRIGGERS));
      expect(states).to.include('partially_filled');
      const documented = new Map(states.map((state) => [state, [] as string[]]));
      for (const row of transitions().filter((r) => ['approve', 'reject', 'cancel'].includes(r.trigger)))
        for (const from of row.from) if (!documented.get(from)!.includes(row.trigger)) documented.get(from)!.push(row.trigger);
      expect(Object.fromEntries(documented)).to.deep.equal(ALLOWED_TRIGGERS);
    });

    it('the Orders tag lists what a broker does to a submitted or partially filled order', () => {
      const rows = transitions();
      const documented = (from: string, to: string) =>
        rows.some((r) => r.from.includes(from) && r.to === to && !/^(approve|reject|cancel)$/.test(r.trigger));
      const broker = [
        ['submitted', 'partially_filled'],
        ['partially_filled', 'partially_filled'],
        ['submitted', 'filled'],
        ['partially_filled', 'filled'],
        ['submitted', 'cancelled'],
        ['partially_filled', 'cancelled'],
        ['submitted', 'expired'],
        ['partially_filled', 'expired'],
        ['submitted', 'rejected'],
      ];
      for (const [from, to] of broker) expect(documented(from!, to!), `${from} → ${to}`).to.equal(true);
    });

    it('every event type the outbox writes (order.partially_filled among them) is a webhook, an Event, a feed filter and a GraphQL Event', () => {
      expect(EVENT_TYPES).to.include('order.partially_filled');
      const webhooks = Object.values(document.webhooks as Record<string, any>).map((w) => w.post);
      const event = document.components.schemas.Event;
      const constOf = (schema: any) => resolve(schema).properties.type.const as string;
      const filter = new RegExp(document.components.parameters.EventTypeQuery.schema.pattern);
      const graphqlMembers = (createGraphQLSchema().getType('Event') as any).getTypes().map((t: { name: string }) => t.name);
      for (const type of EVENT_TYPES) {
        const webhook = webhooks.find((w) => w.summary === type);
        expect(webhook, `the webhook of ${type}`).to.not.equal(undefined);
        expect(constOf(webhook.requestBody.content['application/json'].schema), `the payload of ${type}`).to.equal(type);
        const member = event.discriminator.mapping[type];
        expect(member, `Event's mapping of ${type}`).to.be.a('string');
        expect(event.oneOf.map((m: any) => m.$ref)).to.include(member);
        expect(constOf({ $ref: member }), `the Event member of ${type}`).to.equal(type);
        expect(filter.test(type), `?type=${type}`).to.equal(true);
        expect(graphqlMembers, `GraphQL's Event member for ${type}`).to.include(member.split('/').pop());
      }
      expect(Object.keys(event.discriminator.mapping)).to.deep.equal([...EVENT_TYPES]);
      expect(graphqlMembers).to.have.length(EVENT_TYPES.length);
    });
  });
});
