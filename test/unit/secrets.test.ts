import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { expect } from 'chai';
import { SecretHasher } from '../../src/auth/secrets.js';

/** The nice value of each of this process's threads (Linux). */
function threadNiceValues(): number[] {
  return readdirSync('/proc/self/task').map((task) =>
    Number(readFileSync(`/proc/self/task/${task}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]),
  );
}

describe('the secret hasher', () => {
  it('hashes and verifies; an unknown hash answers false after the time of a comparison', async () => {
    const hasher = new SecretHasher(4, 1, 2000);
    const hash = await hasher.hash('correct horse');
    expect(hash).to.match(/^\$2[aby]\$04\$/);
    expect(await hasher.verify('correct horse', hash)).to.equal(true);
    expect(await hasher.verify('wrong', hash)).to.equal(false);
    expect(await hasher.verify('correct horse', null)).to.equal(false);
  });

  it('runs bcrypt on a thread below the event loop’s priority (nice 10), so a flood of wrong secrets yields the cores to it', async function () {
    if (!existsSync('/proc/self/task')) this.skip();
    await new SecretHasher(4, 1, 2000).verify('x', null);
    expect(Math.max(...threadNiceValues())).to.equal(10);
    expect(threadNiceValues().filter((nice) => nice === 0).length, 'the event loop and the rest stay at 0').to.be.above(0);
  });
});
