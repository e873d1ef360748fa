import { operationScopes, type BearerOperationId } from '../../generated/operation-scopes.js';
import type { Principal } from './tokens.js';

export type { BearerOperationId };

/** Where a call came from; the consent record keeps it. */
export interface Origin {
  ip: string;
  userAgent: string | null;
}

/** The adapter a call arrived through; MCP also needs the `mcp` scope. */
export type Channel = 'rest' | 'graphql' | 'mcp';

declare const authorized: unique symbol;

/**
 * A caller cleared for one operation. Only `authorize` makes one, and every use case takes the actor of its own
 * operation, so no adapter reaches a use case without naming the operationId whose scopes it checked.
 */
export interface Actor<Op extends BearerOperationId = BearerOperationId> {
  readonly operationId: Op;
  readonly accountId: string;
  readonly clientId: string;
  readonly scopes: ReadonlySet<string>;
  readonly origin: Origin;
  readonly [authorized]: Op;
}

/** Why a caller may not run an operation: no token, a bad token, or a token without the operation's scope. */
export class AuthorizationError extends Error {
  constructor(
    readonly kind: 'missing' | 'invalid_token' | 'insufficient_scope',
    readonly description: string,
    readonly requiredScope?: string,
  ) {
    super(description);
    this.name = 'AuthorizationError';
  }
}

/** The scope sets that satisfy an operation through a channel (any one set, every scope in it). */
export function requiredScopes(operationId: BearerOperationId, channel: Channel = 'rest'): string[][] {
  const sets = operationScopes[operationId] as readonly (readonly string[])[];
  return sets.map((set) => (channel === 'mcp' && !set.includes('mcp') ? [...set, 'mcp'] : [...set]));
}

/** The one authorization decision of the service: the scopes come from each operation's `security` in openapi.yaml. */
export function authorize<Op extends BearerOperationId>(
  principal: Principal | null,
  operationId: Op,
  origin: Origin,
  channel: Channel = 'rest',
): Actor<Op> {
  if (!principal) throw new AuthorizationError('missing', 'This operation requires a bearer access token.');
  const sets = requiredScopes(operationId, channel);
  if (!sets.some((set) => set.every((scope) => principal.scopes.has(scope)))) {
    const needed = sets[0]!.join(' ');
    throw new AuthorizationError('insufficient_scope', `${operationId} requires the scope "${needed}".`, needed);
  }
  return { operationId, accountId: principal.accountId, clientId: principal.clientId, scopes: principal.scopes, origin } as Actor<Op>;
}
