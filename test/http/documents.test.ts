import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { expect } from 'chai';
import { createMarkdown } from '../../src/http/markdown.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** A GET that shows the bytes on the wire (fetch would decode them). */
function raw(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}
const decode = (encoding: string | undefined, body: Buffer) =>
  encoding === 'br' ? brotliDecompressSync(body) : encoding === 'gzip' ? gunzipSync(body) : body;

describe('documents, docs and health', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ BASE_URL: 'https://api.example.test' });
  });
  after(() => server.close());

  it('GET /openapi.json serves generated/openapi.json, the bundle of openapi.yaml, with servers set to BASE_URL and an ETag', async () => {
    const response = await server.api.get('/openapi.json');
    expect(response.status).to.equal(200);
    const served = response.body as Record<string, unknown>;
    expect(served.openapi).to.match(/^3\.1\./);
    expect(served.servers).to.deep.equal([{ url: 'https://api.example.test', description: 'This deployment' }]);
    const bundled = JSON.parse(readFileSync('generated/openapi.json', 'utf8')) as Record<string, unknown>;
    expect({ ...served, servers: null }).to.deep.equal({ ...bundled, servers: null });
    const etag = response.headers.get('etag');
    expect(etag).to.match(/^".+"$/);
    const again = await server.api.get('/openapi.json', { headers: { 'if-none-match': etag! } });
    expect(again.status).to.equal(304);
    expect(again.text).to.equal('');
  });

  describe('compression', () => {
    const base = () => `http://127.0.0.1:${server.running.port}`;

    it('serves /openapi.json in brotli, gzip or as is, by Accept-Encoding, with one entity tag and Vary', async () => {
      const plain = await raw(`${base()}/openapi.json`);
      expect(plain.headers['content-encoding']).to.equal(undefined);
      expect(Number(plain.headers['content-length'])).to.equal(plain.body.length);
      const document = JSON.parse(plain.body.toString());
      expect(document.servers[0].url).to.equal('https://api.example.test');
      for (const [accept, expected] of [
        ['br', 'br'],
        ['gzip', 'gzip'],
        ['gzip, deflate, br', 'br'],
        ['br;q=0.5, gzip', 'gzip'],
        ['identity', undefined],
      ] as const) {
        const response = await raw(`${base()}/openapi.json`, { 'Accept-Encoding': accept });
        expect(response.status, accept).to.equal(200);
        expect(response.headers['content-encoding'], accept).to.equal(expected);
        expect(response.headers.vary, accept).to.match(/Accept-Encoding/i);
        expect(response.headers.etag, accept).to.equal(plain.headers.etag);
        expect(response.headers['content-type'], accept).to.match(/^application\/json/);
        expect(JSON.parse(decode(expected, response.body).toString()), accept).to.deep.equal(document);
        if (expected) expect(response.body.length, accept).to.be.below(plain.body.length / 4);
      }
      const unchanged = await raw(`${base()}/openapi.json`, { 'Accept-Encoding': 'br', 'If-None-Match': plain.headers.etag! });
      expect(unchanged.status).to.equal(304);
      expect(unchanged.body.length).to.equal(0);
    });

    it("serves the docs assets compressed, byte for byte the package's files once decoded", async () => {
      const dir = (createRequire(import.meta.url)('swagger-ui-dist/absolute-path.js') as () => string)();
      const file = readFileSync(join(dir, 'swagger-ui-bundle.js'));
      for (const encoding of ['br', 'gzip'] as const) {
        const response = await raw(`${base()}/docs/assets/swagger-ui-bundle.js`, { 'Accept-Encoding': encoding });
        expect(response.status).to.equal(200);
        expect(response.headers['content-encoding']).to.equal(encoding);
        expect(response.headers['content-type']).to.match(/^text\/javascript/);
        expect(response.headers['cache-control']).to.equal('public, max-age=86400');
        expect(response.headers.vary).to.match(/Accept-Encoding/i);
        expect(decode(encoding, response.body).equals(file)).to.equal(true);
        expect(response.body.length).to.be.below(file.length / 3);
      }
    });

    it('compresses large API answers in sendReply, with Vary, and leaves small ones as they are', async () => {
      const token = await server.token(['read']);
      const plain = await raw(`${base()}/v1/disclosures/current`, { Authorization: `Bearer ${token}` });
      expect(plain.status).to.equal(200);
      expect(plain.body.length).to.be.greaterThan(1024);
      for (const encoding of ['br', 'gzip'] as const) {
        const response = await raw(`${base()}/v1/disclosures/current`, { Authorization: `Bearer ${token}`, 'Accept-Encoding': encoding });
        expect(response.headers['content-encoding'], encoding).to.equal(encoding);
        expect(response.headers.vary, encoding).to.match(/Accept-Encoding/i);
        expect(JSON.parse(decode(encoding, response.body).toString()), encoding).to.deep.equal(JSON.parse(plain.body.toString()));
      }
      const small = await raw(`${base()}/v1/kill-switch`, { Authorization: `Bearer ${token}`, 'Accept-Encoding': 'gzip, br' });
      expect(small.status).to.equal(200);
      expect(small.body.length).to.be.below(1024);
      expect(small.headers['content-encoding']).to.equal(undefined);
    });

    it('compresses other large answers per request and leaves small ones as they are', async () => {
      const large = await raw(`${base()}/problems`, { Accept: 'application/json', 'Accept-Encoding': 'gzip' });
      expect(large.headers['content-encoding']).to.equal('gzip');
      expect(large.headers.vary).to.match(/Accept-Encoding/i);
      expect(JSON.parse(gunzipSync(large.body).toString()).data.length).to.be.greaterThan(10);
      const small = await raw(`${base()}/healthz`, { 'Accept-Encoding': 'gzip, br' });
      expect(small.headers['content-encoding']).to.equal(undefined);
      expect(JSON.parse(small.body.toString())).to.deep.equal({ status: 'ok' });
    });
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

  describe('guides', () => {
    const base = () => `http://127.0.0.1:${server.running.port}`;

    it('GET /docs links the guides: docs/README.md and every page of docs/, whose links to each other and their headings resolve', async () => {
      expect(await (await fetch(`${base()}/docs`)).text()).to.include('<a href="/docs/guides">guides</a>');
      const pages = readdirSync('docs')
        .filter((file) => file.endsWith('.md') && file !== 'README.md')
        .map((file) => `/docs/guides/${file.slice(0, -3)}`);
      // Every page reachable from the index, each fetched once; every link between them names a heading of its target.
      const served = new Map<string, string>();
      const links: string[] = [];
      const queue = ['/docs/guides'];
      for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
        if (served.has(path)) continue;
        const response = await fetch(`${base()}${path}`);
        expect(response.status, path).to.equal(200);
        expect(response.headers.get('content-type'), path).to.match(/^text\/html/);
        expect(response.headers.get('content-security-policy'), path).to.include("default-src 'self'");
        const html = await response.text();
        served.set(path, html);
        expect(html, `${path}: a Markdown file's link left as is, or a snippet marker shown`).to.not.match(/href="[^"]*\.md\b|&lt;!--/);
        for (const [, href] of html.matchAll(/href="(\/docs\/guides[^"]*)"/g)) {
          links.push(`${path} → ${href}`);
          queue.push(href!.split('#')[0]!);
        }
      }
      expect([...served.keys()]).to.have.members(['/docs/guides', '/docs/guides/overview', ...pages]);
      for (const link of links) {
        const [, anchor] = link.split('#');
        if (anchor) expect(served.get(link.split(' → ')[1]!.split('#')[0]!), link).to.include(`id="${anchor}"`);
      }
      expect(links).to.include('/docs/guides/graphql → /docs/guides/rest#safe-retries-idempotency-key');
      expect(served.get('/docs/guides/overview')).to.include('<h2 id="walk-through-curl">');
    });

    it('answers 404 for a name that is no guide', async () => {
      for (const path of ['/docs/guides/nothing', '/docs/guides/README', '/docs/guides/..%2FREADME']) {
        const response = await fetch(`${base()}${path}`);
        expect(response.status, path).to.equal(404);
        expect(response.headers.get('content-type'), path).to.match(/^application\/problem\+json/);
        // Like every problem the service sends: where it happened and the request, as its log line names it.
        const problem = (await response.json()) as { instance: string; request_id: string };
        expect(problem.instance, path).to.equal(new URL(path, base()).pathname);
        expect(problem.request_id, path).to.equal(response.headers.get('x-request-id'));
      }
    });

    it('renders Markdown with raw HTML shown as text, as the problem types are', () => {
      expect(createMarkdown().render('A <script>alert(1)</script> <b>bold</b> claim')).to.equal(
        '<p>A &lt;script&gt;alert(1)&lt;/script&gt; &lt;b&gt;bold&lt;/b&gt; claim</p>\n',
      );
    });
  });

  it('GET /healthz answers while the process lives and GET /readyz once it can serve', async () => {
    expect((await server.api.get('/healthz')).body).to.deep.equal({ status: 'ok' });
    const ready = await server.api.get('/readyz');
    expect(ready.status).to.equal(200);
    expect(ready.body.status).to.equal('ready');
  });

  describe('problem types and the root', () => {
    const base = () => `http://127.0.0.1:${server.running.port}`;

    it('GET /problems/{slug} renders the description from Markdown for people and answers JSON to programs', async () => {
      const page = await fetch(`${base()}/problems/validation-error`);
      expect(page.headers.get('content-type')).to.match(/^text\/html/);
      expect(page.headers.get('vary')).to.match(/Accept/i);
      const html = await page.text();
      expect(html)
        .to.include('<code>')
        .and.not.match(/`[^`<]+`/);
      const json = await fetch(`${base()}/problems/validation-error`, { headers: { accept: 'application/json' } });
      expect(json.headers.get('content-type')).to.match(/^application\/json/);
      expect(await json.json()).to.include({
        slug: 'validation-error',
        type: 'https://api.example.test/problems/validation-error',
        status: 400,
      });
    });

    it('lists every problem type as JSON, the rate-limit one under its IANA URI, as its page says too', async () => {
      const list = (await (await fetch(`${base()}/problems`, { headers: { accept: 'application/json' } })).json()) as {
        data: { slug: string; type: string }[];
      };
      expect(list.data.length).to.be.greaterThan(20);
      const quota = list.data.find((p) => p.slug === 'quota-exceeded');
      expect(quota?.type).to.equal('https://iana.org/assignments/http-problem-types#quota-exceeded');
      const page = await (await fetch(`${base()}/problems/quota-exceeded`)).text();
      expect(page).to.include('https://iana.org/assignments/http-problem-types#quota-exceeded').and.include('registered by IANA');
      for (const problem of list.data.filter((p) => p.slug !== 'quota-exceeded'))
        expect(problem.type).to.equal(`https://api.example.test/problems/${problem.slug}`);
      expect((await fetch(`${base()}/problems`)).headers.get('content-type')).to.match(/^text\/html/);
    });

    it('GET / sends people to /docs and gives programs an index of links', async () => {
      const page = await fetch(`${base()}/`, { redirect: 'manual' });
      expect(page.status).to.equal(302);
      expect(page.headers.get('location')).to.equal('/docs');
      const index = (await (await fetch(`${base()}/`, { headers: { accept: 'application/json' } })).json()) as Record<string, string>;
      expect(index).to.include({
        docs: 'https://api.example.test/docs',
        guides: 'https://api.example.test/docs/guides',
        openapi: 'https://api.example.test/openapi.json',
        graphql: 'https://api.example.test/graphql',
        mcp: 'https://api.example.test/mcp',
      });
    });
  });
});
