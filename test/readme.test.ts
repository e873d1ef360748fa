import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { startServiceProcess, type ServiceProcess } from './support/process.js';

const run = promisify(execFile);

describe('the README walk-through', () => {
  let service: ServiceProcess;

  before(async () => {
    service = await startServiceProcess();
  });
  after(() => service.stop());

  it('works as written against a fresh `--demo` server: token, feasibility, policy, ideas, approve, portfolio, report', async function () {
    this.timeout(60_000);
    const readme = readFileSync('README.md', 'utf8');
    const block = /<!-- walkthrough:start -->\s*```sh\n([\s\S]*?)```\s*<!-- walkthrough:end -->/.exec(readme)?.[1];
    expect(block, 'README walk-through block').to.be.a('string');
    const { id, secret } = service.credentials();
    const script = block!
      .replace(/^export CLIENT_ID=.*$/m, `export CLIENT_ID='${id}' CLIENT_SECRET='${secret}'`)
      .replace('API=http://localhost:3000', `API=http://127.0.0.1:${service.port}`);
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script]);
    const lines = stdout.trim().split('\n');
    expect(Number(lines[0])).to.be.within(0, 1);
    expect(stdout).to.include("symbol: 'VTI'");
    expect(stdout).to.match(/^filled$/m);
    expect(stdout).to.match(/quantity: [\d.]+/);
    expect(stdout).to.match(/filled: 1/);
  });
});
