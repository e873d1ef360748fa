import Ajv2020, { type ErrorObject, type Options } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/**
 * The one Ajv configuration every request input is checked with, on every channel (through `Contract`).
 * `strict: false` lets the OpenAPI vocabulary (`example`, `x-...`) through, but it also switches off `strictNumbers`, under which
 * `type: number` accepts Infinity and NaN — what `JSON.parse` makes of `1e400` and what graphql-js makes of a `1e400` literal,
 * stored as `null` by JSON.stringify. So it is set again.
 */
export function createContractAjv(options: Options = {}): Ajv2020.default {
  const ajv = new Ajv2020.default({ ...options, strict: false, strictNumbers: true, allErrors: true, validateFormats: true });
  addFormats.default(ajv);
  return ajv;
}

/** A name as one segment of a JSON pointer (RFC 6901): `~` and `/` escaped. The one place pointers are escaped. */
export function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

const TYPE_WORDS: Record<string, string> = {
  number: 'a finite number',
  integer: 'an integer',
  string: 'a string',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

/** A schema error as the sentence a client reads after the field's name, the same on every interface. */
export function schemaErrorDetail(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not a known field';
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(params.allowedValue)}`;
    case 'type': {
      // "must be number" would not tell the sender of 1e400 (Infinity after parsing) what is wrong with it.
      const types = ([] as unknown[]).concat(params.type).map((t) => TYPE_WORDS[String(t)] ?? String(t));
      return `must be ${types.join(' or ')}`;
    }
    default:
      return error.message ?? 'is invalid';
  }
}
