import type { Document } from 'openapi-backend';
import { EncodedBody } from '../src/http/compression.js';
import type { Handler } from '../src/http/handler-types.js';

/** The published document serialised and compressed once per process (it never changes while the process runs). */
const encodings = new WeakMap<Document, EncodedBody>();
const encodedOf = (document: Document) => {
  let encoded = encodings.get(document);
  if (!encoded) encodings.set(document, (encoded = new EncodedBody(Buffer.from(JSON.stringify(document)))));
  return encoded;
};

export const getOpenApiDocument: Handler<'getOpenApiDocument'> = async ({ request, services }) => {
  const document = services.meta.openApiDocument();
  const encoded = encodedOf(document);
  const headers = { ETag: encoded.etag, 'Cache-Control': 'public, max-age=60, must-revalidate' };
  const ifNoneMatch = request.headers['if-none-match'];
  if (typeof ifNoneMatch === 'string' && ifNoneMatch.split(',').some((tag) => tag.trim() === encoded.etag || tag.trim() === '*')) {
    return { status: 304, body: undefined as never, headers };
  }
  // Sent in the encoding the client prefers.
  return { status: 200, body: document as never, headers, encoded };
};

export const getHealth: Handler<'getHealth'> = async () => ({ status: 200, body: { status: 'ok' } });

export const getReadiness: Handler<'getReadiness'> = async ({ services }) => {
  const { ready, checks } = await services.meta.readiness();
  return {
    status: ready ? 200 : 503,
    body: { status: ready ? 'ready' : 'not_ready', checks },
    headers: ready ? {} : { 'Retry-After': '5' },
  } as never;
};
