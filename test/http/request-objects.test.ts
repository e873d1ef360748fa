import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * Express gives each request and response the app's prototypes with Object.setPrototypeOf unless they are born with
 * them (src/http/node-server.ts). A prototype change on a live object costs V8 a new hidden class and its inline
 * caches, and what it leaves behind survives into the old generation: measured, a plain express 5 app served 4×
 * fewer requests. This holds every adapter to none: REST, problems, documents, GraphQL, MCP and the dashboard.
 */
describe('request objects', () => {
  let server: TestServer;
  let token: string;

  before(async () => {
    server = await startTestServer();
    token = await server.token(['read', 'write', 'trade', 'mcp']);
  });
  after(() => server.close());

  const post = (path: string, body: unknown) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(body),
    });

  it('serving requests changes no object’s prototype, on any adapter', async () => {
    const changes: string[] = [];
    const objectSet = Object.setPrototypeOf;
    const reflectSet = Reflect.setPrototypeOf;
    const record = (target: object, prototype: object | null) => {
      if (Object.getPrototypeOf(target) !== prototype)
        changes.push(new Error('prototype changed').stack!.split('\n').slice(2, 5).join(' ← '));
    };
    Object.setPrototypeOf = (target: any, prototype: object | null) => {
      record(target, prototype);
      return objectSet(target, prototype);
    };
    Reflect.setPrototypeOf = (target: object, prototype: object | null) => {
      record(target, prototype);
      return reflectSet(target, prototype);
    };
    const statuses: number[] = [];
    try {
      for (let round = 0; round < 2; round++) {
        statuses.push((await server.api.get('/healthz')).status);
        statuses.push((await server.api.get('/v1/brokers', { token })).status);
        statuses.push(
          (
            await server.api.post('/v1/goals/feasibility', {
              token,
              json: { capital: 10000, target: 20000, horizon_years: 10, market: 'US' },
            })
          ).status,
        );
        statuses.push((await server.api.get('/v1/no-such-thing', { token })).status);
        statuses.push((await server.api.get('/openapi.json')).status);
        statuses.push((await fetch(`${server.url}/docs`)).status);
        statuses.push((await post('/graphql', { query: '{ brokers { id } }' })).status);
        statuses.push((await post('/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status);
        statuses.push((await fetch(`${server.dashboardUrl}/`)).status);
      }
    } finally {
      Object.setPrototypeOf = objectSet;
      Reflect.setPrototypeOf = reflectSet;
    }
    expect(statuses.slice(0, 9)).to.deep.equal([200, 200, 200, 404, 200, 200, 200, 200, 200]);
    expect(changes, changes.join('\n')).to.deep.equal([]);
  });
});
