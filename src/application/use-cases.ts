import type { Actor, BearerOperationId } from '../auth/authorize.js';
import type { ContentOf, Op, Part } from '../contract/types.js';
import type { Metered } from '../services/goals.js';
import type { Services } from '../services/index.js';
import type { PreparedApproval } from '../services/orders/broker-approval.js';
import { endpointChanges } from '../services/webhooks/views.js';

type SuccessStatus<K extends BearerOperationId> = Extract<keyof Op<K>['responses'], 200 | 201 | 202>;

/** An operation's input as the contract splits it, validated (parameters with the contract's defaults applied). */
export interface Input<K extends BearerOperationId> {
  path: Part<Op<K>['parameters'], 'path'>;
  query: Part<Op<K>['parameters'], 'query'>;
  body: Op<K> extends { requestBody?: infer B } ? ContentOf<NonNullable<B>> | ([undefined] extends [B] ? undefined : never) : undefined;
}

/** What an operation answers when it succeeds: its success response's JSON body, in the contract's types. */
export type Success<K extends BearerOperationId> = ContentOf<Op<K>['responses'][SuccessStatus<K>]>;

/** What an operation reads before a keyed call's transaction (`preparations`). */
interface Prepared {
  approveOrder: PreparedApproval;
}
type PreparedFor<K extends BearerOperationId> = K extends keyof Prepared ? Prepared[K] : never;
export type Preparation<K extends BearerOperationId> = (services: Services, actor: Actor<K>, input: Input<K>) => Promise<PreparedFor<K>>;

/**
 * A use case run for one operation: the services bound for the call, the authorized caller, the validated input,
 * and what its preparation read, when the call is keyed and the operation has one.
 */
export type UseCase<K extends BearerOperationId> = (
  services: Services,
  actor: Actor<K>,
  input: Input<K>,
  prepared?: PreparedFor<K>,
) => Success<K> | Metered<Success<K>> | Promise<Success<K> | Metered<Success<K>>>;

/**
 * What a keyed call reads before its transaction (which holds a connection of the pool from its first statement):
 * reads of outside systems, such as an approval's of the account's broker. Run once, on the services outside any
 * transaction; a preparation that fails fails the call inside the key, as the use case would have.
 */
export const preparations: { [K in keyof Prepared]: Preparation<K> } = {
  approveOrder: (s, actor, { path }) => s.orders.prepareApproval(actor, path.id),
};

/**
 * The one binding of each bearer operation to its use case, for every channel (REST, GraphQL, MCP): which use case
 * takes which part of the input. A new operation in openapi.yaml does not compile until it has its line here.
 */
export const useCases: { [K in BearerOperationId]: UseCase<K> } = {
  evaluateGoalFeasibility: (s, actor, { body }) => s.goals.evaluateFeasibility(actor, body),
  getCurrentDisclosure: (s, actor) => s.policies.currentDisclosure(actor),
  listPolicies: (s, actor, { query }) => s.policies.list(actor, query),
  createPolicy: (s, actor, { body }) => s.quotas.metered('policies', actor.accountId, () => s.policies.create(actor, body)),
  getCurrentPolicy: (s, actor) => s.policies.current(actor),
  getPolicy: (s, actor, { path }) => s.policies.get(actor, path.version),
  // `market` is always there: validation applies the contract's default.
  getPortfolio: (s, actor, { query }) => s.portfolio.get(actor, query.market!),
  listBrokers: (s, actor, { query }) => s.brokers.list(actor, query),
  getKillSwitch: (s, actor) => s.killSwitch.get(actor),
  engageKillSwitch: (s, actor, { body }) => s.killSwitch.engage(actor, body.reason),
  generateIdeas: (s, actor, { body }) => s.quotas.metered('ideas', actor.accountId, () => s.ideas.generate(actor, body)),
  listIdeas: (s, actor, { query }) => s.ideas.list(actor, query),
  getIdea: (s, actor, { path }) => s.ideas.get(actor, path.id),
  listOrders: (s, actor, { query }) => s.orders.list(actor, query),
  getOrder: (s, actor, { path }) => s.orders.get(actor, path.id),
  previewOrder: (s, actor, { path }) => s.orders.preview(actor, path.id),
  approveOrder: (s, actor, { path, body }, prepared) => s.orders.approve(actor, path.id, body?.preview_id, prepared),
  rejectOrder: (s, actor, { path, body }) => s.orders.reject(actor, path.id, body?.reason),
  cancelOrder: (s, actor, { path, body }) => s.orders.cancel(actor, path.id, body?.reason),
  generateDailyReport: (s, actor, { body }) => s.quotas.metered('reports', actor.accountId, () => s.reports.generate(actor, body.date)),
  listDailyReports: (s, actor, { query }) => s.reports.list(actor, query),
  getDailyReport: (s, actor, { path }) => s.reports.get(actor, path.date),
  listEvents: (s, actor, { query }) => s.events.list(actor, query),
  getEvent: (s, actor, { path }) => s.events.get(actor, path.id),
  // The webhook service serves the operator's CLI too: a caller touches only its account's endpoints (`own`).
  listWebhookEndpoints: (s, actor, { query }) => s.webhooks.page(own(actor), query),
  createWebhookEndpoint: (s, actor, { body }) =>
    s.webhooks.create(actor.accountId, {
      url: body.url,
      eventTypes: body.event_types,
      description: body.description,
      enabled: body.enabled,
    }),
  getWebhookEndpoint: (s, actor, { path }) => s.webhooks.get(own(actor), path.id),
  updateWebhookEndpoint: (s, actor, { path, body }) => s.webhooks.update(own(actor), path.id, endpointChanges(body)),
  deleteWebhookEndpoint: (s, actor, { path }) => s.webhooks.remove(own(actor), path.id),
  rotateWebhookEndpointSecret: (s, actor, { path }) => s.webhooks.rotate(own(actor), path.id),
  testWebhookEndpoint: (s, actor, { path }) =>
    s.quotas.metered('webhook-tests', actor.accountId, () => s.webhooks.sendTest(own(actor), path.id)),
  listWebhookEndpointDeliveries: (s, actor, { path, query }) => s.webhooks.attempts(own(actor), path.id, query),
  recoverWebhookEndpointDeliveries: (s, actor, { path, body }) => s.webhooks.recover(own(actor), path.id, body.since),
};

/** The endpoints an account's caller may touch: its own. */
function own(actor: Actor): { accountId: string } {
  return { accountId: actor.accountId };
}
