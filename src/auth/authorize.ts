import { operationScopes, type BearerOperationId } from '../../generated/operation-scopes.js';
import { AuthorizationError } from './authorization-error.js';
import type { Principal } from './principal.js';

export { AuthorizationError };

export type { BearerOperationId };

/** Where a call came from; the consent record keeps it. */
export interface Origin {
  ip: string;
  /** At most MAX_USER_AGENT characters (userAgentOf): it is kept with consent records, sessions and messages. */
  userAgent: string | null;
}

const MAX_USER_AGENT = 512;

/** A request's User-Agent as an origin keeps it: bounded, whatever a client sends, on every channel. */
export const userAgentOf = (header: string | undefined): string | null => header?.slice(0, MAX_USER_AGENT) ?? null;

/**
 * The adapter a call arrived through: the one list of channels, for authorization, the pipeline and the pointers of
 * problems. MCP also needs the `mcp` scope. `dashboard` is a signed-in human acting on their own account: every
 * operation with every scope, plus the actions no API client ever reaches.
 */
export type Channel = 'rest' | 'graphql' | 'mcp' | 'dashboard';

/** Who a channel says is calling: the API's channels a bearer token's client, the dashboard a signed-in human (or nobody). */
export type Caller =
  { channel: Exclude<Channel, 'dashboard'>; principal: Principal | null } | { channel: 'dashboard'; principal: HumanPrincipal | null };

/**
 * What only a signed-in human may do, in the dashboard (the operator CLI does the same below the services, as an
 * operator): manage API credentials and the broker connection, and release the account's kill switch. No operation of
 * the API maps to these, and `authorize` grants them on no channel but `dashboard`. (Webhook endpoints are operations:
 * API clients with `write` manage them too.)
 */
export const DASHBOARD_ACTIONS = [
  'listClients',
  'createClient',
  'rotateClient',
  'revokeClient',
  'releaseKillSwitch',
  'manageBroker',
] as const;
export type DashboardAction = (typeof DASHBOARD_ACTIONS)[number];

export type ActorOperation = BearerOperationId | DashboardAction;

/** The client id that marks what a human did in the dashboard (policy consent records, order events). */
export const DASHBOARD_CLIENT_ID = 'dashboard';

/** A human signed in to the dashboard: never made from a bearer token, only from a dashboard session. */
export interface HumanPrincipal {
  readonly kind: 'human';
  readonly accountId: string;
  readonly clientId: typeof DASHBOARD_CLIENT_ID;
  readonly scopes: ReadonlySet<string>;
}

export function humanPrincipal(accountId: string): HumanPrincipal {
  return { kind: 'human', accountId, clientId: DASHBOARD_CLIENT_ID, scopes: new Set(['read', 'write', 'trade', 'mcp']) };
}

declare const authorized: unique symbol;

/**
 * A caller cleared for one operation. Only `authorize` makes one, and every use case takes the actor of its own
 * operation, so no adapter reaches a use case without naming the operationId whose scopes it checked.
 */
export interface Actor<Op extends ActorOperation = ActorOperation> {
  readonly operationId: Op;
  readonly accountId: string;
  readonly clientId: string;
  readonly scopes: ReadonlySet<string>;
  readonly origin: Origin;
  readonly [authorized]: Op;
}

/** The scope sets that satisfy an operation through a channel (any one set, every scope in it). */
export function requiredScopes(operationId: BearerOperationId, channel: Channel = 'rest'): string[][] {
  const sets = operationScopes[operationId] as readonly (readonly string[])[];
  return sets.map((set) => (channel === 'mcp' && !set.includes('mcp') ? [...set, 'mcp'] : [...set]));
}

const isDashboardAction = (operationId: string): operationId is DashboardAction =>
  (DASHBOARD_ACTIONS as readonly string[]).includes(operationId);
const isHuman = (principal: Principal | HumanPrincipal): principal is HumanPrincipal => 'kind' in principal && principal.kind === 'human';

/**
 * The one authorization decision of the service: the scopes come from each operation's `security` in openapi.yaml.
 * A human principal is accepted only through the dashboard channel, and the dashboard channel accepts only one: a
 * dashboard session never passes as an API token, and an API token never reaches a dashboard action.
 */
export function authorize<Op extends BearerOperationId>(
  principal: Principal | null,
  operationId: Op,
  origin: Origin,
  channel?: Exclude<Channel, 'dashboard'>,
): Actor<Op>;
export function authorize<Op extends ActorOperation>(
  principal: HumanPrincipal | null,
  operationId: Op,
  origin: Origin,
  channel: 'dashboard',
): Actor<Op>;
export function authorize<Op extends ActorOperation>(
  principal: Principal | HumanPrincipal | null,
  operationId: Op,
  origin: Origin,
  channel: Channel = 'rest',
): Actor<Op> {
  if (!principal) throw new AuthorizationError('missing', 'This operation requires a bearer access token.');
  const actor = () =>
    ({ operationId, accountId: principal.accountId, clientId: principal.clientId, scopes: principal.scopes, origin }) as Actor<Op>;
  if (channel === 'dashboard') {
    if (!isHuman(principal))
      throw new AuthorizationError('invalid_token', 'The dashboard acts only for a signed-in human, never for an API token.');
    return actor();
  }
  if (isHuman(principal)) throw new AuthorizationError('invalid_token', 'A dashboard session is not an API access token.');
  if (isDashboardAction(operationId)) {
    throw new AuthorizationError('insufficient_scope', `${operationId} is only available to a signed-in human in the dashboard.`);
  }
  const sets = requiredScopes(operationId, channel);
  if (!sets.some((set) => set.every((scope) => principal.scopes.has(scope)))) {
    const needed = sets[0]!.join(' ');
    throw new AuthorizationError('insufficient_scope', `${operationId} requires the scope "${needed}".`, needed);
  }
  return actor();
}

/** `authorize` for a caller as a channel hands it over (the pair of channel and principal checked by the type). */
export function authorizeCaller<Op extends BearerOperationId>(caller: Caller, operationId: Op, origin: Origin): Actor<Op> {
  return caller.channel === 'dashboard'
    ? authorize(caller.principal, operationId, origin, 'dashboard')
    : authorize(caller.principal, operationId, origin, caller.channel);
}
