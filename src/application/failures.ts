import type { Logger } from 'pino';
import { AuthorizationError } from '../auth/authorization-error.js';
import type { Channel } from '../auth/authorize.js';
import { escapePointer } from '../contract/ajv.js';
import type { ContractOperation } from '../contract/operations.js';
import { ProblemError } from '../problems.js';
import { clip, InvalidInputError, LISTED_FIELDS, type FieldProblem } from '../services/errors.js';
import { problemDocument, type ProblemDocument } from './problems.js';

/** What a failure means to a client, whatever channel it came through, and how loudly to log it. */
export interface Classified {
  problem: ProblemError;
  /** When authorization refused the call: REST names it in its `WWW-Authenticate` challenge. */
  authorization?: AuthorizationError;
  log: 'none' | 'warn' | 'error';
}

// Connection failures, our query timeout, and PostgreSQL's: admin shutdown, crash, cannot connect now, too many
// connections, statement timeout (57014).
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EPIPE',
  'QUERY_TIMEOUT',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '57014',
]);

function isDatabaseUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) return true;
  const message = (error as Error)?.message ?? '';
  return /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
    message,
  );
}

/**
 * The one classifier of failures, for every channel: domain problems keep their meaning; a refused authorization is
 * `unauthorized` or `insufficient-scope`; PostgreSQL and connection errors are mapped by code; anything else is an
 * internal error whose message never leaves the process.
 */
export function classifyError(error: unknown): Classified {
  if (error instanceof ProblemError) return { problem: error, log: 'none' };
  if (error instanceof AuthorizationError) {
    const problem =
      error.kind === 'insufficient_scope'
        ? new ProblemError('insufficient-scope', error.description, { required_scope: error.requiredScope })
        : new ProblemError('unauthorized', error.description);
    return { problem, authorization: error, log: 'none' };
  }
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'string' && code.startsWith('22')) {
    // SQLSTATE class 22 (data exception): a value from the request that PostgreSQL cannot hold, e.g. a NUL byte.
    return {
      problem: new ProblemError(
        'malformed-request',
        'A value in the request cannot be stored or compared (for example a NUL character or a number out of range).',
      ),
      log: 'warn',
    };
  }
  if (code === '40001' || code === '40P01') {
    return {
      problem: new ProblemError('service-unavailable', 'The request collided with a concurrent change; retry it.', {}, 1000),
      log: 'warn',
    };
  }
  if (isDatabaseUnavailable(error)) {
    return { problem: new ProblemError('service-unavailable', 'The database is unavailable; retry shortly.', {}, 5000), log: 'error' };
  }
  return { problem: new ProblemError('internal-error', 'An unexpected error occurred; it has been logged.'), log: 'error' };
}

/** Classifies a failure and logs it at its level (a client's mistake is not logged; our failures are). */
export function classifyAndLog(error: unknown, log: Logger): Classified {
  const classified = classifyError(error);
  if (classified.log !== 'none')
    log[classified.log](
      { err: error, problem: classified.problem.slug },
      classified.problem.slug === 'internal-error' ? 'unhandled error' : 'request failed',
    );
  return classified;
}

/** Where an invalid field is: the location the validator found, else a parameter of that name, else the body. */
function locationOf(problem: FieldProblem, operation: ContractOperation | undefined): 'path' | 'query' | 'header' | 'body' {
  if (problem.in) return problem.in;
  const parameter = operation?.parameters.find((p) => p.name === problem.field);
  return parameter ? (parameter.in as 'path' | 'query') : 'body';
}

/**
 * An invalid field as a JSON pointer into what the channel's caller sent. REST and the dashboard point into the
 * request as the contract splits it: a parameter at `/query/limit`, `/path/id`, a body member at
 * `/limits/max_order_notional` (the dashboard then names the form's field for it). GraphQL into the field's
 * arguments: `/limit`, `/input/limits/max_order_notional`. MCP into the tool's arguments: `/limit`,
 * `/limits/max_order_notional`. A header is `/header/idempotency-key` everywhere (it is HTTP's on every channel).
 */
export function pointerOf(problem: FieldProblem, operation: ContractOperation | undefined, channel: Channel): string {
  const location = locationOf(problem, operation);
  if (location === 'body') {
    const inside = problem.field === '' ? '' : `/${problem.field}`;
    return channel === 'graphql' ? `/input${inside}` : inside;
  }
  const name = `/${escapePointer(problem.field)}`;
  return channel === 'rest' || channel === 'dashboard' || location === 'header' ? `/${location}${name}` : name;
}

/** A problem as the document every channel carries, its invalid fields (if any) pointing into that channel's input. */
export function documentOf(problem: ProblemError, baseUrl: string, channel: Channel, operation?: ContractOperation): ProblemDocument {
  const omitted = problem instanceof InvalidInputError ? problem.fields.length - LISTED_FIELDS : 0;
  const extensions =
    problem instanceof InvalidInputError
      ? {
          ...problem.extensions,
          errors: problem.fields
            .slice(0, LISTED_FIELDS)
            .map((f) => ({ pointer: clip(pointerOf(f, operation, channel)), detail: clip(f.detail) })),
          ...(omitted > 0 ? { errors_omitted: omitted } : {}),
        }
      : problem.extensions;
  return problemDocument(problem.slug, baseUrl, { detail: problem.detail, extensions });
}

/** When a retry may succeed, in whole seconds (HTTP's `Retry-After`, `retry_after` in GraphQL and MCP problems). */
export function retryAfterSeconds(problem: ProblemError): number | undefined {
  return problem.retryAfterMs === undefined ? undefined : Math.max(1, Math.ceil(problem.retryAfterMs / 1000));
}
