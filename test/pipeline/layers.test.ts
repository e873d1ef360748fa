import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import madge from 'madge';
import { disallowed, folderTable, lineCount, mutual, pointingUp, relativeImports, sourceFiles } from '../support/architecture.js';

/** The layers that know no transport: the use cases, the pipeline and what they stand on. */
const TRANSPORT_FREE = ['src/services/', 'src/application/', 'src/contract/', 'src/compute/', 'src/auth/', 'src/counters/'];
/** The channels and the HTTP edge: none of the layers above may reach them, even through another file. */
const CHANNELS = [
  'src/http/',
  'src/graphql/',
  'src/mcp/',
  'src/dashboard/',
  'handlers/',
  'src/app.ts',
  'src/server.ts',
  'src/main.ts',
  'src/process.ts',
];
/** Packages that are HTTP (or a channel's server) itself. */
const TRANSPORT_PACKAGES = new RegExp(
  [
    '^(node:)?(http|https|http2)$',
    '^(express|express-rate-limit|compression|pino-http|graphql-http|negotiator|cookie)(/|$)',
    '^@modelcontextprotocol/sdk/server(/|$)',
  ].join('|'),
);

const importsOf = (file: string) =>
  [
    ...readFileSync(file, 'utf8').matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((m) => (m[1] ?? m[2])!);

describe('layers: the service and application layers know no transport', () => {
  let graph: Record<string, string[]>;
  before(async function () {
    this.timeout(60_000);
    graph = (await madge(['src', 'handlers', 'db'], { fileExtensions: ['ts'], tsConfig: 'tsconfig.json', baseDir: '.' })).obj();
  });

  /** Every hand-written file `file` imports, directly or through others. */
  function reach(file: string): Set<string> {
    const seen = new Set<string>();
    const next = [file];
    while (next.length > 0) {
      for (const dependency of graph[next.pop()!] ?? []) {
        if (seen.has(dependency)) continue;
        seen.add(dependency);
        next.push(dependency);
      }
    }
    return seen;
  }

  it('no file under services, application, contract, compute, auth or counters reaches the HTTP layer, a channel, or an HTTP package', () => {
    const files = Object.keys(graph).filter((file) => TRANSPORT_FREE.some((layer) => file.startsWith(layer)));
    expect(files.filter((f) => f.startsWith('src/services/')).length, 'the service layer was found').to.be.greaterThan(30);
    expect(files.filter((f) => f.startsWith('src/application/')).length, 'the application layer was found').to.be.greaterThan(4);
    const offences: string[] = [];
    for (const file of files) {
      const reached = reach(file);
      for (const channel of [...reached].filter((r) => CHANNELS.some((c) => r.startsWith(c)))) offences.push(`${file} reaches ${channel}`);
      for (const used of [file, ...reached]) {
        for (const specifier of importsOf(used).filter((s) => TRANSPORT_PACKAGES.test(s)))
          offences.push(`${file} reaches ${specifier}${used === file ? '' : ` through ${used}`}`);
      }
    }
    expect([...new Set(offences)]).to.deep.equal([]);
  });

  it('the dashboard reaches the use cases only through the pipeline: no validation, authorization or service call of its own but its sessions', () => {
    const files = Object.keys(graph).filter((file) => file.startsWith('src/dashboard/'));
    expect(files.length, 'the dashboard was found').to.be.greaterThan(10);
    const offences = files.flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/\b(?:validate|check|actorFor|authorize)\(|\bservices\.(?!sessions\b)\w+/g)].map(
        (m) => `${file}: ${m[0]}`,
      ),
    );
    expect(offences).to.deep.equal([]);
  });

  it('the check sees an offence: the HTTP layer itself reaches express', () => {
    const reached = reach('src/http/api.ts');
    expect([...reached, 'src/http/api.ts'].some((file) => importsOf(file).some((s) => TRANSPORT_PACKAGES.test(s)))).to.equal(true);
    expect(reach('src/app.ts').has('src/http/api.ts')).to.equal(true);
  });
});

describe("layers: ARCHITECTURE.md's folder table holds the imports", () => {
  const table = folderTable(readFileSync('ARCHITECTURE.md', 'utf8'));
  const imports = relativeImports(sourceFiles(['src', 'handlers', 'db'], /\.(ts|mts|mjs|js|cjs)$/));

  it('every folder of src/, each file at its top, handlers/ and db/ imports only what its row of the table allows', () => {
    expect(table.length, 'the table was found').to.be.greaterThan(15);
    expect(imports.length, 'the imports were found').to.be.greaterThan(500);
    expect(disallowed(table, imports)).to.deep.equal([]);
  });

  it('no two folders (or top-level files) of src/, handlers/ and db/ import each other', () => {
    expect(mutual(imports)).to.deep.equal([]);
  });

  it('the table allows only imports of rows below (generated/ aside, which every layer reads)', () => {
    expect(pointingUp(table, ['generated/'])).to.deep.equal([]);
  });

  it('the checks see an offence: an import the table does not allow, two folders that import each other, a folder without a row', () => {
    const planted = [
      ...imports,
      { file: 'src/services/orders/service.ts', target: 'src/http/reply.js' },
      { file: 'src/reports/daily.ts', target: 'src/problems.js' },
    ];
    expect(disallowed(table, planted)).to.deep.equal([
      'src/services/orders/service.ts imports src/http/reply.js: the row of src/services/ does not allow src/http/',
      "src/reports/ has no row in ARCHITECTURE.md's table",
    ]);
    expect(mutual(planted))
      .to.have.length(1)
      .and.to.match(/^src\/http\/ and src\/services\/: /);
    expect(
      pointingUp([...table, { units: ['src/late/'], mayImport: new Set(['src/http/', 'src/nowhere/']) }], ['generated/']),
    ).to.deep.equal(['src/late/ may import src/http/, which is not below it', 'src/late/ may import src/nowhere/, which has no row']);
  });
});

const MAX_LINES = 300;

describe('layers: small files', () => {
  it(`no hand-written source file under src, handlers, db, scripts, test or examples is over ${MAX_LINES} lines`, () => {
    const files = sourceFiles(['src', 'handlers', 'db', 'scripts', 'test', 'examples'], /\.(ts|mts|mjs|js|cjs|css)$/);
    expect(files.length, 'the sources were found').to.be.greaterThan(300);
    const over = files.filter((file) => lineCount(file) > MAX_LINES);
    expect(over.map((file) => `${file}: ${lineCount(file)} lines`)).to.deep.equal([]);
  });
});
