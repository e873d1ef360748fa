import type { Logger } from 'pino';
import { OAuthError, ProblemError } from '../problems.js';
import { oauthErrorReply, problemReply, type Reply } from './reply.js';

const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EPIPE', '57P01', '57P02', '57P03', '53300']);

function isDatabaseUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) return true;
  const message = (error as Error)?.message ?? '';
  return /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(message);
}

/**
 * The one place an error becomes a response. Domain problems keep their declared type; PostgreSQL errors are
 * mapped by code; anything else is logged and answered with a bare 500 — no message or stack leaves the process.
 */
export function errorToReply(error: unknown, baseUrl: string, log: Logger): Reply {
  if (error instanceof ProblemError) {
    return problemReply(error.slug, baseUrl, { detail: error.detail, extensions: error.extensions, headers: error.headers });
  }
  if (error instanceof OAuthError) return oauthErrorReply(error, baseUrl);
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'string' && code.startsWith('22')) {
    // SQLSTATE class 22 (data exception): a value from the request that PostgreSQL cannot hold, e.g. a NUL byte.
    log.warn({ code }, 'request value refused by the database');
    return problemReply('malformed-request', baseUrl, { detail: 'A value in the request cannot be stored or compared (for example a NUL character or a number out of range).' });
  }
  if (code === '40001' || code === '40P01') {
    return problemReply('service-unavailable', baseUrl, {
      detail: 'The request collided with a concurrent change; retry it.',
      headers: { 'Retry-After': '1' },
    });
  }
  if (isDatabaseUnavailable(error)) {
    log.error({ err: error }, 'database unavailable');
    return problemReply('service-unavailable', baseUrl, {
      detail: 'The database is unavailable; retry shortly.',
      headers: { 'Retry-After': '5' },
    });
  }
  log.error({ err: error }, 'unhandled error');
  return problemReply('internal-error', baseUrl, { detail: 'An unexpected error occurred; it has been logged.' });
}
