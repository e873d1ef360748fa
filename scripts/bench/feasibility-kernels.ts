// Benchmark: what each WebAssembly kernel of the feasibility engine buys over its TypeScript reference
// (test/support/feasibility-kernels/), over the whole accepted domain. For each kernel, a copy of the working tree in
// which the law that calls it imports the reference instead (B) runs scripts/bench-feasibility.ts alternately with
// the tree itself (A), so that both see the same machine; prints each run with the load average before it, the
// medians of the domain's CPU p50 and p99, and the share of each the kernel saves (the README's threshold: 20 %).
// Usage: npx tsx scripts/bench/feasibility-kernels.ts [kernel …] (default: every kernel with a reference); PAIRS=3.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const root = join(import.meta.dirname, '../..');
const references = join(root, 'test/support/feasibility-kernels');
const kernels = process.argv.length > 2 ? process.argv.slice(2) : readdirSync(references).map((file) => file.replace(/\.ts$/, ''));
const pairs = Number(process.env.PAIRS ?? 3);

function files(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

/** The working tree's files (tracked and new, not ignored) copied to a scratch folder, sharing node_modules. */
function copyTree(): string {
  const copy = mkdtempSync(join(tmpdir(), 'feasibility-kernels-'));
  const listed = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: root, encoding: 'utf8' }).split('\0');
  for (const file of listed.filter(Boolean)) {
    mkdirSync(join(copy, dirname(file)), { recursive: true });
    cpSync(join(root, file), join(copy, file));
  }
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'));
  return copy;
}

interface Run {
  load: number;
  p50: number;
  p99: number;
}
function bench(cwd: string): Run {
  const load = loadavg()[0]!;
  const output = execFileSync(join(root, 'node_modules/.bin/tsx'), ['scripts/bench-feasibility.ts'], { cwd, encoding: 'utf8' });
  const result = JSON.parse(output.trim().split('\n').at(-1)!) as { domainCpuP50Ms: number; domainCpuP99Ms: number };
  return { load, p50: result.domainCpuP50Ms, p99: result.domainCpuP99Ms };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const show = (run: Run) => `p50 ${run.p50.toFixed(2)} ms, p99 ${run.p99.toFixed(2)} ms (load ${run.load.toFixed(2)})`;

for (const kernel of kernels) {
  const imported = `'../kernels/${kernel}.js'`;
  const law = files('src/feasibility').find((file) => readFileSync(join(root, file), 'utf8').includes(imported));
  if (!law) throw new Error(`no file of src/feasibility/ imports the kernel ${kernel}`);
  const copy = copyTree();
  try {
    const reference = `'${'../'.repeat(law.split('/').length - 1)}test/support/feasibility-kernels/${kernel}.js'`;
    writeFileSync(join(copy, law), readFileSync(join(copy, law), 'utf8').replace(imported, reference));
    const runs: { wasm: Run; typescript: Run }[] = [];
    for (let pair = 1; pair <= pairs; pair++) {
      const wasm = bench(root);
      const typescript = bench(copy);
      runs.push({ wasm, typescript });
      console.log(`${kernel} pair ${pair}: WebAssembly ${show(wasm)}; TypeScript ${show(typescript)}`);
    }
    const m = (side: 'wasm' | 'typescript', key: 'p50' | 'p99') => median(runs.map((run) => run[side][key]));
    const saved = (key: 'p50' | 'p99') => (1 - m('wasm', key) / m('typescript', key)) * 100;
    console.log(
      `${kernel} medians: WebAssembly p50 ${m('wasm', 'p50').toFixed(2)} ms, p99 ${m('wasm', 'p99').toFixed(2)} ms; ` +
        `TypeScript p50 ${m('typescript', 'p50').toFixed(2)} ms, p99 ${m('typescript', 'p99').toFixed(2)} ms; ` +
        `the kernel saves ${saved('p50').toFixed(0)} % of p50 and ${saved('p99').toFixed(0)} % of p99`,
    );
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}
