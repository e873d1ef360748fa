import express, { type Request, type RequestHandler, type Response } from 'express';
import type { ErrorObject } from 'ajv/dist/2020.js';
import { OpenAPIBackend, OpenAPIValidator, type Document, type Operation } from 'openapi-backend';
import type { HandlerRegistry } from '../../handlers/types.js';
import type { Actor } from '../auth/authorize.js';
import { OAuthError, ProblemError } from '../problems.js';
import { challengeHeaderProblem } from '../services/challenges.js';
import type { Services } from '../services/index.js';
import { BEARER_SCHEME, bearerActor } from './auth.js';
import { createContractAjv } from '../contract/ajv.js';
import type { ApiRequestState } from './request-state.js';
import { bodyReadProblem, MALFORMED_PATH, mediaTypeOf, parseBody } from './body.js';
import { errorToReply } from './errors.js';
import { fingerprint, type IdempotencyKeys } from './idempotency.js';
import { problemReply, sendReply, tokenEndpointReply, type Reply } from './reply.js';
import { parseMatchedRequest, RouteTable, type ParsableRequest } from './routes.js';
import { describeFieldErrors, fieldErrors, validationDetail } from './validation.js';

const TOKEN_OPERATION = 'issueToken';
const CHALLENGE_HEADER = '/header/x-ias-challenge';

/**
 * openapi-backend checks documents against the OpenAPI 3.0 schema and rejects valid 3.1 ones; `redocly lint`
 * is the judge of the spec here, so the check is skipped.
 */
class OpenAPI31Backend extends OpenAPIBackend {
  override validateDefinition() {
    return this.definition;
  }
}

/** openapi-backend's validators, on the contract's own Ajv (2020-12, finite numbers only: src/contract/ajv.ts). */
function ajvFor2020(_ajv: unknown, options: object) {
  return createContractAjv(options) as never;
}

/**
 * POSTs that store nothing and compute on the pool (goal feasibility: its input is a document): a keyed one computes
 * outside the key's transaction, which would otherwise hold a database connection while it waits for a thread.
 */
const COMPUTATIONS = new Set(['evaluateGoalFeasibility']);

type Parsed = ReturnType<typeof parseMatchedRequest>;
type Invoke = (operation: Operation, parsed: Parsed, actor: Actor | null, state: ApiRequestState, services: Services) => Promise<Reply>;

/**
 * The REST adapter. openapi-backend supplies the dereferenced contract, its operation list and the request
 * validators; each request then runs one straight pipeline here: one route match (RouteTable), 406, the bearer token
 * (before the body is parsed: a caller without a valid token learns nothing about what it sent), the body, validation
 * against the operation's schemas, the operation's handler by operationId. Measured under load, openapi-backend's own
 * handleRequest — which matched twice, parsed three times through lodash deep clones and recompiled the path
 * template each time — cost more CPU than the rest of a light authenticated read together.
 */
export async function createApiMiddleware(
  document: Document,
  services: Services,
  handlers: HandlerRegistry,
  baseUrl: string,
  idempotency: IdempotencyKeys,
  bodyLimitBytes = 100 * 1024,
): Promise<RequestHandler & { routes: RouteTable; rawBody: RequestHandler }> {
  // The body parser for the paths this adapter reads itself (/v1, after the bearer token): app.ts skips them.
  const rawBody = express.raw({ type: () => true, limit: bodyLimitBytes });
  const readBody = (req: Request, res: Response): Promise<Buffer | undefined> =>
    Buffer.isBuffer(req.body)
      ? Promise.resolve(req.body)
      : new Promise((resolve, reject) =>
          rawBody(req, res, (error?: unknown) => {
            if (!error) return resolve(Buffer.isBuffer(req.body) ? req.body : undefined);
            reject(bodyReadProblem(error, bodyLimitBytes));
          }),
        );
  // Only request validators are compiled: openapi-backend's constructor would also compile one for every response
  // and response header (about 2 s of CPU per process start), which nothing here uses.
  const api = new OpenAPI31Backend({ definition: structuredClone(document), strict: true, validate: false });
  await api.init();
  const validator = new OpenAPIValidator({ definition: api.definition, router: api.router, lazyCompileValidators: true, coerceTypes: true, customizeAjv: ajvFor2020, ajvOpts: { allErrors: true } });
  validator.preCompileRequestValidators();

  // The operation list, built once (openapi-backend's router rebuilds every operation object through lodash on each
  // getOperations() call, which its validator makes when it looks an operation up).
  const operations = api.router.getOperations();
  api.router.getOperations = () => operations;
  const routes = new RouteTable(operations);
  // Operations that declare the Idempotency-Key header (every POST that takes a bearer token).
  const keyed = new Set(operations.filter((op) => (op.parameters ?? []).some((p) => 'name' in p && p.in === 'header' && p.name.toLowerCase() === 'idempotency-key')));

  /**
   * openapi-backend's validateRequest for a request matched and parsed here (parseMatchedRequest: the router's
   * parseRequest answers, test/unit/routes.test.ts): the same compiled validators on the same parameter object, with
   * the same coercion of the query, without a second parse and its lodash walks. Its array and JSON-content query
   * handling is left out: the spec has no such parameter (held by the same test).
   */
  const validate = (operation: Operation, request: ParsableRequest, parsed: Parsed): ErrorObject[] | null => {
    const errors: ErrorObject[] = [];
    if (typeof request.body !== 'object' && request.body !== undefined) {
      const formats = declaredBody(operation).mediaTypes;
      if (formats.length === 1 && formats[0] === 'application/json') {
        try {
          JSON.parse(`${request.body as string}`);
        } catch (error) {
          errors.push({ keyword: 'parse', instancePath: '', schemaPath: '#/requestBody', params: [], message: (error as Error).message });
        }
      }
    }
    // Path parameters are validated (and coerced) on a copy: handlers get them as strings.
    const parameters: Record<string, unknown> = { path: { ...parsed.params }, query: parsed.query, header: parsed.headers, cookie: parsed.cookies };
    if (typeof parsed.requestBody === 'object' || mediaTypeOf(request.headers['content-type'] as string | undefined).type === 'application/json') {
      parameters.requestBody = parsed.requestBody;
    }
    for (const check of validator.getRequestValidatorsForOperation(operation.operationId!) ?? []) {
      check(parameters);
      if (check.errors) errors.push(...check.errors);
    }
    return errors.length ? errors : null;
  };

  const invoke: Invoke = async (operation, parsed, actor, state, services) => {
    const handler = (handlers as unknown as Record<string, ((c: unknown) => Promise<Reply>) | undefined>)[operation.operationId!];
    // The registry has a handler for every operation (a missing one does not compile): reaching this is a wiring bug.
    if (!handler) {
      state.log.error({ operationId: operation.operationId }, 'operation without a handler');
      return problemReply('internal-error', baseUrl, { detail: 'An unexpected error occurred; it has been logged.' });
    }
    const result = await handler({ body: parsed.requestBody, path: parsed.params, query: parsed.query, actor, request: state.requestInfo, services });
    return { ...result, contentType: 'application/json' };
  };

  const validationFailure = (operation: Operation, errors: ErrorObject[]): Reply => {
    const body = Object.values((operation.requestBody as { content?: Record<string, { schema?: { required?: string[] } }> } | undefined)?.content ?? {})[0]?.schema;
    const fields = fieldErrors(errors, body);
    // The proof-of-work header has problem types of its own (and is checked first: it is what anonymous writes cost).
    const challenge = fields.find((e) => e.pointer === CHALLENGE_HEADER);
    if (challenge) throw challengeHeaderProblem(challenge.detail === 'is required');
    if (operation.operationId === TOKEN_OPERATION) throw new OAuthError('invalid_request', describeFieldErrors(fields));
    return problemReply('validation-error', baseUrl, { detail: validationDetail(fields), extensions: { errors: fields } });
  };

  const handle = async (req: Request, res: Response, state: ApiRequestState, at: { operation?: Operation }): Promise<Reply> => {
    try {
      decodeURIComponent(req.path);
    } catch {
      throw new ProblemError('malformed-request', MALFORMED_PATH);
    }
    // HEAD is GET without the body (Node drops it): same status and headers.
    const match = routes.match(req.method === 'HEAD' ? 'GET' : req.method, req.path);
    if (match.kind === 'not-found') return problemReply('not-found', baseUrl, { detail: `There is no resource at ${req.path}.` });
    if (match.kind === 'method-not-allowed') {
      return problemReply('method-not-allowed', baseUrl, {
        detail: `${req.method.toUpperCase()} is not allowed here; use ${match.allowed.join(', ')}.`,
        headers: { Allow: match.allowed.join(', ') },
      });
    }
    const operation = (at.operation = match.operation);
    // Every answer here is JSON (problems too): a client that accepts neither gets a 406, itself in JSON.
    if (req.headers.accept && !req.accepts(['application/json', 'application/problem+json'])) {
      const errors = operation.operationId === TOKEN_OPERATION ? 'RFC 6749 application/json' : 'application/problem+json';
      throw new ProblemError('not-acceptable', `Responses are application/json (errors ${errors}); the Accept header "${req.headers.accept}" allows neither.`);
    }
    const actor = requiresBearer(operation) ? await bearerActor(services.tokens, operation.operationId!, state) : null;
    const strict = strictIntegers(operation, routes.pathParams(operation, req.path), req.query as Record<string, unknown>);
    if (strict.length) return problemReply('validation-error', baseUrl, { detail: validationDetail(strict), extensions: { errors: strict } });
    // A body on GET or HEAD has no meaning (RFC 9110 section 9.3.1): it is ignored, never parsed.
    const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : parseBody(await readBody(req, res), req.headers['content-type'], declaredBody(operation));
    const apiRequest: ParsableRequest = { method: req.method, path: req.path, query: req.query as Record<string, string>, headers: req.headers, body };
    // Handlers get the query as validation coerced it (numbers, booleans) and path parameters as strings, as
    // openapi-backend's handleRequest gave them.
    const parsed = parseMatchedRequest(routes, apiRequest, operation);
    const errors = validate(operation, apiRequest, parsed);
    if (errors) return validationFailure(operation, errors);
    const key = req.headers['idempotency-key'];
    if (typeof key === 'string' && actor && keyed.has(operation)) {
      const request = { accountId: actor.accountId, clientId: actor.clientId, operationId: operation.operationId!, key, fingerprint: fingerprint(req.method, RouteTable.normalize(req.path), body) };
      const failure = (error: unknown) => errorToReply(error, baseUrl, state.log, operation);
      if (COMPUTATIONS.has(operation.operationId!)) return idempotency.runComputation(request, () => invoke(operation, parsed, actor, state, services), failure);
      return idempotency.run(request, (bound) => invoke(operation, parsed, actor, state, bound), failure);
    }
    return invoke(operation, parsed, actor, state, services);
  };

  const middleware: RequestHandler = async (req, res) => {
    const state = (res.locals as { api: ApiRequestState }).api;
    const at: { operation?: Operation } = {};
    let reply: Reply;
    try {
      reply = await handle(req, res, state, at);
    } catch (error) {
      reply = errorToReply(error, baseUrl, state.log, at.operation);
    }
    if (reply.contentType === 'application/problem+json' && reply.status < 500 && isTokenEndpoint(routes, req.path)) reply = tokenEndpointReply(reply);
    if (reply.contentType === 'application/problem+json' && reply.body && typeof reply.body === 'object') {
      reply.body = { ...(reply.body as object), instance: req.path, request_id: state.requestInfo.id };
    }
    sendReply(res, reply);
  };
  return Object.assign(middleware, { routes, rawBody });
}

/** Whether a path is the token endpoint's, whatever the method (its 405 is answered in RFC 6749 terms too). */
export function isTokenEndpoint(routes: RouteTable, path: string): boolean {
  const match = routes.match('POST', path);
  return match.kind === 'operation' && match.operation.operationId === TOKEN_OPERATION;
}

const PLAIN_INTEGER = /^-?(0|[1-9][0-9]*)$/;

/**
 * Integer path and query parameters must be written as plain decimals: validation coerces `0x10`, `1e3`, ` 1` or `01`
 * into numbers, so one resource would answer to many spellings.
 */
function strictIntegers(operation: Operation, path: Record<string, string>, query: Record<string, unknown>) {
  const errors: { pointer: string; detail: string }[] = [];
  for (const parameter of (operation.parameters ?? []) as { name: string; in: string; schema?: { type?: unknown } }[]) {
    if (parameter.schema?.type !== 'integer' || (parameter.in !== 'path' && parameter.in !== 'query')) continue;
    const value = parameter.in === 'path' ? path[parameter.name] : query[parameter.name];
    if (typeof value === 'string' && !PLAIN_INTEGER.test(value)) errors.push({ pointer: `/${parameter.in}/${parameter.name}`, detail: 'must be an integer written as plain decimal digits' });
  }
  return errors;
}

/** A bearer token is required unless the operation has no security or also allows anonymous access (`{}`). */
function requiresBearer(operation: Operation): boolean {
  const requirements = (operation.security ?? []) as Record<string, unknown>[];
  return requirements.some((r) => BEARER_SCHEME in r) && !requirements.some((r) => Object.keys(r).length === 0);
}

function declaredBody(operation: Operation) {
  const content = (operation.requestBody as { content?: Record<string, unknown> } | undefined)?.content ?? {};
  return { mediaTypes: Object.keys(content), isTokenEndpoint: operation.operationId === TOKEN_OPERATION };
}
