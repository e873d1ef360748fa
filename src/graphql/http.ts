import type { Request, RequestHandler } from 'express';
import { getOperationAST, parse } from 'graphql';
import { createHandler, type Response as GraphQLHttpResponse } from 'graphql-http';
import { AuthorizationError } from '../auth/authorize.js';
import type { Contract } from '../contract/operations.js';
import type { ApiRequestState } from '../http/request-state.js';
import { errorToReply } from '../http/errors.js';
import { fingerprint, transientStatus, type IdempotencyKeys } from '../http/idempotency.js';
import { sendReply, type Reply } from '../http/reply.js';
import { ProblemError } from '../problems.js';
import type { Services } from '../services/index.js';
import type { GraphQLContext } from './context.js';
import { classifyExecutionErrors } from './errors.js';
import { limitRules, parseWithinLimits, validateWithinLimits } from './limits.js';
import { createGraphQLSchema } from './schema.js';

const JSON_RESPONSE = { 'content-type': 'application/json; charset=utf-8' };
const KEY = /^[!-~]{1,255}$/;

/** A stored problem answer on its way out (it gets this request's instance and id, as any problem). */
class ProblemReply extends Error {
  reply!: Reply;
}

/** The request's query, variables and operation name when it asks for a mutation (what a key's fingerprint covers). */
function mutationRequest(body: string): { query: string; variables: unknown; operationName: unknown } | undefined {
  try {
    const params = JSON.parse(body) as { query?: unknown; variables?: unknown; operationName?: unknown };
    if (typeof params.query !== 'string') return undefined;
    const operation = getOperationAST(parse(params.query), typeof params.operationName === 'string' ? params.operationName : undefined);
    return operation?.operation === 'mutation' ? { query: params.query, variables: params.variables ?? null, operationName: params.operationName ?? null } : undefined;
  } catch {
    return undefined; // graphql-http answers what is wrong with it
  }
}

/** One operation per request: a JSON array (a batch) is refused with a clear error rather than "Missing query". */
function refuseBatches(req: { method: string; body: unknown }): GraphQLHttpResponse | undefined {
  if (req.method !== 'POST' || typeof req.body !== 'string' || !req.body.trimStart().startsWith('[')) return undefined;
  const error = { message: 'Batched requests are not supported: send one GraphQL operation per request.', extensions: { code: 'BATCHING_NOT_SUPPORTED' } };
  return [JSON.stringify({ errors: [error] }), { status: 400, statusText: 'Bad Request', headers: JSON_RESPONSE }];
}

/**
 * graphql-http refuses a request it cannot take at the HTTP level (a method, media type or Accept it does not speak)
 * with an empty body; here such a refusal is the problem document REST answers for the same status.
 */
function emptyRefusal(req: Request, status: number, headers: Record<string, string> | undefined): ProblemError {
  const allow = headers?.allow ?? 'GET, POST';
  if (status === 405) return new ProblemError('method-not-allowed', `${req.method} is not allowed here; use ${allow}.`, {}, { Allow: allow });
  if (status === 406) {
    return new ProblemError('not-acceptable', `Responses are application/graphql-response+json or application/json; the Accept header "${req.headers.accept ?? ''}" allows neither.`);
  }
  if (status === 415) {
    return new ProblemError('unsupported-media-type', `Send the GraphQL request as application/json (POST), or in the query string (GET)${req.headers['content-type'] ? `, not as ${req.headers['content-type']}` : ''}.`);
  }
  return new ProblemError('malformed-request', 'The GraphQL request could not be read.');
}

/**
 * GraphQL over HTTP at /graphql (graphql-http, the reference server). Every request is authenticated first, as
 * REST does: no or a bad token is a 401 problem with REST's `WWW-Authenticate` before anything is parsed or run
 * (introspection included). Each field then authorizes its own operation's scopes.
 */
export function graphqlHandler(services: Services, contract: Contract, baseUrl: string, idempotency: IdempotencyKeys): RequestHandler {
  const schema = createGraphQLSchema();
  const handle = createHandler<Request, GraphQLContext, GraphQLContext>({
    schema,
    context: (req) => req.context,
    parse: parseWithinLimits,
    validate: validateWithinLimits,
    validationRules: (_req, args) => limitRules(args.schema, args.document, args.variableValues, args.operationName),
    parseRequestParams: refuseBatches,
    onOperation: (req, _args, result) => classifyExecutionErrors(result, req.context),
  });

  return async (req, res) => {
    const state = (res.locals as { api: ApiRequestState }).api;
    try {
      const principal = await services.tokens.authenticate(req.headers.authorization);
      if (!principal) throw new AuthorizationError('missing', 'GraphQL requires a bearer access token.');
      const { ip, userAgent } = state.requestInfo;
      const body = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
      const run = async (bound: Services) => {
        const context: GraphQLContext = { services: bound, contract, principal, origin: { ip, userAgent }, log: state.log, baseUrl };
        return handle({ method: req.method, url: req.originalUrl, headers: req.headers, body, raw: req, context });
      };
      const key = req.headers['idempotency-key'];
      const mutation = typeof key === 'string' && req.method === 'POST' ? mutationRequest(body) : undefined;
      if (mutation) {
        if (!KEY.test(key as string)) throw new ProblemError('validation-error', 'The Idempotency-Key header must be 1 to 255 visible ASCII characters.', { errors: [{ pointer: '/header/idempotency-key', detail: 'must be 1 to 255 visible ASCII characters' }] });
        const request = { accountId: principal.accountId, clientId: principal.clientId, operationId: 'graphql', key: key as string, fingerprint: fingerprint('POST', '/graphql', mutation) };
        const reply = await idempotency.run(
          request,
          async (bound) => {
            const [text, init] = await run(bound);
            return { status: init.status, body: JSON.parse(text ?? 'null') as unknown, contentType: 'application/json' };
          },
          (error) => errorToReply(error, baseUrl, state.log),
          // A mutation whose result carries errors is refused as a whole: its effect is rolled back, its answer kept.
          (reply) => reply.status >= 400 || Boolean((reply.body as { errors?: unknown[] } | undefined)?.errors?.length),
          // An error whose problem is a 5xx or 429 (the assistant failed, the database is away) is not stored either:
          // a retry with the key runs the mutation again, as it would over REST.
          (reply) => transientStatus(reply) || Boolean((reply.body as { errors?: { extensions?: { status?: unknown } }[] } | undefined)?.errors?.some((e) => typeof e.extensions?.status === 'number' && transientStatus({ status: e.extensions.status }))),
        );
        if (reply.contentType === 'application/problem+json') throw Object.assign(new ProblemReply(), { reply });
        sendReply(res, reply);
        return;
      }
      const [text, init] = await run(services);
      if (!text && init.status >= 400) throw emptyRefusal(req, init.status, init.headers);
      res.writeHead(init.status, init.statusText, init.headers).end(text);
    } catch (error) {
      const reply = error instanceof ProblemReply ? error.reply : errorToReply(error, baseUrl, state.log);
      reply.body = { ...(reply.body as object), instance: req.path, request_id: state.requestInfo.id };
      sendReply(res, reply);
    }
  };
}
