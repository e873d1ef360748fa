import { makeExecutableSchema } from '@graphql-tools/schema';
import { parse, type GraphQLSchema } from 'graphql';
import type { Contract } from '../contract/operations.js';
import { markDeprecations } from './deprecations.js';
import { resolvers } from './resolvers.js';
import { loadTypeDefs } from './type-defs.js';

export { loadTypeDefs };

/**
 * schema.graphql with its resolvers; a resolver for a field the schema lacks, or a union without its type resolver,
 * fails here. Given the contract it serves (and where its deprecation notice is), what the contract deprecates is
 * marked `@deprecated` too.
 */
export function createGraphQLSchema(deprecations?: { contract: Contract; noticeUrl: string }): GraphQLSchema {
  const typeDefs = parse(loadTypeDefs());
  return makeExecutableSchema({
    typeDefs: deprecations ? markDeprecations(typeDefs, deprecations.contract, deprecations.noticeUrl) : typeDefs,
    resolvers,
    resolverValidationOptions: { requireResolversToMatchSchema: 'error', requireResolversForResolveType: 'error' },
  });
}
