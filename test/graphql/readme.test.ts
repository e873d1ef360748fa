import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { startServiceProcess, type ServiceProcess } from '../support/process.js';
import { snippet } from '../support/snippets.js';

const run = promisify(execFile);

describe('the GraphQL guide’s examples (docs/graphql.md)', () => {
  let service: ServiceProcess;

  // Starting a service (a process of its own on the embedded database) takes seconds, more on a busy machine.
  before(async function () {
    this.timeout(120_000);
    service = await startServiceProcess();
  });
  after(() => service?.stop());

  it('work as written against a fresh `--demo` server, after the walk-through’s token step', async function () {
    this.timeout(60_000);
    const walkthrough = snippet('walkthrough').text;
    const setup = walkthrough.slice(0, walkthrough.indexOf('\n', walkthrough.indexOf('AUTH=')));
    const block = snippet('graphql').text;
    const { id, secret } = service.credentials();
    const script = `${setup}\n${block}`.replace(/^export CLIENT_ID=.*$/m, `export CLIENT_ID='${id}' CLIENT_SECRET='${secret}'`);
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], { env: { ...process.env, PORT: String(service.port) } });
    expect(stdout.trim().split('\n')).to.deep.equal(['{ engaged: false }', 'filled']);
  });
});
