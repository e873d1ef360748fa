import type { SigningKey } from '../auth/keys.js';
import { SCOPES, type TokenService } from '../auth/tokens.js';
import { OAuthError } from '../problems.js';
import type { ClientService } from './clients.js';

/** A client's id and secret as it authenticates with HTTP Basic. */
export interface ClientCredentials {
  id: string;
  secret: string;
}

export interface TokenRequestForm {
  grant_type?: string;
  scope?: string;
  client_id?: string;
  client_secret?: string;
  resource?: string;
}

/** Where the MCP server is mounted under the base URL: also one of the resource identifiers of this service. */
export const MCP_PATH = '/mcp';

/** A URI as compared for RFC 8707: serialized, one trailing slash aside; null when it is not absolute or has a fragment. */
function comparableResource(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.hash || value.includes('#')) return null;
  return url.href.replace(/\/$/, '');
}

/**
 * RFC 8707: the resource identifiers that name this service. The base URL is the `resource` of the protected
 * resource metadata (what the MCP SDK sends); the MCP endpoint's own URL is what MCP clients without that
 * metadata send. Both name one protected resource, so tokens carry one audience (the base URL) whichever is asked.
 */
function checkResource(resource: string | undefined, baseUrl: string): void {
  if (resource === undefined) return;
  const asked = comparableResource(resource);
  const ours = [baseUrl, `${baseUrl}${MCP_PATH}`].map(comparableResource);
  if (asked === null) throw new OAuthError('invalid_target', 'resource must be an absolute URI without a fragment (RFC 8707).');
  if (!ours.includes(asked))
    throw new OAuthError(
      'invalid_target',
      `resource "${resource}" is not served here; this service is ${baseUrl} (or ${baseUrl}${MCP_PATH}).`,
    );
}

function authorizationServerMetadata(baseUrl: string) {
  return {
    issuer: baseUrl,
    token_endpoint: `${baseUrl}/oauth/token`,
    jwks_uri: `${baseUrl}/.well-known/jwks.json`,
    grant_types_supported: ['client_credentials'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    response_types_supported: [],
    scopes_supported: [...SCOPES],
    service_documentation: `${baseUrl}/docs`,
  };
}

function protectedResourceMetadata(baseUrl: string, resourceSigningAlg: string) {
  return {
    resource: baseUrl,
    authorization_servers: [baseUrl],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_documentation: `${baseUrl}/docs`,
    resource_signing_alg_values_supported: [resourceSigningAlg],
  };
}

/** The authorization server: the token endpoint and its discovery documents. */
export class OAuthService {
  constructor(
    private readonly baseUrl: string,
    private readonly clients: ClientService,
    private readonly tokens: TokenService,
    private readonly signingKey: SigningKey,
  ) {}

  /**
   * RFC 6749 section 4.4 with OAuth 2.1 client authentication: HTTP Basic (`basic`, as the channel read it) or
   * client_secret_post, never both.
   */
  async issueToken(form: TokenRequestForm, basic: ClientCredentials | null) {
    const posted = form.client_id !== undefined || form.client_secret !== undefined;
    if (basic && posted)
      throw new OAuthError('invalid_request', 'Authenticate with HTTP Basic or with client_id and client_secret in the body, not both.');
    if (!form.grant_type) throw new OAuthError('invalid_request', 'grant_type is required.');
    const credentials = basic ?? (posted ? { id: form.client_id ?? '', secret: form.client_secret ?? '' } : null);
    if (!credentials || !credentials.id || !credentials.secret) {
      throw new OAuthError('invalid_client', 'Client authentication is required (HTTP Basic or client_secret_post).');
    }
    const client = await this.clients.authenticate(credentials.id, credentials.secret);
    if (!client) throw new OAuthError('invalid_client', 'The client is unknown, revoked, or the secret is wrong.');
    if (form.grant_type !== 'client_credentials') {
      throw new OAuthError('unsupported_grant_type', `grant_type "${form.grant_type}" is not supported; use client_credentials.`);
    }
    checkResource(form.resource, this.baseUrl);
    const allowed = client.scopes.split(' ');
    const requested = form.scope === undefined ? allowed : [...new Set(form.scope.split(' ').filter(Boolean))];
    if (requested.length === 0) throw new OAuthError('invalid_scope', 'scope must name at least one scope.');
    const unknown = requested.filter((s) => !(SCOPES as readonly string[]).includes(s));
    if (unknown.length > 0) throw new OAuthError('invalid_scope', `Unknown scope ${unknown.join(', ')}; scopes are ${SCOPES.join(', ')}.`);
    const beyond = requested.filter((s) => !allowed.includes(s));
    if (beyond.length > 0)
      throw new OAuthError('invalid_scope', `This client may not request ${beyond.join(', ')}; it holds ${allowed.join(' ')}.`);
    return this.tokens.issue(client, requested);
  }

  authorizationServerMetadata() {
    return authorizationServerMetadata(this.baseUrl);
  }

  protectedResourceMetadata() {
    return protectedResourceMetadata(this.baseUrl, this.signingKey.alg);
  }

  jsonWebKeySet() {
    return { keys: [this.signingKey.publicJwk] };
  }
}
