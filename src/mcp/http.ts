import type { Request, RequestHandler, Response } from 'express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { authorize, AuthorizationError } from '../auth/authorize.js';
import type { Principal } from '../auth/principal.js';
import type { ApiRequestState } from '../http/request-state.js';
import { parseBody } from '../http/body.js';
import { errorToReply } from '../http/errors.js';
import { problemReply, ReplyError, sendReply, type Reply } from '../http/reply.js';
import { ProblemError } from '../problems.js';
import type { Services } from '../services/index.js';
import { originGuard } from './origin.js';
import type { McpCatalogue, McpCaller } from './server.js';

const JSON_BODY = { mediaTypes: ['application/json'], isTokenEndpoint: false };

const MCP_SCOPE = 'mcp';

/**
 * The MCP revision this server speaks (2025-06-18, and later ones) removed JSON-RPC batching. The SDK's transport
 * would still run up to 100 messages of an array body in one request; here an array is refused as the transport
 * refuses any request it cannot take: HTTP 400 with a JSON-RPC error that has no id.
 */
const BATCH_REFUSED: Reply = {
  status: 400,
  contentType: 'application/json',
  body: {
    jsonrpc: '2.0',
    id: null,
    error: {
      code: -32600,
      message:
        'Invalid Request: JSON-RPC batches are not supported (MCP 2025-06-18 removed batching); send one JSON-RPC message per HTTP request.',
    },
  },
};

class BatchRefused extends Error {}

/**
 * The caller of a request, or the 401 REST would answer, plus `scope="mcp"`: MCP clients request the scope a
 * challenge names (else every scope the metadata lists, which a least-privileged client may not hold).
 */
async function authenticate(services: Services, authorization: string | undefined): Promise<Principal> {
  let principal: Principal | null;
  try {
    principal = await services.tokens.authenticate(authorization);
  } catch (error) {
    if (error instanceof AuthorizationError) throw new AuthorizationError(error.kind, error.description, MCP_SCOPE);
    throw error;
  }
  if (!principal) throw new AuthorizationError('missing', 'The MCP server requires a bearer access token.', MCP_SCOPE);
  return principal;
}

/**
 * Everything the HTTP layer decides before a JSON-RPC message reaches the MCP server: only POST (stateless
 * Streamable HTTP has no stream to GET and no session to DELETE), a valid token holding `mcp`, the media types the
 * transport speaks, and the scopes of the tool or resource a request names, so that a missing scope is an HTTP
 * 403 with its `WWW-Authenticate` challenge as the MCP authorization specification asks (clients step up on it).
 */
async function admit(
  req: Request,
  services: Services,
  catalogue: McpCatalogue,
  state: ApiRequestState,
  body: () => Promise<Buffer | undefined>,
): Promise<{ caller: McpCaller; message: unknown }> {
  if (req.method !== 'POST') {
    const detail = `${req.method} is not allowed here; the MCP server is stateless and answers POST only.`;
    throw new ReplyError(problemReply('method-not-allowed', catalogue.baseUrl, { detail, headers: { Allow: 'POST' } }));
  }
  const principal = await authenticate(services, req.headers.authorization);
  if (!principal.scopes.has(MCP_SCOPE))
    throw new AuthorizationError('insufficient_scope', `The MCP server requires the scope "${MCP_SCOPE}".`, MCP_SCOPE);
  const accept = req.headers.accept ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
    throw new ProblemError('not-acceptable', 'MCP clients must accept both application/json and text/event-stream (Streamable HTTP).');
  }
  // Read once the token and the media types are known, within the limit.
  const message = parseBody(await body(), req.headers['content-type'], JSON_BODY);
  if (message === undefined) throw new ProblemError('malformed-request', 'The request body must be a JSON-RPC message.');
  if (Array.isArray(message)) throw new BatchRefused();
  const { ip, userAgent } = state.requestInfo;
  const key = req.headers['idempotency-key'];
  const caller: McpCaller = {
    principal,
    origin: { ip, userAgent },
    requestId: state.requestInfo.id,
    traceId: state.requestInfo.traceId,
    log: state.log,
    key: typeof key === 'string' ? key : undefined,
  };
  const operationId = catalogue.operationOf(message);
  if (operationId) authorize(principal, operationId, caller.origin, 'mcp');
  return { caller, message };
}

/**
 * `/mcp`: Model Context Protocol over stateless Streamable HTTP, a new server and transport per request. The
 * Origin (and, on localhost, Host) check comes first: a refused page costs no token verification.
 */
export function mcpHandler(
  services: Services,
  catalogue: McpCatalogue,
  allowedOrigins: readonly string[],
  readBody: (req: Request, res: Response) => Promise<Buffer | undefined>,
): RequestHandler {
  const checkOrigin = originGuard(catalogue.baseUrl, allowedOrigins);
  return async (req, res) => {
    const state = (res.locals as { api: ApiRequestState }).api;
    let admitted;
    try {
      const refused = checkOrigin(req.headers);
      if (refused) throw refused;
      admitted = await admit(req, services, catalogue, state, () => readBody(req, res));
    } catch (error) {
      sendReply(res, error instanceof BatchRefused ? BATCH_REFUSED : errorToReply(error, catalogue.baseUrl, state.log));
      return;
    }
    // A replayed tool result says so as REST's replays do (set before the transport writes its answer).
    const server = catalogue.server(services, { ...admitted.caller, onReplay: () => res.setHeader('Idempotent-Replayed', 'true') });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, admitted.message);
    } catch (error) {
      if (!res.headersSent) sendReply(res, errorToReply(error, catalogue.baseUrl, state.log));
      else state.log.error({ err: error }, 'MCP request failed after its response started');
    }
  };
}
