import { spawn } from 'node:child_process';
import { expect } from 'chai';
import { AlpacaStandIn } from './support/alpaca-stand-in.js';
import { startTestServer, type TestServer } from './support/server.js';

const SECRET = 'start-secret-0a1b2c3d4e5f60718293a4b5c6d7e8f9';
const KEY_ID = 'PKSTART0001';

describe('starting the service with connected accounts (PostgreSQL)', () => {
  let server: TestServer;
  let alpaca: AlpacaStandIn;
  before(async () => {
    alpaca = await AlpacaStandIn.start();
    alpaca.addAccount({ keyId: KEY_ID, secretKey: SECRET, cash: '100000' });
    server = await startTestServer({ ALPACA_PAPER_URL: alpaca.tradingUrl, ALPACA_DATA_URL: alpaca.dataUrl });
  });
  after(async () => {
    await server?.close();
    await alpaca?.close();
  });

  /** src/main.ts on the test database, as production starts it (no --demo), until it exits or says it serves. */
  function start(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        env: {
          ...process.env,
          PORT: '0',
          DASHBOARD_PORT: '0',
          HOST: '127.0.0.1',
          LOG_LEVEL: 'info',
          DATABASE_URL: server.database.url,
          ...env,
        },
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('"msg":"serving"') && child.kill('SIGKILL'));
      child.on('error', reject);
      child.on('exit', (code) => resolve({ code, stderr }));
    });
  }

  it('refuses to start, in one line naming BROKER_CREDENTIALS_KEY, while an account is connected and no key (or another) is set', async function () {
    this.timeout(60_000);
    if (!server.database.url) this.skip();
    const { accountId } = await server.account(['read']);
    await server.services.brokerConnections.connect(accountId, { broker: 'alpaca', keyId: KEY_ID, secretKey: SECRET, live: false });
    const keyless = await start({ BROKER_CREDENTIALS_KEY: '' });
    expect(keyless.code).to.equal(78);
    expect(keyless.stderr).to.match(
      /^Configuration error: BROKER_CREDENTIALS_KEY: is not set, and 1 account\(s\) are connected to a broker[^\n]*\n$/,
    );
    const other = await start({ BROKER_CREDENTIALS_KEY: 'ab'.repeat(32) });
    expect(other.code).to.equal(78);
    expect(other.stderr).to.match(/^Configuration error: BROKER_CREDENTIALS_KEY: does not open the secret keys/);
  });
});
