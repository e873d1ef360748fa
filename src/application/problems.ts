import { problemTypes, type ProblemSlug } from '../../generated/problem-types.js';

export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  detail?: string;
  instance?: string;
  [extension: string]: unknown;
}

/**
 * The status a problem type declares in openapi/problem-types.yaml (REST's HTTP status; `status` in every channel's
 * document).
 */
export function statusOf(slug: ProblemSlug): number {
  return problemTypes[slug].status;
}

export function problemTypeUri(slug: ProblemSlug, baseUrl: string): string {
  const declared = problemTypes[slug] as { uri?: string };
  return declared.uri ?? `${baseUrl}/problems/${slug}`;
}

/** The RFC 9457 document of a problem type: what REST sends as its body, GraphQL in `extensions`, MCP as the text. */
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
