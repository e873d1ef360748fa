// The walk-through on an Alpaca paper account (docs/brokers.md), as an operator runs it: a `--demo` server started
// with BROKER_CREDENTIALS_KEY and Alpaca's URLs, the CLI connecting the demo account through the same DATA_DIR, then
// the approval. Alpaca is the stand-in, in a process of its own, reached only over HTTP as the service reaches it.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { startServiceProcess, waitForOutput, type ServiceProcess } from './support/process.js';
import { snippet } from './support/snippets.js';

const run = promisify(execFile);
const KEY = Buffer.alloc(32, 7).toString('base64');
const ALPACA = { keyId: 'PKREADMEWALK01', secretKey: 'readme-walk-secret-7c1d2e3f4a5b' };

const brokerBlock = () => snippet('broker-walkthrough').text;
/** The README walk-through's set-up: the credentials, `$API`, `json` and the token in `$AUTH`. */
function walkthroughSetup(): string {
  const text = snippet('walkthrough').text;
  return text.slice(0, text.indexOf('\n', text.indexOf('AUTH=')));
}

describe('the walk-through on an Alpaca paper account (docs/brokers.md)', () => {
  let alpaca: ChildProcess;
  let urls: { tradingUrl: string; dataUrl: string };
  let service: ServiceProcess;

  const alpacaOrders = async () => {
    const response = await fetch(`${urls.tradingUrl}/v2/orders?status=all`, {
      headers: { 'APCA-API-KEY-ID': ALPACA.keyId, 'APCA-API-SECRET-KEY': ALPACA.secretKey },
    });
    expect(response.status).to.equal(200);
    return (await response.json()) as { id: string; client_order_id: string; status: string; qty: string }[];
  };

  before(async function () {
    this.timeout(120_000);
    alpaca = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'test/support/alpaca-stand-in-main.ts',
        '--key-id',
        ALPACA.keyId,
        '--secret-key',
        ALPACA.secretKey,
        '--price',
        'VTI=330.00',
        '--price',
        'BND=74.00',
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    urls = JSON.parse((await waitForOutput(alpaca, /\n/)).split('\n')[0]!) as typeof urls;
    service = await startServiceProcess({
      BROKER_CREDENTIALS_KEY: KEY,
      ALPACA_PAPER_URL: urls.tradingUrl,
      ALPACA_DATA_URL: urls.dataUrl,
      // The first fill comes back at the sweep after the connection; the block waits for it (30 s by default).
      BROKER_RECONCILE_INTERVAL_MS: '1000',
    });
  });
  after(() => {
    service?.stop();
    alpaca?.kill('SIGTERM');
  });

  it('connects the demo account with the CLI, and the approval places one order at Alpaca that then reads filled', async function () {
    this.timeout(120_000);
    const { id, secret } = service.credentials();
    const text = `${walkthroughSetup()}\n${brokerBlock()}`
      .replace(/^export CLIENT_ID=.*$/m, `export CLIENT_ID='${id}' CLIENT_SECRET='${secret}'`)
      .replace(
        /^export BROKER_CREDENTIALS_KEY=.*$/m,
        `export BROKER_CREDENTIALS_KEY='${KEY}' ALPACA_KEY_ID='${ALPACA.keyId}' ALPACA_SECRET_KEY='${ALPACA.secretKey}'`,
      );
    // The operator's shell: the service's PORT and DATA_DIR, and Alpaca's URLs (Alpaca's own by default).
    const env = {
      ...process.env,
      PORT: String(service.port),
      DATA_DIR: service.dataDir,
      DATABASE_URL: '',
      ALPACA_PAPER_URL: urls.tradingUrl,
      ALPACA_DATA_URL: urls.dataUrl,
    };
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', text], { env });
    expect(stdout).to.include(`key_id=${ALPACA.keyId}`).and.include('broker=alpaca (paper)');
    expect(stdout).to.not.include(ALPACA.secretKey);

    const orders = await alpacaOrders();
    expect(orders, 'orders placed at Alpaca').to.have.length(1);
    const [placed] = orders;
    expect(placed!.client_order_id).to.match(/^ord_/);
    expect(placed!.status).to.equal('filled');
    const [brokerStatus, cash, approved, ...rest] = stdout.trim().split('\n').slice(-8);
    expect([brokerStatus, cash]).to.deep.equal(['active', '100000']);
    expect(['submitted', 'filled'], 'the approval (filled when the stream brought the fill first)').to.include(approved);
    expect(rest).to.deep.equal(['alpaca', 'filled', placed!.qty, '330', placed!.id]);
  });
});
