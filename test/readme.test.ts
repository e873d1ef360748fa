import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { startServiceProcess, type ServiceProcess } from './support/process.js';
import { markdownFiles, snippet } from './support/snippets.js';

const run = promisify(execFile);

// The walk-through is README.md's; the GraphQL block continues it from docs/graphql.md.
const walkthrough = () => snippet('walkthrough').text;
const graphqlBlock = () => snippet('graphql').text;

/** A README script as a reader runs it: their credentials in the `export` line, and `PORT` in the environment (`$API` follows it). */
function script(service: ServiceProcess, text: string, secret?: string): [string, { env: NodeJS.ProcessEnv }] {
  const { id, secret: real } = service.credentials();
  const withCredentials = text.replace(/^export CLIENT_ID=.*$/m, `export CLIENT_ID='${id}' CLIENT_SECRET='${secret ?? real}'`);
  return [withCredentials, { env: { ...process.env, PORT: String(service.port) } }];
}

describe('the README walk-through', () => {
  let service: ServiceProcess;

  // Starting a service (a process of its own on the embedded database) takes seconds, more on a busy machine.
  before(async function () {
    this.timeout(120_000);
    service = await startServiceProcess();
  });
  after(() => service?.stop());

  it('sets `$API` once from PORT, and every snippet of the README and the guides reaches the API through it', () => {
    expect(readFileSync('README.md', 'utf8')).to.include('API=http://localhost:${PORT:-3000}');
    for (const file of markdownFiles()) {
      const snippets = [...readFileSync(file, 'utf8').matchAll(/```(?:sh|bash)\n([\s\S]*?)```/g)].map((m) => m[1]!);
      for (const text of snippets) expect(text, `${file}: ${text}`).to.not.match(/localhost:3000(?!})/);
    }
  });

  it('works as written against a fresh `--demo` server, and the GraphQL block after it on the same server', async function () {
    this.timeout(90_000);
    const [text, options] = script(service, `${walkthrough()}\n${graphqlBlock()}`);
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', text], options);
    const lines = stdout.trim().split('\n');
    expect(lines[0], 'the probability, a number').to.match(/^(0|1|0\.\d+)$/);
    expect(Number(lines[0])).to.be.within(0, 1);
    expect(stdout).to.include("symbol: 'VTI'");
    expect(stdout).to.match(/^approve\nfilled$/m);
    expect(stdout).to.match(/quantity: [\d.]+/);
    expect(stdout).to.match(/filled: 1/);
    // The GraphQL block's own answers come last: the kill switch, then its approval's fill.
    expect(lines.slice(-2)).to.deep.equal(['{ engaged: false }', 'filled']);
  });

  it('shows the problem, not a parser error, when a step fails (a wrong secret)', async function () {
    this.timeout(60_000);
    const [text, options] = script(service, walkthrough(), 'wrong');
    const failed = await run('bash', ['-euo', 'pipefail', '-c', text], options).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed.code).to.not.equal(0);
    expect(failed.stderr).to.include('401 Client authentication failed: The client is unknown, revoked, or the secret is wrong.');
    expect(failed.stderr).to.not.match(/SyntaxError|at JSON\.parse/);
  });

  it('prints a GraphQL `errors` answer and stops, instead of crashing on `data: null`', async function () {
    this.timeout(60_000);
    const setup = walkthrough().slice(0, walkthrough().indexOf('\n', walkthrough().indexOf('AUTH=')));
    const approveUnknown = `curl -sS --fail-with-body $API/graphql -H "$AUTH" -H 'Content-Type: application/json' \\
  -d '{"query": "mutation { approveOrder(id: \\"ord_unknown\\") { status } }"}' | json .data.approveOrder.status`;
    const [text, options] = script(service, `${setup}\n${approveUnknown}`);
    const failed = await run('bash', ['-euo', 'pipefail', '-c', text], options).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed.code).to.not.equal(0);
    expect(failed.stderr).to.match(/^404 Not found: There is no order ord_unknown\.$/m);
    expect(failed.stderr).to.not.match(/TypeError/);
  });
});
