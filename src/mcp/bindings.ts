import type { operations } from '../../generated/api.js';
import type { Actor, BearerOperationId } from '../auth/authorize.js';
import type { Services } from '../services/index.js';

type Part<T> = [NonNullable<T>] extends [never] ? unknown : NonNullable<T>;
type BodyOf<K extends BearerOperationId> = operations[K] extends { requestBody?: infer B }
  ? [NonNullable<B>] extends [never]
    ? unknown
    : NonNullable<B> extends { content: { 'application/json': infer C } }
      ? C
      : unknown
  : unknown;

/** A tool's arguments: the operation's path and query parameters and its JSON body's members, in one object. */
export type ArgumentsOf<K extends BearerOperationId> = Part<operations[K]['parameters']['path']> & Part<operations[K]['parameters']['query']> & BodyOf<K>;

export type Binding<K extends BearerOperationId> = (services: Services, actor: Actor<K>, args: ArgumentsOf<K>) => unknown;

/**
 * Each tool's use case, one line per operation, as REST's handlers bind them: the arguments arrive validated
 * against the contract, so a binding only says which use case takes which argument.
 */
export const bindings: { [K in BearerOperationId]: Binding<K> } = {
  evaluateGoalFeasibility: async (s, actor, a) => (await s.goals.evaluateFeasibility(actor, a)).result,
  getCurrentDisclosure: (s, actor) => s.policies.currentDisclosure(actor),
  listPolicies: (s, actor, a) => s.policies.list(actor, a),
  createPolicy: (s, actor, a) => s.policies.create(actor, a),
  getCurrentPolicy: (s, actor) => s.policies.current(actor),
  getPolicy: (s, actor, a) => s.policies.get(actor, a.version),
  getPortfolio: (s, actor, a) => s.portfolio.get(actor, a.market ?? 'US'),
  listBrokers: (s, actor, a) => s.brokers.list(actor, a),
  getKillSwitch: (s, actor) => s.killSwitch.get(actor),
  engageKillSwitch: (s, actor, a) => s.killSwitch.engage(actor, a.reason),
  generateIdeas: (s, actor, a) => s.ideas.generate(actor, a),
  listIdeas: (s, actor, a) => s.ideas.list(actor, a),
  getIdea: (s, actor, a) => s.ideas.get(actor, a.id),
  listOrders: (s, actor, a) => s.orders.list(actor, a),
  getOrder: (s, actor, a) => s.orders.get(actor, a.id),
  approveOrder: (s, actor, a) => s.orders.approve(actor, a.id),
  rejectOrder: (s, actor, a) => s.orders.reject(actor, a.id, a.reason),
  cancelOrder: (s, actor, a) => s.orders.cancel(actor, a.id, a.reason),
  generateDailyReport: (s, actor, a) => s.reports.generate(actor, a.date),
  listDailyReports: (s, actor, a) => s.reports.list(actor, a),
  getDailyReport: (s, actor, a) => s.reports.get(actor, a.date),
};
