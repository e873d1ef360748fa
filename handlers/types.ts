import type { operations } from '../generated/api.js';
import type { AnonymousOperationId } from '../generated/operation-scopes.js';
import type { BearerOperationId } from '../src/auth/authorize.js';
import type { Success } from '../src/application/use-cases.js';
import type { EncodedBody } from '../src/http/compression.js';
import type { RequestInfo } from '../src/http/request-state.js';
import type { Services } from '../src/services/index.js';

export type OperationId = keyof operations;
type Op<K extends OperationId> = operations[K];

type ContentOf<T> = T extends { content: infer C } ? C[keyof C] : undefined;
type RequestBodyOf<K extends OperationId> = Op<K> extends { requestBody?: infer B } ? ContentOf<NonNullable<B>> : undefined;
type ParametersOf<K extends OperationId> = Op<K>['parameters'];
type Part<P, Name extends string> = Name extends keyof P
  ? [NonNullable<P[Name]>] extends [never]
    ? Record<string, never>
    : NonNullable<P[Name]>
  : Record<string, never>;

type SuccessStatus<K extends OperationId> = Extract<keyof Op<K>['responses'], 200 | 201 | 202 | 204 | 304>;
type BodyFor<K extends OperationId, S extends SuccessStatus<K>> = ContentOf<Op<K>['responses'][S]>;

/** What a handler answers: one of its operation's declared success statuses with that status's body type. */
export type HandlerResult<K extends OperationId> = {
  [S in SuccessStatus<K>]: { status: S; body: BodyFor<K, S>; headers?: Record<string, string>; encoded?: EncodedBody };
}[SuccessStatus<K>];

export type { RequestInfo };

export interface HandlerContext<K extends OperationId> {
  body: RequestBodyOf<K>;
  path: Part<ParametersOf<K>, 'path'>;
  query: Part<ParametersOf<K>, 'query'>;
  request: RequestInfo;
  services: Services;
}

export type Handler<K extends OperationId> = (context: HandlerContext<K>) => Promise<HandlerResult<K>>;

/**
 * The operations without a bearer token, REST's own (the token endpoint, discovery documents, health, sign-up and
 * log-in with their proof-of-work header): one handler each; a missing one does not compile. Bearer operations run
 * through the application's pipeline and its use-case table instead.
 */
export type AnonymousHandlers = { [K in AnonymousOperationId]: Handler<K> };

/** A bearer operation's success answered with a status or headers of its own (201 with `Location`), from its value. */
export type SuccessShape<K extends BearerOperationId> = (value: Success<K>) => { status?: number; headers?: Record<string, string> };

/** The bearer operations whose REST answer is special; every other one answers its contract's success status and body. */
export type SuccessShapes = { [K in BearerOperationId]?: SuccessShape<K> };
