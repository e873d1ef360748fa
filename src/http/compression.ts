import { createHash } from 'node:crypto';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Request, Response } from 'express';
import Negotiator from 'negotiator';

type Encoding = 'br' | 'gzip' | 'identity';

/** Below this size compression costs more than it saves (the compression middleware's default threshold). */
const COMPRESS_FROM_BYTES = 1024;

/** The encoding a client prefers by q-value; on a tie brotli, then gzip (as the compression middleware chooses). */
export function preferredEncoding(req: Request): Encoding {
  return (new Negotiator(req).encoding(['br', 'gzip', 'identity'], { preferred: ['br', 'gzip'] }) ?? 'identity') as Encoding;
}

/**
 * Bytes in an encoding: `fast` for answers made per request (brotli 4: most of the saving for a fraction of the
 * time), `best` for bodies compressed once per process (gzip 9 and brotli 9; 10 and 11 take ten times longer for 2 %
 * less).
 */
function compress(bytes: string | Buffer, encoding: Exclude<Encoding, 'identity'>, effort: 'fast' | 'best'): Buffer {
  if (encoding === 'gzip') return gzipSync(bytes, effort === 'best' ? { level: 9 } : {});
  if (effort === 'fast') return brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } });
  return brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } });
}

/**
 * The one compression path of the service (API answers, GraphQL results, the documentation pages): a whole body, in
 * brotli or gzip by Accept-Encoding (with `Vary`) when it is large enough to gain. Written here rather than with the
 * compression middleware, which wraps every response's stream, also of the many answers too small to compress. MCP's
 * answers are the SDK transport's and are left alone.
 */
export function sendBody(req: Request, res: Response, body: string): void {
  if (body.length < COMPRESS_FROM_BYTES) {
    res.end(body);
    return;
  }
  res.vary('Accept-Encoding');
  const encoding = preferredEncoding(req);
  if (encoding === 'identity') {
    res.end(body);
    return;
  }
  res.setHeader('Content-Encoding', encoding);
  res.end(compress(body, encoding, 'fast'));
}

/**
 * A body that never changes while the process runs (the published contract, the docs' assets), compressed once per
 * encoding (`best`) and served in the encoding the client prefers, with its entity tag.
 */
export class EncodedBody {
  readonly etag: string;
  private gzip: Buffer | undefined;
  private br: Buffer | undefined;

  constructor(readonly identity: Buffer) {
    this.etag = `"${createHash('sha256').update(identity).digest('base64url').slice(0, 27)}"`;
  }

  /** The bytes for an encoding (each compressed on first use, then kept). */
  bytes(encoding: Encoding): Buffer {
    if (encoding === 'br') return (this.br ??= compress(this.identity, 'br', 'best'));
    if (encoding === 'gzip') return (this.gzip ??= compress(this.identity, 'gzip', 'best'));
    return this.identity;
  }

  /** Does If-None-Match name this body (or `*`)? */
  matches(req: Request): boolean {
    const given = req.headers['if-none-match'];
    return (
      typeof given === 'string' &&
      given.split(',').some((tag) => tag.trim() === this.etag || tag.trim() === '*' || tag.trim() === `W/${this.etag}`)
    );
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
