import { problemTypes, type ProblemSlug } from '../generated/problem-types.js';

export type { ProblemSlug };

export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  detail?: string;
  instance?: string;
  [extension: string]: unknown;
}

/** A failure the client can act on. Services throw it; the HTTP edge turns it into a problem document. */
export class ProblemError extends Error {
  constructor(
    readonly slug: ProblemSlug,
    readonly detail?: string,
    readonly extensions: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(detail ?? problemTypes[slug].title);
    this.name = 'ProblemError';
  }

  get status(): number {
    return problemTypes[this.slug].status;
  }
}

export function problemTypeUri(slug: ProblemSlug, baseUrl: string): string {
  const declared = problemTypes[slug] as { uri?: string };
  return declared.uri ?? `${baseUrl}/problems/${slug}`;
}

export function problemDocument(
  slug: ProblemSlug,
  baseUrl: string,
  options: { detail?: string; instance?: string; extensions?: Record<string, unknown> } = {},
): ProblemDocument {
  const declared = problemTypes[slug];
  return {
    ...options.extensions,
    type: problemTypeUri(slug, baseUrl),
    title: declared.title,
    status: declared.status,
    ...(options.detail ? { detail: options.detail } : {}),
    ...(options.instance ? { instance: options.instance } : {}),
  };
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
