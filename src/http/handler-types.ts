// The REST channel's own handlers (handlers/), as api.ts calls them: one per anonymous operation, and the success
// shapes of bearer operations whose REST answer has a status or header of its own.
import type { AnonymousOperationId } from '../../generated/operation-scopes.js';
import type { Success } from '../application/use-cases.js';
import type { BearerOperationId } from '../auth/authorize.js';
import type { ContentOf, Op, OperationId, Part } from '../contract/types.js';
import type { Services } from '../services/index.js';
import type { EncodedBody } from './compression.js';
import type { RequestInfo } from './request-state.js';

type RequestBodyOf<K extends OperationId> = Op<K> extends { requestBody?: infer B } ? ContentOf<NonNullable<B>> : undefined;
type ParametersOf<K extends OperationId> = Op<K>['parameters'];

type SuccessStatus<K extends OperationId> = Extract<keyof Op<K>['responses'], 200 | 201 | 202 | 204 | 304>;
type BodyFor<K extends OperationId, S extends SuccessStatus<K>> = ContentOf<Op<K>['responses'][S]>;

/** What a handler answers: one of its operation's declared success statuses with that status's body type. */
export type HandlerResult<K extends OperationId> = {
  [S in SuccessStatus<K>]: { status: S; body: BodyFor<K, S>; headers?: Record<string, string>; encoded?: EncodedBody };
}[SuccessStatus<K>];

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
