// Derives everything in generated/ from openapi.yaml and the files under openapi/ it refers to (the GraphQL resolver
// types from schema.graphql, the feasibility computation's WebAssembly from wasm/). `--check` regenerates into a
// temporary folder and fails when generated/ differs, so CI catches a spec edit whose derived code was not regenerated
// and committed.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, readdirSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateGraphQLTypes } from './graphql-codegen.mjs';

const check = process.argv.includes('--check');
const outDir = check ? mkdtempSync(join(tmpdir(), 'generated-')) : 'generated';
mkdirSync(outDir, { recursive: true });
const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
const bin = (name) => join('node_modules', '.bin', name);

// One document from the root's index and its files: each component keeps the name and the place the index gives it.
execFileSync(bin('redocly'), ['bundle', 'openapi.yaml', '--ext', 'json', '-o', join(outDir, 'openapi.json')], {
  env,
  stdio: ['ignore', 'ignore', 'inherit'],
});
const document = JSON.parse(readFileSync(join(outDir, 'openapi.json'), 'utf8'));
writeFileSync(join(outDir, 'openapi.json'), JSON.stringify(document, null, 2) + '\n');

execFileSync(bin('openapi-typescript'), [join(outDir, 'openapi.json'), '-o', join(outDir, 'api.ts'), '--root-types'], {
  env,
  stdio: ['ignore', 'ignore', 'inherit'],
});

const problemTypes = document['x-problem-types'];
if (!Array.isArray(problemTypes) || problemTypes.length === 0)
  throw new Error('the contract declares no x-problem-types (openapi/problem-types.yaml)');
const entries = problemTypes
  .map(
    ({ slug, status, title, description, uri }) =>
      `  ${JSON.stringify(slug)}: ${JSON.stringify({ status, title, description, ...(uri ? { uri } : {}) })},`,
  )
  .join('\n');
writeFileSync(
  join(outDir, 'problem-types.ts'),
  `// Generated from the x-problem-types of openapi.yaml by scripts/generate.mjs. Do not edit.\n` +
    `export const problemTypes = {\n${entries}\n} as const;\n\n` +
    `export type ProblemSlug = keyof typeof problemTypes;\n`,
);

// The scopes each operation's `security` requires of a bearer token: the one authorization table every adapter
// (REST, GraphQL, MCP) consults through src/auth/authorize.ts.
const security = [];
for (const item of Object.values(document.paths)) {
  for (const operation of Object.values(item)) {
    if (!operation || typeof operation !== 'object' || !operation.operationId) continue;
    const requirements = operation.security ?? document.security ?? [];
    const bearer = requirements.filter((r) => 'OAuth2' in r).map((r) => r.OAuth2);
    const anonymous = requirements.length === 0 || requirements.some((r) => Object.keys(r).length === 0);
    if (bearer.length > 0 && anonymous)
      throw new Error(`${operation.operationId}: a bearer operation must not also allow anonymous access`);
    security.push([operation.operationId, bearer]);
  }
}
security.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
const bearerOps = security.filter(([, sets]) => sets.length > 0);
writeFileSync(
  join(outDir, 'operation-scopes.ts'),
  `// Generated from the security of each operation in openapi.yaml by scripts/generate.mjs. Do not edit.\n` +
    `// Each entry lists the scope sets a bearer token may satisfy (any one set, every scope in it); operations not\n` +
    `// listed take no bearer token.\n` +
    `export const operationScopes = {\n${bearerOps.map(([id, sets]) => `  ${id}: ${JSON.stringify(sets)},`).join('\n')}\n} as const;\n\n` +
    `export type BearerOperationId = keyof typeof operationScopes;\n\n` +
    `export const anonymousOperations = ${JSON.stringify(security.filter(([, sets]) => sets.length === 0).map(([id]) => id))} as const;\n\n` +
    `export type AnonymousOperationId = (typeof anonymousOperations)[number];\n`,
);

// Resolver types of the GraphQL contract (schema.graphql), checked for staleness like everything above.
await generateGraphQLTypes(outDir);

// The feasibility computation's inner loops (wasm/*.ts: the log grid's monthly step forward and backward),
// AssemblyScript compiled to WebAssembly with SIMD and embedded as base64, so that tsx, the compiled dist/ and the
// tests all load the same bytes without a file path to resolve.
const ascVersion = JSON.parse(readFileSync(join('node_modules', 'assemblyscript', 'package.json'), 'utf8')).version;
const wasmDir = mkdtempSync(join(tmpdir(), 'wasm-'));
for (const file of readdirSync('wasm')
  .filter((name) => name.endsWith('.ts'))
  .sort()) {
  const name = file.slice(0, -'.ts'.length);
  const binary = join(wasmDir, `${name}.wasm`);
  execFileSync(bin('asc'), [join('wasm', file), '-O3', '--runtime', 'stub', '--noAssert', '--enable', 'simd', '--outFile', binary], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exported = `${name.replace(/-([a-z])/g, (_, letter) => letter.toUpperCase())}Wasm`;
  writeFileSync(
    join(outDir, `${name}-wasm.ts`),
    `// Generated from wasm/${file} by scripts/generate.mjs (AssemblyScript ${ascVersion}, -O3, SIMD). Do not edit.\n` +
      `export const ${exported} = '${readFileSync(binary).toString('base64')}';\n`,
  );
}
rmSync(wasmDir, { recursive: true, force: true });

if (check) {
  const stale = readdirSync(outDir).filter((file) => {
    let committed;
    try {
      committed = readFileSync(join('generated', file), 'utf8');
    } catch {
      return true;
    }
    return committed !== readFileSync(join(outDir, file), 'utf8');
  });
  rmSync(outDir, { recursive: true, force: true });
  if (stale.length > 0) {
    console.error(`generated/ is stale (${stale.join(', ')}): run \`npm run generate\` and commit the result.`);
    process.exit(1);
  }
  console.log('generated/ is in sync with openapi.yaml and openapi/, schema.graphql and wasm/');
}
