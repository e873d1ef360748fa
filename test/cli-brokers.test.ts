import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { AlpacaStandIn } from './support/alpaca-stand-in.js';
import { startTestServer, type TestServer } from './support/server.js';

const execFileAsync = promisify(execFile);
const KEY = Buffer.alloc(32, 3).toString('base64');
const SECRET = 'cli-secret-0f1e2d3c4b5a69788796a5b4c3d2e1f0';

/** The compiled CLI, with `input` on its standard input. */
function cli(args: string[], env: Record<string, string>, input = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['dist/scripts/cli.js', ...args], { env: { ...process.env, BCRYPT_COST: '4', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe('operator CLI: broker connect, show, disconnect', () => {
  let server: TestServer;
  let alpaca: AlpacaStandIn;
  let accountNumber: string;
  let env: Record<string, string>;

  before(async function () {
    this.timeout(120_000);
    alpaca = await AlpacaStandIn.start();
    accountNumber = alpaca.addAccount({ keyId: 'PKCLI0001', secretKey: SECRET, cash: '100000' }).accountNumber;
    const urls = { ALPACA_PAPER_URL: alpaca.tradingUrl, ALPACA_DATA_URL: alpaca.dataUrl };
    server = await startTestServer({ BROKER_CREDENTIALS_KEY: KEY, ...urls });
    if (!server.database.url) this.skip(); // the embedded database serves one process: the CLI needs the server stopped
    await execFileAsync(process.execPath, ['scripts/build.mjs']);
    env = { DATABASE_URL: server.database.url, BROKER_CREDENTIALS_KEY: KEY, ...urls, BROKER_TIMEOUT_MS: '1000' };
  });
  after(async () => {
    await server?.close();
    await alpaca?.close();
  });
  afterEach(function () {
    alpaca.up();
    if (this.currentTest?.state === 'passed') expect(alpaca.violations(), "requests against Alpaca's document").to.deep.equal([]);
  });

  const connect = (email: string, extra: string[] = [], secret = SECRET) => [
    'broker',
    'connect',
    '--account',
    email,
    '--broker',
    'alpaca',
    '--key-id',
    'PKCLI0001',
    '--secret-key',
    secret,
    ...extra,
  ];

  it('connects an account with keys Alpaca accepts, prints the connection without the secret, and the API shows alpaca active', async () => {
    const holder = await server.account(['read'], 'cli-broker@example.com');
    const connected = await cli(connect('cli-broker@example.com', ['--json']), env);
    expect(connected.code, connected.stderr).to.equal(0);
    const connection = JSON.parse(connected.stdout);
    expect(connection).to.include({
      account_id: holder.accountId,
      broker: 'alpaca',
      live: false,
      key_id: 'PKCLI0001',
      broker_account_number: accountNumber,
    });
    expect(connected.stdout + connected.stderr).to.not.include(SECRET);
    const checked = alpaca.requests.filter((r) => r.path === '/v2/account' && r.headers['apca-api-key-id'] === 'PKCLI0001');
    expect(checked.map((r) => r.status)).to.deep.equal([200]);
    const brokers = (await server.api.get('/v1/brokers', { token: holder.token })).body.data;
    expect(brokers.find((b: any) => b.id === 'alpaca').status).to.equal('active');

    const shown = await cli(['broker', 'show', '--account', 'cli-broker@example.com'], env);
    expect(shown.stdout)
      .to.include('key_id=PKCLI0001')
      .and.include('broker=alpaca (paper)')
      .and.include(`broker_account_number=${accountNumber}`);
    expect(shown.stdout).to.not.include(SECRET);
    expect(JSON.parse((await cli(['broker', 'show', '--account', 'cli-broker@example.com', '--json'], env)).stdout).key_id).to.equal(
      'PKCLI0001',
    );

    const disconnected = await cli(['broker', 'disconnect', '--account', 'cli-broker@example.com'], env);
    expect(disconnected.code).to.equal(0);
    expect(disconnected.stdout).to.include('disconnected cli-broker@example.com from alpaca (key id PKCLI0001)');
    expect(JSON.parse((await cli(['broker', 'show', '--account', 'cli-broker@example.com', '--json'], env)).stdout)).to.equal(null);
    expect((await cli(['broker', 'disconnect', '--account', 'cli-broker@example.com'], env)).stdout).to.include('was not connected');
  });

  it('refuses keys Alpaca refuses: one line on stderr, exit code 1, nothing stored', async () => {
    await server.account(['read'], 'cli-refused@example.com');
    const refused = await cli(connect('cli-refused@example.com', [], 'not-the-secret'), env);
    expect(refused.code).to.equal(1);
    expect(refused.stdout).to.equal('');
    expect(refused.stderr.trim().split('\n')).to.have.length(1);
    expect(refused.stderr).to.match(/^Alpaca refused the API key ID and secret key for a paper account\./);
    expect(refused.stderr).to.not.include('not-the-secret');
    expect((await cli(['broker', 'show', '--account', 'cli-refused@example.com'], env)).stdout).to.include('is not connected to a broker');
  });

  it('reads the secret key from standard input with --secret-key -', async () => {
    await server.account(['read'], 'cli-stdin@example.com');
    const connected = await cli(connect('cli-stdin@example.com', ['--json'], '-'), env, `${SECRET}\n`);
    expect(connected.code, connected.stderr).to.equal(0);
    expect(JSON.parse(connected.stdout).broker_account_number).to.equal(accountNumber);
  });

  it('says so for an unknown account, a live account while live trading is off, a missing key, and no BROKER_CREDENTIALS_KEY', async () => {
    const unknown = await cli(connect('nobody-here@example.com'), env);
    expect([unknown.code, unknown.stderr]).to.deep.equal([1, 'There is no account nobody-here@example.com.\n']);

    await server.account(['read'], 'cli-live@example.com');
    const live = await cli(connect('cli-live@example.com', ['--live']), env);
    expect(live.code).to.equal(1);
    expect(live.stderr).to.match(/^Live trading is off on this service \(the operator has not set ALPACA_LIVE_ENABLED=true\)/);

    const missing = await cli(
      ['broker', 'connect', '--account', 'cli-live@example.com', '--broker', 'alpaca', '--secret-key', SECRET],
      env,
    );
    expect(missing.code).to.equal(64);
    expect(missing.stderr).to.match(/^broker connect needs --key-id ID/);

    const keyless = await cli(connect('cli-live@example.com'), { ...env, BROKER_CREDENTIALS_KEY: '' });
    expect(keyless.code).to.equal(1);
    expect(keyless.stderr).to.match(/needs BROKER_CREDENTIALS_KEY/);
  });

  it('says when Alpaca does not answer, storing nothing (exit code 1)', async () => {
    await server.account(['read'], 'cli-down@example.com');
    alpaca.down();
    const failed = await cli(connect('cli-down@example.com'), env);
    expect(failed.code).to.equal(1);
    expect(failed.stderr).to.match(/^Alpaca did not answer in time, so the keys could not be checked; nothing was stored/);
    expect((await cli(['broker', 'show', '--account', 'cli-down@example.com'], env)).stdout).to.include('is not connected to a broker');
  });
});
