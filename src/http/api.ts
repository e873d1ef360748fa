import type { RequestHandler } from 'express';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { OpenAPIBackend, OpenAPIValidator, type Context, type Document, type Operation } from 'openapi-backend';
import type { Logger } from 'pino';
import type { HandlerRegistry, RequestInfo } from '../../handlers/types.js';
import { AuthorizationError, type Actor } from '../auth/authorize.js';
import { OAuthError, ProblemError } from '../problems.js';
import { challengeHeaderProblem } from '../services/challenges.js';
import type { Services } from '../services/index.js';
import { authorizationFailure, authorizationReply, BEARER_SCHEME, bearerSecurityHandler } from './auth.js';
import { parseBody } from './body.js';
import { errorToReply } from './errors.js';
import { problemReply, sendReply, type Reply } from './reply.js';
import { RouteTable } from './routes.js';
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

function ajvFor2020(_ajv: unknown, options: object) {
  const ajv = new Ajv2020.default({ ...options, strict: false, allErrors: true, validateFormats: true });
  addFormats.default(ajv);
  return ajv as never;
}

export interface ApiRequestState {
  requestInfo: RequestInfo;
  log: Logger;
}

export async function createApiMiddleware(document: Document, services: Services, handlers: HandlerRegistry, baseUrl: string): Promise<RequestHandler> {
  // The validator is built below, after init: openapi-backend's own compiles a validator for every response and
  // response header too (about 2 s of CPU per process start), which only tests of responses would use.
  const api = new OpenAPI31Backend({
    definition: structuredClone(document),
    strict: true,
    validate: false,
    coerceTypes: true,
    customizeAjv: ajvFor2020,
    ajvOpts: { allErrors: true },
  });

  const operationHandlers = Object.fromEntries(
    Object.entries(handlers).map(([operationId, handler]) => [
      operationId,
      async (context: Context, _req: unknown, state: ApiRequestState): Promise<Reply> => {
        const security = context.security?.[BEARER_SCHEME] as Actor | { error: unknown } | undefined;
        const actor = security && !('error' in security) ? security : null;
        const result = await (handler as (c: unknown) => Promise<Reply>)({
          body: context.request.requestBody,
          path: context.request.params ?? {},
          query: context.request.query ?? {},
          actor,
          request: state.requestInfo,
          services,
        });
        return { ...result, contentType: 'application/json' };
      },
    ]),
  );

  api.register({
    ...operationHandlers,
    notFound: (context: Context) =>
      problemReply('not-found', baseUrl, { detail: `There is no resource at ${context.request.path}.` }),
    methodNotAllowed: (context: Context) => {
      const match = routes.match(context.request.method, context.request.path);
      const allowed = match.kind === 'method-not-allowed' ? match.allowed : [];
      return problemReply('method-not-allowed', baseUrl, {
        detail: `${context.request.method.toUpperCase()} is not allowed here; use ${allowed.join(', ')}.`,
        headers: { Allow: allowed.join(', ') },
      });
    },
    validationFail: (context: Context) => {
      const body = Object.values((context.operation.requestBody as { content?: Record<string, { schema?: { required?: string[] } }> } | undefined)?.content ?? {})[0]?.schema;
      const errors = fieldErrors(context.validation.errors ?? [], body);
      // The proof-of-work header has problem types of its own (and is checked first: it is what anonymous writes cost).
      const challenge = errors.find((e) => e.pointer === CHALLENGE_HEADER);
      if (challenge) throw challengeHeaderProblem(challenge.detail === 'is required');
      if (context.operation.operationId === TOKEN_OPERATION) {
        throw new OAuthError('invalid_request', describeFieldErrors(errors));
      }
      return problemReply('validation-error', baseUrl, {
        detail: validationDetail(errors),
        extensions: { errors },
      });
    },
    unauthorizedHandler: (context: Context) => {
      const failure = authorizationFailure(context);
      if (!(failure instanceof AuthorizationError)) throw failure;
      return authorizationReply(failure, baseUrl);
    },
    // The registry has a handler for every operation (a missing one does not compile): reaching this is a wiring bug.
    notImplemented: (context: Context, _req: unknown, state: ApiRequestState) => {
      state.log.error({ operationId: context.operation?.operationId }, 'operation without a handler');
      return problemReply('internal-error', baseUrl, { detail: 'An unexpected error occurred; it has been logged.' });
    },
  });
  api.registerSecurityHandler(BEARER_SCHEME, bearerSecurityHandler(services.tokens) as never);
  await api.init();
  const validator = new OpenAPIValidator({ definition: api.definition, router: api.router, lazyCompileValidators: true, coerceTypes: true, customizeAjv: ajvFor2020, ajvOpts: { allErrors: true } });
  validator.preCompileRequestValidators();
  api.validator = validator;
  api.validate = true;

  // openapi-backend's router rebuilds every operation object through lodash on each getOperations() call, and
  // handleRequest matches the route again after this middleware did: together most of a light request's CPU. Both
  // are fixed here through the router's public object (no patch to the package): the operation list is computed
  // once, and a request matched here carries its match into handleRequest (an upstream fix would memoise
  // getOperations per definition and accept a pre-matched operation).
  const operations = api.router.getOperations();
  api.router.getOperations = () => operations;
  const routes = new RouteTable(operations);
  const matched = new WeakMap<object, Operation>();
  api.router.matchOperation = ((request: { method: string; path: string }, strict?: boolean) => {
    const known = matched.get(request);
    if (known) return known;
    const match = routes.match(request.method, request.path);
    if (match.kind === 'operation') return match.operation;
    if (!strict) return undefined;
    throw new Error(match.kind === 'not-found' ? '404-notFound: no route matches request' : '405-methodNotAllowed: this method is not registered for the route');
  }) as typeof api.router.matchOperation;
  // handleRequest parses a request twice (before and after routing) and the validator a third time; a matched
  // request is parsed once, and each caller gets its own copy of what the validator coerces in place.
  const parseRequest = api.router.parseRequest.bind(api.router);
  const parsed = new WeakMap<object, ReturnType<typeof parseRequest>>();
  api.router.parseRequest = ((request: object, operation?: Operation) => {
    const known = matched.get(request);
    if (!known || (operation && operation !== known)) return parseRequest(request as never, operation);
    let value = parsed.get(request);
    if (!value) parsed.set(request, (value = parseRequest(request as never, known)));
    return { ...value, params: { ...value.params }, query: { ...value.query } };
  }) as typeof api.router.parseRequest;

  return async (req, res) => {
    const state = (res.locals as { api: ApiRequestState }).api;
    const instance = req.path;
    let reply: Reply;
    let operation: Operation | undefined;
    try {
      try {
        decodeURIComponent(req.path);
      } catch {
        throw new ProblemError('malformed-request', 'The URL path is not valid percent-encoded UTF-8.');
      }
      const match = routes.match(req.method, req.path);
      operation = match.kind === 'operation' ? match.operation : undefined;
      // Every answer here is JSON (problems too): a client that accepts neither gets a 406, itself in JSON.
      if (operation && req.headers.accept && !req.accepts(['application/json', 'application/problem+json'])) {
        throw new ProblemError('not-acceptable', `Responses are application/json (errors application/problem+json); the Accept header "${req.headers.accept}" allows neither.`);
      }
      const body = operation ? parseBody(req.body as Buffer | undefined, req.headers['content-type'], declaredBody(operation)) : undefined;
      const apiRequest = { method: req.method, path: req.path, query: req.query as Record<string, string>, headers: req.headers as Record<string, string>, body };
      if (operation) matched.set(apiRequest, operation);
      reply = (await api.handleRequest(apiRequest, req, state)) as Reply;
    } catch (error) {
      reply = errorToReply(error, baseUrl, state.log, operation);
    }
    if (reply.contentType === 'application/problem+json' && reply.body && typeof reply.body === 'object') {
      reply.body = { ...(reply.body as object), instance, request_id: state.requestInfo.id };
    }
    sendReply(res, reply);
  };
}

function declaredBody(operation: Operation) {
  const content = (operation.requestBody as { content?: Record<string, unknown> } | undefined)?.content ?? {};
  return { mediaTypes: Object.keys(content), isTokenEndpoint: operation.operationId === TOKEN_OPERATION };
}
