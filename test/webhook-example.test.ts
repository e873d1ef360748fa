import { spawn, execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { freePort, startTestServer, type TestServer } from './support/server.js';
import { snippet } from './support/snippets.js';
import { until } from './support/webhook-receiver.js';
import { createPolicy, propose } from './support/trading.js';

const run = promisify(execFile);

describe('the webhook receiver example in the webhooks guide (docs/webhooks.md)', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_MS: '20' });
  });
  after(() => server.close());

  it('is the code the guide shows', () => {
    expect(snippet('webhook-receiver').text).to.equal(readFileSync('examples/webhook-receiver.ts', 'utf8'));
  });

  it('type-checks, verifies a real delivery with standardwebhooks and prints the filled order once', async () => {
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
    await run('node_modules/.bin/tsc', [...compilerOptions, 'examples/webhook-receiver.ts']);
    const account = await server.account(['read', 'trade']);
    await createPolicy(server, account.token);
    const port = await freePort();
    const endpoint = await server.services.webhooks.create(account.accountId, {
      url: `http://127.0.0.1:${port}/`,
      eventTypes: ['order.filled'],
    });
    const receiver = spawn('node_modules/.bin/tsx', ['examples/webhook-receiver.ts'], {
      env: { ...process.env, WEBHOOK_SECRET: endpoint.secret, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const lines = createInterface({ input: receiver.stdout });
      const first = new Promise<string>((resolve) => lines.once('line', resolve));
      // Approve once the receiver listens (a delivery before that is retried anyway).
      const [order] = await propose(server, account, [{ symbol: 'BND', side: 'buy', quantity: '1' }]);
      expect((await server.api.post(`/v1/orders/${order!.id}/approve`, { token: account.token })).status).to.equal(200);
      const printed = JSON.parse(await first);
      const [event] = await until('the event in the feed', async () => {
        const data = (await server.api.get('/v1/events?type=order.filled', { token: account.token })).body.data as { id: string }[];
        return data.length > 0 && data;
      });
      expect(printed).to.deep.equal({ id: event!.id, type: 'order.filled', order: order!.id, status: 'filled' });
    } finally {
      receiver.kill();
    }
  });
});
