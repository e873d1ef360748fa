import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Db } from '../db/connect.js';
import { createApp } from './app.js';
import type { Config } from './config.js';
import { loadDocument } from './document.js';
import { lifecycle } from './lifecycle.js';
import { createServices, type ServiceOverrides, type Services } from './services/index.js';

export interface RunningServer {
  server: Server;
  services: Services;
  port: number;
  /**
   * Stops accepting and drains: readiness turns 503 at once, every response from now on (and those of requests
   * already in flight) carries `Connection: close`, idle keep-alive connections are closed, and it resolves as soon
   * as the in-flight requests have finished — `forced` when the shutdown timeout had to cut connections instead.
   */
  drain(): Promise<{ forced: boolean }>;
}

export interface StartOptions {
  beforeListen?: (services: Services) => Promise<unknown>;
  overrides?: ServiceOverrides;
}

export async function startServer(config: Config, db: Db, logger: Logger, options: StartOptions = {}): Promise<RunningServer> {
  const document = loadDocument();
  const services = await createServices(config, db, options.overrides, document);
  const { beforeListen } = options;
  await beforeListen?.(services);
  const app = await createApp(config, services, document, logger);
  const server = app.listen(config.port, config.host);
  server.requestTimeout = config.requestTimeoutMs;
  const inFlight = new Set<ServerResponse>();
  let draining = false;
  // Ahead of express: every response knows whether the server is draining, whatever handles it.
  server.prependListener('request', (_req, res: ServerResponse) => {
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
    if (draining) res.setHeader('Connection', 'close');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  lifecycle.ready = true;
  const drain = () =>
    new Promise<{ forced: boolean }>((resolve) => {
      lifecycle.ready = false;
      draining = true;
      for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
      let forced = false;
      const force = setTimeout(() => {
        forced = true;
        server.closeAllConnections();
      }, config.shutdownTimeoutMs);
      force.unref();
      server.close(() => {
        clearTimeout(force);
        resolve({ forced });
      });
      server.closeIdleConnections();
    });
  return { server, services, port: (server.address() as AddressInfo).port, drain };
}
