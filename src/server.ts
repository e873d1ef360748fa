import type { Server } from 'node:http';
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
  /** Stops accepting, drains in-flight requests (forcing them closed after the shutdown timeout). */
  drain(): Promise<void>;
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
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  lifecycle.ready = true;
  const drain = () =>
    new Promise<void>((resolve) => {
      lifecycle.ready = false;
      const force = setTimeout(() => server.closeAllConnections(), config.shutdownTimeoutMs);
      force.unref();
      server.close(() => {
        clearTimeout(force);
        resolve();
      });
      server.closeIdleConnections();
    });
  return { server, services, port: (server.address() as AddressInfo).port, drain };
}
