import type { Request, RequestHandler, Response } from 'express';
import { getOperationAST, Kind, OperationTypeNode, type DocumentNode, type SelectionSetNode } from 'graphql';
import { createHandler, type Response as GraphQLHttpResponse } from 'graphql-http';
import type { Pipeline } from '../application/pipeline.js';
import { AuthorizationError } from '../auth/authorize.js';
import { DEPRECATION_NOTICE_PATH } from '../contract/deprecation.js';
import { errorToReply } from '../http/errors.js';
import { sendBody } from '../http/compression.js';
import { problemReply, ReplyError, sendReply } from '../http/reply.js';
import type { ApiRequestState } from '../http/request-state.js';
import { ProblemError } from '../problems.js';
import type { Services } from '../services/index.js';
import type { GraphQLContext } from './context.js';
import { classifyExecutionErrors } from './errors.js';
import { limitRules, parseWithinLimits, validateWithinLimits } from './limits.js';
import { createGraphQLSchema } from './schema.js';

const JSON_RESPONSE = { 'content-type': 'application/json; charset=utf-8' };

/** The root fields a selection set runs (fragments followed; `__typename` is not a field that does anything). */
function rootFields(selectionSet: SelectionSetNode, document: DocumentNode, seen = new Set<string>()): number {
  let count = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) count += selection.name.value.startsWith('__') ? 0 : 1;
    else if (selection.kind === Kind.INLINE_FRAGMENT) count += rootFields(selection.selectionSet, document, seen);
    else if (!seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      const fragment = document.definitions.find((d) => d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === selection.name.value);
      if (fragment?.kind === Kind.FRAGMENT_DEFINITION) count += rootFields(fragment.selectionSet, document, seen);
    }
  }
  return count;
}

/**
 * How many mutation fields the request's document runs, or undefined when it runs no mutation (a query, or a
 * document graphql-http will refuse and explain itself).
 */
function mutationFields(body: string): number | undefined {
  try {
    const params = JSON.parse(body) as { query?: unknown; operationName?: unknown };
    if (typeof params.query !== 'string') return undefined;
    const document = parseWithinLimits(params.query);
    const operation = getOperationAST(document, typeof params.operationName === 'string' ? params.operationName : undefined);
    return operation?.operation === OperationTypeNode.MUTATION ? rootFields(operation.selectionSet, document) : undefined;
  } catch {
    return undefined; // graphql-http answers what is wrong with it
  }
}

/** One operation per request: a JSON array (a batch) is refused with a clear error rather than "Missing query". */
function refuseBatches(req: { method: string; body: unknown }): GraphQLHttpResponse | undefined {
  if (req.method !== 'POST' || typeof req.body !== 'string' || !req.body.trimStart().startsWith('[')) return undefined;
  const error = {
    message: 'Batched requests are not supported: send one GraphQL operation per request.',
    extensions: { code: 'BATCHING_NOT_SUPPORTED' },
  };
  return [JSON.stringify({ errors: [error] }), { status: 400, statusText: 'Bad Request', headers: JSON_RESPONSE }];
}

/**
 * graphql-http refuses a request it cannot take at the HTTP level (a method, media type or Accept it does not speak)
 * with an empty body; here such a refusal is the problem document REST answers for the same status.
 */
function emptyRefusal(req: Request, status: number, headers: Record<string, string> | undefined, baseUrl: string): unknown {
  const allow = headers?.allow ?? 'GET, POST';
  if (status === 405)
    return new ReplyError(
      problemReply('method-not-allowed', baseUrl, {
        detail: `${req.method} is not allowed here; use ${allow}.`,
        headers: { Allow: allow },
      }),
    );
  if (status === 406) {
    return new ProblemError(
      'not-acceptable',
      `Responses are application/graphql-response+json or application/json; the Accept header "${req.headers.accept ?? ''}" allows neither.`,
    );
  }
  if (status === 415) {
    const type = req.headers['content-type'];
    return new ProblemError(
      'unsupported-media-type',
      `Send the GraphQL request as application/json (POST), or in the query string (GET)${type ? `, not as ${type}` : ''}.`,
    );
  }
  return new ProblemError('malformed-request', 'The GraphQL request could not be read.');
}

/**
 * GraphQL over HTTP at /graphql (graphql-http, the reference server). Every request is authenticated first, as
 * REST does: no or a bad token is a 401 problem with REST's `WWW-Authenticate` before anything is parsed or run
 * (introspection included). Each root field then runs its operation through the application's pipeline. An
 * Idempotency-Key keys the one mutation field of its document (a keyed document of several mutations is refused:
 * which of them would the key's replay answer?); the key's own refusals (in use, reused) answer the request, and a
 * replay carries `Idempotent-Replayed: true`, as over REST.
 */
export function graphqlHandler(
  services: Services,
  pipeline: Pipeline,
  baseUrl: string,
  readBody: (req: Request, res: Response) => Promise<Buffer | undefined>,
): RequestHandler {
  const schema = createGraphQLSchema({ contract: pipeline.contract, noticeUrl: `${baseUrl}${DEPRECATION_NOTICE_PATH}` });
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
      // Read once the token is known (a huge body without one is 401, as over REST), within the limit.
      const body = (await readBody(req, res))?.toString('utf8') ?? '';
      const key = req.headers['idempotency-key'];
      const mutations = typeof key === 'string' && req.method === 'POST' ? mutationFields(body) : undefined;
      if (mutations !== undefined && mutations > 1) {
        throw new ProblemError(
          'malformed-request',
          `An Idempotency-Key keys one mutation, and this document runs ${mutations}: send each mutation in a request of its own, each with its own key.`,
        );
      }
      const context: GraphQLContext = {
        services,
        pipeline,
        principal,
        origin: { ip, userAgent },
        log: state.log,
        baseUrl,
        key: mutations === 1 ? (key as string) : undefined,
        replayed: false,
      };
      const [text, init] = await handle({ method: req.method, url: req.originalUrl, headers: req.headers, body, raw: req, context });
      if (context.keyRefusal) throw new ReplyError(context.keyRefusal);
      if (!text && init.status >= 400) throw emptyRefusal(req, init.status, init.headers, baseUrl);
      res.status(init.status).set({ ...init.headers, ...(context.replayed ? { 'idempotent-replayed': 'true' } : {}) });
      sendBody(req, res, text ?? '');
    } catch (error) {
      sendReply(res, errorToReply(error, baseUrl, state.log));
    }
  };
}
