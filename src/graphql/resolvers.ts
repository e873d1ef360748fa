import type { Resolvers } from '../../generated/graphql.js';
import { perform } from './operation.js';

const SUGGESTION_TYPES = {
  capital_needed: 'CapitalNeededSuggestion',
  horizon_needed: 'HorizonNeededSuggestion',
  target_reachable: 'TargetReachableSuggestion',
  monthly_contribution_needed: 'MonthlyContributionNeededSuggestion',
} as const;

/**
 * One resolver per root field of schema.graphql: its REST operation (scopes, validation) and the same use case.
 * Path and query parameters arrive as arguments of the same name, a request body as `input`.
 */
export const resolvers: Resolvers = {
  Query: {
    portfolio: (_, args, ctx) => perform(ctx, 'getPortfolio', { query: args }, (actor, { query }) => ctx.services.portfolio.get(actor, query.market)),
    orders: (_, args, ctx) => perform(ctx, 'listOrders', { query: args }, (actor, { query }) => ctx.services.orders.list(actor, query)),
    order: (_, args, ctx) => perform(ctx, 'getOrder', { path: args }, (actor, { path }) => ctx.services.orders.get(actor, path.id)),
    ideas: (_, args, ctx) => perform(ctx, 'listIdeas', { query: args }, (actor, { query }) => ctx.services.ideas.list(actor, query)),
    idea: (_, args, ctx) => perform(ctx, 'getIdea', { path: args }, (actor, { path }) => ctx.services.ideas.get(actor, path.id)),
    policies: (_, args, ctx) => perform(ctx, 'listPolicies', { query: args }, (actor, { query }) => ctx.services.policies.list(actor, query)),
    currentPolicy: (_, _args, ctx) => perform(ctx, 'getCurrentPolicy', {}, (actor) => ctx.services.policies.current(actor)),
    policy: (_, args, ctx) => perform(ctx, 'getPolicy', { path: args }, (actor, { path }) => ctx.services.policies.get(actor, path.version)),
    disclosure: (_, _args, ctx) => perform(ctx, 'getCurrentDisclosure', {}, (actor) => ctx.services.policies.currentDisclosure(actor)),
    dailyReports: (_, args, ctx) => perform(ctx, 'listDailyReports', { query: args }, (actor, { query }) => ctx.services.reports.list(actor, query)),
    dailyReport: (_, args, ctx) => perform(ctx, 'getDailyReport', { path: args }, (actor, { path }) => ctx.services.reports.get(actor, path.date)),
    brokers: (_, args, ctx) => perform(ctx, 'listBrokers', { query: args }, (actor, { query }) => ctx.services.brokers.list(actor, query)),
    killSwitch: (_, _args, ctx) => perform(ctx, 'getKillSwitch', {}, (actor) => ctx.services.killSwitch.get(actor)),
    goalFeasibility: (_, args, ctx) =>
      perform(ctx, 'evaluateGoalFeasibility', { body: args.input }, async (actor, { body }) => (await ctx.services.goals.evaluateFeasibility(actor, body)).result),
  },
  Mutation: {
    createPolicy: (_, args, ctx) => perform(ctx, 'createPolicy', { body: args.input }, (actor, { body }) => ctx.services.policies.create(actor, body)),
    generateIdeas: (_, args, ctx) => perform(ctx, 'generateIdeas', { body: args.input }, (actor, { body }) => ctx.services.ideas.generate(actor, body)),
    approveOrder: (_, args, ctx) => perform(ctx, 'approveOrder', { path: args }, (actor, { path }) => ctx.services.orders.approve(actor, path.id)),
    rejectOrder: (_, { id, input }, ctx) =>
      perform(ctx, 'rejectOrder', { path: { id }, body: input }, (actor, { body }) => ctx.services.orders.reject(actor, id, body?.reason)),
    cancelOrder: (_, { id, input }, ctx) =>
      perform(ctx, 'cancelOrder', { path: { id }, body: input }, (actor, { body }) => ctx.services.orders.cancel(actor, id, body?.reason)),
    generateDailyReport: (_, args, ctx) =>
      perform(ctx, 'generateDailyReport', { body: args.input }, (actor, { body }) => ctx.services.reports.generate(actor, body.date)),
    engageKillSwitch: (_, args, ctx) =>
      perform(ctx, 'engageKillSwitch', { body: args.input }, (actor, { body }) => ctx.services.killSwitch.engage(actor, body.reason)),
  },
  FeasibilitySuggestion: {
    __resolveType: (suggestion) => SUGGESTION_TYPES[suggestion.kind as keyof typeof SUGGESTION_TYPES],
  },
};
