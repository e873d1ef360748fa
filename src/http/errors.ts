import type { Logger } from 'pino';
import type { AuthorizationError } from '../auth/authorization-error.js';
import { classifyAndLog, documentOf, retryAfterSeconds } from '../application/failures.js';
import { QuotaExceededError } from '../compute/cpu-budget.js';
import type { ContractOperation } from '../contract/operations.js';
import { OAuthError, ProblemError, type ProblemSlug } from '../problems.js';
import { bearerChallenge } from './auth.js';
import { quotaHeaders } from './rate-limit-replies.js';
import { oauthErrorReply, ReplyError, type Reply } from './reply.js';

const CHALLENGE_PROBLEMS = new Set<ProblemSlug>([
  'challenge-missing',
  'challenge-malformed',
  'challenge-failed',
  'challenge-expired',
  'challenge-replayed',
]);
/** The challenge purpose of each operation that needs a solved challenge (GET /v1/challenge's `purpose`). */
const CHALLENGE_PURPOSES: Record<string, string> = { signUp: 'signup', logIn: 'login', sendContactMessage: 'contact' };

/** Where REST clients get a proof-of-work challenge and how they send its solution (the use case says neither). */
function challengeHowTo(operation: ContractOperation | undefined): string {
  const purpose = operation && CHALLENGE_PURPOSES[operation.operationId];
  return `GET /v1/challenge${purpose ? `?purpose=${purpose}` : ''} issues one; send the solution as \`X-IAS-Challenge: <challenge>:<nonce>\`.`;
}

/**
 * A problem as REST answers it: the status its type declares, the problem document (invalid fields pointing into the
 * request), and the facts that are headers here — `Retry-After`, the bearer challenge (`WWW-Authenticate`), a spent
 * budget's `RateLimit` and `RateLimit-Policy` (never cached).
 */
export function problemToReply(
  problem: ProblemError,
  baseUrl: string,
  operation?: ContractOperation,
  authorization?: AuthorizationError,
): Reply {
  const body = documentOf(problem, baseUrl, 'rest', operation);
  if (CHALLENGE_PROBLEMS.has(problem.slug)) body.detail = `${body.detail ?? body.title} ${challengeHowTo(operation)}`;
  const headers: Record<string, string> = {};
  const retryAfter = retryAfterSeconds(problem);
  if (retryAfter !== undefined) headers['Retry-After'] = String(retryAfter);
  if (authorization) headers['WWW-Authenticate'] = bearerChallenge(authorization, baseUrl);
  if (problem.slug === 'quota-exceeded') headers['Cache-Control'] = 'no-store';
  // A spent budget names its policy's state in RateLimit and RateLimit-Policy, after the route limit's.
  if (problem instanceof QuotaExceededError) Object.assign(headers, quotaHeaders([problem.quota]));
  return { status: body.status, body, headers, contentType: 'application/problem+json' };
}

/**
 * The one place an error becomes a REST response. Failures are classified once for every channel (`classifyError`);
 * here they only take their HTTP shape. Nothing internal leaves the process.
 */
export function errorToReply(error: unknown, baseUrl: string, log: Logger, operation?: ContractOperation): Reply {
  if (error instanceof ReplyError) return error.reply;
  if (error instanceof OAuthError) return oauthErrorReply(error, baseUrl);
  const { problem, authorization } = classifyAndLog(error, log);
  // The token endpoint answers in RFC 6749's format whatever went wrong with the request itself (a NUL byte in a
  // client id, say); unavailability and internal errors stay problems.
  if (operation?.operationId === 'issueToken' && problem.slug === 'malformed-request')
    return oauthErrorReply(new OAuthError('invalid_request', problem.detail ?? 'The request is malformed.'), baseUrl);
  return problemToReply(problem, baseUrl, operation, authorization);
}
