import { problemTypes, type ProblemSlug } from '../generated/problem-types.js';

export type { ProblemSlug };

/**
 * A refusal the caller can act on, in the contract's vocabulary: its kind (`slug`, a problem type declared in
 * openapi/problem-types.yaml, so an undeclared one does not compile), a message (`detail`) and structured facts
 * (`extensions`: the failed checks, the conflicting state, the supported markets…), and when a retry may succeed
 * (`retryAfterMs`). Use cases throw it; it knows no transport: each adapter renders it once — REST as the type's
 * status, headers and a problem document, GraphQL as an error with the problem in `extensions`, MCP as an `isError`
 * result.
 */
export class ProblemError extends Error {
  constructor(
    readonly slug: ProblemSlug,
    readonly detail?: string,
    readonly extensions: Record<string, unknown> = {},
    readonly retryAfterMs?: number,
  ) {
    super(detail ?? problemTypes[slug].title);
    this.name = 'ProblemError';
  }
}

export const OAUTH_ERRORS = {
  invalid_request: 'oauth-invalid-request',
  invalid_client: 'oauth-invalid-client',
  unsupported_grant_type: 'oauth-unsupported-grant-type',
  invalid_scope: 'oauth-invalid-scope',
  unauthorized_client: 'oauth-unauthorized-client',
  invalid_target: 'oauth-invalid-target',
} as const satisfies Record<string, ProblemSlug>;

export type OAuthErrorCode = keyof typeof OAUTH_ERRORS;

/** An RFC 6749 section 5.2 (or RFC 8707) error of the token endpoint; its body is also a problem document. */
export class OAuthError extends Error {
  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
  ) {
    super(description);
    this.name = 'OAuthError';
  }

  get slug(): ProblemSlug {
    return OAUTH_ERRORS[this.code];
  }
}
