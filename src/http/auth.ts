import type { AuthorizationError } from '../auth/authorization-error.js';

function quoted(value: string): string {
  return `"${value.replace(/["\\]/g, '')}"`;
}

/**
 * The RFC 6750 section 3 challenge for a refused bearer token; `resource_metadata` lets MCP clients discover the
 * authorization server (RFC 9728). A request without a token gets no error code (RFC 6750 section 3.1).
 */
export function bearerChallenge(error: AuthorizationError, baseUrl: string): string {
  const params = [
    `realm=${quoted('investment-automation')}`,
    `resource_metadata=${quoted(`${baseUrl}/.well-known/oauth-protected-resource`)}`,
  ];
  if (error.kind !== 'missing') params.push(`error=${quoted(error.kind)}`, `error_description=${quoted(error.description)}`);
  if (error.requiredScope) params.push(`scope=${quoted(error.requiredScope)}`);
  return `Bearer ${params.join(', ')}`;
}
