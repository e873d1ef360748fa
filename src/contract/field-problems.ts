import type { ErrorObject } from 'ajv/dist/2020.js';
import type { FieldProblem } from '../services/errors.js';
import { escapePointer, schemaErrorDetail } from './ajv.js';

const LOCATIONS = new Set(['path', 'query', 'header', 'cookie']);
const BODY_MISSING = 'a request body is required';

/**
 * Ajv's errors for the two objects the contract validates — `{requestBody}` and `{path, query, header, cookie}` — as
 * the fields a client reads: a body member by its path inside the body (segments escaped as in a JSON pointer), a
 * parameter by its name and location. A missing body is reported as its required members (`reason is required`), so
 * the client learns what to send, not only that something is missing. oneOf/anyOf/if report their branches' errors
 * too; the branch errors are the useful ones.
 */
export function fieldProblemsOf(errors: ErrorObject[], bodyRequired: readonly string[]): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const error of errors) {
    if (error.keyword === 'oneOf' || error.keyword === 'anyOf' || error.keyword === 'if') continue;
    const params = error.params as Record<string, unknown>;
    let pointer = error.instancePath;
    if (error.keyword === 'required' && typeof params.missingProperty === 'string') {
      if (pointer === '' && params.missingProperty === 'requestBody') {
        if (bodyRequired.length === 0) problems.push({ field: '', detail: BODY_MISSING });
        for (const member of bodyRequired) problems.push({ field: escapePointer(member), detail: 'is required' });
        continue;
      }
      pointer += `/${escapePointer(params.missingProperty)}`;
    }
    if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string')
      pointer += `/${escapePointer(params.additionalProperty)}`;
    const [, first = '', ...rest] = pointer.split('/');
    if (first === 'requestBody') {
      problems.push({ field: rest.join('/'), detail: schemaErrorDetail(error) });
    } else if (LOCATIONS.has(first)) {
      // Parameter names are names, not pointers: unescaped (the channel's pointer escapes them once).
      const [name = '', ...inside] = rest;
      const unescaped = name.replace(/~1/g, '/').replace(/~0/g, '~');
      problems.push({
        field: [unescaped, ...inside].join('/'),
        in: first as 'path' | 'query' | 'header',
        detail: schemaErrorDetail(error),
      });
    } else {
      problems.push({ field: '', detail: schemaErrorDetail(error) });
    }
  }
  return problems;
}
