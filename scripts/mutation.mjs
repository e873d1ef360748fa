// `make mutation`: StrykerJS over the paths that move money or refuse (stryker.config.json), its JSON report in
// reports/mutation/mutation.json. Stryker 10 needs Node 22 (and Stryker 9's mocha runner cannot load mocha 12), so it
// is installed apart from the project, pinned with the Node 22 it runs on (test/mutation/package.json and its
// lockfile), into .cache/mutation (git-ignored) on the first run; the project's own dependencies (tsx, chai, the
// code's libraries) come from its node_modules. Extra arguments go to `stryker run` (for example `--mutate
// src/services/money.ts` or `--concurrency 1`).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { postgresAnswers } from './postgres-answers.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const manifest = join(root, 'test/mutation');
const cache = join(root, '.cache/mutation');

const stamp = createHash('sha256')
  .update(readFileSync(join(manifest, 'package.json')))
  .update(readFileSync(join(manifest, 'package-lock.json')))
  .digest('hex');
const stampFile = join(cache, '.installed');
if (!existsSync(stampFile) || readFileSync(stampFile, 'utf8') !== stamp) {
  mkdirSync(cache, { recursive: true });
  for (const file of ['package.json', 'package-lock.json']) copyFileSync(join(manifest, file), join(cache, file));
  console.log(`Installing StrykerJS and Node 22 (test/mutation/package.json) into ${cache}`);
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^npm_config_(prefix|global|local_prefix|location)$/i.test(name)),
  );
  const npm = spawnSync('npm', ['ci', '--prefix', cache, '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], {
    cwd: cache,
    env,
    stdio: 'inherit',
  });
  if (npm.status !== 0) {
    console.error(`make mutation: could not install test/mutation/package.json into ${cache} (it needs the npm registry)`);
    process.exit(1);
  }
  writeFileSync(stampFile, stamp);
}

const node =
  Number(process.versions.node.split('.')[0]) >= 22
    ? process.execPath
    : join(cache, 'node_modules', `node-${process.platform}-${process.arch}`, 'bin', 'node');
if (!existsSync(node)) {
  console.error(
    `make mutation: StrykerJS 10 needs Node 22 or later; this is Node ${process.version} on ${process.platform}-${process.arch}, ` +
      'for which no Node 22 package is pinned. Run it with Node 22.',
  );
  process.exit(1);
}
const stryker = join(cache, 'node_modules/@stryker-mutator/core/bin/stryker.js');
// The suites run on PostgreSQL when it answers (a test file's database is a server-side copy, and statements are
// cheaper than on the embedded database), else on the embedded database (no server needed; each test process keeps
// one migrated template). TEST_DB=embedded chooses the embedded database.
const postgres =
  process.env.TEST_DB === 'embedded'
    ? false
    : await postgresAnswers(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
console.log(`make mutation: the suites run on ${postgres ? 'PostgreSQL' : 'the embedded database'}`);
const run = spawnSync(node, [stryker, 'run', 'stryker.config.json', ...process.argv.slice(2)], {
  cwd: root,
  env: {
    ...process.env,
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${join(manifest, 'mocha12-paths.cjs')}`.trim(),
    ...(postgres ? {} : { TEST_DB: 'embedded' }),
    TEST_REDIS: process.env.TEST_REDIS ?? 'none',
    // Four test runners share one PostgreSQL: eight connections each for a test file's database keeps them well
    // under its default 100 connections (run K counted three false kills from "sorry, too many clients already").
    TEST_DB_POOL_SIZE: process.env.TEST_DB_POOL_SIZE ?? '8',
  },
  stdio: 'inherit',
});
process.exit(run.status ?? 1);
