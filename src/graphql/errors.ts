import { GraphQLError, type ExecutionResult } from 'graphql';
import { classifyAndLog, documentOf, retryAfterSeconds } from '../application/failures.js';
import type { ContractOperation } from '../contract/operations.js';
import type { ProblemError, ProblemSlug } from '../problems.js';
import type { GraphQLContext } from './context.js';

/** `extensions.code`: the problem type's slug in upper snake case (`insufficient-scope` → `INSUFFICIENT_SCOPE`). */
export const problemCode = (slug: ProblemSlug): string => slug.toUpperCase().replace(/-/g, '_');

/** A GraphQL error's message and extensions, as JSON (what a key stores for a field that failed). */
export interface FieldError {
  message: string;
  extensions: Record<string, unknown>;
}

/**
 * The one place a failed field becomes a GraphQL error: `extensions` hold the problem REST answers for the same
 * failure (validation pointers into the field's arguments), plus `code`, and `retry_after` (seconds) where REST sends
 * `Retry-After`; nothing internal leaves the process.
 */
export function fieldError(problem: ProblemError, baseUrl: string, operation?: ContractOperation): FieldError {
  const { type, title, status, detail, ...own } = documentOf(problem, baseUrl, 'graphql', operation);
  const retryAfter = retryAfterSeconds(problem);
  return {
    message: detail ?? title,
    extensions: {
      code: problemCode(problem.slug),
      type,
      title,
      status,
      detail: detail ?? title,
      ...own,
      ...(retryAfter !== undefined ? { retry_after: retryAfter } : {}),
    },
  };
}

/**
 * Errors raised while executing that no resolver classified (a value a leaf type cannot serialize, say) would
 * carry an internal message: they become internal-error problems, logged, at the same place in the response.
 */
export function classifyExecutionErrors(result: ExecutionResult, context: GraphQLContext): ExecutionResult | undefined {
  if (!result.errors?.some((e) => e.extensions.code === undefined)) return undefined;
  const errors = result.errors.map((error) => {
    if (error.extensions.code !== undefined) return error;
    const { message, extensions } = fieldError(classifyAndLog(error.originalError ?? error, context.log).problem, context.baseUrl);
    return new GraphQLError(message, { nodes: error.nodes, path: error.path, extensions });
  });
  return { ...result, errors };
}
