import { authorize, AuthorizationError, type Actor, type BearerOperationId } from '../auth/authorize.js';
import type { TokenService } from '../auth/tokens.js';
import type { ApiRequestState } from './request-state.js';
import { problemReply, type Reply } from './reply.js';

export const BEARER_SCHEME = 'OAuth2';

/** The bearer scheme: authenticates the request's token, then authorizes the operation (AuthorizationError if not). */
export async function bearerActor(tokens: TokenService, operationId: string, state: ApiRequestState): Promise<Actor> {
  const info = state.requestInfo;
  const principal = await tokens.authenticate(info.headers.authorization);
  // The request info is the origin: its address is worked out only when a use case records it (most reads never do).
  return authorize(principal, operationId as BearerOperationId, info);
}

function quoted(value: string): string {
  return `"${value.replace(/["\\]/g, '')}"`;
}

/**
 * The RFC 6750 section 3 challenge for a refused bearer token; `resource_metadata` lets MCP clients discover the
 * authorization server (RFC 9728). A request without a token gets no error code (RFC 6750 section 3.1).
 */
export function bearerChallenge(error: AuthorizationError, baseUrl: string): string {
  const params = [`realm=${quoted('investment-automation')}`, `resource_metadata=${quoted(`${baseUrl}/.well-known/oauth-protected-resource`)}`];
  if (error.kind !== 'missing') params.push(`error=${quoted(error.kind)}`, `error_description=${quoted(error.description)}`);
  if (error.requiredScope) params.push(`scope=${quoted(error.requiredScope)}`);
  return `Bearer ${params.join(', ')}`;
}

/** 401 (no or bad token) or 403 (missing scope) with the challenge and a problem body. */
export function authorizationReply(error: AuthorizationError, baseUrl: string): Reply {
  const headers = { 'WWW-Authenticate': bearerChallenge(error, baseUrl) };
  if (error.kind === 'insufficient_scope') {
    return problemReply('insufficient-scope', baseUrl, { detail: error.description, extensions: { required_scope: error.requiredScope }, headers });
  }
  return problemReply('unauthorized', baseUrl, { detail: error.description, headers });
}
