import { readFileSync } from 'node:fs';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { OpenAPIV3 } from 'openapi-types';
import { anchoredIn, resolved } from '../../src/contract/refs.js';

/**
 * Checks requests to Alpaca, and the stand-in's answers, against Alpaca's own published OpenAPI 3.0 documents
 * (test/fixtures/alpaca/, vendored unmodified). The documents are the contract; the SDK and the stand-in are held to
 * them, not the other way round.
 */
export type AlpacaDocument = 'trading' | 'market-data';

export interface CheckedRequest {
  method: string;
  /** The path alone, percent-encoded as sent (`/v2/orders/5f1c...`, `/v2/orders:by_client_order_id`). */
  path: string;
  query: URLSearchParams | Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body; undefined when none was sent. */
  body?: unknown;
}

type Method = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';
type Doc = OpenAPIV3.Document;

const FILES: Record<AlpacaDocument, string> = { trading: 'trading-api.json', 'market-data': 'market-data-api.json' };
const documents = Object.fromEntries(
  Object.entries(FILES).map(([id, file]) => [id, JSON.parse(readFileSync(new URL(`../fixtures/alpaca/${file}`, import.meta.url), 'utf8'))]),
) as Record<AlpacaDocument, Doc>;

/** Alpaca's error body, `{ code, message }`: the trading document's `Error` schema, which both hosts answer with. */
const ERROR_SCHEMA = { $ref: 'trading#/components/schemas/Error' };

function createAjv(coerce: boolean): Ajv.default {
  // strict: false lets OpenAPI 3.0's own keywords through (`example`, `x-...`, `discriminator`); Ajv knows `nullable` itself.
  const ajv = new Ajv.default({ strict: false, allErrors: true, coerceTypes: coerce ? 'array' : false });
  addFormats.default(ajv);
  // Formats the documents use that JSON Schema does not define.
  ajv.addFormat('decimal', /^[-+]?(\d+(\.\d*)?|\.\d+)$/);
  ajv.addFormat('ulid', /^[0-9A-HJKMNP-TV-Z]{26}$/i);
  ajv.addFormat('uint32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= 0 && n <= 0xffffffff });
  ajv.addFormat('uint64', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= 0 });
  for (const [id, document] of Object.entries(documents)) ajv.addSchema(document, id);
  return ajv;
}

/** Bodies and answers are JSON, checked as they are; query, path and header values are strings, coerced to their schema's type. */
const strictAjv = createAjv(false);
const coercingAjv = createAjv(true);
const compiled = new Map<string, ValidateFunction>();

function validator(ajv: Ajv.default, id: string, schema: object): ValidateFunction {
  const key = `${ajv === coercingAjv ? 'c' : 's'}:${id}:${JSON.stringify(schema)}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile(anchoredIn(schema, id));
    compiled.set(key, validate);
  }
  return validate;
}

function describe(where: string, errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((error) => {
    const at = `${where}${error.instancePath}`;
    if (error.keyword === 'enum') {
      const allowed = (error.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ');
      return `${at} must be one of ${allowed}`;
    }
    if (error.keyword === 'required') return `${at}/${(error.params as { missingProperty: string }).missingProperty} is required`;
    return `${at} ${error.message ?? 'is invalid'}`;
  });
}

interface Route {
  template: string;
  pattern: RegExp;
  names: string[];
  literal: number;
}

const routes = new Map<AlpacaDocument, Route[]>();

/** Every path template of a document as a pattern; the most literal first, so `/v2/stocks/bars/latest` wins over `{symbol}`. */
function routesOf(doc: AlpacaDocument): Route[] {
  let list = routes.get(doc);
  if (!list) {
    list = Object.keys(documents[doc].paths).map((template) => {
      const names: string[] = [];
      const source = template
        .split(/(\{[^}]+\})/)
        .map((part) => {
          if (!/^\{[^}]+\}$/.test(part)) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          names.push(part.slice(1, -1));
          return '([^/]+)';
        })
        .join('');
      return { template, pattern: new RegExp(`^${source}$`), names, literal: template.replace(/\{[^}]+\}/g, '').length };
    });
    list.sort((a, b) => b.literal - a.literal);
    routes.set(doc, list);
  }
  return list;
}

interface Found {
  template: string;
  operation: OpenAPIV3.OperationObject;
  parameters: OpenAPIV3.ParameterObject[];
  pathValues: Record<string, string>;
}

/** The operation `method path` is, or why there is none. */
function findOperation(doc: AlpacaDocument, method: string, path: string): Found | string {
  const document = documents[doc];
  const matches = routesOf(doc).flatMap((route) => {
    const match = route.pattern.exec(path);
    return match ? [{ route, match }] : [];
  });
  if (matches.length === 0) return `no path of ${FILES[doc]} matches ${path}`;
  const key = method.toLowerCase() as Method;
  for (const { route, match } of matches) {
    const item = document.paths[route.template]!;
    const operation = item[key];
    if (!operation) continue;
    const byName = new Map<string, OpenAPIV3.ParameterObject>();
    for (const p of [...(item.parameters ?? []), ...(operation.parameters ?? [])]) {
      const parameter = resolved<OpenAPIV3.ParameterObject>(document, p);
      byName.set(`${parameter.in}:${parameter.name}`, parameter);
    }
    const pathValues = Object.fromEntries(route.names.map((name, i) => [name, decodeURIComponent(match[i + 1]!)]));
    return { template: route.template, operation, parameters: [...byName.values()], pathValues };
  }
  return `${FILES[doc]} has no ${method.toUpperCase()} operation on ${matches.map((m) => m.route.template).join(' or ')}`;
}

function headerOf(headers: CheckedRequest['headers'], name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === wanted) return Array.isArray(value) ? value.join(', ') : value;
  }
  return undefined;
}

function checkParameters(doc: AlpacaDocument, found: Found, query: URLSearchParams, headers: CheckedRequest['headers']): string[] {
  const violations: string[] = [];
  for (const parameter of found.parameters) {
    const schema = parameter.schema ?? {};
    const isArray = resolved<OpenAPIV3.SchemaObject>(documents[doc], schema).type === 'array';
    let value: string | string[] | undefined;
    if (parameter.in === 'path') value = found.pathValues[parameter.name];
    else if (parameter.in === 'header') value = headerOf(headers, parameter.name);
    else if (parameter.in === 'query') {
      const all = query.getAll(parameter.name);
      if (!isArray && all.length > 1) violations.push(`query parameter ${parameter.name} is given ${all.length} times`);
      value = all.length === 0 ? undefined : isArray ? all : all[0];
    } else continue;
    if (value === undefined) {
      if (parameter.required) violations.push(`${parameter.in} parameter ${parameter.name} is required`);
      continue;
    }
    const validate = validator(coercingAjv, doc, { type: 'object', properties: { value: schema } });
    if (!validate({ value })) violations.push(...describe(`${parameter.in} parameter ${parameter.name}`, validate.errors).map(unwrapValue));
  }
  const known = new Set(found.parameters.filter((p) => p.in === 'query').map((p) => p.name));
  for (const name of new Set(query.keys())) if (!known.has(name)) violations.push(`query parameter ${name} is not documented`);
  return violations;
}

/** `query parameter limit/value must be integer` reads `query parameter limit must be integer`. */
function unwrapValue(message: string): string {
  return message.replace(/^(\S+ parameter \S+)\/value/, '$1');
}

function checkSecurity(doc: AlpacaDocument, operation: OpenAPIV3.OperationObject, headers: CheckedRequest['headers']): string[] {
  const document = documents[doc];
  const requirements = operation.security ?? document.security ?? [];
  if (requirements.length === 0) return [];
  const schemes = document.components?.securitySchemes ?? {};
  const unmet = requirements.map((requirement) =>
    Object.keys(requirement).flatMap((name) => {
      const scheme = resolved<OpenAPIV3.SecuritySchemeObject>(document, schemes[name]!);
      if (scheme.type !== 'apiKey' || scheme.in !== 'header') return [`security scheme ${name} (${scheme.type}) is not checked here`];
      return headerOf(headers, scheme.name) ? [] : [`the ${scheme.name} header is missing (security scheme ${name})`];
    }),
  );
  return unmet.some((missing) => missing.length === 0) ? [] : unmet[0]!;
}

function checkBody(doc: AlpacaDocument, operation: OpenAPIV3.OperationObject, request: CheckedRequest): string[] {
  const requestBody = operation.requestBody && resolved<OpenAPIV3.RequestBodyObject>(documents[doc], operation.requestBody);
  if (request.body === undefined) return requestBody?.required ? ['the request body is required'] : [];
  if (!requestBody) return ['the operation takes no request body'];
  const media = requestBody.content['application/json'];
  if (!media) return [`the body must be one of ${Object.keys(requestBody.content).join(', ')}`];
  const contentType = headerOf(request.headers, 'content-type') ?? '';
  const violations = /^application\/json\b/i.test(contentType) ? [] : [`Content-Type is ${contentType || 'missing'}, not application/json`];
  const validate = validator(strictAjv, doc, media.schema ?? {});
  if (!validate(request.body)) violations.push(...describe('body', validate.errors));
  return violations;
}

/**
 * What is wrong with a request by the document: empty when it is a valid call of one of its operations. Besides what
 * the document requires, a query parameter it does not list is reported: the adapter has no reason to send one.
 */
export function checkRequest(doc: AlpacaDocument, request: CheckedRequest): string[] {
  const found = findOperation(doc, request.method, request.path);
  if (typeof found === 'string') return [found];
  const query = request.query instanceof URLSearchParams ? request.query : new URLSearchParams(request.query);
  return [
    ...checkSecurity(doc, found.operation, request.headers),
    ...checkParameters(doc, found, query, request.headers),
    ...checkBody(doc, found.operation, request),
  ].map((violation) => `${request.method.toUpperCase()} ${found.template}: ${violation}`);
}

/**
 * What is wrong with an answer by the document. A documented status must carry its documented body (none for one
 * documented without content, such as 204). The documents list error statuses unevenly (none lists 401 for
 * `/v2/account`), and OpenAPI does not require them all, so an error status the operation does not document, or
 * documents without a body, is accepted when its body is Alpaca's error body `{ code, message }`. A success status the
 * operation does not document is a violation.
 */
export function checkResponse(doc: AlpacaDocument, method: string, path: string, status: number, body: unknown): string[] {
  const found = findOperation(doc, method, path);
  if (typeof found === 'string') return [found];
  const at = `${method.toUpperCase()} ${found.template} ${status}`;
  const responses = found.operation.responses;
  const documented = responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
  const response = documented && resolved<OpenAPIV3.ResponseObject>(documents[doc], documented);
  const schema = response?.content?.['application/json']?.schema;
  if (!response && status < 400) return [`${at}: the status is not documented (${Object.keys(responses).join(', ')} are)`];
  if (!schema && status < 400) return body === undefined ? [] : [`${at}: the answer has a body the document does not describe`];
  const validate = schema ? validator(strictAjv, doc, schema) : validator(strictAjv, 'trading', ERROR_SCHEMA);
  if (body === undefined) return [`${at}: the answer has no body`];
  return validate(body) ? [] : describe(`${at}: body`, validate.errors);
}
