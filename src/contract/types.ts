// The contract's operations as the type checker reads them (generated/api.ts): the helpers every channel's types share.
import type { operations } from '../../generated/api.js';

export type OperationId = keyof operations;

/** An operation of openapi.yaml as openapi-typescript generates it: parameters, request body, responses. */
export type Op<K extends OperationId> = operations[K];

/** The schema of a request body's or a response's content (its one media type); undefined when it has none. */
export type ContentOf<T> = T extends { content: infer C } ? C[keyof C] : undefined;

/** One part of an operation's parameters (`path`, `query`): an empty record when the operation declares none. */
export type Part<P, Name extends string> = Name extends keyof P
  ? [NonNullable<P[Name]>] extends [never]
    ? Record<string, never>
    : NonNullable<P[Name]>
  : Record<string, never>;
