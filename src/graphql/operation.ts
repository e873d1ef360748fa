import { authorize, type Actor, type BearerOperationId } from '../auth/authorize.js';
import type { OperationInput } from '../contract/operations.js';
import type { GraphQLContext } from './context.js';
import { fieldError } from './errors.js';

/** An argument's value with every `null` member left out: GraphQL's explicit null means "not given", as in REST. */
export type WithoutNulls<T> = T extends readonly (infer U)[]
  ? WithoutNulls<U>[]
  : T extends object
    ? { [K in keyof T]: WithoutNulls<Exclude<T[K], null>> }
    : T;

export function withoutNulls<T>(value: T): WithoutNulls<T> {
  if (Array.isArray(value)) return value.map(withoutNulls) as WithoutNulls<T>;
  if (value === null || typeof value !== 'object') return value as WithoutNulls<T>;
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null).map(([k, v]) => [k, withoutNulls(v)])) as WithoutNulls<T>;
}

/**
 * A root field as its REST operation: the operation's scopes (through the `graphql` channel), its parameter and
 * body schemas, then the use case. Any failure becomes the field's error carrying the problem REST would answer.
 */
export async function perform<Op extends BearerOperationId, I extends OperationInput, T>(
  context: GraphQLContext,
  operationId: Op,
  input: I,
  work: (actor: Actor<Op>, input: WithoutNulls<I>) => T | Promise<T>,
): Promise<T> {
  const operation = context.contract.operation(operationId);
  try {
    const actor = authorize(context.principal, operationId, context.origin, 'graphql');
    const given = withoutNulls(input);
    context.contract.validate(operationId, given);
    return await work(actor, given);
  } catch (error) {
    throw fieldError(error, context, operation);
  }
}
