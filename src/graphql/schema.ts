import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { resolvers } from './resolvers.js';
import { loadTypeDefs } from './type-defs.js';

export { loadTypeDefs };

/** schema.graphql with its resolvers; a resolver for a field the schema lacks, or a union without its type resolver, fails here. */
export function createGraphQLSchema(): GraphQLSchema {
  return makeExecutableSchema({
    typeDefs: loadTypeDefs(),
    resolvers,
    resolverValidationOptions: { requireResolversToMatchSchema: 'error', requireResolversForResolveType: 'error' },
  });
}
