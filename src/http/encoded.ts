import { createHash } from 'node:crypto';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Request, Response } from 'express';
import Negotiator from 'negotiator';

/** The encoding a client prefers by q-value; on a tie brotli, then gzip (as the compression middleware chooses). */
export function preferredEncoding(req: Request): 'br' | 'gzip' | 'identity' {
  return (new Negotiator(req).encoding(['br', 'gzip', 'identity'], { preferred: ['br', 'gzip'] }) ?? 'identity') as 'br' | 'gzip' | 'identity';
}

/**
 * A body that never changes while the process runs (the published contract, the docs' assets), serialised and
 * compressed once — gzip 9 and brotli 9 (10 and 11 take ten times longer for 2 % less), too slow to repeat per request — and served in the
 * encoding the client prefers, with its entity tag. Responses made per request are compressed by the `compression`
 * middleware instead; it leaves these alone because they carry their own Content-Encoding.
 */
export class EncodedBody {
  readonly etag: string;
  private gzip: Buffer | undefined;
  private br: Buffer | undefined;

  constructor(readonly identity: Buffer) {
    this.etag = `"${createHash('sha256').update(identity).digest('base64url').slice(0, 27)}"`;
  }

  /** The bytes for an encoding (each compressed on first use, then kept). */
  bytes(encoding: 'br' | 'gzip' | 'identity'): Buffer {
    if (encoding === 'br') return (this.br ??= brotliCompressSync(this.identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: this.identity.length } }));
    if (encoding === 'gzip') return (this.gzip ??= gzipSync(this.identity, { level: 9 }));
    return this.identity;
  }

  /** Does If-None-Match name this body (or `*`)? */
  matches(req: Request): boolean {
    const given = req.headers['if-none-match'];
    return typeof given === 'string' && given.split(',').some((tag) => tag.trim() === this.etag || tag.trim() === '*' || tag.trim() === `W/${this.etag}`);
  }

  /** Writes the body (or 304) with Content-Encoding, Content-Length, ETag and `Vary: Accept-Encoding`. */
  send(req: Request, res: Response, status: number, headers: Record<string, string>): void {
    res.vary('Accept-Encoding');
    res.setHeader('ETag', this.etag);
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    if (status === 200 && this.matches(req)) {
      res.status(304).end();
      return;
    }
    const encoding = preferredEncoding(req);
    const body = this.bytes(encoding);
    if (encoding !== 'identity') res.setHeader('Content-Encoding', encoding);
    res.setHeader('Content-Length', String(body.length));
    res.status(status);
    if (req.method === 'HEAD') res.end();
    else res.end(body);
  }
}
