import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect } from 'chai';

const root = resolve(import.meta.dirname, '../..');
const ENGINE = 'src/feasibility';

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.(ts|mts|mjs)$/.test(entry.name) ? [path] : [];
  });
}

/** The repository paths a source file imports (relative specifiers only; `.js` read as the `.ts` it compiles from). */
function imports(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(?\s*)'(\.{1,2}\/[^']+)'/g)].map((match) => match[1]!);
  return specifiers.map((specifier) => relative(root, resolve(root, dirname(file), specifier)).replace(/\.js$/, '.ts'));
}

const inEngine = (path: string) => path.startsWith(`${ENGINE}/`);

describe('the feasibility engine’s layout (src/feasibility/)', () => {
  const engine = sources(ENGINE);

  it('imports nothing from the rest of the service but its generated WebAssembly', () => {
    const outside = engine.flatMap((file) =>
      imports(file)
        .filter((path) => !inEngine(path) && !/^generated\/[a-z-]+-wasm\.ts$/.test(path))
        .map((path) => `${file} → ${path}`),
    );
    expect(engine.length).to.be.above(10);
    expect(outside).to.deep.equal([]);
  });

  it('is reached from the rest of the service only through its public face (index.ts)', () => {
    const others = ['src', 'handlers', 'scripts', 'db'].flatMap(sources).filter((file) => !inEngine(file));
    const users = others.filter((file) => imports(file).includes(`${ENGINE}/index.ts`));
    const internal = others.flatMap((file) =>
      imports(file)
        .filter((path) => inEngine(path) && path !== `${ENGINE}/index.ts`)
        .map((path) => `${file} → ${path}`),
    );
    expect(users).to.include('src/services/feasibility.ts');
    expect(internal).to.deep.equal([]);
  });

  it('has no import cycle', () => {
    const graph = new Map(engine.map((file) => [file, imports(file).filter(inEngine)]));
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, path: string[]): void => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        cycles.push([...path.slice(path.indexOf(file)), file].join(' → '));
        return;
      }
      state.set(file, 'open');
      for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of engine) visit(file, []);
    expect(cycles).to.deep.equal([]);
  });

  it('keeps every file under 400 lines', () => {
    const long = engine.filter((file) => readFileSync(join(root, file), 'utf8').split('\n').length > 400);
    expect(long).to.deep.equal([]);
  });
});
