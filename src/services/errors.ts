import { ProblemError, type ProblemSlug } from '../problems.js';

export { ProblemError };

/**
 * One invalid input, named by its field in the operation's input (`cursor`, `date`, `limits/max_order_notional`).
 * `in` says where a parameter is when the contract's validator found it; a field a use case names without it is a
 * parameter of that name if the operation has one, else a member of the body.
 */
export interface FieldProblem {
  field: string;
  detail: string;
  in?: 'path' | 'query' | 'header';
}

/**
 * How many invalid fields a problem lists at most (`errors`); `errors_omitted` counts the rest. A request with thousands
 * of unknown members gets a short answer, not one as long as itself.
 */
export const LISTED_FIELDS = 50;

/** The `detail` of every validation problem, whatever the interface: the one field when there is one, else the count. */
export function invalidInputDetail(fields: FieldProblem[]): string {
  if (fields.length === 1) {
    const [{ field, detail }] = fields as [FieldProblem];
    return `The request has 1 invalid field: ${clip(field ? `${field} ${detail}` : detail)}.`;
  }
  if (fields.length > LISTED_FIELDS)
    return `The request has ${fields.length} invalid fields; the first ${LISTED_FIELDS} are listed in errors.`;
  return `The request has ${fields.length} invalid fields; each is listed in errors.`;
}

/** How long a field's name or detail may be in a problem; a longer one is cut, ending in `…`. */
export const FIELD_TEXT_CHARS = 256;
export const clip = (text: string) => (text.length > FIELD_TEXT_CHARS ? `${text.slice(0, FIELD_TEXT_CHARS - 1)}…` : text);

/**
 * Input the contract's schema admits but the use case cannot: each adapter points at the fields its own way. Its kind
 * is `validation-error` unless the refusal has a type of its own that names fields too (`webhook-url-refused`).
 */
export class InvalidInputError extends ProblemError {
  constructor(
    readonly fields: FieldProblem[],
    slug: Extract<ProblemSlug, 'validation-error' | 'webhook-url-refused'> = 'validation-error',
  ) {
    super(slug, invalidInputDetail(fields));
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
