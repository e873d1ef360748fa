import { readFileSync } from 'node:fs';

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
