import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { Receiver, until } from './support/webhook-receiver.js';
import { startTestServer, type TestServer } from './support/server.js';
import { createPolicy } from './support/trading.js';

const execFileAsync = promisify(execFile);

async function cli(args: string[], env: Record<string, string>) {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, ['dist/scripts/cli.js', ...args], {
      env: { ...process.env, BCRYPT_COST: '4', ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('operator CLI: webhook add, list, deliveries, remove', () => {
  let server: TestServer;
  let receiver: Receiver;

  before(async function () {
    this.timeout(120_000);
    server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_MS: '20' });
    if (!server.database.url) this.skip(); // the embedded database serves one process: the CLI needs the server stopped
    await execFileAsync(process.execPath, ['scripts/build.mjs']);
    receiver = await new Receiver().listen();
  });
  after(async () => {
    await receiver?.close();
    await server?.close();
  });

  it('adds an endpoint that the running server delivers to, lists it with its deliveries, and removes it', async () => {
    const account = await server.account(['read', 'trade'], 'webhook-ops@example.com');
    const env = { DATABASE_URL: server.database.url!, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };
    const added = await cli(
      [
        'webhook',
        'add',
        '--account',
        'webhook-ops@example.com',
        '--url',
        receiver.url,
        '--events',
        'policy.created,order.filled',
        '--json',
      ],
      env,
    );
    expect(added.code, added.stderr).to.equal(0);
    const endpoint = JSON.parse(added.stdout);
    expect(endpoint.id).to.match(/^we_/);
    expect(endpoint.secret).to.match(/^whsec_/);
    expect(endpoint.event_types).to.deep.equal(['policy.created', 'order.filled']);

    await createPolicy(server, account.token);
    const [delivery] = await until('the delivery', () => receiver.received.length > 0 && receiver.received);
    expect(new Webhook(endpoint.secret).verify(delivery!.body, delivery!.headers as Record<string, string>)).to.include({
      type: 'policy.created',
    });

    const listed = JSON.parse((await cli(['webhook', 'list', '--account', 'webhook-ops@example.com', '--json'], env)).stdout);
    expect(listed.map((e: { id: string }) => e.id)).to.deep.equal([endpoint.id]);
    expect(listed[0]).to.not.have.property('secret');
    const log = await until('the delivery logged', async () => {
      const rows = JSON.parse((await cli(['webhook', 'deliveries', endpoint.id, '--json'], env)).stdout);
      return rows[0]?.status === 'succeeded' && rows;
    });
    expect(log[0]).to.include({ type: 'policy.created', attempts: 1, last_status_code: 204, event_id: delivery!.headers['webhook-id'] });

    expect((await cli(['webhook', 'remove', endpoint.id], env)).code).to.equal(0);
    expect(JSON.parse((await cli(['webhook', 'list', '--account', 'webhook-ops@example.com', '--json'], env)).stdout)).to.deep.equal([]);
    expect((await cli(['webhook', 'remove', endpoint.id], env)).code).to.equal(1);
  });

  it('refuses a private URL without WEBHOOK_ALLOW_PRIVATE_NETWORKS, and an unknown event type, with exit 64 and the rule', async () => {
    await server.account(['read'], 'webhook-refused@example.com');
    const env = { DATABASE_URL: server.database.url!, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' };
    const privateUrl = await cli(
      ['webhook', 'add', '--account', 'webhook-refused@example.com', '--url', 'https://192.168.1.10/hooks', '--events', 'order.filled'],
      env,
    );
    expect(privateUrl.code).to.equal(64);
    expect(privateUrl.stderr).to.contain('--url 192.168.1.10 is a private address');
    const unknown = await cli(
      ['webhook', 'add', '--account', 'webhook-refused@example.com', '--url', 'https://hooks.example.com/', '--events', 'order.done'],
      env,
    );
    expect(unknown.code).to.equal(64);
    expect(unknown.stderr).to.contain('--events has unknown types order.done');
    const missing = await cli(['webhook', 'add', '--account', 'webhook-refused@example.com', '--url', 'https://hooks.example.com/'], env);
    expect(missing.code).to.equal(64);
    expect(missing.stderr).to.contain('needs --events');
  });
});
