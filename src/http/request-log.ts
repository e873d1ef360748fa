import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { userAgentOf } from '../auth/authorize.js';
import { activeMetrics, type Channel } from '../observability/metrics.js';
import { startServerTrace } from '../observability/tracing.js';
import type { ApiRequestState, RequestInfo } from './request-state.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * What the adapters read of a request. Classes, not object literals with getters: a literal's getters are new closures
 * on every request, each object gets a hidden class of its own, and those old-generation hidden classes kept every
 * request's closures (and so its req and res) alive through young collections, into the old generation.
 */
class RequestState implements ApiRequestState {
  private child: Logger | undefined;
  route: string | undefined = undefined;
  constructor(
    private readonly logger: Logger,
    readonly requestInfo: LazyRequestInfo,
  ) {}

  /** A child logger with the request id (and trace id), created only when something logs. */
  get log(): Logger {
    const { id, traceId } = this.requestInfo;
    return (this.child ??= this.logger.child(traceId ? { reqId: id, trace_id: traceId } : { reqId: id }));
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
    readonly traceId: string | undefined,
  ) {
    this.userAgent = userAgentOf(req.headers['user-agent']);
    this.headers = req.headers;
  }

  /** Computed when first needed (TRUST_PROXY's address walk is not free, and most reads never ask). */
  get ip(): string {
    return (this.address ??= this.req.ip ?? this.req.socket.remoteAddress ?? 'unknown');
  }
}

/**
 * One log line per request ("request completed": reqId, method, path, status, ms, and trace_id when traced; error level
 * from 500, but a warning for /readyz's 503), for the API and the dashboard alike, and the request's state for the channels: its id (X-Request-Id,
 * echoed when the client sent a well-formed one), its trace's id, and a child logger created only when something logs.
 * A traced request's server span is named by its route template, as the metrics are, never by its path. Written here rather than with pino-http,
 * whose per-request child logger, serializer wrapping and listeners cost every request, logged or not. Never logged:
 * headers (Authorization, cookies), bodies (secrets, passwords) or the query string.
 */
export function requestLog(logger: Logger, channelOf: (path: string) => Channel): RequestHandler {
  return (req, res, next) => {
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    res.setHeader('X-Request-Id', id);
    // Every answer is what its Content-Type says; browsers must not guess otherwise.
    res.setHeader('X-Content-Type-Options', 'nosniff');
    const started = performance.now();
    const serverTrace = startServerTrace(req);
    const { traceId } = serverTrace;
    const state = new RequestState(logger, new LazyRequestInfo(req, id, traceId));
    (res.locals as { api: ApiRequestState }).api = state;
    const routeOf = (channel: Channel) => state.route ?? (channel === 'graphql' || channel === 'mcp' ? req.path : expressRoute(req));
    const done = (completed: boolean) => {
      const metrics = activeMetrics();
      // The route is worked out only for what names it: the metrics and a sampled request's span.
      if ((metrics && completed) || serverTrace.recording) {
        const channel = channelOf(req.path);
        const route = routeOf(channel);
        if (metrics && completed) metrics.request(channel, req.method, route, res.statusCode, (performance.now() - started) / 1000);
        serverTrace.end(route, res.statusCode, completed);
      }
      const line = {
        reqId: id,
        ...(traceId ? { trace_id: traceId } : {}),
        method: req.method,
        path: req.originalUrl.split('?')[0],
        status: res.statusCode,
        ms: Math.round(performance.now() - started),
      };
      if (!completed) logger.warn(line, 'request aborted');
      // A readiness probe's 503 is the answer it exists to give (starting, stopping, the database away): a warning.
      else if (res.statusCode >= 500 && req.path !== '/readyz') logger.error(line, 'request completed');
      else if (res.statusCode >= 500) logger.warn(line, 'request completed');
      else logger.info(line, 'request completed');
    };
    // 'close' follows 'finish' on every response (keep-alive too); one listener tells completed from aborted.
    res.once('close', () => done(res.writableFinished));
    serverTrace.run(req, res, next);
  };
}

/** The express route a request matched, as a template (`/orders/:id` → `/orders/{id}`); undefined when none did. */
function expressRoute(req: Request): string | undefined {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? `${req.baseUrl}${path}`.replace(/[:*](\w+)/g, '{$1}') : undefined;
}
