import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { monteCarlo } from './support/feasibility.js';
import { startTestServer, type TestServer } from './support/server.js';
import { snippet } from './support/snippets.js';

const run = promisify(execFile);

describe('the partner path in the REST guide (docs/rest.md)', () => {
  let server: TestServer;
  const dir = mkdtempSync(join(tmpdir(), 'ias-partner-'));

  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await server.close();
  });

  it('runs the guide’s SDK block as written in an empty folder: install, generate types, type-check, evaluate a goal', async function () {
    this.timeout(240_000);
    // Only where it runs changes: the folder (a fresh one) and the server's address (`$API`, as the README sets it).
    const script = snippet('sdk').text.replaceAll('../my-partner', join(dir, 'my-partner'));
    const client = await server.createClient(['read']);
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], {
      env: {
        ...process.env,
        API: server.url,
        CLIENT_ID: client.client_id,
        CLIENT_SECRET: client.client_secret,
        npm_config_audit: 'false',
        npm_config_fund: 'false',
      },
      maxBuffer: 10 * 1024 * 1024,
    });
    const result = JSON.parse(stdout.trim().split('\n').at(-1)!);
    // examples/partner/partner.ts's goal at the documented US defaults (μ 0.1166, σ 0.1955), against a seeded Monte
    // Carlo of the test's own (test/support/feasibility.ts): the documented accuracy plus 4 sampling errors.
    const paths = 200_000;
    const reference = monteCarlo(
      {
        capital: 10000,
        target: 25000,
        horizon_years: 10,
        market: 'US',
        monthly_contribution: 200,
        assumptions: { expected_return: 0.1166, volatility: 0.1955 },
      },
      paths,
      25,
    );
    expect(result.probability).to.be.closeTo(reference, 0.0005 + 4 * Math.sqrt((reference * (1 - reference)) / paths));
    expect(result.required_growth_rate).to.be.closeTo(2.5 ** 0.1 - 1, 1e-12);
    expect(result.suggestions).to.equal(4);
  });
});
