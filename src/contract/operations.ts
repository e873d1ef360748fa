import type Ajv2020 from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import type { Document } from 'openapi-backend';
import { InvalidInputError, type FieldProblem } from '../services/errors.js';
import { createContractAjv, schemaErrorDetail } from './ajv.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface ContractParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  description: string | undefined;
  schema: Json;
}

/** One operation of openapi.yaml as adapters other than REST need it: what it takes and what it answers. */
export interface ContractOperation {
  operationId: string;
  method: string;
  path: string;
  summary: string;
  description: string;
  tags: string[];
  /** Path and query parameters (headers are transport details: Idempotency-Key, If-None-Match). */
  parameters: ContractParameter[];
  /** The JSON request body's schema (a `$ref` into the document), if the operation takes one. */
  body: { schema: Json; required: boolean } | undefined;
  /** The first 2xx response with a JSON body: its status and schema (a `$ref` into the document). */
  success: { status: number; schema: Json } | undefined;
}

/** The input of an operation, split the way the contract declares it. */
export interface OperationInput {
  path?: Record<string, unknown>;
  query?: Record<string, unknown>;
  body?: unknown;
}

const DOCUMENT_ID = 'openapi.json';

function deref(document: Json, node: Json): Json {
  let current = node;
  while (current && typeof current.$ref === 'string') {
    const segments = current.$ref.replace(/^#\//, '').split('/').map((s: string) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    current = segments.reduce((n: Json, key: string) => n[key], document);
  }
  return current;
}

/** `#/components/...` references made absolute against the document's id, so Ajv resolves them. */
function absolute(schema: Json): Json {
  return JSON.parse(JSON.stringify(schema).replace(/"\$ref":"#\//g, `"$ref":"${DOCUMENT_ID}#/`));
}

function fieldOf(error: ErrorObject, prefix: string): FieldProblem {
  let pointer = error.instancePath;
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required' && typeof params.missingProperty === 'string') pointer += `/${params.missingProperty}`;
  if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') pointer += `/${params.additionalProperty}`;
  const field = [prefix, pointer.replace(/^\//, '')].filter(Boolean).join('/');
  return { field, detail: schemaErrorDetail(error) };
}

/**
 * The operations of the contract, for adapters that are not REST (GraphQL, MCP): their parameters, body and
 * success schemas, and validation of an input against exactly the schemas REST validates with, so every
 * interface refuses the same input with the same field names.
 */
export class Contract {
  readonly operations = new Map<string, ContractOperation>();
  private readonly ajv: Ajv2020.default;
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(readonly document: Document) {
    const doc = document as unknown as Json;
    this.ajv = createContractAjv();
    this.ajv.addSchema(doc, DOCUMENT_ID);
    for (const [path, item] of Object.entries(doc.paths as Json)) {
      for (const [method, operation] of Object.entries(item as Json)) {
        if (!operation?.operationId) continue;
        const parameters = ((operation.parameters ?? []) as Json[])
          .map((p) => deref(doc, p))
          .filter((p) => p.in === 'path' || p.in === 'query')
          .map((p) => ({ name: p.name, in: p.in, required: Boolean(p.required), description: p.description, schema: p.schema as Json }));
        const requestBody = operation.requestBody ? deref(doc, operation.requestBody) : undefined;
        const bodySchema = requestBody?.content?.['application/json']?.schema as Json | undefined;
        const successKey = Object.keys(operation.responses ?? {}).find((s) => /^2\d\d$/.test(s) && deref(doc, operation.responses[s]).content?.['application/json']);
        const success = successKey ? deref(doc, operation.responses[successKey]).content['application/json'].schema : undefined;
        this.operations.set(operation.operationId, {
          operationId: operation.operationId,
          method: method.toUpperCase(),
          path,
          summary: operation.summary ?? operation.operationId,
          description: operation.description ?? '',
          tags: operation.tags ?? [],
          parameters,
          body: bodySchema ? { schema: bodySchema, required: Boolean(requestBody?.required) } : undefined,
          success: successKey ? { status: Number(successKey), schema: success } : undefined,
        });
      }
    }
  }

  operation(operationId: string): ContractOperation {
    const operation = this.operations.get(operationId);
    if (!operation) throw new Error(`openapi.yaml has no operation ${operationId}`);
    return operation;
  }

  /** The schema with every `$ref` resolvable on its own: `#/...` pointers into the document are kept as `openapi.json#/...`. */
  resolvable(schema: Json): Json {
    return absolute(schema);
  }

  /**
   * Checks an input against the operation's parameter and body schemas; throws InvalidInputError naming each
   * invalid field (a parameter by its name, a body member by its path inside the body: `limits/max_order_notional`).
   */
  validate(operationId: string, input: OperationInput): void {
    const operation = this.operation(operationId);
    const fields: FieldProblem[] = [];
    for (const parameter of operation.parameters) {
      const value = input[parameter.in as 'path' | 'query']?.[parameter.name];
      if (value === undefined) {
        if (parameter.required) fields.push({ field: parameter.name, detail: 'is required' });
        continue;
      }
      const validate = this.compile(`${operationId}:${parameter.in}:${parameter.name}`, parameter.schema);
      if (!validate(value)) fields.push(...(validate.errors ?? []).map((e) => fieldOf(e, parameter.name)));
    }
    if (operation.body) {
      if (input.body === undefined) {
        if (operation.body.required) fields.push({ field: '', detail: 'a request body is required' });
      } else {
        const validate = this.compile(`${operationId}:body`, operation.body.schema);
        if (!validate(input.body)) fields.push(...(validate.errors ?? []).filter((e) => !['oneOf', 'anyOf', 'if'].includes(e.keyword)).map((e) => fieldOf(e, '')));
      }
    }
    if (fields.length > 0) throw new InvalidInputError(fields);
  }

  private compile(key: string, schema: Json): ValidateFunction {
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile(absolute(schema));
      this.validators.set(key, validate);
    }
    return validate;
  }
}
