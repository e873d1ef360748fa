import { GraphQLError } from 'graphql';
import type { Outcome, Present } from '../application/pipeline.js';
import type { BearerOperationId } from '../auth/authorize.js';
import type { ContractOperation } from '../contract/operations.js';
import { problemToReply } from '../http/errors.js';
import type { GraphQLContext } from './context.js';
import { fieldError, type FieldError } from './errors.js';

/** An argument's value with every `null` member left out: GraphQL's explicit null means "not given", as in REST. */
export function withoutNulls<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutNulls) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, withoutNulls(v)]),
  ) as T;
}

/** A root field's arguments as its operation's input: parameters by their location, `input` as the body. */
function inputOf(operation: ContractOperation, args: Record<string, unknown>, key: string | undefined) {
  const path: Record<string, unknown> = {};
  const query: Record<string, unknown> = {};
  for (const parameter of operation.parameters) {
    if (args[parameter.name] !== undefined) (parameter.in === 'path' ? path : query)[parameter.name] = args[parameter.name];
  }
  return { path, query, body: args.input, header: key === undefined ? {} : { 'idempotency-key': key } };
}

const KEY_REFUSALS = new Set(['idempotency-key-in-use', 'idempotency-key-reused']);

/** A field's outcome as GraphQL answers it (and a key stores it): the value as JSON, or the field's error. */
function presentField(context: GraphQLContext): Present<BearerOperationId> {
  return (outcome: Outcome<BearerOperationId>, operation) => {
    if (outcome.ok) return { status: 200, body: { value: JSON.parse(JSON.stringify(outcome.value)) as unknown } };
    // The key is the request's: its own refusals answer the request, as they do over REST.
    if (KEY_REFUSALS.has(outcome.problem.slug)) context.keyRefusal = problemToReply(outcome.problem, context.baseUrl);
    const error = fieldError(outcome.problem, context.baseUrl, operation);
    return { status: error.extensions.status as number, body: { error } };
  };
}

/**
 * A root field as its operation, through the application's pipeline: the operation's scopes (through the `graphql`
 * channel), its parameter and body schemas, the request's key when it keys this field, then the use case. A failure
 * becomes the field's error carrying the problem REST would answer.
 */
export async function perform(context: GraphQLContext, operationId: BearerOperationId, args: Record<string, unknown>): Promise<unknown> {
  const operation = context.pipeline.contract.operation(operationId);
  const given = withoutNulls(args);
  const { answer, replayed } = await context.pipeline.run(
    context.services,
    {
      operationId,
      channel: 'graphql',
      principal: context.principal,
      origin: context.origin,
      log: context.log,
      input: () => inputOf(operation, given, context.key),
      key: context.key,
    },
    presentField(context),
  );
  if (replayed) context.replayed = true;
  const body = answer.body as { value: unknown } | { error: FieldError };
  if ('error' in body) throw new GraphQLError(body.error.message, { extensions: body.error.extensions });
  return body.value;
}
