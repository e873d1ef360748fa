// The flood cases of `make bench`, each a script of its own (its own server, attacker and measurement) that prints
// one JSON line last: the heavy-feasibility flood (scripts/bench-heavy-flood.ts) and the token flood
// (scripts/bench-token-flood.ts).
import { spawn, spawnSync } from 'node:child_process';
import { fixed, type Bench } from './context.js';

/** A bench script of its own (its own server, attacker and measurement), run asynchronously; its stdout. */
function runScript(script: string): Promise<{ stdout: string; status: number | null }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      process.stdout.write(chunk);
    });
    child.once('exit', (status) => resolve({ stdout, status }));
  });
}

export async function heavyCase(bench: Bench): Promise<void> {
  const { rows, raw } = bench;
  const run = await runScript('scripts/bench-heavy-flood.ts');
  try {
    type Flooded = { readP99Ms: number; ratio: number; attacker: Record<string, number> };
    const heavy = JSON.parse(run.stdout.trim().split('\n').pop() ?? '') as {
      quietP99Ms: number;
      graphql: Flooded;
      admissible: Flooded;
      mcp: Flooded;
    };
    raw.heavy = heavy;
    const row = (what: string, flooded: Flooded) =>
      rows.push({
        case: `${what}; attacker's answers ${JSON.stringify(flooded.attacker)}`,
        measured: `${fixed(flooded.readP99Ms, 1)} vs ${fixed(heavy.quietP99Ms, 1)} ms`,
        ratio: flooded.ratio,
        target: '≤ 50 ms',
        met: flooded.readP99Ms <= 50,
      });
    row(
      'Another client’s authenticated read p99 while one client sends GraphQL documents of 40 heavy goalFeasibility aliases ' +
        '(100 y, contributions, σ 0.9) twice a second, vs quiet',
      heavy.graphql,
    );
    row('… documents of 9 such aliases (the most the cost limit admits, computed on the pool) twice a second', heavy.admissible);
    row('… 100 heavy evaluateGoalFeasibility MCP calls at a time, each its own request, again as soon as all are answered', heavy.mcp);
  } catch {
    rows.push({ case: 'Heavy-feasibility flood', measured: `the script did not report (exit ${run.status})` });
  }
}

export function floodCase(bench: Bench): void {
  const { rows, raw } = bench;
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/bench-token-flood.ts'], { encoding: 'utf8' });
  process.stdout.write(run.stdout);
  const last = run.stdout.trim().split('\n').pop() ?? '';
  try {
    const flood = JSON.parse(last) as {
      tokenP99Ms: number;
      readP99Ratio: number;
      readP99Ms?: number;
      readP99QuietMs?: number;
      readP99PacedMs?: number;
      readP99VsPacedRatio?: number;
      floodPerSecond?: number;
    };
    raw.flood = flood;
    rows.push({
      case: 'Token flood (32 connections of wrong secrets): a legitimate token request p99',
      measured: `${fixed(flood.tokenP99Ms, 0)} ms`,
      target: '≤ 500 ms',
      met: flood.tokenP99Ms <= 500,
    });
    rows.push({
      case: '… an authenticated read p99 under the flood vs without',
      measured: flood.readP99Ms !== undefined ? `${fixed(flood.readP99Ms, 1)} vs ${fixed(flood.readP99QuietMs ?? NaN, 1)} ms` : '',
      ratio: flood.readP99Ratio,
      target: '≤ 1.5×',
      met: flood.readP99Ratio <= 1.5,
    });
    if (flood.readP99VsPacedRatio !== undefined) {
      rows.push({
        case:
          `… vs under cheap requests (404s) from another process at the flood's rate (${fixed(flood.floodPerSecond ?? NaN, 0)}/s): ` +
          'what the flood costs beyond any traffic',
        measured: `${fixed(flood.readP99Ms ?? NaN, 1)} vs ${fixed(flood.readP99PacedMs ?? NaN, 1)} ms`,
        ratio: flood.readP99VsPacedRatio,
      });
    }
  } catch {
    rows.push({
      case: 'Token flood',
      measured: `the flood script did not report (exit ${run.status}): ${run.stderr.trim().split('\n').pop() ?? ''}`,
    });
  }
}
