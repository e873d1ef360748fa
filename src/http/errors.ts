import type { Operation } from 'openapi-backend';
import type { Logger } from 'pino';
import { AuthorizationError } from '../auth/authorize.js';
import { QuotaExceededError } from '../compute/cpu-budget.js';
import { OAuthError } from '../problems.js';
import { classifyError, InvalidInputError } from '../services/errors.js';
import { authorizationReply } from './auth.js';
import { quotaHeaders } from './rate-limit-replies.js';
import { oauthErrorReply, problemReply, type Reply } from './reply.js';

const escapePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** A use case's field as a pointer into the REST request: `/query/cursor`, `/path/id`, or into the body (`/date`). */
function pointerOf(field: string, operation: Operation | undefined): string {
  const parameters = (operation?.parameters ?? []) as { name: string; in: string }[];
  const parameter = parameters.find((p) => p.name === field);
  if (parameter) return `/${parameter.in}/${escapePointer(field)}`;
  return `/${field.split('/').map(escapePointer).join('/')}`;
}

/**
 * The one place an error becomes a REST response. Failures are classified once for every adapter
 * (`classifyError`); here they only take their HTTP shape. Nothing internal leaves the process.
 */
export function errorToReply(error: unknown, baseUrl: string, log: Logger, operation?: Operation): Reply {
  if (error instanceof OAuthError) return oauthErrorReply(error, baseUrl);
  if (error instanceof AuthorizationError) return authorizationReply(error, baseUrl);
  const { problem, log: level } = classifyError(error);
  // The token endpoint answers in RFC 6749's format whatever went wrong with the request itself (a NUL byte in a
  // client id, say); unavailability and internal errors stay problems.
  if (operation?.operationId === 'issueToken' && problem.slug === 'malformed-request') return oauthErrorReply(new OAuthError('invalid_request', problem.detail ?? 'The request is malformed.'), baseUrl);
  if (level !== 'none') log[level]({ err: error, problem: problem.slug }, problem.slug === 'internal-error' ? 'unhandled error' : 'request failed');
  const extensions =
    problem instanceof InvalidInputError
      ? { ...problem.extensions, errors: problem.fields.map((f) => ({ pointer: pointerOf(f.field, operation), detail: f.detail })) }
      : problem.extensions;
  // A spent budget names its policy's state in RateLimit and RateLimit-Policy, after the route limit's.
  const headers = problem instanceof QuotaExceededError ? { ...problem.headers, ...quotaHeaders([problem.quota]) } : problem.headers;
  return problemReply(problem.slug, baseUrl, { detail: problem.detail, extensions, headers });
}
