import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname, join } from 'node:path';
import express, { type Router } from 'express';
import { problemTypes, type ProblemSlug } from '../../generated/problem-types.js';
import { problemTypeUri } from '../application/problems.js';
import { EncodedBody, sendBody } from './compression.js';
import { Guides, GUIDES_PATH } from './guides.js';
import { createMarkdown } from './markdown.js';
import { problemReply, sendReply } from './reply.js';

const require = createRequire(import.meta.url);
// The package's main module evaluates the whole 1.7 MB browser bundle in Node; only the folder is needed here.
const swaggerUiDir: string = (require('swagger-ui-dist/absolute-path.js') as () => string)();

const ASSET_TYPES: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.png': 'image/png',
  '.html': 'text/html; charset=utf-8',
};
const SWAGGER_ASSETS = new Set([
  'swagger-ui.css',
  'swagger-ui-bundle.js',
  'swagger-ui-standalone-preset.js',
  'favicon-32x32.png',
  'favicon-16x16.png',
  'oauth2-redirect.html',
  'oauth2-redirect.js',
]);

/** Pages load nothing from elsewhere: every asset is served by the service itself. */
const CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'";

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The spec's Markdown descriptions as HTML; raw HTML in them is shown as text, never interpreted. */
const specMarkdown = createMarkdown();
const markdown = (text: string) => specMarkdown.render(text);

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style>body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#1f2328}
code{background:#f3f4f6;padding:.1em .3em;border-radius:4px}dt{font-weight:600;margin-top:1rem}a{color:#0b57d0}
pre{background:#f3f4f6;padding:.75rem;border-radius:6px;overflow-x:auto}pre code{padding:0}
table{border-collapse:collapse;font-size:.9em}th,td{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:left;vertical-align:top}
td code{overflow-wrap:anywhere}</style></head>
<body>${body}</body></html>`;
}

/** A documentation page of the service (for pages other adapters describe themselves with): self-contained, under the CSP. */
export function sendPage(res: express.Response, title: string, body: string): void {
  res.status(200).set({ 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': CSP });
  sendBody(res.req, res, page(title, body));
}

/** JSON for programs reading the documentation (the problem types, the index of links). */
function sendJson(res: express.Response, value: unknown): void {
  res.status(200).type('application/json; charset=utf-8');
  sendBody(res.req, res, JSON.stringify(value));
}

const docsHtml = (
  dashboardUrl: string,
) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Investment Automation Service API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"><link rel="icon" href="/docs/assets/favicon-32x32.png"></head>
<body><p id="other-interfaces" style="font:14px/1.5 system-ui,sans-serif;margin:0;padding:.6rem 1.25rem;background:#eef3fc;color:#1f2328">
GraphQL: <a href="/graphql"><code>/graphql</code></a> answers the same operations with the same tokens and scopes (each root field names
its operationId; send <code>Authorization: Bearer</code>, introspection included). Errors of every interface are
<a href="/problems">problem types</a>. Credentials (client id and secret) are created in the
<a href="${escapeAttribute(dashboardUrl)}/developer">dashboard</a>, where a person also approves orders and signs policies.
The <a href="${GUIDES_PATH}">guides</a> explain each interface, errors, webhooks, rate limits, configuration and operations.</p>
<div id="swagger-ui"></div><script src="/docs/assets/swagger-ui-bundle.js"></script><script src="/docs/init.js"></script></body></html>`;

// "Try it" calls the origin the page was opened from, whatever BASE_URL says, so the page's CSP (connect-src
// 'self') never blocks it behind a proxy or under another host name.
const DOCS_INIT = `fetch('/openapi.json')
  .then(function (response) { return response.json(); })
  .then(function (spec) {
    spec.servers = [{ url: window.location.origin, description: 'This page\\'s origin' }];
    window.ui = SwaggerUIBundle({
      spec: spec,
      dom_id: '#swagger-ui',
      deepLinking: true,
      tryItOutEnabled: true,
      persistAuthorization: false,
      displayRequestDuration: true,
      validatorUrl: 'none',
      oauth2RedirectUrl: window.location.origin + '/docs/assets/oauth2-redirect.html'
    });
  });
`;

const escapeAttribute = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** `dashboardUrl` answers the dashboard's address when a page is served (its port may be chosen at listen). */
export function docsRouter(baseUrl: string, dashboardUrl: () => string): Router {
  const router = express.Router();
  const html = (res: express.Response, status: number, body: string) => {
    res.status(status).set({ 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': CSP });
    sendBody(res.req, res, body);
  };

  router.get('/docs', (_req, res) => html(res, 200, docsHtml(dashboardUrl())));
  router.get('/docs/init.js', (req, res) => {
    res.set({ 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache' });
    sendBody(req, res, DOCS_INIT);
  });
  // Read and compressed once, on first use (the bundle is 1.7 MB, about 0.4 MB in brotli).
  const assets = new Map<string, EncodedBody>();
  router.get('/docs/assets/:file', (req, res, next) => {
    const file = req.params.file;
    if (!SWAGGER_ASSETS.has(file)) return next();
    let asset = assets.get(file);
    if (!asset) assets.set(file, (asset = new EncodedBody(readFileSync(join(swaggerUiDir, file)))));
    res.setHeader('Content-Type', ASSET_TYPES[extname(file)] ?? 'application/octet-stream');
    asset.send(req, res, 200, { 'Content-Security-Policy': CSP, 'Cache-Control': 'public, max-age=86400' });
  });

  // The guides of docs/ for people, each linking the others; a name that is no guide is 404 like an unknown path.
  const guides = new Guides();
  const nav = `<p><a href="/docs">API reference</a> · <a href="${GUIDES_PATH}">Guides</a> · <a href="/problems">Problem types</a></p>`;
  const guide = (req: express.Request, res: express.Response, name?: string) => {
    const found = guides.get(name);
    if (!found) return sendReply(res, problemReply('not-found', baseUrl, { detail: `There is no guide "${name}".` }));
    html(res, 200, page(found.title, `${nav}${found.html}`));
  };
  router.get(GUIDES_PATH, (req, res) => guide(req, res));
  router.get(`${GUIDES_PATH}/:name`, (req, res) => guide(req, res, req.params.name));

  // Problem types for people (HTML, descriptions rendered from their Markdown) and for programs (JSON), by Accept.
  const problem = (slug: ProblemSlug) => ({
    slug,
    type: problemTypeUri(slug, baseUrl),
    title: problemTypes[slug].title,
    status: problemTypes[slug].status,
    description: problemTypes[slug].description,
  });
  const wantsJson = (req: express.Request) => req.accepts(['text/html', 'application/json']) === 'application/json';
  router.get('/problems', (req, res) => {
    res.vary('Accept');
    const slugs = Object.keys(problemTypes) as ProblemSlug[];
    if (wantsJson(req)) return sendJson(res, { data: slugs.map(problem) });
    const items = slugs
      .map(
        (slug) =>
          `<dt><a href="/problems/${slug}">${escapeHtml(problemTypes[slug].title)}</a> <code>${problemTypes[slug].status}</code></dt>\n` +
          `<dd><code>${escapeHtml(problemTypeUri(slug, baseUrl))}</code></dd>`,
      )
      .join('');
    html(
      res,
      200,
      page(
        'Problem types',
        `<h1>Problem types</h1><p>Every error of the API is an RFC 9457 problem document whose <code>type</code> is one of these
(also as JSON: <code>Accept: application/json</code>). <a href="/docs">API reference</a></p><dl>${items}</dl>`,
      ),
    );
  });
  router.get('/problems/:slug', (req, res) => {
    res.vary('Accept');
    const slug = req.params.slug as ProblemSlug;
    if (!Object.hasOwn(problemTypes, slug)) {
      sendReply(res, problemReply('not-found', baseUrl, { detail: `There is no problem type "${req.params.slug}".` }));
      return;
    }
    const { type, title, status, description } = problem(slug);
    if (wantsJson(req)) return sendJson(res, problem(slug));
    const registered = type.startsWith(baseUrl) ? '' : ' (registered by IANA; this page documents how this API uses it)';
    html(
      res,
      200,
      page(
        title,
        `<p><a href="/problems">All problem types</a></p><h1>${escapeHtml(title)}</h1>
<p>HTTP status <code>${status}</code> · type <code>${escapeHtml(type)}</code>${registered}</p>
${markdown(description)}`,
      ),
    );
  });

  // The API host's root: people are sent to the reference, programs get an index of links.
  router.get('/', (req, res) => {
    res.vary('Accept');
    if (!wantsJson(req)) return res.redirect(302, '/docs');
    sendJson(res, {
      docs: `${baseUrl}/docs`,
      guides: `${baseUrl}${GUIDES_PATH}`,
      openapi: `${baseUrl}/openapi.json`,
      problems: `${baseUrl}/problems`,
      graphql: `${baseUrl}/graphql`,
      mcp: `${baseUrl}/mcp`,
      token_endpoint: `${baseUrl}/oauth/token`,
      authorization_server_metadata: `${baseUrl}/.well-known/oauth-authorization-server`,
      protected_resource_metadata: `${baseUrl}/.well-known/oauth-protected-resource`,
    });
  });
  return router;
}
