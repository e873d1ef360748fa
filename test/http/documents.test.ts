import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/server.js';

describe('documents, docs and health', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ BASE_URL: 'https://api.example.test' });
  });
  after(() => server.close());

  it('GET /openapi.json serves the bundled 3.1 document with servers set to BASE_URL and an ETag', async () => {
    const response = await server.api.get('/openapi.json');
    expect(response.status).to.equal(200);
    expect(response.body.openapi).to.match(/^3\.1\./);
    expect(response.body.servers).to.deep.equal([{ url: 'https://api.example.test', description: 'This deployment' }]);
    const etag = response.headers.get('etag');
    expect(etag).to.match(/^".+"$/);
    const again = await server.api.get('/openapi.json', { headers: { 'if-none-match': etag! } });
    expect(again.status).to.equal(304);
    expect(again.text).to.equal('');
  });

  it('GET /docs serves interactive docs whose every asset comes from the service itself', async () => {
    const base = `http://127.0.0.1:${server.running.port}`;
    const page = await fetch(`${base}/docs`);
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-security-policy')).to.include("default-src 'self'");
    const html = await page.text();
    // Assets are what the page loads (script src, link href); anchors such as the GraphQL link are not loaded.
    const assets = [...html.matchAll(/(?:src=|<link\b[^>]*\bhref=)"([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).to.be.greaterThan(1);
    for (const asset of assets) {
      expect(asset.startsWith('/'), asset).to.equal(true);
      expect((await fetch(`${base}${asset}`)).status, asset).to.equal(200);
    }
    const init = await (await fetch(`${base}/docs/init.js`)).text();
    expect(init).to.include("fetch('/openapi.json')");
    expect(init).to.include('window.location.origin');
    expect(init).to.include("validatorUrl: 'none'");
  });

  it('GET /healthz answers while the process lives and GET /readyz once it can serve', async () => {
    expect((await server.api.get('/healthz')).body).to.deep.equal({ status: 'ok' });
    const ready = await server.api.get('/readyz');
    expect(ready.status).to.equal(200);
    expect(ready.body.status).to.equal('ready');
  });
});
