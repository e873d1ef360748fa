import type { RequestHandler } from 'express';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { OpenAPIBackend, type Context, type Document, type Operation } from 'openapi-backend';
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
  const api = new OpenAPI31Backend({
    definition: structuredClone(document),
    strict: true,
    validate: true,
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
      const allowed = api.router
        .getOperations()
        .filter((op: Operation) => new RegExp(`^${op.path.replace(/\{[^}]+\}/g, '[^/]+')}/?$`).test(context.request.path))
        .map((op: Operation) => op.method.toUpperCase());
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
      const apiRequest = { method: req.method, path: req.path, query: req.query as Record<string, string>, headers: req.headers as Record<string, string> };
      try {
        operation = api.router.matchOperation(apiRequest, true);
      } catch {
        operation = undefined;
      }
      // Every answer here is JSON (problems too): a client that accepts neither gets a 406, itself in JSON.
      if (operation && req.headers.accept && !req.accepts(['application/json', 'application/problem+json'])) {
        throw new ProblemError('not-acceptable', `Responses are application/json (errors application/problem+json); the Accept header "${req.headers.accept}" allows neither.`);
      }
      const body = operation ? parseBody(req.body as Buffer | undefined, req.headers['content-type'], declaredBody(operation)) : undefined;
      reply = (await api.handleRequest({ ...apiRequest, body }, req, state)) as Reply;
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
