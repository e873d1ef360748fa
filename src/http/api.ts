import type { Request, RequestHandler, Response } from 'express';
import { OpenAPIBackend, type Document } from 'openapi-backend';
import { checkAnonymous } from '../application/people.js';
import type { Outcome, Pipeline, Present } from '../application/pipeline.js';
import type { BearerOperationId } from '../auth/authorize.js';
import type { ContractOperation } from '../contract/operations.js';
import { serializerOf } from '../contract/serializers.js';
import { OAuthError, ProblemError } from '../problems.js';
import { InvalidInputError, type FieldProblem } from '../services/errors.js';
import type { Services } from '../services/index.js';
import { MALFORMED_PATH, parseBody } from './body.js';
import { readBodyLimited } from './body-limit.js';
import { DeprecationNotices } from './deprecation.js';
import { errorToReply, problemToReply } from './errors.js';
import type { AnonymousHandlers, SuccessShapes } from './handler-types.js';
import { quotaHeaders } from './rate-limit-replies.js';
import { problemReply, sendReply, tokenEndpointReply, type Reply } from './reply.js';
import type { ApiRequestState } from './request-state.js';
import { RouteTable } from './routes.js';

const TOKEN_OPERATION = 'issueToken';

/**
 * The REST channel. openapi-backend supplies the operation list, through its public face: `quick` (its definition check
 * is of OpenAPI 3.0 and refuses a valid 3.1 document; `redocly lint` is the judge of the spec here) and `validate:
 * false` (the contract's one validator checks every channel's input: src/contract/operations.ts), and `getOperations()`
 * called once — its router rebuilds every operation object on each call, and its `handleRequest` matches twice and
 * parses three times, on the path of every light read. Each request then runs one straight path here: one route match
 * (RouteTable), 406, and for a bearer operation the application's pipeline (the token authenticated first; its scopes,
 * the body — read only once the caller is authorized — the validation, the key and the use case in the pipeline); an
 * anonymous operation validates and runs its handler.
 */
export async function createApiMiddleware(
  document: Document,
  services: Services,
  pipeline: Pipeline,
  handlers: AnonymousHandlers,
  shapes: SuccessShapes,
  baseUrl: string,
  bodyLimitBytes = 100 * 1024,
): Promise<RequestHandler & { routes: RouteTable; rawBody: RequestHandler }> {
  // The body of the paths this channel reads itself (/v1, after the bearer token; app.ts leaves them unread), and of
  // every other path, read first by app.ts (`rawBody`): within the limit, never beyond it (body-limit.ts).
  const readBody = (req: Request, res: Response): Promise<Buffer | undefined> => readBodyLimited(req, res, bodyLimitBytes);
  const rawBody: RequestHandler = (req, res, next) => {
    readBodyLimited(req, res, bodyLimitBytes).then(() => next(), next);
  };
  const backend = new OpenAPIBackend({ definition: structuredClone(document), quick: true, validate: false, ignoreTrailingSlashes: false });
  await backend.init();
  const routes = new RouteTable(backend.router.getOperations());
  const { contract } = pipeline;
  contract.precompile();
  const deprecations = new DeprecationNotices(contract, baseUrl, new Date().toISOString().slice(0, 10));

  /** Path, query and headers as text (validation coerces them), and the body, once the caller may send it. */
  const inputOf = async (req: Request, res: Response, operation: ContractOperation) => {
    const path = routes.pathParams(operation, req.path);
    const query = req.query as Record<string, unknown>;
    const strict = strictIntegers(operation, path, query);
    if (strict.length) throw new InvalidInputError(strict);
    // A body on GET or HEAD has no meaning (RFC 9110 section 9.3.1): it is ignored, never parsed.
    const body =
      req.method === 'GET' || req.method === 'HEAD'
        ? undefined
        : parseBody(await readBody(req, res), req.headers['content-type'], declaredBody(operation));
    return { path, query, header: req.headers as Record<string, unknown>, body };
  };

  /** An outcome as REST answers it: the contract's success status and body (or a special one's), or the problem. */
  const present: Present<BearerOperationId> = (outcome: Outcome<BearerOperationId>, operation) => {
    if (!outcome.ok) return problemToReply(outcome.problem, baseUrl, operation, outcome.authorization);
    const shape = shapes[operation.operationId as BearerOperationId] as
      ((value: unknown) => { status?: number; headers?: Record<string, string> }) | undefined;
    const shaped = shape?.(outcome.value);
    // The CPU budget's state joins the route limit's in RateLimit and RateLimit-Policy (when its store could say).
    const quota = outcome.quota ? quotaHeaders([outcome.quota]) : undefined;
    const status = shaped?.status ?? operation.success!.status;
    return {
      status,
      body: outcome.value,
      text: status === operation.success!.status ? serializerOf(contract, operation.operationId)?.(outcome.value) : undefined,
      headers: quota || shaped?.headers ? { ...quota, ...shaped?.headers } : undefined,
    };
  };

  const anonymous = async (req: Request, res: Response, state: ApiRequestState, operation: ContractOperation): Promise<Reply> => {
    const read = await inputOf(req, res, operation);
    let input;
    try {
      input = checkAnonymous(contract, operation.operationId, read, { text: true });
    } catch (error) {
      if (!(error instanceof InvalidInputError) || operation.operationId !== TOKEN_OPERATION) throw error;
      throw new OAuthError(
        'invalid_request',
        describeFieldErrors(problemToReply(error, baseUrl, operation).body as { errors: { pointer: string; detail: string }[] }),
      );
    }
    const handler = (handlers as unknown as Record<string, (c: unknown) => Promise<Reply>>)[operation.operationId]!;
    return handler({ body: input.body, path: read.path, query: input.query, request: state.requestInfo, services });
  };

  const handle = async (req: Request, res: Response, state: ApiRequestState, at: { operation?: ContractOperation }): Promise<Reply> => {
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
    const operation = (at.operation = contract.operation(match.operation.operationId!));
    state.route = operation.path;
    // Every answer here is JSON (problems too): a client that accepts neither gets a 406, itself in JSON.
    if (req.headers.accept && !req.accepts(['application/json', 'application/problem+json'])) {
      const errors = operation.operationId === TOKEN_OPERATION ? 'RFC 6749 application/json' : 'application/problem+json';
      throw new ProblemError(
        'not-acceptable',
        `Responses are application/json (errors ${errors}); the Accept header "${req.headers.accept}" allows neither.`,
      );
    }
    if (!operation.bearer) return anonymous(req, res, state, operation);
    const key = req.headers['idempotency-key'];
    const { answer, replayed } = await pipeline.run(
      services,
      {
        operationId: operation.operationId as BearerOperationId,
        channel: 'rest',
        principal: await services.tokens.authenticate(req.headers.authorization),
        // The request info is the origin: its address is worked out only when a use case records it (most reads never do).
        origin: state.requestInfo,
        log: state.log,
        input: () => inputOf(req, res, operation),
        text: true,
        key: typeof key === 'string' ? key : undefined,
      },
      present,
    );
    return replayed ? { ...answer, headers: { ...answer.headers, 'Idempotent-Replayed': 'true' } } : answer;
  };

  const middleware: RequestHandler = async (req, res) => {
    const state = (res.locals as { api: ApiRequestState }).api;
    const at: { operation?: ContractOperation } = {};
    let reply: Reply;
    try {
      reply = await handle(req, res, state, at);
    } catch (error) {
      reply = errorToReply(error, baseUrl, state.log, at.operation);
    }
    if (reply.contentType === 'application/problem+json' && reply.status < 500 && isTokenEndpoint(routes, req.path))
      reply = tokenEndpointReply(reply);
    // A deprecated operation (or parameter the request uses) says so on every answer, its errors included.
    const deprecation = at.operation && deprecations.headersFor(at.operation, req);
    if (deprecation) reply = { ...reply, headers: { ...reply.headers, ...deprecation } };
    sendReply(res, reply);
  };
  return Object.assign(middleware, { routes, rawBody });
}

/** Whether a path is the token endpoint's, whatever the method (its 405 is answered in RFC 6749 terms too). */
export function isTokenEndpoint(routes: RouteTable, path: string): boolean {
  const match = routes.match('POST', path);
  return match.kind === 'operation' && match.operation.operationId === TOKEN_OPERATION;
}

/** Field errors as sentences, for the token endpoint's RFC 6749 `error_description`. */
function describeFieldErrors(problem: { errors: { pointer: string; detail: string }[] }): string {
  return problem.errors
    .map(({ pointer, detail }) => (pointer ? `${pointer.replace(/^\//, '')} ${detail}.` : `The ${detail.replace(/^a /, '')}.`))
    .join(' ');
}

const PLAIN_INTEGER = /^-?(0|[1-9][0-9]*)$/;

/**
 * Integer path and query parameters must be written as plain decimals: validation coerces `0x10`, `1e3`, ` 1` or `01`
 * into numbers, so one resource would answer to many spellings.
 */
function strictIntegers(operation: ContractOperation, path: Record<string, string>, query: Record<string, unknown>): FieldProblem[] {
  const errors: FieldProblem[] = [];
  for (const parameter of operation.parameters) {
    if (parameter.type !== 'integer') continue;
    const value = parameter.in === 'path' ? path[parameter.name] : query[parameter.name];
    if (typeof value === 'string' && !PLAIN_INTEGER.test(value))
      errors.push({
        field: parameter.name,
        in: parameter.in as 'path' | 'query',
        detail: 'must be an integer written as plain decimal digits',
      });
  }
  return errors;
}

function declaredBody(operation: ContractOperation) {
  return { mediaTypes: operation.mediaTypes, isTokenEndpoint: operation.operationId === TOKEN_OPERATION };
}
