import type { Context } from 'openapi-backend';
import { InvalidTokenError, type Principal, type TokenService } from '../auth/tokens.js';
import { problemReply, type Reply } from './reply.js';

export const BEARER_SCHEME = 'OAuth2';

export class BearerAuthError extends Error {
  constructor(
    readonly kind: 'missing' | 'invalid_token' | 'insufficient_scope',
    readonly description: string,
    readonly requiredScope?: string,
  ) {
    super(description);
    this.name = 'BearerAuthError';
  }
}

/** The scope sets the operation's `security` in the spec accepts for the bearer scheme: any one set suffices. */
export function requiredScopeSets(context: Context): string[][] {
  const requirements = (context.operation.security ?? []) as Record<string, string[]>[];
  return requirements.filter((r) => BEARER_SCHEME in r).map((r) => r[BEARER_SCHEME] ?? []);
}

/** openapi-backend security handler for the bearer scheme: verifies the token, then the operation's declared scopes. */
export function bearerSecurityHandler(tokens: TokenService) {
  return async (context: Context): Promise<Principal> => {
    const header = context.request.headers.authorization;
    const value = Array.isArray(header) ? header[0] : header;
    if (!value) throw new BearerAuthError('missing', 'This operation requires a bearer access token.');
    const match = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i.exec(value.trim());
    if (!match) throw new BearerAuthError('invalid_token', 'The Authorization header must be "Bearer <access token>".');
    let principal: Principal;
    try {
      principal = await tokens.verify(match[1]!);
    } catch (error) {
      if (error instanceof InvalidTokenError) throw new BearerAuthError('invalid_token', error.message);
      throw error;
    }
    const sets = requiredScopeSets(context);
    if (sets.length > 0 && !sets.some((set) => set.every((scope) => principal.scopes.has(scope)))) {
      const needed = sets[0]!.join(' ');
      throw new BearerAuthError('insufficient_scope', `This operation requires the scope "${needed}".`, needed);
    }
    return principal;
  };
}

function quoted(value: string): string {
  return `"${value.replace(/["\\]/g, '')}"`;
}

/** RFC 6750 section 3 challenge plus a problem body; `resource_metadata` lets MCP clients discover the server (RFC 9728). */
export function unauthorizedReply(context: Context, baseUrl: string): Reply {
  const result = context.security?.[BEARER_SCHEME] as { error?: unknown } | undefined;
  const error =
    result?.error instanceof BearerAuthError ? result.error : new BearerAuthError('missing', 'This operation requires a bearer access token.');
  const params = [`realm=${quoted('investment-automation')}`, `resource_metadata=${quoted(`${baseUrl}/.well-known/oauth-protected-resource`)}`];
  if (error.kind !== 'missing') params.push(`error=${quoted(error.kind)}`, `error_description=${quoted(error.description)}`);
  if (error.requiredScope) params.push(`scope=${quoted(error.requiredScope)}`);
  const headers = { 'WWW-Authenticate': `Bearer ${params.join(', ')}` };
  if (error.kind === 'insufficient_scope') {
    return problemReply('insufficient-scope', baseUrl, { detail: error.description, extensions: { required_scope: error.requiredScope }, headers });
  }
  return problemReply('unauthorized', baseUrl, { detail: error.description, headers });
}
