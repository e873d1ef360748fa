import { resolved } from '../../src/contract/refs.js';

type Json = Record<string, any>;

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: Json;
  /** The value the spec shows (`example`, the first of `examples`, or its schema's), if any. */
  example: unknown;
}

export interface FuzzOperation {
  operationId: string;
  method: string;
  path: string;
  parameters: Parameter[];
  body: { mediaType: string; schema: Json; required: boolean; example: unknown } | undefined;
  bearer: boolean;
  /** Whether the client authenticates itself (HTTP Basic, the token endpoint). */
  clientBasic: boolean;
  responses: Json;
}

/** The example a spec node shows: `example`, else the first of `examples` (a map of Example objects or a list). */
function exampleOf(node: Json | undefined): unknown {
  if (!node) return undefined;
  if (node.example !== undefined) return node.example;
  if (Array.isArray(node.examples)) return node.examples[0];
  const first = Object.values((node.examples ?? {}) as Json)[0] as Json | undefined;
  return first?.value;
}

/** The operations of the contract as the fuzzer generates requests for them: parameters, body, credentials, responses. */
export function fuzzOperations(document: Json): FuzzOperation[] {
  const operations: FuzzOperation[] = [];
  for (const [path, item] of Object.entries(document.paths as Json)) {
    for (const [method, operation] of Object.entries(item as Json)) {
      if (!operation?.operationId) continue;
      const parameters = ((operation.parameters ?? []) as Json[])
        .map((p) => resolved<Json>(document, p))
        .filter((p) => ['path', 'query', 'header'].includes(p.in));
      const requestBody = operation.requestBody ? resolved<Json>(document, operation.requestBody) : undefined;
      const [mediaType, content] = Object.entries((requestBody?.content ?? {}) as Json)[0] ?? [];
      operations.push({
        operationId: operation.operationId,
        method: method.toUpperCase(),
        path,
        parameters: parameters.map((p) => ({
          name: p.name,
          in: p.in,
          required: Boolean(p.required),
          schema: p.schema ?? { type: 'string' },
          example: exampleOf(p) ?? exampleOf(p.schema && resolved<Json>(document, p.schema)),
        })),
        body: mediaType
          ? {
              mediaType,
              schema: content.schema,
              required: Boolean(requestBody?.required),
              example: exampleOf(content) ?? exampleOf(resolved<Json>(document, content.schema)),
            }
          : undefined,
        bearer: ((operation.security ?? []) as Json[]).some((s) => 'OAuth2' in s),
        clientBasic: ((operation.security ?? []) as Json[]).some((s) => 'ClientBasic' in s),
        responses: operation.responses,
      });
    }
  }
  return operations;
}
