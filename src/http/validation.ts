import type { ErrorObject } from 'ajv';
import { schemaErrorDetail } from '../contract/ajv.js';
import { invalidInputDetail } from '../services/errors.js';

export interface FieldError {
  pointer: string;
  detail: string;
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * openapi-backend validates one synthetic object {path, query, headers, requestBody}. Body errors point into the
 * body itself (`/capital`); parameter errors keep their location (`/query/limit`, `/path/id`, `/headers/x-...`).
 */
function pointerOf(error: ErrorObject): string {
  let pointer = error.instancePath;
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required' && typeof params.missingProperty === 'string') pointer += `/${escapePointer(params.missingProperty)}`;
  if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    pointer += `/${escapePointer(params.additionalProperty)}`;
  }
  if (pointer.startsWith('/requestBody')) return pointer.slice('/requestBody'.length) || '';
  return pointer;
}

function detailOf(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required' && error.instancePath === '' && params.missingProperty === 'requestBody') return BODY_MISSING;
  return schemaErrorDetail(error);
}

const BODY_MISSING = 'a request body is required';

/**
 * The failing fields of a request, one per pointer and message. A missing body is reported as its required members
 * (`/reason` is required), so the client learns what to send, not only that something is missing.
 */
export function fieldErrors(errors: ErrorObject[], bodySchema?: { required?: string[] }): FieldError[] {
  const seen = new Set<string>();
  const out: FieldError[] = [];
  const expanded = errors.flatMap((error) => {
    const missingBody = error.keyword === 'required' && error.instancePath === '' && (error.params as { missingProperty?: string }).missingProperty === 'requestBody';
    if (!missingBody || !bodySchema?.required?.length) return [error];
    return bodySchema.required.map((name) => ({ ...error, instancePath: '/requestBody', params: { missingProperty: name } }));
  });
  for (const error of expanded) {
    // oneOf/anyOf report their branches' errors too; the branch errors are the useful ones.
    if (error.keyword === 'oneOf' || error.keyword === 'anyOf' || error.keyword === 'if') continue;
    const item = { pointer: pointerOf(error), detail: detailOf(error) };
    const key = `${item.pointer}\u0000${item.detail}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(item);
    }
  }
  return out;
}

/** Field errors as sentences, for the token endpoint's RFC 6749 `error_description`. */
export function describeFieldErrors(errors: FieldError[]): string {
  return errors
    .map(({ pointer, detail }) => {
      return pointer ? `${pointer.replace(/^\//, '')} ${detail}.` : `The ${detail.replace(/^a /, '')}.`;
    })
    .join(' ');
}

/** The `detail` of a validation problem, as every interface words it (fields named without their REST location). */
export function validationDetail(errors: FieldError[]): string {
  return invalidInputDetail(errors.map(({ pointer, detail }) => ({ field: pointer.replace(/^\/(query|path|header|headers)\//, '').replace(/^\//, ''), detail })));
}
