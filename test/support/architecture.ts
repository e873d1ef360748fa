// ARCHITECTURE.md's folder table as data, and the imports of the hand-written sources, for test/pipeline/layers.test.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

/** One relative import: the file that has it and the file it names (as written, `.js` for a `.ts`). */
export interface Import {
  file: string;
  target: string;
}

/** A row of the table: a folder (`src/http/`, `db/`) or a file at the top of `src/` (`src/app.ts`). */
export interface Row {
  units: string[];
  mayImport: Set<string>;
}

/** What a file belongs to: its folder of `src/` or a top folder, or itself when it is at the top of `src/`. */
export function unitOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] === 'src') return parts.length > 2 ? `src/${parts[1]}/` : file.replace(/\.js$/, '.ts');
  return `${parts[0]}/`;
}

const UNIT = /^(src\/|handlers\/|db\/|generated\/|openapi\.yaml$|schema\.graphql$)/;
const quoted = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!).filter((token) => UNIT.test(token));

/** The rows of the table under `## Folders`, in order: the folders and files of the first column, the third column's. */
export function folderTable(markdown: string): Row[] {
  const lines = markdown.slice(markdown.indexOf('\n## Folders\n')).split('\n');
  const start = lines.findIndex((line) => line.startsWith('|'));
  const end = lines.findIndex((line, i) => i > start && !line.startsWith('|'));
  return lines.slice(start + 2, end).map((line) => {
    const cells = line.split('|').slice(1, -1);
    return { units: quoted(cells[0]!), mayImport: new Set(quoted(cells[2]!)) };
  });
}

/** Every file below `folders` whose name ends in one of `extensions`, as a path from the repository's root. */
export function sourceFiles(folders: string[], extensions: RegExp): string[] {
  const walk = (folder: string): string[] =>
    readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
      const path = `${folder}/${entry.name}`;
      if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name.startsWith('.') ? [] : walk(path);
      return extensions.test(entry.name) ? [path] : [];
    });
  return folders.flatMap(walk).sort();
}

/** The module specifiers of a file: static imports and re-exports, side-effect imports and dynamic `import()`. */
export function specifiersOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const pattern =
    /(?:^|\n)\s*(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]|(?:^|\n)\s*import\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
  return [...text.matchAll(pattern)].map((m) => (m[1] ?? m[2] ?? m[3])!);
}

/** The imports of other files of the repository (relative specifiers) that `files` make. */
export function relativeImports(files: string[]): Import[] {
  return files.flatMap((file) =>
    specifiersOf(file)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => ({ file, target: normalize(join(dirname(file), specifier)) })),
  );
}

/** Each import of one unit by another that the table does not allow, or of a unit the table has no row for. */
export function disallowed(table: Row[], imports: Import[]): string[] {
  const rows = new Map(table.flatMap((row) => row.units.map((unit) => [unit, row] as const)));
  const offences = new Set<string>();
  for (const { file, target } of imports) {
    const [from, to] = [unitOf(file), unitOf(target)];
    if (from === to) continue;
    const row = rows.get(from);
    if (!row) offences.add(`${from} has no row in ARCHITECTURE.md's table`);
    else if (!row.mayImport.has(to)) offences.add(`${file} imports ${target}: the row of ${from} does not allow ${to}`);
  }
  return [...offences];
}

/** The pairs of units that import each other, each with one import either way. */
export function mutual(imports: Import[]): string[] {
  const edges = new Map<string, Import>();
  for (const i of imports) if (unitOf(i.file) !== unitOf(i.target)) edges.set(`${unitOf(i.file)} ${unitOf(i.target)}`, i);
  const pairs: string[] = [];
  for (const [key, one] of edges) {
    const [from, to] = key.split(' ') as [string, string];
    const other = edges.get(`${to} ${from}`);
    if (other && from < to) pairs.push(`${from} and ${to}: ${one.file} imports ${one.target}, ${other.file} imports ${other.target}`);
  }
  return pairs;
}

/** Allowances that point up the table (to a row above, or the row itself: a cycle allowed) or to no row at all. */
export function pointingUp(table: Row[], exempt: string[]): string[] {
  const position = new Map(table.flatMap((row, i) => row.units.map((unit) => [unit, i] as const)));
  return table
    .filter((row) => !row.units.some((own) => exempt.includes(own)))
    .flatMap((row) =>
      [...row.mayImport]
        .filter((unit) => !exempt.includes(unit))
        .flatMap((unit) => {
          const at = position.get(unit);
          if (at === undefined) return [`${row.units.join(', ')} may import ${unit}, which has no row`];
          return at <= table.indexOf(row) ? [`${row.units.join(', ')} may import ${unit}, which is not below it`] : [];
        }),
    );
}
/** The number of lines of a text file (a last line without a newline counts). */
export function lineCount(file: string): number {
  const text = readFileSync(file, 'utf8');
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}
