import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { load } from 'js-yaml';

const run = promisify(execFile);

type Ref = { $ref: string };
interface Index {
  paths: Record<string, Ref>;
  webhooks: Record<string, Ref>;
  components: Record<string, Record<string, Ref>>;
  'x-problem-types': Ref;
}

const committed = readFileSync('generated/openapi.json', 'utf8');
const generated = JSON.parse(committed) as { components: Record<string, Record<string, unknown>> };
const root = readFileSync('openapi.yaml', 'utf8');
const index = load(root) as Index;
/** A key as a JSON pointer's last token (RFC 6901): `/v1/orders` is `~1v1~1orders`. */
const token = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');
const lines = (text: string) => text.split('\n').length - 1;

describe('the spec in files: openapi.yaml and openapi/', () => {
  let bundle: string;

  // The bundler generate.mjs runs, over the files as they are (a second or two; more on a busy machine).
  before(async function () {
    this.timeout(60_000);
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
    ({ stdout: bundle } = await run(join('node_modules', '.bin', 'redocly'), ['bundle', 'openapi.yaml', '--ext', 'json'], {
      env,
      maxBuffer: 64 * 1024 * 1024,
    }));
  });

  it('bundle into exactly generated/openapi.json: the same document, its keys in the same order', () => {
    const document: unknown = JSON.parse(bundle);
    expect(document).to.deep.equal(JSON.parse(committed));
    // Key order too: generated/openapi.json and the types generated from it follow it.
    expect(JSON.stringify(document, null, 2) + '\n', 'the order of keys (`npm run generate` shows where)').to.equal(committed);
  });

  it('openapi.yaml is an index: each path, webhook and component one $ref into openapi/, a component under its own name, in the order of the bundle', () => {
    for (const [section, entries] of [
      ['paths', index.paths],
      ['webhooks', index.webhooks],
    ] as const) {
      for (const [key, entry] of Object.entries(entries)) {
        expect(entry, `${section} ${key}`).to.have.all.keys('$ref');
        const [file, pointer] = entry.$ref.split('#');
        expect(file, `${section} ${key}`).to.match(new RegExp(`^\\./openapi/${section}/[a-z-]+\\.yaml$`));
        expect(pointer, `${section} ${key}`).to.equal(`/${token(key)}`);
      }
    }
    // The bundle names a component after the key it is listed under and keeps this order; one not listed here would
    // be named after its pointer and put last.
    expect(Object.keys(index.components)).to.deep.equal(Object.keys(generated.components));
    for (const [type, entries] of Object.entries(index.components)) {
      expect(Object.keys(entries), type).to.deep.equal(Object.keys(generated.components[type]!));
      for (const [name, entry] of Object.entries(entries)) {
        expect(entry, `${type} ${name}`).to.have.all.keys('$ref');
        expect(entry.$ref, `${type} ${name}`).to.match(/^\.\/openapi\/components\/[a-z/-]+\.yaml#/);
        expect(entry.$ref.split('#')[1], `${type} ${name}`).to.equal(`/${name}`);
      }
    }
    expect(index['x-problem-types']).to.deep.equal({ $ref: './openapi/problem-types.yaml' });
  });

  it('every file under openapi/ is reached from the index, none over 300 lines, the index under 400', () => {
    const referenced = new Set([...root.matchAll(/\$ref: '\.\/(openapi\/[^'#]+)/g)].map((m) => m[1]));
    const files = readdirSync('openapi', { recursive: true, encoding: 'utf8' })
      .filter((name) => /\.(yaml|md)$/.test(name))
      .map((name) => join('openapi', name));
    expect(files.length).to.be.greaterThan(30);
    expect([...referenced].sort()).to.deep.equal([...files].sort());
    for (const file of files) expect(lines(readFileSync(file, 'utf8')), file).to.be.at.most(300);
    expect(lines(root)).to.be.at.most(400);
  });

  it('openapi/released/ holds the last released bundle only, outside the live contract: the index never reaches it', () => {
    expect(readdirSync('openapi/released')).to.deep.equal(['v1.json']);
    const released = JSON.parse(readFileSync('openapi/released/v1.json', 'utf8')) as { openapi: string; info: { version: string } };
    expect(released.openapi).to.equal('3.1.0');
    expect(released.info.version).to.match(/^\d+\.\d+\.\d+$/);
    expect(root).to.not.include('released/');
  });
});
