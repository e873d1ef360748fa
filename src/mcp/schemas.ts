type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** OpenAPI vocabulary that is not JSON Schema: `discriminator` names `#/components/...` paths a tool schema does not have. */
const OPENAPI_ONLY = new Set(['discriminator', 'example', 'xml', 'externalDocs']);

function target(document: Json, ref: string): Json {
  if (!ref.startsWith('#/')) throw new Error(`only local references can be inlined, not ${ref}`);
  const node = ref
    .slice(2)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<Json | undefined>((n, key) => n?.[key], document);
  if (node === undefined) throw new Error(`${ref} does not resolve`);
  return node;
}

/**
 * A schema of the OpenAPI document as a JSON Schema that stands on its own, as MCP clients need it: every
 * `#/components/...` reference inlined (several tool-calling clients ignore `$ref`), OpenAPI-only keywords
 * dropped. Written here rather than taken from json-schema-ref-parser because that library dereferences whole
 * documents (its current release also requires Node 22), while a tool needs one schema extracted from it.
 * The document's schemas form no cycle (a cycle cannot be inlined, so one throws rather than loops).
 */
export function selfContained(schema: Json, document: Json, trail: readonly string[] = []): Json {
  if (Array.isArray(schema)) return schema.map((item) => selfContained(item, document, trail));
  if (schema === null || typeof schema !== 'object') return schema;
  let result: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$ref') {
      if (trail.includes(value)) throw new Error(`${[...trail, value].join(' → ')} is recursive and cannot be inlined`);
      result = { ...selfContained(target(document, value), document, [...trail, value]), ...result };
    } else if (key === 'properties' || key === '$defs' || key === 'patternProperties') {
      // Member names are data, not keywords: a property called `example` is kept.
      result[key] = Object.fromEntries(
        Object.entries(value as Json).map(([name, member]) => [name, selfContained(member, document, trail)]),
      );
    } else if (!OPENAPI_ONLY.has(key) && !key.startsWith('x-')) {
      result[key] =
        key === 'examples' || key === 'const' || key === 'enum' || key === 'default' ? value : selfContained(value, document, trail);
    }
  }
  return result;
}
