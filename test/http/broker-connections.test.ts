import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { systemClock } from '../../src/clock.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { BrokerConnections, checkBrokerCredentialsKey } from '../../src/services/broker-connections.js';
import { ProblemError } from '../../src/problems.js';
import { InvalidInputError } from '../../src/services/errors.js';
import { FakeBrokers } from '../support/fake-broker.js';
import { graphql } from '../graphql/support.js';
import { startTestServer, type TestServer } from '../support/server.js';

const SECRET = 'fake-secret-5b1e0c9d2f7a4e3b8c6d1a0f9e8d7c6b';
const KEY_ID = 'PKFAKE0123456789ABCD';

/** The problem a call threw, or a failure if it did not throw one. */
async function problemOf(work: Promise<unknown>): Promise<ProblemError> {
  try {
    await work;
  } catch (error) {
    if (error instanceof ProblemError) return error;
    throw error;
  }
  expect.fail('the call was not refused');
}

/** pg_dump from PATH, or from the newest installed PostgreSQL. */
function pgDump(): string {
  const folder = '/usr/lib/postgresql';
  const installed = existsSync(folder) ? readdirSync(folder).sort((a, b) => Number(a) - Number(b)) : [];
  const candidate = installed.length ? `${folder}/${installed.at(-1)}/bin/pg_dump` : '';
  return candidate && existsSync(candidate) ? candidate : 'pg_dump';
}

describe('connecting an account to a broker (the service)', () => {
  let server: TestServer;
  const brokers = new FakeBrokers().add(KEY_ID, SECRET, 'PA3FAKE0001').add('PKOTHER', 'other-secret-value', 'PA3FAKE0002');
  const connections = () => server.services.brokerConnections;

  before(async () => {
    server = await startTestServer({}, { brokerFactory: brokers.factory });
  });
  after(() => server?.close());
  beforeEach(() => {
    brokers.down = false;
  });

  const connect = (accountId: string, overrides: Partial<{ keyId: string; secretKey: string; live: boolean; broker: string }> = {}) =>
    connections().connect(accountId, { broker: 'alpaca', keyId: KEY_ID, secretKey: SECRET, live: false, ...overrides });

  it('checks the keys at the broker, keeps the connection with the broker account number, and never the secret in clear', async () => {
    const { accountId } = await server.account(['read']);
    const connection = await connect(accountId);
    expect(connection).to.include({
      account_id: accountId,
      broker: 'alpaca',
      live: false,
      key_id: KEY_ID,
      broker_account_number: 'PA3FAKE0001',
    });
    expect(JSON.stringify(connection)).to.not.include(SECRET);
    expect(await connections().connectionOf(accountId)).to.deep.equal(connection);
    const made = brokers.made.at(-1)!;
    expect(made.accountId).to.equal(accountId);
    expect(made.connection).to.deep.include({
      tradingUrl: 'https://paper-api.alpaca.markets',
      streamUrl: 'wss://paper-api.alpaca.markets/stream',
      dataUrl: 'https://data.alpaca.markets',
      timeoutMs: 5000,
    });
    const row = await server.database.db.kysely
      .selectFrom('broker_connections')
      .selectAll()
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).to.not.include(SECRET);
    expect(row.secret_sealed).to.match(/^[A-Za-z0-9+/]+=*$/);
  });

  it('refuses keys the broker refuses, with a clear message, and keeps an earlier connection as it was', async () => {
    const { accountId } = await server.account(['read']);
    const earlier = await connect(accountId);
    const refused = await problemOf(connect(accountId, { keyId: 'PKOTHER', secretKey: 'wrong-secret' }));
    expect(refused.slug).to.equal('broker-credentials-refused');
    expect(refused.detail).to.equal(
      'Alpaca refused the API key ID and secret key for a paper account. Check that both were copied whole and that they are paper keys ' +
        '(paper and live accounts have keys of their own); nothing was stored.',
    );
    expect(refused.detail).to.not.include('wrong-secret');
    expect(await connections().connectionOf(accountId)).to.deep.equal(earlier);
  });

  it('answers broker-unavailable with a Retry-After when the broker does not answer, storing nothing', async () => {
    const { accountId } = await server.account(['read']);
    brokers.down = true;
    const refused = await problemOf(connect(accountId));
    expect(refused).to.include({ slug: 'broker-unavailable', retryAfterMs: 5000 });
    expect(await connections().connectionOf(accountId)).to.equal(undefined);
  });

  it('refuses a live account while ALPACA_LIVE_ENABLED is not true, before asking the broker', async () => {
    const { accountId } = await server.account(['read']);
    const made = brokers.made.length;
    const refused = await problemOf(connect(accountId, { live: true }));
    expect(refused.slug).to.equal('live-trading-disabled');
    expect(refused.detail).to.match(/ALPACA_LIVE_ENABLED=true/);
    expect(brokers.made.length).to.equal(made);
  });

  it('connects a live account on the live URL once the operator enables live trading', async () => {
    const { accountId } = await server.account(['read']);
    const config = loadConfig({ ALPACA_LIVE_ENABLED: 'true', ALPACA_LIVE_URL: 'http://127.0.0.1:9/' }, { deriveBrokerKey: true });
    const liveBrokers = new FakeBrokers().add('AKLIVE', SECRET, 'LIVE1', true);
    const live = new BrokerConnections(server.database.db.kysely, systemClock, config.brokers, liveBrokers.factory);
    expect(await live.connect(accountId, { broker: 'alpaca', keyId: 'AKLIVE', secretKey: SECRET, live: true })).to.include({ live: true });
    expect(liveBrokers.made[0]!.connection).to.include({
      live: true,
      tradingUrl: 'http://127.0.0.1:9',
      streamUrl: 'ws://127.0.0.1:9/stream',
    });
    expect((await live.portFor(accountId))?.id).to.equal('alpaca');
    const paperKeysAsLive = await problemOf(live.connect(accountId, { broker: 'alpaca', keyId: 'AKLIVE', secretKey: SECRET, live: false }));
    expect(paperKeysAsLive.detail).to.match(/^Alpaca refused the API key ID and secret key for a paper account/);
  });

  it('names each field it cannot take, and never echoes the secret key', async () => {
    const { accountId } = await server.account(['read']);
    const refused = await problemOf(connect(accountId, { broker: 'ibkr', keyId: '  ', secretKey: 'has a space' }));
    expect(refused).to.be.instanceOf(InvalidInputError);
    expect((refused as InvalidInputError).fields.map((f) => f.field)).to.deep.equal(['broker', 'key_id', 'secret_key']);
    expect(JSON.stringify(refused)).to.not.include('has a space');
  });

  it('gives the port of a connected account, the same one until it connects again or disconnects; none for a paper account', async () => {
    const { accountId } = await server.account(['read']);
    expect(await connections().portFor(accountId)).to.equal(undefined);
    await connect(accountId);
    const port = await connections().portFor(accountId);
    expect(port?.id).to.equal('alpaca');
    expect(await connections().portFor(accountId)).to.equal(port);
    await connect(accountId, { keyId: 'PKOTHER', secretKey: 'other-secret-value' });
    const reconnected = await connections().portFor(accountId);
    expect(reconnected).to.not.equal(port);
    expect((await reconnected!.account()).accountNumber).to.equal('PA3FAKE0002');
    expect((await connections().disconnect(accountId))?.key_id).to.equal('PKOTHER');
    expect(await connections().portFor(accountId)).to.equal(undefined);
    expect(await connections().disconnect(accountId)).to.equal(undefined);
  });

  it('opens the sealed secret for a port made on another instance, and notices a reconnection made there', async () => {
    const { accountId } = await server.account(['read']);
    const other = new BrokerConnections(server.database.db.kysely, systemClock, server.context.config.brokers, brokers.factory);
    await connect(accountId);
    const opened = await other.portFor(accountId);
    expect(brokers.made.at(-1)!.connection).to.include({ keyId: KEY_ID, secretKey: SECRET });
    expect((await opened!.account()).accountNumber).to.equal('PA3FAKE0001');
    await connect(accountId, { keyId: 'PKOTHER', secretKey: 'other-secret-value' });
    expect(await other.portFor(accountId)).to.not.equal(opened);
  });

  it('refuses to connect without BROKER_CREDENTIALS_KEY, and a port whose secret another key sealed does not open', async () => {
    const { accountId } = await server.account(['read']);
    const keyless = new BrokerConnections(server.database.db.kysely, systemClock, loadConfig({}).brokers, brokers.factory);
    const refused = await problemOf(keyless.connect(accountId, { broker: 'alpaca', keyId: KEY_ID, secretKey: SECRET, live: false }));
    expect(refused.slug).to.equal('broker-not-configured');
    expect(refused.detail).to.match(/needs BROKER_CREDENTIALS_KEY/);
    expect((await keyless.state(accountId)).canConnect).to.equal(false);
    await connect(accountId);
    const otherKey = loadConfig({ BROKER_CREDENTIALS_KEY: 'cd'.repeat(32) }).brokers;
    const wrong = new BrokerConnections(server.database.db.kysely, systemClock, otherKey, brokers.factory);
    expect((await problemOf(wrong.portFor(accountId))).detail).to.match(/do not open with the configured BROKER_CREDENTIALS_KEY/);
  });

  it('at start, refuses a missing or another key while accounts are connected (a ConfigError naming the variable)', async () => {
    const { accountId } = await server.account(['read']);
    await connect(accountId);
    const db = server.database.db.kysely;
    const noKey = await checkBrokerCredentialsKey(db, undefined).catch((error: unknown) => error);
    expect(noKey)
      .to.be.instanceOf(ConfigError)
      .with.property('message')
      .that.matches(/^BROKER_CREDENTIALS_KEY: is not set, and \d+ account/);
    const otherKey = loadConfig({ BROKER_CREDENTIALS_KEY: 'ef'.repeat(32) }).brokers.credentialsKey;
    const wrong = await checkBrokerCredentialsKey(db, otherKey).catch((error: unknown) => error);
    expect(wrong)
      .to.be.instanceOf(ConfigError)
      .with.property('message')
      .that.matches(/sealed under another key/);
    await checkBrokerCredentialsKey(db, server.context.config.brokers.credentialsKey);
  });

  it('keeps what an adapter’s own failure says (it could name the keys) out of the error it passes on', async () => {
    const { accountId } = await server.account(['read']);
    const leaky = new FakeBrokers();
    const failing = new BrokerConnections(server.database.db.kysely, systemClock, server.context.config.brokers, (id, connection) => ({
      ...leaky.factory(id, connection),
      account: () => Promise.reject(new TypeError(`fetch failed with headers APCA-API-SECRET-KEY: ${connection.secretKey}`)),
    }));
    const failure = await failing
      .connect(accountId, { broker: 'alpaca', keyId: KEY_ID, secretKey: SECRET, live: false })
      .catch((e: unknown) => e);
    expect(failure).to.be.instanceOf(Error).and.not.be.instanceOf(ProblemError);
    expect((failure as Error).message).to.equal('the Alpaca adapter failed while checking keys (TypeError)');
    expect((failure as Error).cause).to.equal(undefined);
  });

  it('GET /v1/brokers and GraphQL show alpaca active for the connected account only', async () => {
    const connected = await server.account(['read']);
    const other = await server.account(['read']);
    await connect(connected.accountId);
    const statusOf = async (token: string) =>
      Object.fromEntries((await server.api.get('/v1/brokers', { token })).body.data.map((b: any) => [b.id, b.status]));
    expect(await statusOf(connected.token)).to.deep.equal({ paper: 'active', alpaca: 'active', interactive_brokers: 'not_configured' });
    expect(await statusOf(other.token)).to.deep.include({ alpaca: 'not_configured' });
    const answer = await graphql(server, '{ brokers { data { id status } } }', { token: connected.token });
    expect(answer.body.data.brokers.data).to.deep.include({ id: 'alpaca', status: 'active' });
    await connections().disconnect(connected.accountId);
    expect(await statusOf(connected.token)).to.deep.include({ alpaca: 'not_configured' });
  });

  it('leaves the secret key out of a pg_dump of the whole database (PostgreSQL)', async function () {
    if (!server.database.url) this.skip();
    const { accountId } = await server.account(['read']);
    await connect(accountId);
    const { stdout } = await promisify(execFile)(pgDump(), ['--data-only', server.database.url], { maxBuffer: 64 * 1024 * 1024 });
    expect(stdout).to.include(KEY_ID).and.include('PA3FAKE0001');
    expect(stdout).to.not.include(SECRET);
  });
});

describe('starting the service with connected accounts (PostgreSQL)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({}, { brokerFactory: new FakeBrokers().add(KEY_ID, SECRET, 'PA3FAKE0001').factory });
  });
  after(() => server?.close());

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
