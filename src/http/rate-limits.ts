import type { Request, RequestHandler, Response } from 'express';
import type { Store } from 'express-rate-limit';
import type { Config } from '../config.js';
import { addQuotaHeaders, refuse, WINDOW_MS } from './rate-limit-replies.js';
import type { RateLimitStores } from './rate-limit-stores.js';
import type { RouteTable } from './routes.js';
import { tokenFailureLimits } from './token-failures.js';

export { RateLimitStores, type RateLimitStoreStatus } from './rate-limit-stores.js';

const TOKEN_PATH = '/oauth/token';
const UNLIMITED = new Set(['/healthz', '/readyz']);
/** Paths outside the spec that are a route each; every other path that names no route shares one budget. */
const OTHER_ROUTES = new Set(['/', '/graphql', '/mcp', '/problems']);
const NO_ROUTE = '(no route)';

/**
 * A limit over one-minute windows with express-rate-limit's store and its answers (draft-8 `RateLimit` and
 * `RateLimit-Policy` headers, 429 past the limit), without its middleware, which costs every request an async chain of
 * awaits, a SHA-256 partition key and `req.ip` computed for a disabled debug line. A store that cannot count lets the
 * request pass (the stores never reject).
 */
function windowLimit(options: {
  limit: number;
  name: string;
  store: Store;
  key: (req: Request) => string;
  exceeded: (req: Request, res: Response, resetTime: Date | undefined) => void;
}): RequestHandler {
  const { limit, name, store, key: keyOf, exceeded } = options;
  return (req, res, next) => {
    const key = keyOf(req);
    Promise.resolve(store.increment(key))
      .then(({ totalHits, resetTime }) => {
        addQuotaHeaders(res, [{ name, limit, remaining: Math.max(limit - totalHits, 0), resetTime, key }]);
        if (totalHits > limit) return exceeded(req, res, resetTime);
        next();
      })
      .catch(next); // what the answer throws goes to the error handlers
  };
}

/**
 * The route a request counts against, whatever its method: the matched operation's path template, HEAD counting
 * as its GET, and a method the route does not allow (405) counting as the route too — so ids in a path never make
 * fresh budgets. Outside the spec, /docs and /problems/{slug} are one route each; paths that name no route share one.
 */
function routeOf(routes: RouteTable | undefined, req: Request): string {
  const match = routes?.match(req.method === 'HEAD' ? 'GET' : req.method, req.path);
  if (match?.kind === 'operation') return match.operation.path;
  const template = routes?.template(req.path);
  if (template) return template;
  if (req.path === '/docs' || req.path.startsWith('/docs/')) return '/docs';
  if (req.path.startsWith('/problems/')) return '/problems/{slug}';
  return OTHER_ROUTES.has(req.path) ? req.path : NO_ROUTE;
}

/**
 * The rate limits (draft-8 `RateLimit` and `RateLimit-Policy` headers listing every policy that applies):
 * - per client address and route, `RATE_LIMIT_PER_MINUTE` (see routeOf; /healthz and /readyz are not limited);
 * - at the token endpoint instead: per client address, `TOKEN_RATE_LIMIT_PER_MINUTE`, then the failed-authentication
 *   limits per client_id and address and per client_id (token-failures.ts).
 * Over a limit: 429 with `Retry-After` and the IANA quota-exceeded problem; at the token endpoint in the RFC 6749
 * error format (`slow_down`), which OAuth clients read.
 */
export function rateLimits(config: Config, stores: RateLimitStores, routes: () => RouteTable | undefined): RequestHandler {
  const address = (req: Request) => req.ip ?? req.socket.remoteAddress ?? 'unknown';
  const perRoute = windowLimit({
    limit: config.rateLimitPerMinute,
    name: 'route',
    store: stores.store('route', WINDOW_MS),
    key: (req) => `${address(req)} ${routeOf(routes(), req)}`,
    exceeded: (req, res, resetTime) =>
      refuse(config.baseUrl, res, {
        policy: 'route',
        detail: `At most ${config.rateLimitPerMinute} requests a minute per client address and route; retry after Retry-After seconds.`,
        resetTime,
        oauth: false,
      }),
  });
  const token = windowLimit({
    limit: config.tokenRateLimitPerMinute,
    name: 'token',
    store: stores.store('token', WINDOW_MS),
    key: address,
    exceeded: (req, res, resetTime) =>
      refuse(config.baseUrl, res, {
        policy: 'token',
        detail: `At most ${config.tokenRateLimitPerMinute} token requests a minute per client address; retry after Retry-After seconds.`,
        resetTime,
        oauth: true,
      }),
  });
  const failures = tokenFailureLimits(stores, {
    perAddress: config.tokenFailureLimitPerMinute,
    perClient: config.tokenClientFailureLimitPerMinute,
    baseUrl: config.baseUrl,
    address,
  });
  // One limiter per request: the token endpoint's, or the route limit.
  return (req, res, next) => {
    if (req.path === TOKEN_PATH) return token(req, res, (error?: unknown) => (error ? next(error) : failures(req, res, next)));
    if (UNLIMITED.has(req.path)) return next();
    return perRoute(req, res, next);
  };
}
