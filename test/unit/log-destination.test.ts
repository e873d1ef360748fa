// The service's log destination: the lines of one turn of the event loop written together at its end, and at once
// when flushed (every exit flushes).
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { TurnBatchedDestination } from '../../src/observability/log-destination.js';

describe('log destination: a write per turn of the event loop', () => {
  let dir: string;
  let file: string;
  let fd: number;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ias-log-'));
    file = join(dir, 'out.log');
    fd = openSync(file, 'a');
  });
  afterEach(() => {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  });
  const written = () => readFileSync(file, 'utf8');
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

  it('keeps the lines of a turn until it ends, then writes them all, in order', async () => {
    const destination = new TurnBatchedDestination(fd);
    destination.write('one\n');
    destination.write('two\n');
    await Promise.resolve(); // microtasks belong to the turn
    destination.write('three\n');
    expect(written()).to.equal('');
    await nextTurn();
    expect(written()).to.equal('one\ntwo\nthree\n');
    destination.write('four\n');
    await nextTurn();
    expect(written()).to.equal('one\ntwo\nthree\nfour\n');
  });

  it('writes a turn of many lines in writes of whole lines, none over 4096 bytes (a pipe keeps those whole)', async () => {
    const destination = new TurnBatchedDestination(fd);
    const writes: string[] = [];
    const out = (destination as unknown as { out: { write: (chunk: string) => boolean } }).out;
    const write = out.write.bind(out);
    out.write = (chunk: string) => (writes.push(chunk), write(chunk));
    const lines = Array.from({ length: 100 }, (_, i) => `{"n":${i},"msg":"${'é'.repeat(i % 7)}${'x'.repeat(150)}"}\n`);
    for (const line of lines) destination.write(line);
    await nextTurn();
    expect(written()).to.equal(lines.join(''));
    expect(writes.length, 'a few writes, not one per line').to.be.within(4, 10);
    for (const chunk of writes) {
      expect(Buffer.byteLength(chunk)).to.be.at.most(4096);
      expect(chunk.endsWith('\n')).to.equal(true);
    }
  });

  it('writes what is pending at once when flushed, then calls back', async () => {
    const destination = new TurnBatchedDestination(fd);
    destination.write('last words\n');
    const flushed = await new Promise<string>((resolve) => destination.flush(() => resolve(written())));
    expect(flushed).to.equal('last words\n');
    await nextTurn();
    expect(written(), 'nothing written twice').to.equal('last words\n');
  });
});
