import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { ALLOW_PRIVATE_HINT, refusedAddress, RefusedDestinationError } from '../services/webhooks/destinations.js';

/** What one POST to an endpoint gave: a status (or none, with the error), its time, and at most 1 KB of the answer. */
export interface SendResult {
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  responseBody: string | null;
  /** Set when no answer came within the timeout: what makes an endpoint back off (src/services/webhooks/settle.ts). */
  timedOut?: boolean;
}

export const TIMEOUT_MS = 10_000;
export const KEPT_RESPONSE_BYTES = 1024;

type Resolve = (
  hostname: string,
  options: { all: true; family?: number },
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/**
 * Outbound webhook requests. Unless private networks are allowed, the address is checked when the connection is
 * made, not only when the URL was saved: the socket's `lookup` resolves the name, checks every address of the
 * answer (one private address among public ones refuses the whole answer: a client could pick it) and connects only
 * then. An address written in the URL is checked before connecting (Node does not look it up). Redirects are not
 * followed, an attempt is cut after 10 s, and at most 1 KB of an answer is read.
 */
export class WebhookSender {
  private readonly agents: { http: http.Agent; https: https.Agent };
  private readonly lookup: LookupFunction;

  constructor(
    private readonly allowPrivateNetworks: boolean,
    resolve: Resolve = dnsLookup,
    private readonly timeoutMs = TIMEOUT_MS,
  ) {
    this.agents = {
      http: new http.Agent({ keepAlive: true, maxSockets: 16 }),
      https: new https.Agent({ keepAlive: true, maxSockets: 16 }),
    };
    this.lookup = ((hostname: string, options: { family?: number; all?: boolean }, callback: (...args: unknown[]) => void) => {
      resolve(hostname, { family: options.family, all: true }, (error, addresses) => {
        if (error) return callback(error);
        if (!this.allowPrivateNetworks) {
          for (const { address } of addresses) {
            const refused = refusedAddress(address);
            if (refused) return callback(new RefusedDestinationError(`refused: ${hostname} resolves to ${refused}; ${ALLOW_PRIVATE_HINT}`));
          }
        }
        if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }));
        if (options.all) return callback(null, addresses);
        return callback(null, addresses[0]!.address, addresses[0]!.family);
      });
    }) as LookupFunction;
  }

  send(url: string, headers: Record<string, string>, body: string): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => performance.now() - started;
    const failed = (error: string): SendResult => ({ statusCode: null, latencyMs: elapsed(), error, responseBody: null });
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return Promise.resolve(failed('the endpoint URL is not valid'));
    }
    const secure = target.protocol === 'https:';
    if (!secure && !(this.allowPrivateNetworks && target.protocol === 'http:'))
      return Promise.resolve(failed(`refused: the URL must be https:// (${ALLOW_PRIVATE_HINT})`));
    const host = target.hostname.replace(/^\[|\]$/g, '');
    if (!this.allowPrivateNetworks && isIP(host)) {
      const refused = refusedAddress(host);
      if (refused) return Promise.resolve(failed(`refused: ${refused}; ${ALLOW_PRIVATE_HINT}`));
    }
    return new Promise<SendResult>((resolve) => {
      let settled = false;
      const finish = (result: SendResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      const request = (secure ? https : http).request(
        target,
        {
          method: 'POST',
          agent: secure ? this.agents.https : this.agents.http,
          lookup: this.lookup,
          headers: {
            ...headers,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'user-agent': 'ias-webhooks/1',
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          let kept = 0;
          const done = () => {
            const status = response.statusCode ?? null;
            const text = Buffer.concat(chunks).toString('utf8');
            const redirect =
              status !== null && status >= 300 && status < 400
                ? `redirects are not followed (Location: ${response.headers.location ?? 'none'})`
                : null;
            finish({ statusCode: status, latencyMs: elapsed(), error: redirect, responseBody: text === '' ? null : text });
          };
          response.on('data', (chunk: Buffer) => {
            if (kept < KEPT_RESPONSE_BYTES) {
              chunks.push(chunk.subarray(0, KEPT_RESPONSE_BYTES - kept));
              kept += Math.min(chunk.length, KEPT_RESPONSE_BYTES - kept);
            }
            // Past 1 KB nothing more is read: the connection goes, the answer as it stands is kept.
            if (kept >= KEPT_RESPONSE_BYTES) {
              done();
              response.destroy();
            }
          });
          response.on('end', done);
          response.on('error', done);
        },
      );
      const timer = setTimeout(() => {
        request.destroy();
        finish({ ...failed(`no answer within ${this.timeoutMs / 1000} s`), timedOut: true });
      }, this.timeoutMs);
      request.on('error', (error: NodeJS.ErrnoException) =>
        finish(failed(error instanceof RefusedDestinationError ? error.message : describe(error))),
      );
      request.end(body);
    });
  }

  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }
}

function describe(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
      return `the name does not resolve (${error.message})`;
    case 'ECONNRESET':
      return 'the connection was reset';
    default:
      return error.message || String(error.code);
  }
}
