import { randomUUID } from 'node:crypto';
import express, { type ErrorRequestHandler, type Express } from 'express';
import type { Document } from 'openapi-backend';
import { pinoHttp } from 'pino-http';
import type { Logger } from 'pino';
import { handlers } from '../handlers/index.js';
import { graphqlHandler } from './graphql/http.js';
import { createApiMiddleware, type ApiRequestState } from './http/api.js';
import { docsRouter } from './http/docs.js';
import { problemReply, sendReply } from './http/reply.js';
import { mcpDocsPage } from './mcp/docs.js';
import { mcpHandler } from './mcp/http.js';
import { McpCatalogue } from './mcp/server.js';
import type { Config } from './config.js';
import type { Services } from './services/index.js';
import { MCP_PATH } from './services/oauth.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export async function createApp(config: Config, services: Services, document: Document, logger: Logger): Promise<Express> {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('trust proxy', config.trustProxy);
  app.set('query parser', 'simple');

  app.use(
    pinoHttp({
      logger,
      genReqId: (req, res) => {
        const given = req.headers['x-request-id'];
        const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
        res.setHeader('X-Request-Id', id);
        return id;
      },
      // Only what is safe to keep: no headers (Authorization, cookies), no bodies (secrets, passwords), no query.
      serializers: {
        req: (req: { id: string; method: string; url: string }) => ({ id: req.id, method: req.method, path: req.url.split('?')[0] }),
        res: (res: { statusCode: number }) => ({ status: res.statusCode }),
      },
      customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
    }),
  );
  app.use((req, res, next) => {
    const state: ApiRequestState = {
      log: req.log,
      requestInfo: {
        id: String(req.id),
        ip: req.ip ?? req.socket.remoteAddress ?? 'unknown',
        userAgent: req.headers['user-agent'] ?? null,
        headers: req.headers,
      },
    };
    (res.locals as { api: ApiRequestState }).api = state;
    next();
  });

  const mcp = new McpCatalogue(document, config.baseUrl);
  app.use(docsRouter(config.baseUrl));
  app.get('/docs/mcp', mcpDocsPage(mcp));
  app.use(express.raw({ type: () => true, limit: config.bodyLimitBytes }));
  app.all(MCP_PATH, mcpHandler(services, mcp));
  app.all('/graphql', graphqlHandler(services, mcp.contract, config.baseUrl));
  app.use(await createApiMiddleware(document, services, handlers, config.baseUrl));

  const bodyErrors: ErrorRequestHandler = (error, req, res, _next) => {
    const type = (error as { type?: string }).type;
    const reply =
      type === 'entity.too.large'
        ? problemReply('payload-too-large', config.baseUrl, { detail: `The request body exceeds ${config.bodyLimitBytes} bytes.` })
        : type === 'encoding.unsupported'
          ? problemReply('unsupported-media-type', config.baseUrl, { detail: 'Send the request body without a Content-Encoding.' })
          : problemReply('malformed-request', config.baseUrl, { detail: 'The request body could not be read.' });
    req.log.warn({ type }, 'request body refused');
    reply.body = { ...(reply.body as object), instance: req.path, request_id: String(req.id) };
    sendReply(res, reply);
  };
  app.use(bodyErrors);
  return app;
}
