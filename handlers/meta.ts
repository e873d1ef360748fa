import { ping } from '../db/connect.js';
import { loadDocument, publishDocument, type PublishedDocument } from '../src/document.js';
import { lifecycle } from '../src/lifecycle.js';
import type { Handler } from './types.js';

const publishedByBaseUrl = new Map<string, PublishedDocument>();

export const getOpenApiDocument: Handler<'getOpenApiDocument'> = async ({ request, services }) => {
  const { baseUrl } = services.config;
  let published = publishedByBaseUrl.get(baseUrl);
  if (!published) {
    published = publishDocument(loadDocument(), baseUrl);
    publishedByBaseUrl.set(baseUrl, published);
  }
  const headers = { ETag: published.etag, 'Cache-Control': 'public, max-age=60, must-revalidate' };
  const ifNoneMatch = request.headers['if-none-match'];
  if (typeof ifNoneMatch === 'string' && ifNoneMatch.split(',').some((tag) => tag.trim() === published.etag || tag.trim() === '*')) {
    return { status: 304, body: undefined as never, headers };
  }
  return { status: 200, body: published.document as never, headers };
};

export const getHealth: Handler<'getHealth'> = async () => ({ status: 200, body: { status: 'ok' } });

export const getReadiness: Handler<'getReadiness'> = async ({ services }) => {
  let database: 'ok' | 'fail' = 'ok';
  try {
    await ping(services.db.kysely);
  } catch {
    database = 'fail';
  }
  const ready = lifecycle.ready && database === 'ok';
  return {
    status: ready ? 200 : 503,
    body: { status: ready ? 'ready' : 'not_ready', checks: { database, requests: lifecycle.ready ? 'ok' : 'draining' } },
    headers: ready ? {} : { 'Retry-After': '5' },
  } as never;
};
