import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Json } from './describe.js';

const run = promisify(execFile);
const repository = fileURLToPath(new URL('../../', import.meta.url));

/** Where the last released contract is kept, below the tree's top (a copy of generated/openapi.json at its release). */
export const RELEASED = join('openapi', 'released', 'v1.json');

/**
 * The contract as the files under `dir` say now (`openapi.yaml` and what it refers to), bundled as
 * `npm run generate` bundles it, without writing anything: what a partner would download once it is released.
 */
export async function bundleContract(dir = '.'): Promise<Json> {
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
  const { stdout } = await run(join(repository, 'node_modules', '.bin', 'redocly'), ['bundle', 'openapi.yaml', '--ext', 'json'], {
    cwd: dir,
    env,
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(stdout) as Json;
}

export function releasedContract(dir = '.'): Json {
  return JSON.parse(readFileSync(join(dir, RELEASED), 'utf8')) as Json;
}

/** Today in UTC as YYYY-MM-DD, or the `--today` given (tests of sunsets). */
export function todayFrom(args: string[]): string {
  const given = args.find((a) => a.startsWith('--today='))?.slice('--today='.length);
  if (given !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(given)) throw new Error(`--today must be YYYY-MM-DD, not ${given}`);
  return given ?? new Date().toISOString().slice(0, 10);
}
