// Reading a request body within its limit, and never reading beyond it. body-parser, on a body over its limit, waits
// for the rest of it (drained to the end, or until the request times out) before it answers 413: a request declaring
// 1 GiB and sending nothing was answered 408 after half a minute, and 512 MiB sent in full were read to be refused.
// Here a declared Content-Length over the limit is refused before a byte is read, a body that grows past the limit
// while it streams is refused at the limit, and in both cases the connection is closed once the answer is sent: what
// remains is never read (raw-body stops reading, by the project's own dependency of body-parser).
import type { IncomingMessage, ServerResponse } from 'node:http';
import getRawBody from 'raw-body';
import { ProblemError } from '../problems.js';
import { bodyReadProblem } from './body.js';

/** How long the socket may linger after the refusal is sent (the client reads it), before it is closed for good. */
const LINGER_MS = 1_000;

/** Whether the request has a body at all (as body-parser's type-is decides: a length, or a transfer encoding). */
function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || !Number.isNaN(Number.parseInt(req.headers['content-length'] ?? '', 10));
}

/**
 * The answer to this request closes its connection: nothing more is read from it (the request is paused, so the
 * client's unsent bytes wait in its own buffers), and the socket ends once the answer is written, then is destroyed a
 * moment later if the client keeps it open.
 */
export function closeAfterAnswer(req: IncomingMessage, res: ServerResponse): void {
  if (!res.headersSent) res.setHeader('Connection', 'close');
  req.pause();
  res.once('finish', () => {
    const socket = req.socket;
    socket.end();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  });
}

/**
 * The body of a request, at most `limit` bytes, or undefined when it has none; refused (a ProblemError: 413, 415 for a
 * Content-Encoding, 400 when broken off) with the connection closed after the answer.
 */
export async function readBodyLimited(
  req: IncomingMessage & { body?: unknown },
  res: ServerResponse,
  limit: number,
): Promise<Buffer | undefined> {
  if (Buffer.isBuffer(req.body)) return req.body;
  if (!hasBody(req)) return undefined;
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  try {
    if (encoding !== 'identity') throw Object.assign(new Error('encoded body'), { type: 'encoding.unsupported' });
    const length = req.headers['content-length'];
    const body = await getRawBody(req, { limit, ...(length !== undefined ? { length } : {}) });
    req.body = body;
    return body;
  } catch (error) {
    closeAfterAnswer(req, res);
    throw error instanceof ProblemError ? error : bodyReadProblem(error, limit);
  }
}

/**
 * Closes the connection of a request answered before its body was read to the end (a refusal that needed none of it:
 * 401, 403, 404, 413, …) when that body is larger than `limit` or of unknown length: Node would otherwise keep reading,
 * to discard it, whatever the client still sends. A body within the limit is left to Node (the connection is kept).
 */
export function closeUnreadBodies(limit: number) {
  return (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    const length = Number(req.headers['content-length']);
    if (hasBody(req) && !(Number.isFinite(length) && length <= limit)) {
      res.once('finish', () => {
        if (req.complete) return;
        req.pause();
        const socket = req.socket;
        socket.end();
        setTimeout(() => socket.destroy(), LINGER_MS).unref();
      });
    }
    next();
  };
}
