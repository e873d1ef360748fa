import express, { type ErrorRequestHandler, type Express, type Request, type Response } from 'express';
import type { Document } from 'openapi-backend';
import type { Logger } from 'pino';
import { handlers, successShapes } from '../handlers/index.js';
import type { Pipeline } from './application/pipeline.js';
import { graphqlHandler } from './graphql/http.js';
import { createApiMiddleware, isTokenEndpoint } from './http/api.js';
import type { ApiRequestState } from './http/request-state.js';
import { bodyReadProblem, MALFORMED_PATH } from './http/body.js';
import { closeUnreadBodies, readBodyLimited } from './http/body-limit.js';
import { docsRouter } from './http/docs.js';
import { rateLimits, type RateLimitStores } from './http/rate-limits.js';
import { RefusalPacing } from './http/refusal-pacing.js';
import { requestLog } from './http/request-log.js';
import { oauthErrorReply, problemReply, sendReply, tokenEndpointReply } from './http/reply.js';
import { mcpDocsPage } from './mcp/docs.js';
import { mcpHandler } from './mcp/http.js';
import { McpCatalogue } from './mcp/server.js';
import type { Config } from './config.js';
import type { Channel } from './observability/metrics.js';
import { OAuthError, ProblemError } from './problems.js';
import type { Services } from './services/index.js';
import { MCP_PATH } from './services/oauth.js';

/**
 * The API's port: the express app (documentation, problems, GraphQL, MCP, the token endpoint) and `rest`, the same
 * steps for a `/v1/` request run straight from node:http's request event, past express's router (each of its layers a
 * path to test on every request): the request log, the unread-body guard, the rate limits, the REST channel, and the
 * error handler for what they pass on. express still serves a `/v1/` request that reaches it (an absolute-form target).
 */
export interface ApiApp {
  app: Express;
  rest: (req: Request, res: Response) => void;
}

/** The API's app over `services`; `stores` (the server's one set of shared counters) holds its rate limits. */
export async function createApp(
  config: Config,
  services: Services,
  document: Document,
  pipeline: Pipeline,
  logger: Logger,
  stores: RateLimitStores,
  dashboardUrl: () => string = () => config.dashboardUrl ?? `http://localhost:${config.dashboardPort}`,
): Promise<ApiApp> {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('trust proxy', config.trustProxy);
  app.set('query parser', 'simple');
  // Refusals past a client address's pace are held (refusal-pacing.ts; sendReply asks it for every 429).
  if (config.refusalPacePerSecond > 0) app.locals.pacing = new RefusalPacing(config.refusalPacePerSecond);

  const logged = requestLog(logger, apiChannel);
  const unreadGuard = closeUnreadBodies(config.bodyLimitBytes);
  app.use(logged);
  app.use(unreadGuard);
  const api = await createApiMiddleware(document, services, pipeline, handlers, successShapes, config.baseUrl, config.bodyLimitBytes);
  // /v1, /graphql and /mcp read their bodies after the bearer token is checked (no token and a huge or unreadable body
  // is 401, not 413 or 415); everything else here reads its body first. None reads past BODY_LIMIT_BYTES.
  const readsLater = (path: string) => path.startsWith('/v1/') || path === '/graphql' || path === MCP_PATH;
  app.use((req, res, next) => (readsLater(req.path) ? next() : api.rawBody(req, res, next)));
  services.meta.watchRateLimitStore(stores);
  const limits = rateLimits(config, stores, () => api.routes);
  app.use(limits);
  // /v1 requests go straight to the REST adapter, past the documentation routes (each a layer to test).
  app.use((req, res, next) => (req.path.startsWith('/v1/') ? api(req, res, next) : next()));

  const mcp = new McpCatalogue(document, config.baseUrl, pipeline);
  app.use(docsRouter(config.baseUrl, dashboardUrl));
  app.get('/docs/mcp', mcpDocsPage(mcp));
  const readBody = (req: Request, res: Response) => readBodyLimited(req, res, config.bodyLimitBytes);
  app.all(MCP_PATH, mcpHandler(services, mcp, config.mcpAllowedOrigins, readBody));
  app.all('/graphql', graphqlHandler(services, pipeline, config.baseUrl, readBody));
  app.use(api);

  const bodyErrors: ErrorRequestHandler = (error, req, res, _next) => {
    const type = (error as { type?: string }).type;
    // The router's own refusal of a path parameter it cannot percent-decode (`/problems/%ff`) is about the path.
    const badPath = error instanceof URIError;
    const problem = badPath
      ? new ProblemError('malformed-request', MALFORMED_PATH)
      : error instanceof ProblemError
        ? error
        : bodyReadProblem(error, config.bodyLimitBytes);
    const state = (res.locals as { api: ApiRequestState }).api;
    state.log.warn({ type }, badPath ? 'request path refused' : 'request body refused');
    if (!badPath && isTokenEndpoint(api.routes, req.path)) {
      // In RFC 6749's format, like every answer of the token endpoint; a body that could not be read is invalid_request.
      sendReply(
        res,
        problem.slug === 'malformed-request'
          ? oauthErrorReply(new OAuthError('invalid_request', problem.detail!), config.baseUrl)
          : tokenEndpointReply(problemReply(problem.slug, config.baseUrl, { detail: problem.detail })),
      );
      return;
    }
    sendReply(res, problemReply(problem.slug, config.baseUrl, { detail: problem.detail }));
  };
  app.use(bodyErrors);

  const rest = (req: Request, res: Response) => {
    // What express's app.handle and router set up for its middleware (the prototypes are already the app's: node-server.ts).
    req.res = res;
    res.locals = Object.create(null) as Response['locals'];
    req.originalUrl = req.url;
    req.baseUrl = '';
    // What a step throws or passes on is answered by the error handler; once an answer has begun, the connection is
    // closed instead (express's router and final handler do the same for the app's layers).
    const failed = (error: unknown) => {
      if (res.headersSent) return void res.destroy();
      try {
        bodyErrors(error, req, res, () => undefined);
      } catch {
        res.destroy();
      }
    };
    const run = (step: () => unknown) => {
      try {
        const result = step();
        if (result instanceof Promise) result.catch(failed);
      } catch (error) {
        failed(error);
      }
    };
    const answer = (error?: unknown) => (error ? failed(error) : run(() => api(req, res, failed)));
    run(() => logged(req, res, () => run(() => unreadGuard(req, res, () => run(() => limits(req, res, answer))))));
  };
  return { app, rest };
}

/** Which channel of the API's port a path is, for the metrics: REST (and its token endpoint), GraphQL, MCP, the rest. */
function apiChannel(path: string): Channel {
  if (path.startsWith('/v1/') || path.startsWith('/oauth/')) return 'rest';
  if (path === '/graphql') return 'graphql';
  return path === MCP_PATH ? 'mcp' : 'other';
}
