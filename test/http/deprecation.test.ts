import { expect } from 'chai';
import type { Document } from 'openapi-backend';
import { resolved } from '../../src/contract/refs.js';
import { loadDocument } from '../../src/document.js';
import { connectMcp } from '../support/mcp.js';
import { startTestServer, type TestServer } from '../support/server.js';

type Json = Record<string, any>;

const DEPRECATION_HEADERS = ['Deprecation', 'Sunset', 'Link'];

/** The deprecated operations whose success answer does not declare the headers every deprecated answer carries. */
function undeclaredDeprecationHeaders(document: Json): string[] {
  const missing: string[] = [];
  for (const item of Object.values(document.paths as Record<string, Json>))
    for (const operation of Object.values(item) as Json[]) {
      if (operation?.deprecated !== true) continue;
      for (const [status, response] of Object.entries(operation.responses as Json)) {
        if (!/^2\d\d$/.test(status)) continue;
        const declared = Object.keys((resolved<Json>(document, response).headers ?? {}) as Json).map((h) => h.toLowerCase());
        for (const header of DEPRECATION_HEADERS)
          if (!declared.includes(header.toLowerCase())) missing.push(`${String(operation.operationId)} ${status} ${header}`);
      }
    }
  return missing;
}

/** The contract as a partner would get it once `listBrokers` and the `symbol` filter of `listOrders` are deprecated. */
function deprecatedCopy(): Json {
  const document = structuredClone(loadDocument()) as Json;
  Object.assign(document.paths['/v1/brokers'].get, { deprecated: true, 'x-sunset': '2027-06-30' });
  const listOrders = document.paths['/v1/orders'].get as Json;
  listOrders.parameters = (listOrders.parameters as Json[]).map((p) =>
    resolved<Json>(document, p).name === 'symbol'
      ? { ...resolved<Json>(document, p), deprecated: true, 'x-deprecated-at': '2026-07-01', 'x-sunset': '2027-01-31' }
      : p,
  );
  return document;
}

describe('deprecations: a contract copy with listBrokers deprecated (x-sunset 2027-06-30) on every channel', function () {
  this.timeout(60_000);
  let server: TestServer;
  let token: string;

  before(async () => {
    server = await startTestServer({}, {}, undefined, deprecatedCopy() as Document);
    token = await server.token(['read', 'mcp']);
  });
  after(() => server.close());

  it('REST: every answer of GET /v1/brokers carries Deprecation (RFC 9745), Sunset (RFC 8594) and the deprecation Link', async () => {
    for (const answer of [await server.api.get('/v1/brokers', { token }), await server.api.get('/v1/brokers')]) {
      expect(answer.status).to.be.oneOf([200, 401]);
      expect(answer.headers.get('deprecation')).to.match(/^@\d+$/);
      // Without x-deprecated-at (before its release) it is announced from the day the server started: not later than now.
      expect(Number(answer.headers.get('deprecation')!.slice(1)) * 1000).to.be.at.most(Date.now());
      expect(answer.headers.get('sunset')).to.equal('Wed, 30 Jun 2027 00:00:00 GMT');
      expect(answer.headers.get('link')).to.equal(`<${server.url}/docs/guides/contract#deprecations>; rel="deprecation"; type="text/html"`);
    }
  });

  it('REST: a deprecated parameter is announced when the request uses it, with its own dates; other operations say nothing', async () => {
    const filtered = await server.api.get('/v1/orders?symbol=VTI', { token });
    expect(filtered.status).to.equal(200);
    expect(filtered.headers.get('deprecation')).to.equal(`@${Date.UTC(2026, 6, 1) / 1000}`);
    expect(filtered.headers.get('sunset')).to.equal('Sun, 31 Jan 2027 00:00:00 GMT');
    const plain = await server.api.get('/v1/orders', { token });
    expect(plain.status).to.equal(200);
    for (const header of ['deprecation', 'sunset', 'link']) expect(plain.headers.get(header), header).to.equal(null);
  });

  it('GraphQL: introspection shows `brokers` and the `symbol` argument of `orders` deprecated, with the dates and the notice', async () => {
    const query =
      '{ __schema { queryType { fields(includeDeprecated: true) { name isDeprecated deprecationReason ' +
      'args(includeDeprecated: true) { name isDeprecated } } } } }';
    const answer = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    expect(answer.status).to.equal(200);
    const fields = ((await answer.json()) as Json).data.__schema.queryType.fields as Json[];
    const brokers = fields.find((f) => f.name === 'brokers')!;
    expect(brokers.isDeprecated).to.equal(true);
    expect(brokers.deprecationReason).to.equal(
      `Deprecated; it may be removed from 2027-06-30 (its sunset). See ${server.url}/docs/guides/contract#deprecations.`,
    );
    const orders = fields.find((f) => f.name === 'orders')!;
    expect(orders.isDeprecated).to.equal(false);
    expect((orders.args as Json[]).filter((a) => a.isDeprecated).map((a) => a.name)).to.deep.equal(['symbol']);
  });

  it('MCP: the listBrokers tool says so in its description and title', async () => {
    const client = await connectMcp(server, token);
    const { tools } = await client.listTools();
    await client.close();
    const tool = tools.find((t) => t.name === 'listBrokers')!;
    expect(tool.description).to.match(
      /^Deprecated; it may be removed from 2027-06-30 \(its sunset\)\. See http:\/\/.*#deprecations\.\n\nList brokers/,
    );
    expect(tool.title).to.equal('List brokers (deprecated)');
    expect(tool.annotations?.title).to.equal('List brokers (deprecated)');
    expect(tools.find((t) => t.name === 'listOrders')!.title).to.equal('List orders');
  });

  it('/openapi.json (what /docs renders: Swagger UI strikes deprecated operations through) and the notice page', async () => {
    const served = await server.api.get('/openapi.json');
    expect((served.body as Json).paths['/v1/brokers'].get.deprecated).to.equal(true);
    const notice = await fetch(`${server.url}/docs/guides/contract`);
    expect(notice.status).to.equal(200);
    expect(await notice.text()).to.include('id="deprecations"');
  });
});

describe('deprecations in the contract itself', () => {
  it('a deprecated operation declares Deprecation, Sunset and Link on its success answer (the copy does not: named)', () => {
    expect(undeclaredDeprecationHeaders(loadDocument())).to.deep.equal([]);
    expect(undeclaredDeprecationHeaders(deprecatedCopy())).to.deep.equal([
      'listBrokers 200 Deprecation',
      'listBrokers 200 Sunset',
      'listBrokers 200 Link',
    ]);
  });
});
