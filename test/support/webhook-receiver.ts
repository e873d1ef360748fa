import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A webhook receiver for tests: an HTTP server on 127.0.0.1 that records every request and answers with what
 * `answer` says (204 by default). `listen(port)` can bring it back on the port it had, for a receiver that was down.
 */
export class Receiver {
  readonly received: Received[] = [];
  answer: (request: Received, index: number) => { status: number; body?: string } = () => ({ status: 204 });
  private server: Server | undefined;
  port = 0;

  async listen(port = 0): Promise<this> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const request = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
        const index = this.received.push(request) - 1;
        const { status, body } = this.answer(request, index);
        res.writeHead(status, { 'content-type': 'text/plain' }).end(body ?? '');
      });
    });
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  /** The requests carrying this webhook-id. */
  of(id: string): Received[] {
    return this.received.filter((r) => r.headers['webhook-id'] === id);
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
}

/** Polls `check` until it returns a value other than undefined/false, or fails after `timeoutMs` naming `what`. */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Tests deliver to receivers on 127.0.0.1, quickly retried. */
export const WEBHOOK_ENV = {
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s,1s,1s,1s,1s,1s',
  WEBHOOK_POLL_MS: '20',
};
