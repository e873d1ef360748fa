import { randomUUID } from 'node:crypto';
import compression from 'compression';
import express, { type ErrorRequestHandler, type Express, type Request, type RequestHandler } from 'express';
import type { RequestInfo } from '../handlers/types.js';
import type { Document } from 'openapi-backend';
import type { Logger } from 'pino';
import { handlers, successShapes } from '../handlers/index.js';
import { IdempotencyKeys } from './application/idempotency.js';
import { Pipeline } from './application/pipeline.js';
import { Contract } from './contract/operations.js';
import { graphqlHandler } from './graphql/http.js';
import { createApiMiddleware, isTokenEndpoint } from './http/api.js';
import type { ApiRequestState } from './http/request-state.js';
import { bodyReadProblem, MALFORMED_PATH } from './http/body.js';
import { docsRouter } from './http/docs.js';
import { rateLimits, type RateLimitStores } from './http/rate-limits.js';
import { oauthErrorReply, problemReply, sendReply, tokenEndpointReply } from './http/reply.js';
import { mcpDocsPage } from './mcp/docs.js';
import { mcpHandler } from './mcp/http.js';
import { McpCatalogue } from './mcp/server.js';
import type { Config } from './config.js';
import { OAuthError, ProblemError } from './problems.js';
import type { Services } from './services/index.js';
import { MCP_PATH } from './services/oauth.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const MAX_USER_AGENT = 512;

/**
 * What the adapters read of a request. Classes, not object literals with getters: a literal's getters are new
 * closures on every request, each object gets a hidden class of its own, and those old-generation hidden classes
 * kept every request's closures (and so its req and res) alive through young collections — measured, 5.3 KB
 * promoted per request and a light request's throughput cut by 40 %.
 */
class RequestState implements ApiRequestState {
  private child: Logger | undefined;
  constructor(
    private readonly logger: Logger,
    readonly requestInfo: LazyRequestInfo,
  ) {}

  /** A child logger with the request id, created only when something logs. */
  get log(): Logger {
    return (this.child ??= this.logger.child({ reqId: this.requestInfo.id }));
  }
}

class LazyRequestInfo implements RequestInfo {
  /** Kept with consent records: bounded, whatever a client sends. */
  readonly userAgent: string | null;
  readonly headers: Request['headers'];
  private address: string | undefined;
  constructor(
    private readonly req: Request,
    readonly id: string,
  ) {
    this.userAgent = req.headers['user-agent']?.slice(0, MAX_USER_AGENT) ?? null;
    this.headers = req.headers;
  }

  /** Computed when first needed (TRUST_PROXY's address walk is not free, and most reads never ask). */
  get ip(): string {
    return (this.address ??= this.req.ip ?? this.req.socket.remoteAddress ?? 'unknown');
  }
}

/**
 * One log line per request ("request completed": reqId, method, path, status, ms; error level from 500) and the
 * request's state for the adapters: its id (X-Request-Id, echoed when the client sent a well-formed one) and a child
 * logger created only when something logs. Written here rather than with pino-http: measured under load, pino-http's
 * per-request child logger, serializer wrapping and listeners took about a sixth of a light request's CPU.
 * Never logged: headers (Authorization, cookies), bodies (secrets, passwords) or the query string.
 */
function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    res.setHeader('X-Request-Id', id);
    // Every answer is what its Content-Type says; browsers must not guess otherwise.
    res.setHeader('X-Content-Type-Options', 'nosniff');
    const started = performance.now();
    const state = new RequestState(logger, new LazyRequestInfo(req, id));
    (res.locals as { api: ApiRequestState }).api = state;
    const done = (completed: boolean) => {
      const line = { reqId: id, method: req.method, path: req.originalUrl.split('?')[0], status: res.statusCode, ms: Math.round(performance.now() - started) };
      if (!completed) logger.warn(line, 'request aborted');
      else if (res.statusCode >= 500) logger.error(line, 'request completed');
      else logger.info(line, 'request completed');
    };
    // 'close' follows 'finish' on every response (keep-alive too); one listener tells completed from aborted.
    res.once('close', () => done(res.writableFinished));
    next();
  };
}

/** The API's express app over `services`; `stores` (the server's one set of shared counters) holds its rate limits. */
export async function createApp(config: Config, services: Services, document: Document, logger: Logger, stores: RateLimitStores): Promise<Express> {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('trust proxy', config.trustProxy);
  app.set('query parser', 'simple');

  app.use(requestLog(logger));
  // One pipeline for the three channels: one contract (its validator), one store of Idempotency-Keys.
  const pipeline = new Pipeline(new Contract(document), new IdempotencyKeys(config.idempotencyRetentionHours * 3_600_000));
  const api = await createApiMiddleware(document, services, pipeline, handlers, successShapes, config.baseUrl, config.bodyLimitBytes);
  // /v1 bodies are read by the REST adapter after the bearer token is checked (no token and a huge or unreadable
  // body is 401, not 413 or 415); everything else here reads its body first.
  app.use((req, res, next) => (req.path.startsWith('/v1/') ? next() : api.rawBody(req, res, next)));
  services.meta.watchRateLimitStore(stores);
  app.use(rateLimits(config, stores, () => api.routes));
  // /v1 requests go straight to the REST adapter, past the documentation routes (each a layer to test).
  app.use((req, res, next) => (req.path.startsWith('/v1/') ? api(req, res, next) : next()));

  // Pages for people in gzip or brotli by Accept-Encoding (with Vary). API answers are compressed in sendReply, fixed
  // documents once per process (src/http/encoded.ts); MCP's streams are left alone.
  app.use(['/docs', '/problems'], compression({ threshold: 1024 }));
  const mcp = new McpCatalogue(document, config.baseUrl, pipeline);
  app.use(docsRouter(config.baseUrl));
  app.get('/docs/mcp', mcpDocsPage(mcp));
  app.all(MCP_PATH, mcpHandler(services, mcp, config.mcpAllowedOrigins));
  app.all('/graphql', graphqlHandler(services, pipeline, config.baseUrl));
  app.use(api);

  const bodyErrors: ErrorRequestHandler = (error, req, res, _next) => {
    const type = (error as { type?: string }).type;
    // The router's own refusal of a path parameter it cannot percent-decode (`/problems/%ff`) is about the path.
    const badPath = error instanceof URIError;
    const problem = badPath ? new ProblemError('malformed-request', MALFORMED_PATH) : bodyReadProblem(error, config.bodyLimitBytes);
    const state = (res.locals as { api: ApiRequestState }).api;
    state.log.warn({ type }, badPath ? 'request path refused' : 'request body refused');
    if (!badPath && isTokenEndpoint(api.routes, req.path)) {
      // In RFC 6749's format, like every answer of the token endpoint; a body that could not be read is invalid_request.
      sendReply(res, problem.slug === 'malformed-request' ? oauthErrorReply(new OAuthError('invalid_request', problem.detail!), config.baseUrl) : tokenEndpointReply(problemReply(problem.slug, config.baseUrl, { detail: problem.detail })));
      return;
    }
    const reply = problemReply(problem.slug, config.baseUrl, { detail: problem.detail });
    reply.body = { ...(reply.body as object), instance: req.path, request_id: state.requestInfo.id };
    sendReply(res, reply);
  };
  app.use(bodyErrors);
  return app;
}
