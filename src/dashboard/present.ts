import { pointerOf, retryAfterSeconds } from '../application/failures.js';
import type { Answer } from '../application/idempotency.js';
import type { Result } from '../application/pipeline.js';
import { statusOf } from '../application/problems.js';
import type { ContractOperation } from '../contract/operations.js';
import type { ProblemError, ProblemSlug } from '../problems.js';
import { clip, InvalidInputError, invalidInputDetail, LISTED_FIELDS } from '../services/errors.js';

/** What went wrong with the last form, as a page shows it: a problem's detail, and the fields it names by their labels. */
export interface PageError {
  detail: string;
  fields?: { field: string; detail: string }[];
}
type Refused = { ok: false; slug: ProblemSlug; status: number; error: PageError; headers: Record<string, string> };

/** A call's outcome as a page shows it: the value, or the problem as the form's error with its status and headers. */
export type Shown<V> = { ok: true; value: V } | Refused;

/**
 * The labels of a form's fields by the contract's pointer to them: `/limits/max_order_notional`, `/consent/signer_name`,
 * `/header/x-ias-challenge`. A segment `*` stands for any index of an array, and `{n}` in the label for that index
 * counted from 1 (the policy form's allocation rows). A pointer without a label is shown as its path inside the input
 * (`limits › allowed_markets`).
 */
export type FieldLabels = Record<string, string>;

const PARAMETER = /^\/(?:path|query|header)(?=\/)/;
const unescape = (segment: string) => segment.replace(/~1/g, '/').replace(/~0/g, '~');

/** The label a person reads for the field a pointer names. */
export function labelOf(pointer: string, labels: FieldLabels): string {
  for (const [pattern, label] of Object.entries(labels)) {
    const index = pattern.split('/').indexOf('*');
    const source = pattern.replace(/[.+?^$()[\]{}|\\]/g, '\\$&').replace('*', '(\\d+)');
    const match = new RegExp(`^${source}$`).exec(pointer);
    if (match) return index < 0 ? label : label.replace('{n}', String(Number(match[1]) + 1));
  }
  return pointer.replace(PARAMETER, '').split('/').slice(1).map(unescape).join(' › ');
}

/** A page's own headers for a problem: when the visitor may try again (a locked login, a busy service). */
export function pageHeaders(problem: ProblemError): Record<string, string> {
  const retryAfter = retryAfterSeconds(problem);
  return retryAfter === undefined ? {} : { 'Retry-After': String(retryAfter) };
}

/**
 * The dashboard's presenter, its channel's shape for what the pipeline answers: the value for the page, or the problem
 * as the form's error — the problem's detail and status, and each invalid field by the form's label for the pointer
 * the contract's validator or the use case named (`labels`).
 */
export function presentHtml<V>(labels: FieldLabels = {}) {
  return (result: Result<V>, operation?: ContractOperation): Answer => {
    if (result.ok) return { status: 200, body: { ok: true, value: result.value } satisfies Shown<V> };
    const { problem } = result;
    const fields =
      problem instanceof InvalidInputError
        ? problem.fields.map((f) => ({ field: clip(labelOf(pointerOf(f, operation, 'dashboard'), labels)), detail: clip(f.detail) }))
        : undefined;
    const status = statusOf(problem.slug);
    // The page lists as many fields as a problem document does (LISTED_FIELDS); the detail counts them all.
    const error = {
      detail: fields ? invalidInputDetail(fields) : (problem.detail ?? problem.message),
      fields: fields?.slice(0, LISTED_FIELDS),
    };
    return { status, body: { ok: false, slug: problem.slug, status, error, headers: pageHeaders(problem) } satisfies Shown<V> };
  };
}

/**
 * A failure that is not a form's to show: the service failed (5xx: never the visitor's to correct), or a page could
 * not read what it shows. The dashboard's error page renders it (its status, detail and headers).
 */
export class PageFailure extends Error {
  constructor(readonly refused: Refused) {
    super(refused.error.detail);
    this.name = 'PageFailure';
  }
}

/** What the pipeline answered, as a page shows it; a failure of the service is the error page's, never a form's. */
export function shownOf<V>(answer: Answer): Shown<V> {
  const shown = answer.body as Shown<V>;
  if (!shown.ok && shown.status >= 500) throw new PageFailure(shown);
  return shown;
}

/** The value a page cannot do without: any problem is the error page's. */
export function must<V>(shown: Shown<V>): V {
  if (shown.ok) return shown.value;
  throw new PageFailure(shown);
}
