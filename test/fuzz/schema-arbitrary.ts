import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc, { type Arbitrary } from 'fast-check';
import { anchoredIn, resolved } from '../../src/contract/refs.js';

type Schema = Record<string, any>;

/**
 * JSON Schema (the 2020-12 subset openapi.yaml uses) → fast-check arbitraries: `valid` values the schema accepts and
 * `invalid` ones it refuses, both checked with Ajv against the schema itself, so a generated case is what it claims
 * to be. Kept small on purpose: the keywords the contract uses, nothing more.
 */
export class SchemaArbitraries {
  private readonly ajv: Ajv2020.default;
  private readonly validators = new Map<Schema, ValidateFunction>();

  constructor(private readonly document: Schema) {
    this.ajv = new Ajv2020.default({ strict: false, allErrors: false, validateFormats: true });
    addFormats.default(this.ajv);
    this.ajv.addSchema(document, 'doc');
  }

  private deref(schema: Schema): Schema {
    return resolved(this.document, schema);
  }

  /** Whether `value` satisfies `schema` (refs resolved against the document). */
  accepts(schema: Schema, value: unknown): boolean {
    let validate = this.validators.get(schema);
    if (!validate) {
      validate = this.ajv.compile(anchoredIn(schema, 'doc'));
      this.validators.set(schema, validate);
    }
    return validate(value);
  }

  valid(schema: Schema): Arbitrary<unknown> {
    return this.build(schema, 0).filter((value) => this.accepts(schema, value));
  }

  /** Values the schema refuses: a wrong type, a bound or pattern broken, a required member missing, an unknown one added, deep or shallow. */
  invalid(schema: Schema): Arbitrary<unknown> {
    return this.breaking(schema, 0).filter((value) => !this.accepts(schema, value));
  }

  private build(raw: Schema, depth: number): Arbitrary<unknown> {
    const schema = this.deref(raw);
    if ('const' in schema) return fc.constant(schema.const);
    if (schema.enum) return fc.constantFrom(...(schema.enum as unknown[]));
    if (schema.oneOf || schema.anyOf) return fc.oneof(...((schema.oneOf ?? schema.anyOf) as Schema[]).map((s) => this.build(s, depth + 1)));
    const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : ['object'];
    return fc.oneof(...types.map((type) => this.ofType(schema, type, depth)));
  }

  private ofType(schema: Schema, type: string, depth: number): Arbitrary<unknown> {
    switch (type) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'integer': {
        const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : -1_000_000);
        return fc.integer({ min, max: schema.maximum ?? Math.max(min, 0) + 1_000_000 });
      }
      case 'number': {
        const min = schema.minimum ?? schema.exclusiveMinimum ?? -1e9;
        const max = schema.maximum ?? schema.exclusiveMaximum ?? Math.max(min, 0) + 1e9;
        const doubles = fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
        const options: Arbitrary<number>[] = [doubles.map((x) => Math.round(x * 100) / 100), doubles];
        const [low, high] = [Math.ceil(min), Math.floor(Math.min(max, Number.MAX_SAFE_INTEGER))];
        if (low <= high) options.push(fc.integer({ min: low, max: high }));
        return fc.oneof(...options);
      }
      case 'string':
        return this.string(schema);
      case 'array': {
        const items = schema.items ? this.build(schema.items, depth + 1) : fc.anything();
        const array = fc.array(items, { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 4, depth > 2 ? 2 : 4) });
        return schema.uniqueItems ? array.map((values) => [...new Map(values.map((v) => [JSON.stringify(v), v])).values()]) : array;
      }
      default:
        return this.object(schema, depth);
    }
  }

  private string(schema: Schema): Arbitrary<string> {
    const minLength = schema.minLength ?? 0;
    const maxLength = schema.maxLength ?? 64;
    const fits = (s: string) => s.length >= minLength && s.length <= maxLength;
    switch (schema.format) {
      case 'date':
        return fc
          .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2030-12-31T00:00:00Z'), noInvalidDate: true })
          .map((d) => d.toISOString().slice(0, 10));
      case 'date-time':
        return fc
          .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2030-12-31T00:00:00Z'), noInvalidDate: true })
          .map((d) => d.toISOString());
      case 'email':
        return fc.emailAddress().filter(fits);
      case 'uri':
        return fc.webUrl().filter(fits);
    }
    if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern), { size: 'small' }).filter(fits);
    return fc.string({ minLength, maxLength: Math.min(maxLength, 64), unit: 'grapheme' });
  }

  private object(schema: Schema, depth: number): Arbitrary<Record<string, unknown>> {
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    const required = (schema.required ?? []) as string[];
    const model = Object.fromEntries(Object.entries(properties).map(([name, s]) => [name, this.build(s, depth + 1)]));
    return fc.record(model, { requiredKeys: required.filter((r) => r in properties) });
  }

  private breaking(raw: Schema, depth: number): Arbitrary<unknown> {
    const schema = this.deref(raw);
    const wrongType = fc.constantFrom<unknown>(null, true, 0, -1, 1e308, '', 'x', '\u0000', [], {}, [1, 2], { a: 1 });
    const options: Arbitrary<unknown>[] = [wrongType];
    if (schema.enum || 'const' in schema) options.push(fc.constantFrom('not-a-value', 'US ', 'Us', '__proto__'));
    const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
    if (types.includes('number') || types.includes('integer')) {
      if (schema.minimum !== undefined) options.push(fc.constant(schema.minimum - 1));
      if (schema.exclusiveMinimum !== undefined) options.push(fc.constant(schema.exclusiveMinimum));
      if (schema.maximum !== undefined) options.push(fc.constant(schema.maximum + 1), fc.constant(schema.maximum * 10));
      if (types.includes('integer') && !types.includes('number')) options.push(fc.constant(1.5));
    }
    if (types.includes('string')) {
      if (schema.maxLength !== undefined) options.push(fc.constant('a'.repeat(schema.maxLength + 1)));
      if (schema.minLength) options.push(fc.constant(''));
      if (schema.pattern || schema.format)
        options.push(fc.constantFrom('!', ' ', 'a b', '../x', '%00', 'ÄÖ', '2026-13-45', 'x'.repeat(40)));
    }
    if (types.includes('array') && schema.items) {
      options.push(fc.array(this.breaking(schema.items, depth + 1), { minLength: 1, maxLength: 2 }));
      if (schema.maxItems !== undefined)
        options.push(fc.array(this.build(schema.items, depth + 1), { minLength: schema.maxItems + 1, maxLength: schema.maxItems + 1 }));
    }
    if ((types.length === 0 || types.includes('object')) && schema.properties && depth < 4) {
      const valid = this.object(schema, depth);
      const names = Object.keys(schema.properties as object);
      options.push(valid.map((value) => ({ ...value, unknown_member: 1 })));
      for (const required of (schema.required ?? []) as string[]) {
        options.push(valid.map((value) => Object.fromEntries(Object.entries(value).filter(([k]) => k !== required))));
      }
      for (const name of names) {
        options.push(fc.tuple(valid, this.breaking(schema.properties[name], depth + 1)).map(([value, bad]) => ({ ...value, [name]: bad })));
      }
    }
    return fc.oneof(...options);
  }
}
