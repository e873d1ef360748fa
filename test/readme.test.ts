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
    expect(lines[0], 'the probability, a number').to.match(/^(0|1|0\.\d+)$/);
    expect(Number(lines[0])).to.be.within(0, 1);
    expect(stdout).to.include("symbol: 'VTI'");
    expect(stdout).to.match(/^filled$/m);
    expect(stdout).to.match(/quantity: [\d.]+/);
    expect(stdout).to.match(/filled: 1/);
  });

  it('shows the problem, not a parser error, when a step fails (a wrong secret)', async function () {
    this.timeout(60_000);
    const block = /<!-- walkthrough:start -->\s*```sh\n([\s\S]*?)```\s*<!-- walkthrough:end -->/.exec(readFileSync('README.md', 'utf8'))![1]!;
    const { id } = service.credentials();
    const script = block
      .replace(/^export CLIENT_ID=.*$/m, `export CLIENT_ID='${id}' CLIENT_SECRET='wrong'`)
      .replace('API=http://localhost:3000', `API=http://127.0.0.1:${service.port}`);
    const failed = await run('bash', ['-euo', 'pipefail', '-c', script]).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed.code).to.not.equal(0);
    expect(failed.stderr).to.include('401 Client authentication failed: The client is unknown, revoked, or the secret is wrong.');
    expect(failed.stderr).to.not.match(/SyntaxError|at JSON\.parse/);
  });
});
