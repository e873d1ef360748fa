import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { MemoryStore, rateLimit, type Options, type Store } from 'express-rate-limit';
import type { Logger } from 'pino';
import { RedisStore } from 'rate-limit-redis';
import { createClient } from 'redis';
import type { Config } from '../config.js';
import { problemDocument } from '../problems.js';
import { basicCredentials } from '../services/oauth.js';
import type { ApiRequestState } from './api.js';
import type { RouteTable } from './routes.js';

const WINDOW_MS = 60_000;
const TOKEN_PATH = '/oauth/token';
const UNLIMITED = new Set(['/healthz', '/readyz']);

/** The shared counters' health, for /readyz: `undefined` without REDIS_URL (counters in memory). */
export interface RateLimitStoreStatus {
  state(): 'ok' | 'fail' | undefined;
}

/**
 * Counters in Redis when REDIS_URL is set (one budget for every instance), else in this process's memory. Commands
 * fail at once while Redis is away (no offline queue): express-rate-limit then lets the request through
 * (`passOnStoreError`), the outage is logged at most once a minute, and /readyz reports it — the API never waits for
 * or fails with the limiter.
 */
export class RateLimitStores implements RateLimitStoreStatus {
  private readonly client: ReturnType<typeof createClient> | undefined;
  private healthy = true;
  private lastLogged = 0;

  constructor(
    redisUrl: string | undefined,
    private readonly prefix: string,
    private readonly logger: Logger,
  ) {
    if (!redisUrl) return;
    this.client = createClient({
      url: redisUrl,
      disableOfflineQueue: true,
      socket: { connectTimeout: 1000, reconnectStrategy: (retries) => Math.min(200 * 2 ** retries, 5000) },
    });
    this.client.on('error', (error: Error) => this.failed(error));
    this.client.on('ready', () => {
      if (!this.healthy) this.logger.info('rate-limit store (Redis) is back');
      this.healthy = true;
    });
    this.client.connect().catch((error: Error) => this.failed(error));
  }

  state(): 'ok' | 'fail' | undefined {
    if (!this.client) return undefined;
    return this.healthy && this.client.isReady ? 'ok' : 'fail';
  }

  /** A store for one limiter (each its own key prefix), or undefined for the in-memory default. */
  store(name: string): Store | undefined {
    if (!this.client) return undefined;
    const client = this.client;
    const sendCommand = async (...args: string[]) => {
      try {
        return (await client.sendCommand(args)) as never;
      } catch (error) {
        this.failed(error as Error);
        throw error;
      }
    };
    return new ReadyRedisStore(() => new RedisStore({ prefix: `${this.prefix}${name}:`, sendCommand }), client, (error) => this.failed(error));
  }

  failed(error: Error): void {
    this.healthy = false;
    const now = Date.now();
    if (now - this.lastLogged < 60_000) return;
    this.lastLogged = now;
    this.logger.error({ err: error }, 'rate-limit store (Redis) unavailable: requests pass unlimited until it is back');
  }

  async close(): Promise<void> {
    if (this.client?.isOpen) await this.client.close().catch(() => {});
  }
}

/**
 * rate-limit-redis loads its script when the store is made; made before Redis answers, it would fail for good. This
 * store makes it once the connection is ready (and again after a failure), failing meanwhile — express-rate-limit
 * then lets the request pass.
 */
class ReadyRedisStore implements Store {
  private store: Promise<RedisStore> | undefined;
  private options: Options | undefined;
  readonly localKeys = false;

  constructor(
    private readonly make: () => RedisStore,
    private readonly client: { isReady: boolean },
    private readonly onError: (error: Error) => void,
  ) {}

  init(options: Options): void {
    this.options = options;
  }

  private ready(): Promise<RedisStore> {
    if (!this.client.isReady) return Promise.reject(new Error('the rate-limit store (Redis) is not connected'));
    this.store ??= (async () => {
      const store = this.make();
      store.init(this.options!);
      return store;
    })().catch((error: unknown) => {
      this.store = undefined;
      throw error;
    });
    return this.store;
  }

  // While Redis is away a request counts as the first of its window: it passes (the outage is logged, at most once
  // a minute, by RateLimitStores; express-rate-limit would print every one).
  async increment(key: string) {
    try {
      return await (await this.ready()).increment(key);
    } catch (error) {
      this.onError(error as Error);
      return { totalHits: 0, resetTime: undefined };
    }
  }

  async decrement(key: string) {
    await (await this.ready()).decrement(key).catch(() => {});
  }

  async resetKey(key: string) {
    await (await this.ready()).resetKey(key).catch(() => {});
  }
}

/** The client's id at the token endpoint (Basic credentials or the form's client_id), for the failure limit. */
function tokenClientId(req: Request): string | undefined {
  try {
    const basic = basicCredentials(req.headers.authorization);
    if (basic) return basic.id;
  } catch {
    return undefined; // refused as invalid_client before any secret is checked
  }
  if (Buffer.isBuffer(req.body)) return new URLSearchParams(req.body.toString('utf8')).get('client_id') ?? undefined;
  return undefined;
}

/**
 * The route limit, which every API request passes: express-rate-limit's store and the same answers (draft-8
 * `RateLimit` and `RateLimit-Policy` headers, the request's `rateLimit` info, the handler past the limit), without
 * its middleware, which was measured at about 19 µs of a 139 µs authenticated read (an async chain of awaits, a
 * SHA-256 partition key and `req.ip` computed for a disabled debug line on every request). The partition key is
 * computed once per key here.
 */
function routeLimit(options: { limit: number; name: string; store: Store; keyGenerator: (req: Request) => string; handler: Options['handler'] }): RequestHandler {
  const { limit, name, store, keyGenerator, handler } = options;
  const windowSeconds = Math.ceil(WINDOW_MS / 1000);
  const settings = { windowMs: WINDOW_MS, limit, requestPropertyName: 'rateLimit' } as Options;
  store.init?.(settings);
  const partitions = new Map<string, string>();
  const policyFor = (key: string) => {
    let policy = partitions.get(key);
    if (policy === undefined) {
      // express-rate-limit's partition key: the first 12 hex digits of the key's SHA-256, in base64.
      const partition = Buffer.from(createHash('sha256').update(key).digest('hex').slice(0, 12)).toString('base64');
      policy = `"${name}"; q=${limit}; w=${windowSeconds}; pk=:${partition}:`;
      if (partitions.size >= 10_000) partitions.clear();
      partitions.set(key, policy);
    }
    return policy;
  };
  return (req, res, next) => {
    const key = keyGenerator(req);
    Promise.resolve(store.increment(key)).then(
      ({ totalHits, resetTime }) => {
        const remaining = Math.max(limit - totalHits, 0);
        (req as unknown as { rateLimit: object }).rateLimit = { limit, used: totalHits, remaining, resetTime, key };
        if (!res.headersSent) {
          const reset = resetTime ? Math.max(0, Math.ceil((resetTime.getTime() - Date.now()) / 1000)) : windowSeconds;
          res.setHeader('RateLimit', `"${name}"; r=${remaining}; t=${reset}`);
          res.setHeader('RateLimit-Policy', policyFor(key));
        }
        if (totalHits > limit) return handler(req, res, next, settings);
        next();
      },
      // A store that fails lets the request pass (ReadyRedisStore already does, and logs the outage).
      () => next(),
    ).catch(next); // as express-rate-limit: what the handler throws goes to the error handlers
  };
}

/**
 * The rate limits (express-rate-limit, draft-8 `RateLimit` and `RateLimit-Policy` headers):
 * - per client IP and route template, `RATE_LIMIT_PER_MINUTE` (ids in a path share their route's budget; GraphQL,
 *   MCP and every other path are a route each; /healthz and /readyz are not limited);
 * - per client IP at the token endpoint, `TOKEN_RATE_LIMIT_PER_MINUTE` (instead of the route limit);
 * - per client_id, failed token requests, `TOKEN_FAILURE_LIMIT_PER_MINUTE`: guessing one client's secret from many
 *   addresses is throttled too (for that client: its own requests wait out the minute as well).
 * Over a limit: 429 with `Retry-After` and the IANA quota-exceeded problem; at the token endpoint in the RFC 6749
 * error format (`slow_down`), which OAuth clients read.
 */
export function rateLimits(config: Config, stores: RateLimitStores, routes: () => RouteTable | undefined): RequestHandler {
  const iana = (detail: string, policy: string) => ({ ...problemDocument('quota-exceeded', config.baseUrl, { detail }), 'violated-policies': [policy] });
  const tooMany = (policy: string, detail: (limit: number) => string, oauth: boolean): Options['handler'] => (req, res, _next, options) => {
    const state = (res.locals as { api?: ApiRequestState }).api;
    const problem = { ...iana(detail(options.limit as number), policy), instance: req.path, request_id: state?.requestInfo.id };
    const info = (req as unknown as Record<string, { resetTime?: Date } | undefined>)[options.requestPropertyName];
    const seconds = info?.resetTime ? Math.max(1, Math.ceil((info.resetTime.getTime() - Date.now()) / 1000)) : Math.ceil(WINDOW_MS / 1000);
    res.status(429).setHeader('Retry-After', String(seconds));
    res.setHeader('Cache-Control', 'no-store');
    if (oauth) {
      res.type('application/json').send(JSON.stringify({ error: 'slow_down', error_description: problem.detail, ...problem }));
    } else {
      res.type('application/problem+json').send(JSON.stringify(problem));
    }
  };
  const route = (req: Request) => {
    const match = routes()?.match(req.method, req.path);
    return match?.kind === 'operation' ? match.operation.path : req.path.startsWith('/docs') ? '/docs' : req.path;
  };
  // express-rate-limit's start-up checks are off: TRUST_PROXY is validated by the configuration, and the keys are
  // this module's own (an address plus a route, or a client id).
  const common = { windowMs: WINDOW_MS, standardHeaders: 'draft-8' as const, legacyHeaders: false, passOnStoreError: true, validate: false };
  const ip = (req: Request) => req.ip ?? req.socket.remoteAddress ?? 'unknown';

  const perRoute = routeLimit({
    limit: config.rateLimitPerMinute,
    name: 'route',
    store: stores.store('route') ?? new MemoryStore(),
    keyGenerator: (req) => `${ip(req)} ${route(req)}`,
    handler: tooMany('route', (limit) => `At most ${limit} requests a minute per client address and route; retry after Retry-After seconds.`, false),
  });
  const token = rateLimit({
    ...common,
    limit: config.tokenRateLimitPerMinute,
    identifier: 'token',
    store: stores.store('token'),
    keyGenerator: (req) => ip(req),
    handler: tooMany('token', (limit) => `At most ${limit} token requests a minute per client address; retry after Retry-After seconds.`, true),
  });
  const failures = rateLimit({
    ...common,
    // The headers describe the address's token budget (set by the limiter before); this one only answers 429.
    standardHeaders: false,
    requestPropertyName: 'tokenFailures',
    limit: config.tokenFailureLimitPerMinute,
    identifier: 'token-failures',
    store: stores.store('token-failures'),
    skipSuccessfulRequests: true,
    // Only the failures count: a 429 of the other limits is not a failed authentication.
    requestWasSuccessful: (_req: Request, res: Response) => res.statusCode < 400 || res.statusCode === 429,
    skip: (req) => !tokenClientId(req),
    keyGenerator: (req) => tokenClientId(req)!,
    handler: tooMany('token-failures', (limit) => `This client failed authentication ${limit} times in a minute; wait Retry-After seconds before trying again.`, true),
  });
  // One limiter per request: the token endpoint's two, or the route limit. (Chained as three middlewares, each
  // async with its own skip check, every request paid for all three.)
  return (req, res, next) => {
    if (req.path === TOKEN_PATH) return token(req, res, (error?: unknown) => (error ? next(error) : failures(req, res, next)));
    if (UNLIMITED.has(req.path)) return next();
    return perRoute(req, res, next);
  };
}
