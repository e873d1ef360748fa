import type Ajv2020 from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import type { Document } from 'openapi-backend';
import type { OpenAPIV3_1 } from 'openapi-types';
import { InvalidInputError, type FieldProblem } from '../services/errors.js';
import { createContractAjv } from './ajv.js';
import { deprecationOf, type Deprecation } from './deprecation.js';
import { fieldProblemsOf } from './field-problems.js';
import { anchoredIn, resolved, type OpenApiDocument, type Reference, type Schema } from './refs.js';

export interface ContractParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  description: string | undefined;
  schema: Schema | Reference;
  /** The schema's `type`, its reference followed. */
  type: Schema['type'];
  /** Its `deprecated: true` with the dates (deprecation.ts), or undefined. */
  deprecation: Deprecation | undefined;
}

/** One operation of openapi.yaml as the code needs it: what it takes, who may call it and what it answers. */
export interface ContractOperation {
  operationId: string;
  method: string;
  path: string;
  summary: string;
  description: string;
  tags: string[];
  /** Path and query parameters: what every channel passes (GraphQL as arguments, MCP as tool arguments). */
  parameters: ContractParameter[];
  /** Header parameters (Idempotency-Key, X-IAS-Challenge, If-None-Match): HTTP's, whichever channel carries them. */
  headers: ContractParameter[];
  /** The JSON request body's schema (a `$ref` into the document), if the operation takes one. */
  body: { schema: Schema | Reference; required: boolean } | undefined;
  /** Every media type the request body may have (empty when it takes none). */
  mediaTypes: string[];
  /** The first 2xx response with a JSON body: its status and schema (a `$ref` into the document). */
  success: { status: number; schema: Schema | Reference } | undefined;
  /** Whether a bearer token is required (else the operation is anonymous). */
  bearer: boolean;
  /** Whether it declares the Idempotency-Key header (every POST that takes a bearer token). */
  keyed: boolean;
  /** Body members an MCP tool call must give although REST may leave them out (`x-mcp-required`). */
  mcpRequired: string[];
  /** Its `deprecated: true` with the dates (deprecation.ts), or undefined: every channel announces it. */
  deprecation: Deprecation | undefined;
}

/** The input of an operation, split the way the contract declares it. */
export interface OperationInput {
  path?: Record<string, unknown>;
  query?: Record<string, unknown>;
  /** Header values by lower-case name. */
  header?: Record<string, unknown>;
  body?: unknown;
}

/** An input as validation passed it on: parameter defaults applied, and coerced from text when it came as text. */
export interface CheckedInput {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  header: Record<string, unknown>;
  body: unknown;
}

const DOCUMENT_ID = 'openapi.json';
const BODY_TYPES = ['application/json', 'multipart/form-data', 'application/x-www-form-urlencoded'];

type Operation = OpenAPIV3_1.OperationObject;
type RequestBody = OpenAPIV3_1.RequestBodyObject;
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** `#/components/...` references made absolute against the document's id in Ajv, so it resolves them. */
const absolute = <T>(schema: T): T => anchoredIn(schema, DOCUMENT_ID);

/** The JSON (or form) schema of a request body, and that media type. */
function bodySchemaOf(requestBody: RequestBody | undefined): Schema | Reference | undefined {
  const type = BODY_TYPES.find((t) => requestBody?.content[t]?.schema);
  return type ? requestBody!.content[type]!.schema : undefined;
}

interface Validators {
  body: ValidateFunction | undefined;
  /** The body schema's required members: a missing body is reported as those (the client learns what to send). */
  bodyRequired: string[];
  params: ValidateFunction;
}

/**
 * The operations of the contract and the one validator of their inputs, for every channel: REST (values as text,
 * coerced to the schema's types), GraphQL and MCP (typed values). It checks exactly what openapi-backend's request
 * validator checked — one schema for the body, one for the parameters by location (unknown path and query
 * parameters refused, headers case-insensitive), parameter defaults applied — on the contract's Ajv (2020-12,
 * finite numbers only: ajv.ts), and names each invalid field as the use cases do (field-problems.ts).
 */
export class Contract {
  readonly operations = new Map<string, ContractOperation>();
  /** Bodies are checked as sent: never coerced, no defaults added (what a client sent is what its key's fingerprint covers). */
  private readonly bodyAjv: Ajv2020.default;
  private readonly typedAjv: Ajv2020.default;
  private readonly textAjv: Ajv2020.default;
  /** Compiled validators by operationId: for text (REST) and for typed values (the other channels). */
  private readonly validators = { text: new Map<string, Validators>(), typed: new Map<string, Validators>() };

  private readonly doc: OpenApiDocument;

  constructor(readonly document: Document) {
    const doc = (this.doc = document as OpenApiDocument);
    this.bodyAjv = createContractAjv();
    this.bodyAjv.addSchema(doc, DOCUMENT_ID);
    this.typedAjv = createContractAjv({ useDefaults: true });
    this.typedAjv.addSchema(doc, DOCUMENT_ID);
    this.textAjv = createContractAjv({ useDefaults: true, coerceTypes: true });
    this.textAjv.addSchema(doc, DOCUMENT_ID);
    for (const [path, item] of Object.entries(doc.paths ?? {})) {
      for (const method of METHODS) {
        const operation: Operation | undefined = item?.[method];
        if (!operation?.operationId) continue;
        const declared: ContractParameter[] = (operation.parameters ?? [])
          .map((p) => resolved(doc, p))
          .map((p) => ({
            name: p.name,
            in: p.in as ContractParameter['in'],
            required: Boolean(p.required),
            description: p.description,
            schema: p.schema ?? {},
            type: resolved<Schema>(doc, p.schema ?? {}).type,
            deprecation: deprecationOf(p, `${operation.operationId} parameter ${p.name}`),
          }));
        const requestBody = operation.requestBody ? resolved(doc, operation.requestBody) : undefined;
        const bodySchema = requestBody?.content['application/json']?.schema;
        const responses = operation.responses ?? {};
        const successJson = (status: string) => resolved(doc, responses[status]!).content?.['application/json'];
        const successKey = Object.keys(responses).find((status) => /^2\d\d$/.test(status) && successJson(status));
        const success = successKey ? successJson(successKey)!.schema : undefined;
        const security = operation.security ?? doc.security ?? [];
        const headers = declared.filter((p) => p.in === 'header');
        this.operations.set(operation.operationId, {
          operationId: operation.operationId,
          method: method.toUpperCase(),
          path,
          summary: operation.summary ?? operation.operationId,
          description: operation.description ?? '',
          tags: operation.tags ?? [],
          parameters: declared.filter((p) => p.in === 'path' || p.in === 'query'),
          headers,
          body: bodySchema ? { schema: bodySchema, required: Boolean(requestBody?.required) } : undefined,
          mediaTypes: Object.keys(requestBody?.content ?? {}),
          success: successKey && success ? { status: Number(successKey), schema: success } : undefined,
          bearer: security.some((r) => 'OAuth2' in r) && !security.some((r) => Object.keys(r).length === 0),
          keyed: headers.some((h) => h.name.toLowerCase() === 'idempotency-key'),
          mcpRequired: ((operation as { 'x-mcp-required'?: string[] })['x-mcp-required'] ?? []).slice(),
          deprecation: deprecationOf(operation, operation.operationId),
        });
      }
    }
  }

  operation(operationId: string): ContractOperation {
    const operation = this.operations.get(operationId);
    if (!operation) throw new Error(`openapi.yaml has no operation ${operationId}`);
    return operation;
  }

  /** Compiles every operation's validators now rather than on its first request. */
  precompile(): void {
    for (const operationId of this.operations.keys()) {
      this.validatorsOf(operationId, false);
      this.validatorsOf(operationId, true);
    }
  }

  /** Checks an input (see check) and throws InvalidInputError naming each invalid field. */
  validate(operationId: string, input: OperationInput): void {
    this.check(operationId, input);
  }

  /**
   * Checks an input against the operation's body and parameter schemas and answers it with the parameters' defaults
   * applied (and, with `text`, coerced from text: REST's path, query and header values). Throws InvalidInputError
   * naming each invalid field: a parameter by its name and location, a body member by its path inside the body
   * (`limits/max_order_notional`). `found` are problems the channel found while reading the input; they come first.
   */
  check(operationId: string, input: OperationInput, options: { text?: boolean; found?: FieldProblem[] } = {}): CheckedInput {
    const validators = this.validatorsOf(operationId, options.text ?? false);
    const checked: CheckedInput = { path: { ...input.path }, query: { ...input.query }, header: { ...input.header }, body: input.body };
    const problems: FieldProblem[] = [...(options.found ?? [])];
    if (validators.body) {
      const wrapped = checked.body === undefined ? {} : { requestBody: checked.body };
      if (!validators.body(wrapped)) problems.push(...fieldProblemsOf(validators.body.errors ?? [], validators.bodyRequired));
    }
    const parameters = { path: checked.path, query: checked.query, header: checked.header, cookie: {} };
    if (!validators.params(parameters)) problems.push(...fieldProblemsOf(validators.params.errors ?? [], validators.bodyRequired));
    if (problems.length > 0) throw new InvalidInputError(dedupe(problems));
    return checked;
  }

  private validatorsOf(operationId: string, text: boolean): Validators {
    const compiled = text ? this.validators.text : this.validators.typed;
    let validators = compiled.get(operationId);
    if (!validators) {
      validators = this.compile(this.operation(operationId), text);
      compiled.set(operationId, validators);
    }
    return validators;
  }

  /**
   * The validators of one operation. Text (REST) has every parameter's value as text, coerced to its type; typed
   * channels pass values of their types. Both require the headers the operation requires (only the anonymous writes'
   * X-IAS-Challenge: the dashboard sends its form's proof-of-work solution as that header).
   */
  private compile(operation: ContractOperation, text: boolean): Validators {
    const ajv = text ? this.textAjv : this.typedAjv;
    const raw = this.doc.paths![operation.path]![operation.method.toLowerCase() as (typeof METHODS)[number]]!;
    const requestBody = raw.requestBody ? resolved(this.doc, raw.requestBody) : undefined;
    const bodySchema = bodySchemaOf(requestBody);
    const body = bodySchema
      ? this.bodyAjv.compile({
          type: 'object',
          properties: { requestBody: absolute(bodySchema) },
          required: requestBody!.required ? ['requestBody'] : [],
        })
      : undefined;
    const locations: Record<
      string,
      { type: 'object'; properties: Record<string, unknown>; required: string[]; additionalProperties: boolean }
    > = {
      path: { type: 'object', properties: {}, required: [], additionalProperties: false },
      query: { type: 'object', properties: {}, required: [], additionalProperties: false },
      header: { type: 'object', properties: {}, required: [], additionalProperties: true },
      cookie: { type: 'object', properties: {}, required: [], additionalProperties: true },
    };
    for (const parameter of [...operation.parameters, ...operation.headers]) {
      const name = parameter.in === 'header' ? parameter.name.toLowerCase() : parameter.name;
      const target = locations[parameter.in]!;
      target.properties[name] = absolute(parameter.schema);
      if (parameter.required) target.required.push(name);
    }
    const params = ajv.compile({ type: 'object', properties: locations, required: Object.keys(locations) });
    return { body, bodyRequired: bodySchema ? (resolved(this.doc, bodySchema).required ?? []) : [], params };
  }
}

function dedupe(problems: FieldProblem[]): FieldProblem[] {
  const seen = new Set<string>();
  return problems.filter((problem) => {
    const key = `${problem.in ?? 'body'}\u0000${problem.field}\u0000${problem.detail}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
