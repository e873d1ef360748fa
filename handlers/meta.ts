import type { Handler } from './types.js';

export const getOpenApiDocument: Handler<'getOpenApiDocument'> = async ({ request, services }) => {
  const published = services.meta.openApiDocument();
  const headers = { ETag: published.etag, 'Cache-Control': 'public, max-age=60, must-revalidate' };
  const ifNoneMatch = request.headers['if-none-match'];
  if (typeof ifNoneMatch === 'string' && ifNoneMatch.split(',').some((tag) => tag.trim() === published.etag || tag.trim() === '*')) {
    return { status: 304, body: undefined as never, headers };
  }
  // Serialised and compressed once per process; sent in the encoding the client prefers.
  return { status: 200, body: published.document as never, headers, encoded: published.encoded };
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
