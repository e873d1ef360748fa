import { readFileSync } from 'node:fs';
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { resolvers } from './resolvers.js';

// schema.graphql sits at the repository's root: two levels up under tsx, three from dist/src/graphql/.
const candidates = [new URL('../../schema.graphql', import.meta.url), new URL('../../../schema.graphql', import.meta.url)];

/** The hand-authored GraphQL contract. */
export function loadTypeDefs(): string {
  for (const candidate of candidates) {
    try {
      return readFileSync(candidate, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  throw new Error('schema.graphql is missing');
}

/** schema.graphql with its resolvers; a resolver for a field the schema lacks, or a union without its type resolver, fails here. */
export function createGraphQLSchema(): GraphQLSchema {
  return makeExecutableSchema({
    typeDefs: loadTypeDefs(),
    resolvers,
    resolverValidationOptions: { requireResolversToMatchSchema: 'error', requireResolversForResolveType: 'error' },
  });
}
