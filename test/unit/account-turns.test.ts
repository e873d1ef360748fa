// AccountTurns (src/services/account-turns.ts): work that takes an account's paper-account lock waits its turn in
// this process, one at a time per account, in the order asked; a failed turn does not stop the next; other accounts
// do not wait; nothing is kept once every turn has ended.
import { expect } from 'chai';
import { AccountTurns } from '../../src/services/account-turns.js';

describe('AccountTurns', () => {
  const tick = () => new Promise((resolve) => setImmediate(resolve));
  /** A turn's work that records when it starts and ends, and ends when `finish` is called. */
  const held = (log: string[], name: string) => {
    let finish!: (fail?: boolean) => void;
    const work = () =>
      new Promise<string>((resolve, reject) => {
        log.push(`${name} starts`);
        finish = (fail) => {
          log.push(`${name} ends`);
          if (fail) reject(new Error(name));
          else resolve(name);
        };
      });
    return { work, finish: (fail?: boolean) => finish(fail) };
  };

  it('runs one turn of an account at a time, in the order asked, a failed one passing the turn on', async () => {
    const turns = new AccountTurns();
    const log: string[] = [];
    const [a, b, c] = [held(log, 'a'), held(log, 'b'), held(log, 'c')];
    const results = [turns.run('acct_1', a.work), turns.run('acct_1', b.work), turns.run('acct_1', c.work)];
    await tick();
    expect(log).to.deep.equal(['a starts']);
    a.finish(true);
    await tick();
    expect(log).to.deep.equal(['a starts', 'a ends', 'b starts']);
    b.finish();
    await tick();
    c.finish();
    const settled = await Promise.allSettled(results);
    expect(settled.map((s) => s.status)).to.deep.equal(['rejected', 'fulfilled', 'fulfilled']);
    expect(log).to.deep.equal(['a starts', 'a ends', 'b starts', 'b ends', 'c starts', 'c ends']);
    await tick();
    expect(turns.size).to.equal(0);
  });

  it('does not make another account wait', async () => {
    const turns = new AccountTurns();
    const log: string[] = [];
    const [a, b] = [held(log, 'a'), held(log, 'b')];
    const results = [turns.run('acct_1', a.work), turns.run('acct_2', b.work)];
    await tick();
    expect(log).to.deep.equal(['a starts', 'b starts']);
    b.finish();
    a.finish();
    expect(await Promise.all(results)).to.deep.equal(['a', 'b']);
  });
});
