import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { startTestServer, type TestServer } from './support/server.js';

const run = promisify(execFile);

describe('the partner path in the README', () => {
  let server: TestServer;
  const dir = join('.tmp', `partner-${process.pid}`);

  before(async () => {
    server = await startTestServer();
    mkdirSync(dir, { recursive: true });
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await server.close();
  });

  it('generates a typed client from the running server’s /openapi.json that type-checks and evaluates a goal', async () => {
    await run('node_modules/.bin/openapi-typescript', [`${server.url}/openapi.json`, '-o', join(dir, 'schema.d.ts')]);
    copyFileSync('examples/partner.ts', join(dir, 'partner.ts'));
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', noEmit: true, skipLibCheck: true, types: ['node'] }, include: ['*.ts'] }),
    );
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    await run('node_modules/.bin/tsc', ['-p', join(dir, 'tsconfig.json')]);

    const client = await server.createClient(['read']);
    const { stdout } = await run('node_modules/.bin/tsx', [join(dir, 'partner.ts'), server.url, client.client_id, client.client_secret]);
    const result = JSON.parse(stdout);
    expect(result.probability).to.be.within(0, 1);
    expect(result.required_growth_rate).to.be.closeTo(2.5 ** 0.1 - 1, 1e-12);
    expect(result.suggestions).to.equal(4);
  });
});
