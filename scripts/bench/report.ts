// BENCHMARKS.md (or, for a run of some cases, .bench/BENCHMARKS.partial.md): the machine and date, the table of
// results against their targets, the raw JSON, and the section written by hand that every full run keeps.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname } from 'node:path';
import { fixed, log, type Row } from './context.js';
import { loadGenerator } from './load.js';

/** Writes the report of `rows` and `raw` to `out`, and prints its table. */
export function writeReport(rows: Row[], raw: Record<string, unknown>, out: string): void {
  const machine = {
    loadGenerator,
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    loadAverage: loadavg().map((n) => Number(n.toFixed(2))),
  };
  const date = new Date().toISOString();
  const table = [
    '| Case | Measured | Ratio | Target | Met |',
    '| --- | --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${r.case} | ${r.measured} | ${r.ratio === undefined ? '' : `${fixed(r.ratio)}×`} | ${r.target ?? ''} | ` +
        `${r.met === undefined ? '' : r.met ? 'yes' : '**no**'} |`,
    ),
  ].join('\n');
  log(`\n${table}\n`);
  // The record's section written by hand (the measurements behind the code's shape) stays as it is.
  const WHY = '\n## Why the code is as it is\n';
  const record = existsSync('BENCHMARKS.md') ? readFileSync('BENCHMARKS.md', 'utf8') : '';
  const kept = out === 'BENCHMARKS.md' && record.includes(WHY) ? record.slice(record.indexOf(WHY)) : '';
  const generator =
    loadGenerator === 'wrk'
      ? 'wrk (one thread)'
      : 'autocannon (wrk was not installed: it tops out near what one worker serves, so the two-worker ratio measures it, not the service)';
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(
    out,
    `# Benchmarks

Written by \`make bench\` (\`scripts/bench.ts\`) on ${date}: ${machine.cores} × ${machine.cpu}, ${machine.memoryGiB} GiB, Node ${machine.node},
load average at the end ${machine.loadAverage.join(' / ')}. The service runs compiled (\`node dist/src/main.js\`) on
PostgreSQL with request logging on; baselines are started by the same run and serve the same bytes and headers; the
closed-loop load generator is ${generator} and shares the machine's cores. Ratios are comparable between runs, absolute numbers are not.

${table}

<details><summary>Raw results (JSON)</summary>

\`\`\`json
${JSON.stringify({ date, machine, results: raw }, null, 2)}
\`\`\`
</details>
${kept}`,
  );
  log(`wrote ${out}`);
}
