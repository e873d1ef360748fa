import type { Request, RequestHandler } from 'express';
import { createHandler, type Response as GraphQLHttpResponse } from 'graphql-http';
import { AuthorizationError } from '../auth/authorize.js';
import type { Contract } from '../contract/operations.js';
import type { ApiRequestState } from '../http/api.js';
import { errorToReply } from '../http/errors.js';
import { sendReply } from '../http/reply.js';
import type { Services } from '../services/index.js';
import type { GraphQLContext } from './context.js';
import { classifyExecutionErrors } from './errors.js';
import { limitRules, parseWithinLimits, validateWithinLimits } from './limits.js';
import { createGraphQLSchema } from './schema.js';

const JSON_RESPONSE = { 'content-type': 'application/json; charset=utf-8' };

/** One operation per request: a JSON array (a batch) is refused with a clear error rather than "Missing query". */
function refuseBatches(req: { method: string; body: unknown }): GraphQLHttpResponse | undefined {
  if (req.method !== 'POST' || typeof req.body !== 'string' || !req.body.trimStart().startsWith('[')) return undefined;
  const error = { message: 'Batched requests are not supported: send one GraphQL operation per request.', extensions: { code: 'BATCHING_NOT_SUPPORTED' } };
  return [JSON.stringify({ errors: [error] }), { status: 400, statusText: 'Bad Request', headers: JSON_RESPONSE }];
}

/**
 * GraphQL over HTTP at /graphql (graphql-http, the reference server). Every request is authenticated first, as
 * REST does: no or a bad token is a 401 problem with REST's `WWW-Authenticate` before anything is parsed or run
 * (introspection included). Each field then authorizes its own operation's scopes.
 */
export function graphqlHandler(services: Services, contract: Contract, baseUrl: string): RequestHandler {
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
      const context: GraphQLContext = { services, contract, principal, origin: { ip, userAgent }, log: state.log, baseUrl };
      const body = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
      const [text, init] = await handle({ method: req.method, url: req.originalUrl, headers: req.headers, body, raw: req, context });
      res.writeHead(init.status, init.statusText, init.headers).end(text);
    } catch (error) {
      const reply = errorToReply(error, baseUrl, state.log);
      reply.body = { ...(reply.body as object), instance: req.path, request_id: state.requestInfo.id };
      sendReply(res, reply);
    }
  };
}
