import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { resolved } from '../../src/contract/refs.js';
import { loadDocument } from '../../src/document.js';

type Json = Record<string, any>;

const document = loadDocument() as Json;
const ajv = new Ajv2020.default({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema(document, 'openapi.json');

const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

interface Route {
  template: string;
  regex: RegExp;
}

const routes: Route[] = Object.keys(document.paths).map((template) => ({
  template,
  regex: new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`),
}));

function matchPath(path: string): string | undefined {
  const exact = routes.find((r) => r.template === path);
  return (exact ?? routes.find((r) => r.regex.test(path)))?.template;
}

const deref = (node: Json): Json => resolved(document, node);

const validators = new Map<string, ValidateFunction>();

/**
 * The validator of the schema at `ref`, compiled once: Ajv caches a compiled schema by its object, so a `{ $ref }` made
 * for each response would be compiled again for each (most of a request's time in the suites).
 */
function validatorOf(ref: string): ValidateFunction {
  let validate = validators.get(ref);
  if (!validate) validators.set(ref, (validate = ajv.compile({ $ref: ref })));
  return validate;
}

/**
 * Throws unless the response is one the spec declares for this method and path: a declared status, a declared
 * media type, and a body valid against its schema. Paths the spec does not have must answer a problem document.
 */
export function assertConforms(method: string, path: string, status: number, contentType: string | null, body: unknown): void {
  const where = `${method.toUpperCase()} ${path} → ${status}`;
  const mediaType = contentType?.split(';')[0]?.trim() ?? null;
  const template = matchPath(path);
  const operation = template ? (document.paths[template][method.toLowerCase()] as Json | undefined) : undefined;
  if (!operation) {
    if (mediaType !== 'application/problem+json')
      throw new Error(`${where}: an undeclared route must answer application/problem+json, got ${mediaType}`);
    const validate = validatorOf('openapi.json#/components/schemas/Problem');
    if (!validate(body)) throw new Error(`${where}: not a Problem: ${ajv.errorsText(validate.errors)}`);
    return;
  }
  const responses = operation.responses as Json;
  const key = String(status) in responses ? String(status) : `${String(status)[0]}XX` in responses ? `${String(status)[0]}XX` : 'default';
  if (!(key in responses)) throw new Error(`${where}: status ${status} is not declared for ${operation.operationId}`);
  const response = deref(responses[key]);
  const content = response.content as Json | undefined;
  if (!content || status === 304 || status === 204) {
    if (body !== undefined && body !== '' && content === undefined) throw new Error(`${where}: the spec declares no body, got one`);
    return;
  }
  if (!mediaType || !(mediaType in content)) {
    throw new Error(`${where}: media type ${mediaType} is not declared (${Object.keys(content).join(', ')})`);
  }
  const schemaPointer = `openapi.json#/paths/${escape(template!)}/${method.toLowerCase()}/responses/${key}`;
  const schemaRef = typeof responses[key].$ref === 'string' ? `openapi.json${responses[key].$ref}` : schemaPointer;
  const validate = validatorOf(`${schemaRef}/content/${escape(mediaType)}/schema`);
  if (!validate(body))
    throw new Error(`${where}: body does not match the spec: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`);
}
