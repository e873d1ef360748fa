// Compiles to dist/ only when a source is newer than the last build, so `make run` and `npm run cli` start at
// once when nothing changed. `--force` always compiles.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const STAMP = join('dist', '.built');
const SOURCES = ['src', 'handlers', 'db', 'scripts', 'generated', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];

function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce((latest, entry) => Math.max(latest, newest(join(path, entry))), stat.mtimeMs);
}

const built = existsSync(STAMP) ? statSync(STAMP).mtimeMs : 0;
if (process.argv.includes('--force') || SOURCES.some((source) => newest(source) > built)) {
  process.stderr.write('Compiling to dist/ …\n');
  execFileSync(join('node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  writeFileSync(STAMP, new Date().toISOString());
}
