import type { Logger } from 'pino';

/** What a handler may read of its request: its id, the caller's address and user agent, and the headers. */
export interface RequestInfo {
  id: string;
  /** The id of the request's trace when tracing is on (docs/tracing.md): in its log lines and problem documents. */
  traceId?: string | undefined;
  ip: string;
  userAgent: string | null;
  headers: Record<string, string | string[] | undefined>;
}

/** What the channels read of a request: its id, origin and headers, and a logger that names it. */
export interface ApiRequestState {
  requestInfo: RequestInfo;
  log: Logger;
  /** The route template the request matched, once a channel knows it (`/v1/orders/{id}`): the metrics' `http_route`. */
  route: string | undefined;
}
