import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Json } from '../scripts/contract/describe.js';
import { compareContracts, nextVersion, type Change } from '../scripts/contract/diff.js';

const FIXTURES = 'test/fixtures/contract';
/** Sunsets are judged by this day: the fixtures' past sunsets are before it, their future ones after. */
const TODAY = '2026-06-01';

interface Fixture {
  /** The rule the change from `before` to `after` breaks, or null when it must pass. */
  breaks: string | null;
  before: Json;
  after: Json;
}

const breaking = (changes: Change[]) => changes.filter((c) => c.kind === 'breaking');

describe('make contract-check: each rule on a fixture pair (test/fixtures/contract/)', () => {
  const files = readdirSync(FIXTURES).filter((file) => file.endsWith('.json'));

  it('has a breaking and a passing fixture or more', () => {
    const fixtures = files.map((file) => JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as Fixture);
    expect(fixtures.filter((f) => f.breaks).length).to.be.greaterThan(20);
    expect(fixtures.filter((f) => !f.breaks).length).to.be.greaterThan(8);
  });

  for (const file of files) {
    const name = file.slice(0, -'.json'.length);
    const { breaks, before, after } = JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as Fixture;
    if (breaks) {
      it(`${name}: fails on ${breaks}, naming the operation and a JSON pointer`, () => {
        const found = breaking(compareContracts(before, after, TODAY));
        expect(found.map((c) => c.rule)).to.include(breaks);
        for (const change of found) {
          expect(change.where, JSON.stringify(change)).to.match(/^(GET|POST) \/v1\/things|^webhook thing\.created|^problem type `/);
          expect(change.pointer, JSON.stringify(change)).to.match(/^\/(paths|webhooks|x-problem-types)\//);
        }
      });
    } else {
      it(`${name}: passes`, () => {
        const changes = compareContracts(before, after, TODAY);
        expect(breaking(changes), JSON.stringify(breaking(changes), null, 1)).to.deep.equal([]);
        expect(changes, 'the change is seen').to.not.deep.equal([]);
      });
    }
  }

  it('the same document: no change, and no next version', () => {
    const { before } = JSON.parse(readFileSync(join(FIXTURES, 'operation-added.json'), 'utf8')) as Fixture;
    const changes = compareContracts(before, structuredClone(before), TODAY);
    expect(changes).to.deep.equal([]);
    expect(nextVersion('1.4.2', changes)).to.equal(undefined);
  });
});
