import { Kind, parse, type ConstDirectiveNode, type FieldDefinitionNode } from 'graphql';
import { operationScopes } from '../../generated/operation-scopes.js';
import type { Resolvers } from '../../generated/graphql.js';
import type { BearerOperationId } from '../auth/authorize.js';
import type { GraphQLContext } from './context.js';
import { perform } from './operation.js';
import { loadTypeDefs } from './type-defs.js';

const SUGGESTION_TYPES = {
  capital_needed: 'CapitalNeededSuggestion',
  horizon_needed: 'HorizonNeededSuggestion',
  target_reachable: 'TargetReachableSuggestion',
  monthly_contribution_needed: 'MonthlyContributionNeededSuggestion',
} as const;

/** The GraphQL object type of each event type (the `Event` discriminator, openapi/components/schemas/events.yaml). */
const EVENT_TYPES: Record<string, string> = {
  'order.proposed': 'OrderProposedEvent',
  'order.submitted': 'OrderSubmittedEvent',
  'order.partially_filled': 'OrderPartiallyFilledEvent',
  'order.filled': 'OrderFilledEvent',
  'order.rejected': 'OrderRejectedEvent',
  'order.cancelled': 'OrderCancelledEvent',
  'order.blocked': 'OrderBlockedEvent',
  'order.expired': 'OrderExpiredEvent',
  'idea.generated': 'IdeaGeneratedEvent',
  'policy.created': 'PolicyCreatedEvent',
  'kill_switch.engaged': 'KillSwitchEngagedEvent',
  'kill_switch.released': 'KillSwitchReleasedEvent',
  'report.generated': 'ReportGeneratedEvent',
};

type RootResolver = (parent: unknown, args: Record<string, unknown>, context: GraphQLContext) => Promise<unknown>;

/** The operation a root field is (`@operation(id:)` in schema.graphql); a field without one, or naming no bearer operation, does not load. */
function operationOf(type: string, field: FieldDefinitionNode): BearerOperationId {
  const directive = field.directives?.find((d: ConstDirectiveNode) => d.name.value === 'operation');
  const id = directive?.arguments?.find((a) => a.name.value === 'id')?.value;
  const operationId = id?.kind === Kind.STRING ? id.value : undefined;
  if (!operationId || !(operationId in operationScopes))
    throw new Error(`schema.graphql: ${type}.${field.name.value} needs @operation(id:) naming a bearer operation of openapi.yaml`);
  return operationId as BearerOperationId;
}

/**
 * One resolver per root field of schema.graphql, each its operation through the application's pipeline (scopes,
 * validation, the key, the use case of the one use-case table). Path and query parameters arrive as arguments of the
 * same name, a request body as `input`; nothing here binds an operation to a use case.
 */
function rootResolvers(): Record<'Query' | 'Mutation', Record<string, RootResolver>> {
  const roots: Record<'Query' | 'Mutation', Record<string, RootResolver>> = { Query: {}, Mutation: {} };
  for (const definition of parse(loadTypeDefs()).definitions) {
    if (definition.kind !== Kind.OBJECT_TYPE_DEFINITION || (definition.name.value !== 'Query' && definition.name.value !== 'Mutation'))
      continue;
    const root = roots[definition.name.value];
    for (const field of definition.fields ?? []) {
      const operationId = operationOf(definition.name.value, field);
      root[field.name.value] = (_parent, args, context) => perform(context, operationId, args);
    }
  }
  return roots;
}

export const resolvers = {
  ...rootResolvers(),
  FeasibilitySuggestion: {
    __resolveType: (suggestion: { kind: string }) => SUGGESTION_TYPES[suggestion.kind as keyof typeof SUGGESTION_TYPES],
  },
  Event: {
    __resolveType: (event: { type: string }) => EVENT_TYPES[event.type],
  },
} as unknown as Resolvers;
