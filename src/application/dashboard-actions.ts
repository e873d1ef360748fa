import type { Actor, ActorOperation } from '../auth/authorize.js';
import type { ConnectInput } from '../services/broker-connections.js';
import type { Services } from '../services/index.js';

/**
 * A use case of the dashboard that no operation of the contract has: the action (or the operation) whose
 * authorization it needs, and what it does for the authorized person. The pipeline runs it as it runs an
 * operation's use case (authorize, the use case, classify); there is no contract input to validate (the service
 * checks what it is given) and no Idempotency-Key.
 */
export interface DashboardUseCase<Op extends ActorOperation, I, V> {
  authorizedAs: Op;
  run(services: Services, actor: Actor<Op>, input: I): V | Promise<V>;
}

const as = <Op extends ActorOperation, I, V>(authorizedAs: Op, run: (s: Services, actor: Actor<Op>, input: I) => V | Promise<V>) =>
  ({ authorizedAs, run }) as DashboardUseCase<Op, I, V>;

/** The endpoints of the signed-in person's own account (the webhook service also serves the operator's CLI). */
const own = (actor: Actor) => ({ accountId: actor.accountId });

type None = undefined;
type Id = { id: string };

/**
 * The one binding of the dashboard's own use cases, like `useCases` for the operations: what only a signed-in human
 * may do (`DASHBOARD_ACTIONS`: API clients, the broker connection, releasing the kill switch), and the views a page shows
 * beside an operation's answer, under that operation's authorization (who engaged the kill switch by name, the value
 * over time, which ideas came from the assistant, the first-hour checklist, a webhook endpoint's delivery log).
 */
export const dashboardActions = {
  listClients: as('listClients', (s, actor, _: None) => s.clients.listFor(actor)),
  createClient: as('createClient', (s, actor, input: { name: string; scopes: string[] }) => s.clients.createFor(actor, input)),
  rotateClient: as('rotateClient', (s, actor, { clientId }: { clientId: string }) => s.clients.rotateFor(actor, clientId)),
  revokeClient: as('revokeClient', (s, actor, { clientId }: { clientId: string }) => s.clients.revokeFor(actor, clientId)),
  releaseKillSwitch: as('releaseKillSwitch', (s, actor, { reason }: { reason: string | null }) => s.killSwitch.release(actor, reason)),

  // Beside an endpoint's attempts (listWebhookEndpointDeliveries), the log a person reads: one row per delivery with
  // its last attempt, and "Retry now" on one of them (over the API, recoverWebhookEndpointDeliveries does it for all).
  webhookDeliveries: as('listWebhookEndpointDeliveries', (s, actor, { id }: Id) => s.webhooks.deliveries(own(actor), id)),
  retryDelivery: as('recoverWebhookEndpointDeliveries', (s, actor, { id, delivery }: Id & { delivery: string }) =>
    s.webhooks.retry(own(actor), id, delivery),
  ),

  brokerConnection: as('manageBroker', (s, actor, _: None) => s.brokerConnections.state(actor.accountId)),
  connectBroker: as('manageBroker', (s, actor, input: ConnectInput) => s.brokerConnections.connect(actor.accountId, input)),
  disconnectBroker: as('manageBroker', (s, actor, _: None) => s.brokerConnections.disconnect(actor.accountId)),

  namedKillSwitch: as('getKillSwitch', (s, actor, _: None) => s.killSwitchNames.state(actor)),
  killSwitchHistory: as('getKillSwitch', (s, actor, { limit }: { limit: number }) => s.killSwitchNames.history(actor, limit)),
  valueHistory: as('getPortfolio', (s, actor, _: None) => s.valueHistory.of(actor)),
  ideaModes: as('listIdeas', (s, actor, { ids }: { ids: (string | null)[] }) => s.ideas.modesOf(actor, ids)),
  checklistMarks: as('listClients', (s, actor, _: None) => s.checklist.marked(actor)),
  markChecklist: as('listClients', (s, actor, { item }: { item: string }) => s.checklist.mark(actor, item)),
};

export type DashboardActionName = keyof typeof dashboardActions;
type Run<A extends DashboardActionName> = (typeof dashboardActions)[A]['run'];
/** What an action takes. */
export type ActionInput<A extends DashboardActionName> = Parameters<Run<A>>[2];
/** What an action answers. */
export type ActionValue<A extends DashboardActionName> = Awaited<ReturnType<Run<A>>>;
