import { ProblemError } from '../problems.js';

export { ProblemError };

/** One invalid input, named by its field in the operation's input (`cursor`, `date`, `limits/max_order_notional`). */
export interface FieldProblem {
  field: string;
  detail: string;
}

/** The `detail` of every validation problem, whatever the interface: the one field when there is one, else the count. */
export function invalidInputDetail(fields: FieldProblem[]): string {
  if (fields.length === 1) {
    const [{ field, detail }] = fields as [FieldProblem];
    return `The request has 1 invalid field: ${field ? `${field} ${detail}` : detail}.`;
  }
  return `The request has ${fields.length} invalid fields; each is listed in errors.`;
}

/** Input the contract's schema admits but the use case cannot: each adapter points at the fields its own way. */
export class InvalidInputError extends ProblemError {
  constructor(readonly fields: FieldProblem[]) {
    super('validation-error', invalidInputDetail(fields));
    this.name = 'InvalidInputError';
  }
}

export function invalidField(field: string, detail: string): InvalidInputError {
  return new InvalidInputError([{ field, detail }]);
}

export class NotFoundError extends ProblemError {
  constructor(detail: string) {
    super('not-found', detail);
    this.name = 'NotFoundError';
  }
}

/** A market the use case cannot serve: for goals, one without capital-market assumptions; for trading, one the broker does not trade. */
export class UnsupportedMarketError extends ProblemError {
  constructor(
    readonly markets: string[],
    readonly supported: readonly string[],
    what = 'is not supported',
  ) {
    super(
      'unsupported-market',
      `${markets.length === 1 ? 'Market' : 'Markets'} ${markets.join(', ')} ${what}; supported: ${supported.join(', ')}.`,
      { supported_markets: [...supported] },
    );
    this.name = 'UnsupportedMarketError';
  }
}

// Connection failures, our query timeout, and PostgreSQL's: admin shutdown, crash, cannot connect now, too many
// connections, statement timeout (57014).
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EPIPE', 'QUERY_TIMEOUT', '57P01', '57P02', '57P03', '53300', '57014']);

function isDatabaseUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) return true;
  const message = (error as Error)?.message ?? '';
  return /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(message);
}

/** What a failure means to a client, whatever adapter it came through, and how loudly to log it. */
export interface Classified {
  problem: ProblemError;
  log: 'none' | 'warn' | 'error';
}

/**
 * The one classifier of failures: domain problems keep their meaning; PostgreSQL and connection errors are mapped
 * by code; anything else is an internal error whose message never leaves the process.
 */
export function classifyError(error: unknown): Classified {
  if (error instanceof ProblemError) return { problem: error, log: 'none' };
  const code = (error as { code?: unknown })?.code;
  if (typeof code === 'string' && code.startsWith('22')) {
    // SQLSTATE class 22 (data exception): a value from the request that PostgreSQL cannot hold, e.g. a NUL byte.
    return {
      problem: new ProblemError('malformed-request', 'A value in the request cannot be stored or compared (for example a NUL character or a number out of range).'),
      log: 'warn',
    };
  }
  if (code === '40001' || code === '40P01') {
    return { problem: new ProblemError('service-unavailable', 'The request collided with a concurrent change; retry it.', {}, { 'Retry-After': '1' }), log: 'warn' };
  }
  if (isDatabaseUnavailable(error)) {
    return { problem: new ProblemError('service-unavailable', 'The database is unavailable; retry shortly.', {}, { 'Retry-After': '5' }), log: 'error' };
  }
  return { problem: new ProblemError('internal-error', 'An unexpected error occurred; it has been logged.'), log: 'error' };
}
