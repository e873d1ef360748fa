// Derives everything in generated/ from openapi.yaml. `--check` regenerates into a temporary folder and fails when
// generated/ differs, so CI catches a spec edit whose derived code was not regenerated and committed.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, readdirSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const check = process.argv.includes('--check');
const outDir = check ? mkdtempSync(join(tmpdir(), 'generated-')) : 'generated';
mkdirSync(outDir, { recursive: true });
const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
const bin = (name) => join('node_modules', '.bin', name);

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
if (!Array.isArray(problemTypes) || problemTypes.length === 0) throw new Error('openapi.yaml declares no x-problem-types');
const entries = problemTypes
  .map(({ slug, status, title, description, uri }) => `  ${JSON.stringify(slug)}: ${JSON.stringify({ status, title, description, ...(uri ? { uri } : {}) })},`)
  .join('\n');
writeFileSync(
  join(outDir, 'problem-types.ts'),
  `// Generated from the x-problem-types of openapi.yaml by scripts/generate.mjs. Do not edit.\n` +
    `export const problemTypes = {\n${entries}\n} as const;\n\n` +
    `export type ProblemSlug = keyof typeof problemTypes;\n`,
);

if (check) {
  const stale = readdirSync(outDir).filter((file) => {
    let committed = '';
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
  console.log('generated/ is in sync with openapi.yaml');
}
