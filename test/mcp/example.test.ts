import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { operationScopes } from '../../generated/operation-scopes.js';
import { startTestServer, type TestServer } from '../support/server.js';

const run = promisify(execFile);

describe('the assistant example in the MCP guide (docs/mcp.md)', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('type-checks, gets a token for /mcp with oauth4webapi, connects with the MCP SDK and evaluates the goal REST evaluates', async () => {
    const compilerOptions = [
      '--noEmit',
      '--strict',
      '--module',
      'NodeNext',
      '--moduleResolution',
      'NodeNext',
      '--target',
      'ES2022',
      '--skipLibCheck',
      '--types',
      'node',
    ];
    await run('node_modules/.bin/tsc', [...compilerOptions, 'examples/assistant.ts']);
    const credentials = await server.createClient(['read', 'mcp']);
    const { stdout } = await run('node_modules/.bin/tsx', [
      'examples/assistant.ts',
      server.url,
      credentials.client_id,
      credentials.client_secret,
    ]);
    const rest = await server.api.post('/v1/goals/feasibility', {
      token: await server.token(['read']),
      json: { capital: 10000, target: 25000, horizon_years: 10, market: 'US', monthly_contribution: 200 },
    });
    expect(JSON.parse(stdout)).to.deep.equal({
      tools: Object.keys(operationScopes).length,
      probability: rest.body.probability,
      required_growth_rate: rest.body.required_growth_rate,
    });
  });
});
