import { GraphQLError, type ExecutionResult } from 'graphql';
import { AuthorizationError } from '../auth/authorize.js';
import type { ContractOperation } from '../contract/operations.js';
import { problemDocument, ProblemError, type ProblemSlug } from '../problems.js';
import { classifyError, InvalidInputError } from '../services/errors.js';
import type { GraphQLContext } from './context.js';

/** `extensions.code`: the problem type's slug in upper snake case (`insufficient-scope` → `INSUFFICIENT_SCOPE`). */
export const problemCode = (slug: ProblemSlug): string => slug.toUpperCase().replace(/-/g, '_');

const escapePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** A use case's field as a pointer into the GraphQL field's arguments: a parameter is `/name`, the body `/input/...`. */
function pointerOf(field: string, operation: ContractOperation | undefined): string {
  if (operation?.parameters.some((p) => p.name === field)) return `/${escapePointer(field)}`;
  return ['', 'input', ...(field === '' ? [] : field.split('/'))].map(escapePointer).join('/');
}

function problemOf(error: unknown, context: GraphQLContext): ProblemError {
  if (error instanceof AuthorizationError) {
    return error.kind === 'insufficient_scope'
      ? new ProblemError('insufficient-scope', error.description, { required_scope: error.requiredScope })
      : new ProblemError('unauthorized', error.description);
  }
  const { problem, log } = classifyError(error);
  if (log !== 'none') context.log[log]({ err: error, problem: problem.slug }, problem.slug === 'internal-error' ? 'unhandled error' : 'request failed');
  return problem;
}

/**
 * The one place a failed field becomes a GraphQL error: `extensions` hold the problem REST answers for the same
 * failure (classified by `classifyError`), plus `code`; nothing internal leaves the process.
 */
export function fieldError(error: unknown, context: GraphQLContext, operation?: ContractOperation): GraphQLError {
  const problem = problemOf(error, context);
  const members =
    problem instanceof InvalidInputError
      ? { ...problem.extensions, errors: problem.fields.map((f) => ({ pointer: pointerOf(f.field, operation), detail: f.detail })) }
      : problem.extensions;
  const { type, title, status, detail, ...own } = problemDocument(problem.slug, context.baseUrl, { detail: problem.detail, extensions: members });
  const retryAfter = problem.headers['Retry-After'];
  return new GraphQLError(detail ?? title, {
    extensions: { code: problemCode(problem.slug), type, title, status, detail: detail ?? title, ...own, ...(retryAfter ? { retry_after: Number(retryAfter) } : {}) },
  });
}

/**
 * Errors raised while executing that no resolver classified (a value a leaf type cannot serialize, say) would
 * carry an internal message: they become internal-error problems, logged, at the same place in the response.
 */
export function classifyExecutionErrors(result: ExecutionResult, context: GraphQLContext): ExecutionResult | undefined {
  if (!result.errors?.some((e) => e.extensions.code === undefined)) return undefined;
  const errors = result.errors.map((error) => {
    if (error.extensions.code !== undefined) return error;
    const { message, extensions } = fieldError(error.originalError ?? error, context);
    return new GraphQLError(message, { nodes: error.nodes, path: error.path, extensions });
  });
  return { ...result, errors };
}
