import type { OpenAPIV3_1 } from 'openapi-types';

/**
 * The one reader of `$ref`s in the bundled contract (generated/openapi.json), for the code and the tests alike: the
 * contract's operations, MCP's self-contained tool schemas, the fuzzer and the conformance checks. The bundle holds
 * only local references (`#/components/...`), so a JSON pointer is all there is to follow.
 */
export type OpenApiDocument = OpenAPIV3_1.Document;
export type Reference = OpenAPIV3_1.ReferenceObject;
export type Schema = OpenAPIV3_1.SchemaObject;

export function isReference(node: unknown): node is Reference {
  return typeof node === 'object' && node !== null && typeof (node as { $ref?: unknown }).$ref === 'string';
}

/** The node a local reference (`#/components/schemas/Order`) points to in the document; throws when there is none. */
export function pointedTo(document: object, ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`only local references resolve in the bundled contract, not ${ref}`);
  let node: unknown = document;
  for (const segment of ref.slice(2).split('/')) {
    const key = segment.replace(/~1/g, '/').replace(/~0/g, '~');
    node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined;
    if (node === undefined) throw new Error(`${ref} does not resolve in the contract`);
  }
  return node;
}

/** A node with its reference followed, through any chain of them; a node that is not a reference as it is. */
export function resolved<T>(document: object, node: T | Reference): T {
  let current: unknown = node;
  const seen = new Set<string>();
  while (isReference(current)) {
    if (seen.has(current.$ref)) throw new Error(`${current.$ref} refers to itself`);
    seen.add(current.$ref);
    current = pointedTo(document, current.$ref);
  }
  return current as T;
}

/**
 * A schema whose local references point into the document as Ajv holds it: added with `ajv.addSchema(document, id)`,
 * `#/components/schemas/Order` is `${id}#/components/schemas/Order` to a schema compiled on its own.
 */
export function anchoredIn<T>(schema: T, id: string): T {
  return JSON.parse(JSON.stringify(schema).replace(/"\$ref":"#\//g, `"$ref":"${id}#/`)) as T;
}
