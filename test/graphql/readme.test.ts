import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { startServiceProcess, type ServiceProcess } from '../support/process.js';

const run = promisify(execFile);

describe('the README GraphQL examples', () => {
  let service: ServiceProcess;

  before(async function () {
    this.timeout(90_000); // a first start of the embedded database takes seconds, more on a busy machine
    service = await startServiceProcess();
  });
  after(() => service?.stop());

  it('work as written against a fresh `--demo` server, after the walk-through’s token step', async function () {
    this.timeout(60_000);
    const readme = readFileSync('README.md', 'utf8');
    const walkthrough = /<!-- walkthrough:start -->\s*```sh\n([\s\S]*?)```/.exec(readme)![1]!;
    const setup = walkthrough.slice(0, walkthrough.indexOf('\n', walkthrough.indexOf('AUTH=')));
    const block = /<!-- graphql:start -->\s*```sh\n([\s\S]*?)```\s*<!-- graphql:end -->/.exec(readme)?.[1];
    expect(block, 'README GraphQL block').to.be.a('string');
    const { id, secret } = service.credentials();
    const script = `${setup}\n${block}`
      .replace(/^export CLIENT_ID=.*$/m, `export CLIENT_ID='${id}' CLIENT_SECRET='${secret}'`)
      .replace('API=http://localhost:3000', `API=http://127.0.0.1:${service.port}`);
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script]);
    expect(stdout.trim().split('\n')).to.deep.equal(['{ engaged: false }', 'filled']);
  });
});
