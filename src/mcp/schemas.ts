import { pointedTo } from '../contract/refs.js';

/** A JSON Schema as a tool listing carries it: plain JSON, every reference inlined. */
export type JsonSchema = { [keyword: string]: unknown };

/** OpenAPI vocabulary that is not JSON Schema: `discriminator` names `#/components/...` paths a tool schema does not have. */
const OPENAPI_ONLY = new Set(['discriminator', 'example', 'xml', 'externalDocs']);
/** Keywords whose values are data, never schemas: kept as they are. */
const DATA = new Set(['examples', 'const', 'enum', 'default']);
/** Keywords whose members are named schemas (a property called `example` is a member, not a keyword). */
const NAMED = new Set(['properties', '$defs', 'patternProperties']);

/**
 * A schema of the OpenAPI document as a JSON Schema that stands on its own, as MCP clients need it: every
 * `#/components/...` reference inlined (several tool-calling clients ignore `$ref`), OpenAPI-only keywords
 * dropped. Written here rather than taken from json-schema-ref-parser because that library dereferences whole
 * documents (its current release also requires Node 22), while a tool needs one schema extracted from it.
 * The document's schemas form no cycle (a cycle cannot be inlined, so one throws rather than loops).
 */
export function selfContained(schema: unknown, document: object, trail: readonly string[] = []): JsonSchema {
  return inline(schema, document, trail) as JsonSchema;
}

function inline(schema: unknown, document: object, trail: readonly string[]): unknown {
  if (Array.isArray(schema)) return schema.map((item) => inline(item, document, trail));
  if (schema === null || typeof schema !== 'object') return schema;
  let result: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$ref' && typeof value === 'string') {
      if (trail.includes(value)) throw new Error(`${[...trail, value].join(' → ')} is recursive and cannot be inlined`);
      result = { ...selfContained(pointedTo(document, value), document, [...trail, value]), ...result };
    } else if (NAMED.has(key)) {
      const members = Object.entries(value as JsonSchema).map(([name, member]) => [name, inline(member, document, trail)]);
      result[key] = Object.fromEntries(members);
    } else if (!OPENAPI_ONLY.has(key) && !key.startsWith('x-')) {
      result[key] = DATA.has(key) ? value : inline(value, document, trail);
    }
  }
  return result;
}
