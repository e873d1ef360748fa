import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import type { Json } from '../scripts/contract/describe.js';
import { prepareRelease } from '../scripts/contract/release.js';

const run = promisify(execFile);
const top = resolve('.');

/** `make contract-check` (its script) run at the top of `dir`: its exit status and what it printed. */
async function contractCheck(dir: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(join(top, 'node_modules', '.bin', 'tsx'), [join(top, 'scripts', 'contract-check.ts')], {
      cwd: dir,
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

describe('make contract-check on a copy of the tree (the acceptance check of issue 36)', function () {
  this.timeout(120_000);
  let dir: string;
  const edit = (file: string, change: (text: string) => string) =>
    writeFileSync(join(dir, file), change(readFileSync(join(dir, file), 'utf8')));

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ias-contract-'));
    cpSync('openapi.yaml', join(dir, 'openapi.yaml'));
    cpSync('openapi', join(dir, 'openapi'), { recursive: true });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('passes as it is', async () => {
    const { code, output } = await contractCheck(dir);
    expect(code, output).to.equal(0);
    expect(output).to.match(/nothing breaks the released contract/);
  });

  it('fails naming `required_growth_rate` when that response field is renamed', async () => {
    edit('openapi/components/schemas/goals.yaml', (text) => text.replaceAll('required_growth_rate', 'growth_rate_required'));
    const { code, output } = await contractCheck(dir);
    expect(code, output).to.equal(1);
    expect(output).to.match(/response-field-removed: response 200: field `required_growth_rate` removed/);
    expect(output).to.include('POST /v1/goals/feasibility (evaluateGoalFeasibility)');
    expect(output).to.include(
      '/paths/~1v1~1goals~1feasibility/post/responses/200/content/application~1json/schema/properties/required_growth_rate',
    );
  });

  it('fails when `listBrokers` is renamed', async () => {
    edit('openapi/paths/brokers.yaml', (text) => text.replaceAll('listBrokers', 'listAllBrokers'));
    const { code, output } = await contractCheck(dir);
    expect(code, output).to.equal(1);
    expect(output).to.match(/operation-id-changed: operationId `listBrokers` renamed `listAllBrokers`/);
    expect(output).to.include('/paths/~1v1~1brokers/get/operationId');
  });

  it('passes when an optional response field is added, and when an operation is deprecated', async () => {
    edit('openapi/components/schemas/brokers.yaml', (text) =>
      text.replace(
        /^(Broker:\n(?:.*\n)*? {2}properties:\n)/m,
        "$1    website:\n      type: string\n      description: The broker's site.\n",
      ),
    );
    edit('openapi/paths/brokers.yaml', (text) =>
      text.replace('    operationId: listBrokers\n', '    operationId: listBrokers\n    deprecated: true\n    x-sunset: "2027-06-30"\n'),
    );
    const { code, output } = await contractCheck(dir);
    expect(code, output).to.equal(0);
    expect(output).to.match(/unreleased: .*1 deprecated.*1 added|unreleased: .*1 added/);
  });

  it('fails when a deprecated operation is removed before its sunset, and passes with a note after it', async () => {
    const released = (sunset: string) =>
      edit('openapi/released/v1.json', (text) => {
        const document = JSON.parse(text) as Json;
        Object.assign(document.paths['/v1/brokers'].get, { deprecated: true, 'x-deprecated-at': '2020-01-01', 'x-sunset': sunset });
        return JSON.stringify(document);
      });
    edit('openapi.yaml', (text) => text.replace(/^ {2}\/v1\/brokers: .*\n/m, ''));
    released('2099-01-01');
    const early = await contractCheck(dir);
    expect(early.code, early.output).to.equal(1);
    expect(early.output).to.include('operation-removed: operation removed (deprecated, but its sunset (2099-01-01) has not passed)');
    released('2020-06-30');
    const late = await contractCheck(dir);
    expect(late.code, late.output).to.equal(0);
    expect(late.output).to.include(
      'note: GET /v1/brokers (listBrokers): operation removed (deprecated, removed after its sunset 2020-06-30)',
    );
  });
});

describe('npm run contract:release (what it writes, computed without writing)', () => {
  const released = JSON.parse(readFileSync('openapi/released/v1.json', 'utf8')) as Json;
  const root = readFileSync('openapi.yaml', 'utf8');
  const changelog = readFileSync('CHANGELOG.md', 'utf8');
  const changed = (change: (document: Json) => void) => {
    const document = structuredClone(released);
    change(document);
    return document;
  };
  const broker = (document: Json) => document.components.schemas.Broker as Json;
  // The versions a release after the one released now would take (it moves with every release).
  const current = String(released.info.version);
  const [major, minor, patch] = current.split('.').map(Number) as [number, number, number];
  const [nextMinor, nextMajor, nextPatch] = [`${major}.${minor + 1}.0`, `${major + 1}.0.0`, `${major}.${minor}.${patch + 1}`];
  const escaped = (version: string) => version.replaceAll('.', '\\.');

  it('an added response field: a minor version, its Added entry on top of CHANGELOG.md, info.version in openapi.yaml', () => {
    const release = prepareRelease(
      released,
      changed((d) => (broker(d).properties.website = { type: 'string' })),
      root,
      changelog,
      '2027-01-15',
    );
    expect(release.version).to.equal(nextMinor);
    expect(release.root).to.match(new RegExp(`^info:\\n(?:[ ].*\\n)*? {2}version: ${escaped(nextMinor)}$`, 'm'));
    expect(release.root.replace(`version: ${nextMinor}`, `version: ${current}`)).to.equal(root);
    const entry = release.changelog.slice(release.changelog.indexOf(`## [${nextMinor}] - 2027-01-15`));
    expect(entry).to.match(
      new RegExp(
        `^## \\[${escaped(nextMinor)}\\] - 2027-01-15\\n\\n### Added\\n\\n` +
          '- `GET /v1/brokers` \\(`listBrokers`\\): response 200: new field `data\\[\\]\\.website`\\.\\n',
      ),
    );
    expect(release.changelog.indexOf(`## [${nextMinor}]`)).to.be.lessThan(release.changelog.indexOf(`## [${current}]`));
  });

  it('a deprecation: minor, under Deprecated with its dates; refused without x-deprecated-at', () => {
    const deprecate = (at?: string) =>
      changed((d) =>
        Object.assign(d.paths['/v1/brokers'].get, { deprecated: true, 'x-sunset': '2027-06-30', ...(at ? { 'x-deprecated-at': at } : {}) }),
      );
    expect(() => prepareRelease(released, deprecate(), root, changelog, '2027-01-15')).to.throw(
      /x-deprecated-at.*\/paths\/~1v1~1brokers\/get/,
    );
    const release = prepareRelease(released, deprecate('2027-01-15'), root, changelog, '2027-01-15');
    expect(release.version).to.equal(nextMinor);
    expect(release.changelog).to.include(
      '### Deprecated\n\n- `GET /v1/brokers` (`listBrokers`): deprecated, since 2027-01-15, sunset 2027-06-30.',
    );
  });

  it('a breaking change: refused unless --breaking, then a major version marked **Breaking** under Removed', () => {
    const renamed = changed((d) => {
      const result = d.components.schemas.GoalFeasibilityResult as Json;
      result.properties.growth_rate_required = result.properties.required_growth_rate;
      delete result.properties.required_growth_rate;
    });
    expect(() => prepareRelease(released, renamed, root, changelog, '2027-01-15')).to.throw(/break clients.*--breaking/);
    const release = prepareRelease(released, renamed, root, changelog, '2027-01-15', true);
    expect(release.version).to.equal(nextMajor);
    expect(release.changelog).to.include(
      '- **Breaking:** `POST /v1/goals/feasibility` (`evaluateGoalFeasibility`): response 200: field `required_growth_rate` removed.',
    );
  });

  it('descriptions only: a patch; nothing changed: nothing to release', () => {
    const described = changed((d) => (d.paths['/v1/brokers'].get.description = 'The broker catalogue.'));
    expect(prepareRelease(released, described, root, changelog, '2027-01-15').version).to.equal(nextPatch);
    expect(() => prepareRelease(released, structuredClone(released), root, changelog, '2027-01-15')).to.throw(/nothing to release/);
  });
});
