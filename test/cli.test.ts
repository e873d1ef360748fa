import { execFile } from 'node:child_process';
import { existsSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { adminSocketPath } from '../db/admin-socket.js';
import { openDatabase } from '../db/connect.js';
import { solveChallenge } from '../scripts/solve-challenge.js';
import { initializedDataDir, startServiceProcess } from './support/process.js';
import { startTestServer, type TestServer } from './support/server.js';

const execFileAsync = promisify(execFile);

/** The CLI as operators run it: compiled (`npm run cli` builds dist/ when a source changed, then runs it). */
before(async function () {
  this.timeout(120_000);
  await execFileAsync(process.execPath, ['scripts/build.mjs']);
});

async function cli(args: string[], env: Record<string, string> = {}) {
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

describe('operator CLI', () => {
  let server: TestServer;

  before(async function () {
    server = await startTestServer();
    if (!server.database.url) this.skip();
  });
  after(() => server?.close());

  const tokenFor = (id: string, secret: string) =>
    server.api.post('/oauth/token', { form: { grant_type: 'client_credentials', client_id: id, client_secret: secret } });

  it('creates, lists, rotates and revokes clients in the database of the running server', async () => {
    const env = { DATABASE_URL: server.database.url! };
    const created = await cli(
      ['client', 'create', '--account', 'ops@example.com', '--scopes', 'read trade', '--name', 'Robo', '--json'],
      env,
    );
    expect(created.code, created.stderr).to.equal(0);
    const client = JSON.parse(created.stdout);
    expect(client).to.include({ name: 'Robo' });
    expect(client.scopes).to.deep.equal(['read', 'trade']);
    const first = await tokenFor(client.client_id, client.client_secret);
    expect(first.status).to.equal(200);

    const listed = JSON.parse((await cli(['client', 'list', '--account', 'ops@example.com', '--json'], env)).stdout);
    expect(listed.map((c: { client_id: string }) => c.client_id)).to.deep.equal([client.client_id]);
    expect(listed[0]).to.not.have.property('client_secret');

    const rotated = JSON.parse((await cli(['client', 'rotate', client.client_id, '--json'], env)).stdout);
    expect(rotated.client_secret).to.not.equal(client.client_secret);
    expect((await tokenFor(client.client_id, client.client_secret)).status).to.equal(401);
    expect((await tokenFor(client.client_id, rotated.client_secret)).status).to.equal(200);

    expect((await cli(['client', 'revoke', client.client_id], env)).code).to.equal(0);
    expect((await tokenFor(client.client_id, rotated.client_secret)).status).to.equal(401);
    expect((await cli(['client', 'revoke', client.client_id], env)).code).to.equal(1);
  });

  it('engages and releases the global kill switch, and releases an account’s, as the running server sees it', async () => {
    const env = { DATABASE_URL: server.database.url! };
    const holder = await server.account(['read', 'trade'], 'switch@example.com');
    expect((await cli(['kill-switch', 'global', 'on', '--reason', 'market halt'], env)).code).to.equal(0);
    expect((await server.api.get('/v1/kill-switch', { token: holder.token })).body).to.include({
      engaged: true,
      level: 'global',
      reason: 'market halt',
    });
    expect((await cli(['kill-switch', 'global', 'off'], env)).code).to.equal(0);
    expect((await server.api.get('/v1/kill-switch', { token: holder.token })).body.engaged).to.equal(false);

    await server.api.post('/v1/kill-switch', { token: holder.token, json: { reason: 'pause' } });
    const released = await cli(['kill-switch', 'account', 'release', '--account', 'switch@example.com', '--json'], env);
    expect(JSON.parse(released.stdout)).to.include({ level: 'account', changed: true });
    expect((await server.api.get('/v1/kill-switch', { token: holder.token })).body.engaged).to.equal(false);
  });

  it('lists the contact messages sent through POST /v1/contact, newest first', async () => {
    const env = { DATABASE_URL: server.database.url! };
    const origin = { ip: '127.0.0.1', userAgent: 'test' };
    const solution = async () => {
      const issued = await server.services.challenges.issue(origin, 'contact');
      return solveChallenge(issued.challenge, issued.difficulty);
    };
    await server.services.people.sendContactMessage(
      { email: 'first@example.com', name: 'First', message: 'Hello' },
      await solution(),
      origin,
    );
    await server.services.people.sendContactMessage(
      { email: 'second@example.com', name: 'Second', message: 'Two\nlines' },
      await solution(),
      origin,
    );
    const listed = await cli(['contact', 'list', '--json'], env);
    expect(listed.code, listed.stderr).to.equal(0);
    expect(JSON.parse(listed.stdout).map((m: { email: string }) => m.email)).to.deep.equal(['second@example.com', 'first@example.com']);
    const text = (await cli(['contact', 'list'], env)).stdout;
    expect(text).to.include('Second <second@example.com>').and.include('  lines');
  });

  it('explains bad input without a stack trace', async () => {
    const env = { DATABASE_URL: server.database.url! };
    const badScope = await cli(['client', 'create', '--account', 'ops@example.com', '--scopes', 'admin'], env);
    expect(badScope.code).to.equal(1);
    expect(badScope.stderr).to.include('unknown scope admin');
    const unknown = await cli(['frobnicate'], env);
    expect(unknown.code).to.equal(64);
    expect(unknown.stderr).to.equal('unknown command "frobnicate" (see: npm run cli -- --help)\n');
    const incomplete = await cli(['client', 'create', '--account', 'ops@example.com'], env);
    expect(incomplete).to.include({ code: 64, stderr: 'client create needs --scopes "read trade" (see: npm run cli -- --help)\n' });
    const option = await cli(['client', 'list', '--acount', 'x'], env);
    expect(option).to.include({ code: 64, stderr: 'unknown option --acount (see: npm run cli -- --help)\n' });
  });

  it('explains itself and each command with --help, without opening a database', async () => {
    const help = await cli(['--help'], { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
    expect(help.code).to.equal(0);
    for (const usage of [
      'client create',
      'client list',
      'client rotate',
      'client revoke',
      'kill-switch global',
      'kill-switch account release',
      'contact list',
    ]) {
      expect(help.stdout).to.include(`  ${usage}`);
    }
    const one = await cli(['client', 'rotate', '-h']);
    expect(one.code).to.equal(0);
    expect(one.stdout)
      .to.match(/^Usage: npm run cli -- client rotate CLIENT_ID/)
      .and.include('new secret');
    const group = await cli(['kill-switch', '--help']);
    expect(group.stdout).to.include('kill-switch global on|off').and.include('kill-switch account release');
  });
});

describe('operator CLI on the embedded database', () => {
  it('says clearly why it cannot open a data directory a running server holds, and what to do', async function () {
    this.timeout(120_000);
    const dataDir = await initializedDataDir();
    const db = await openDatabase({ dataDir });
    try {
      const result = await cli(['client', 'list', '--account', 'a@example.com'], { DATA_DIR: dataDir, DATABASE_URL: '' });
      expect(result.code).to.equal(1);
      expect(result.stderr).to.include(`open in another process (pid ${process.pid})`);
      expect(result.stderr).to.include('DATABASE_URL');
    } finally {
      await db.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('works while the service runs, through its admin socket (only the service’s user reaches it), and on its own once it stops', async function () {
    this.timeout(120_000);
    const service = await startServiceProcess();
    try {
      const env = { DATA_DIR: service.dataDir, DATABASE_URL: '' };
      const socket = adminSocketPath(service.dataDir);
      expect(statSync(socket).mode & 0o777, 'the socket').to.equal(0o600);
      expect(statSync(dirname(socket)).mode & 0o777, 'its folder').to.equal(0o700);

      const created = await cli(['client', 'create', '--account', 'ops@example.com', '--scopes', 'read', '--name', 'Ops', '--json'], env);
      expect(created.code, created.stderr).to.equal(0);
      const client = JSON.parse(created.stdout) as { client_id: string; client_secret: string };
      const api = `http://127.0.0.1:${service.port}`;
      const issued = await fetch(`${api}/oauth/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: 'grant_type=client_credentials',
      });
      expect(issued.status, 'the running service knows the client the CLI created').to.equal(200);
      const { access_token: token } = (await issued.json()) as { access_token: string };

      expect((await cli(['kill-switch', 'global', 'on', '--reason', 'drill'], env)).code).to.equal(0);
      const state = (await (await fetch(`${api}/v1/kill-switch`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
        engaged: boolean;
        level: string;
      };
      expect(state).to.include({ engaged: true, level: 'global' });
      expect((await cli(['kill-switch', 'global', 'off'], env)).code).to.equal(0);

      expect(await service.terminate()).to.equal(0);
      expect(existsSync(socket), 'the socket goes with the service').to.equal(false);
      const listed = await cli(['client', 'list', '--account', 'ops@example.com', '--json'], env);
      expect(listed.code, listed.stderr).to.equal(0);
      expect(JSON.parse(listed.stdout).map((c: { client_id: string }) => c.client_id)).to.include(client.client_id);
    } finally {
      service.stop();
    }
  });
});
