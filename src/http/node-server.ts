import http from 'node:http';
import type { Express, Request as ExpressRequest, Response as ExpressResponse } from 'express';

/**
 * A node:http server for an express app whose requests and responses are constructed with the app's prototypes already
 * in place. Express gives each request and response its prototypes afterwards (`Object.setPrototypeOf` in
 * `app.handle`); V8 answers a prototype change on a live object with a new hidden class and invalidated inline caches,
 * and the garbage it leaves survives into the old generation; objects born with the right prototypes keep the
 * throughput and leave no such garbage. Node's `createServer` takes the classes it constructs (its `IncomingMessage`
 * and `ServerResponse` options); with the app's prototypes already set, express's `setPrototypeOf` changes nothing (the
 * same prototype is a no-op in the language). Written here because express offers no option for it; it could go
 * upstream as what `app.listen` does.
 */
/**
 * How often Node looks for requests past their timeout: a quarter of the timeout (at least 250 ms, at most Node's
 * own 30 s), so a request that never finishes arriving is answered 408 within 1.25× the timeout, not up to 30 s
 * after it.
 */
export const connectionsCheckingInterval = (requestTimeoutMs: number) => Math.min(30_000, Math.max(250, Math.round(requestTimeoutMs / 4)));

export function createExpressServer(
  app: Express,
  requestTimeoutMs?: number,
  /** A handler for the requests whose target starts with this prefix, run instead of the app (app.ts's `rest`). */
  direct?: { prefix: string; handler: (req: ExpressRequest, res: ExpressResponse) => void },
): http.Server {
  class Request extends http.IncomingMessage {}
  class Response<R extends http.IncomingMessage = http.IncomingMessage> extends http.ServerResponse<R> {}
  adopt(Request.prototype, app, 'request');
  adopt(Response.prototype, app, 'response');
  const timeouts =
    requestTimeoutMs === undefined
      ? {}
      : { requestTimeout: requestTimeoutMs, connectionsCheckingInterval: connectionsCheckingInterval(requestTimeoutMs) };
  const options = { IncomingMessage: Request, ServerResponse: Response, ...timeouts };
  if (!direct) return http.createServer(options, app);
  const { prefix, handler } = direct;
  return http.createServer(options, (req, res) => {
    if (req.url!.startsWith(prefix)) handler(req as ExpressRequest, res as ExpressResponse);
    else void app(req, res);
  });
}

/** Makes `prototype` the app's request (or response) prototype: express's methods behind it and the app's own properties on it. */
function adopt(prototype: object, app: Express, which: 'request' | 'response'): void {
  const current = app[which] as object;
  Object.setPrototypeOf(prototype, Object.getPrototypeOf(current) as object);
  Object.defineProperties(prototype, Object.getOwnPropertyDescriptors(current));
  (app as unknown as Record<string, object>)[which] = prototype;
}
