// Resolver types from schema.graphql with graphql-codegen's `typescript` and `typescript-resolvers` plugins.
// The programmatic core runs them: the codegen CLI adds file loaders and watchers this needs none of, and its
// dependency tree does not install from the registry here.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { codegen } from '@graphql-codegen/core';
import * as typescript from '@graphql-codegen/typescript';
import * as typescriptResolvers from '@graphql-codegen/typescript-resolvers';
import { buildSchema, parse } from 'graphql';

export const SCHEMA_FILE = 'schema.graphql';
export const OUTPUT_FILE = 'graphql.ts';

/** The codegen configuration: wire values stay as they are (snake_case members, lower-case enum values as string unions). */
export const config = {
  enumsAsTypes: true,
  useTypeImports: true,
  noSchemaStitching: true,
  contextType: '../src/graphql/context.js#GraphQLContext',
  scalars: { ID: 'string' },
};

export async function generateGraphQLTypes(outDir) {
  const sdl = readFileSync(SCHEMA_FILE, 'utf8');
  const output = await codegen({
    filename: join(outDir, OUTPUT_FILE),
    schema: parse(sdl),
    schemaAst: buildSchema(sdl),
    documents: [],
    config,
    plugins: [{ typescript: {} }, { typescriptResolvers: {} }],
    pluginMap: { typescript, typescriptResolvers },
  });
  writeFileSync(
    join(outDir, OUTPUT_FILE),
    `// Generated from ${SCHEMA_FILE} by scripts/generate.mjs (graphql-codegen typescript + typescript-resolvers). Do not edit.\n${output}`,
  );
}
