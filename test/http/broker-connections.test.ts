import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { realBrokers, type BrokerConnectionConfig, type BrokerFactory } from '../../src/brokers/connection.js';
import type { BrokerPort } from '../../src/brokers/port.js';
import { systemClock } from '../../src/clock.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { BrokerConnections } from '../../src/services/broker-connections.js';
import { checkBrokerCredentialsKey } from '../../src/services/broker-credentials-key.js';
import { ProblemError } from '../../src/problems.js';
import { InvalidInputError } from '../../src/services/errors.js';
import { graphql } from '../graphql/support.js';
import { AlpacaStandIn } from '../support/alpaca-stand-in.js';
import { startTestServer, type TestServer } from '../support/server.js';

const SECRET = 'stand-in-secret-5b1e0c9d2f7a4e3b8c6d1a0f9e8d7c6b';
const KEY_ID = 'PKCONNECT0001';
const OTHER = { keyId: 'PKCONNECT0002', secretKey: 'other-secret-value' };

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

/** A port whose every call fails with `error`, as an adapter with a defect would. */
function failingPort(error: Error): BrokerPort {
  const fail = () => Promise.reject(error);
  return {
    id: 'alpaca',
    account: fail,
    positions: fail,
    latestPrices: fail,
    clock: fail,
    submit: fail,
    cancel: fail,
    orderByClientId: fail,
    openOrders: fail,
    updates: () => ({ close: () => {} }),
  };
}

describe('connecting an account to Alpaca (the service, over the adapter, against the stand-in)', () => {
  let server: TestServer;
  let alpaca: AlpacaStandIn;
  let numbers: { first: string; other: string };
  const made: { accountId: string; connection: BrokerConnectionConfig }[] = [];
  const recording: BrokerFactory = (accountId, connection) => {
    made.push({ accountId, connection });
    return realBrokers(accountId, connection);
  };
  const connections = () => server.services.brokerConnections;

  before(async () => {
    alpaca = await AlpacaStandIn.start();
    numbers = {
      first: alpaca.addAccount({ keyId: KEY_ID, secretKey: SECRET, cash: '100000' }).accountNumber,
      other: alpaca.addAccount({ ...OTHER, cash: '5000' }).accountNumber,
    };
    const env = { ALPACA_PAPER_URL: alpaca.tradingUrl, ALPACA_DATA_URL: alpaca.dataUrl, BROKER_TIMEOUT_MS: '1000' };
    server = await startTestServer(env, { brokerFactory: recording });
  });
  after(async () => {
    await server?.close();
    await alpaca?.close();
  });
  afterEach(function () {
    alpaca.up();
    if (this.currentTest?.state === 'passed') expect(alpaca.violations(), "requests against Alpaca's document").to.deep.equal([]);
  });

  const connect = (accountId: string, overrides: Partial<{ keyId: string; secretKey: string; live: boolean; broker: string }> = {}) =>
    connections().connect(accountId, { broker: 'alpaca', keyId: KEY_ID, secretKey: SECRET, live: false, ...overrides });

  it('checks the keys with GET /v2/account, keeps the connection with the account number, and never the secret in clear', async () => {
    const { accountId } = await server.account(['read']);
    const connection = await connect(accountId);
    expect(connection).to.include({
      account_id: accountId,
      broker: 'alpaca',
      live: false,
      key_id: KEY_ID,
      broker_account_number: numbers.first,
    });
    expect(JSON.stringify(connection)).to.not.include(SECRET);
    expect(await connections().connectionOf(accountId)).to.deep.equal(connection);
    const asked = alpaca.requests.filter((r) => r.path === '/v2/account').at(-1)!;
    expect(asked.headers['apca-api-key-id']).to.equal(KEY_ID);
    expect(made.at(-1)).to.deep.include({ accountId });
    expect(made.at(-1)!.connection).to.deep.include({
      tradingUrl: alpaca.tradingUrl,
      streamUrl: alpaca.streamUrl,
      dataUrl: alpaca.dataUrl,
      timeoutMs: 1000,
    });
    const row = await server.database.db.kysely
      .selectFrom('broker_connections')
      .selectAll()
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).to.not.include(SECRET);
    expect(row.secret_sealed).to.match(/^[A-Za-z0-9+/]+=*$/);
  });

  it('refuses keys Alpaca refuses, with a clear message, and keeps an earlier connection as it was', async () => {
    const { accountId } = await server.account(['read']);
    const earlier = await connect(accountId);
    const refused = await problemOf(connect(accountId, { keyId: OTHER.keyId, secretKey: 'wrong-secret' }));
    expect(refused.slug).to.equal('broker-credentials-refused');
    expect(refused.detail).to.equal(
      'Alpaca refused the API key ID and secret key for a paper account. Check that both were copied whole and that they are paper keys ' +
        '(paper and live accounts have keys of their own); nothing was stored.',
    );
    expect(refused.detail).to.not.include('wrong-secret');
    expect(await connections().connectionOf(accountId)).to.deep.equal(earlier);
  });

  it('answers broker-unavailable with a Retry-After when Alpaca does not answer, storing nothing', async () => {
    const { accountId } = await server.account(['read']);
    alpaca.down();
    const refused = await problemOf(connect(accountId));
    expect(refused).to.include({ slug: 'broker-unavailable', retryAfterMs: 5000 });
    expect(await connections().connectionOf(accountId)).to.equal(undefined);
  });

  it('refuses a live account while ALPACA_LIVE_ENABLED is not true, before asking Alpaca', async () => {
    const { accountId } = await server.account(['read']);
    const asked = made.length;
    const refused = await problemOf(connect(accountId, { live: true }));
    expect(refused.slug).to.equal('live-trading-disabled');
    expect(refused.detail).to.match(/ALPACA_LIVE_ENABLED=true/);
    expect(made.length).to.equal(asked);
  });

  it('connects a live account on ALPACA_LIVE_URL once the operator enables live trading; its keys are no paper keys', async () => {
    const liveAlpaca = await AlpacaStandIn.start();
    try {
      liveAlpaca.addAccount({ keyId: 'AKLIVE0001', secretKey: SECRET, cash: '1000' });
      const { accountId } = await server.account(['read']);
      const env = { ALPACA_LIVE_ENABLED: 'true', ALPACA_LIVE_URL: liveAlpaca.tradingUrl, ALPACA_PAPER_URL: alpaca.tradingUrl };
      const config = loadConfig({ ...env, ALPACA_DATA_URL: alpaca.dataUrl }, { deriveBrokerKey: true });
      const live = new BrokerConnections(server.database.db.kysely, systemClock, config.brokers, recording);
      const keys = { broker: 'alpaca', keyId: 'AKLIVE0001', secretKey: SECRET };
      expect(await live.connect(accountId, { ...keys, live: true })).to.include({ live: true });
      expect(made.at(-1)!.connection).to.include({ live: true, tradingUrl: liveAlpaca.tradingUrl, streamUrl: liveAlpaca.streamUrl });
      expect((await live.portFor(accountId))?.id).to.equal('alpaca');
      const asPaper = await problemOf(live.connect(accountId, { ...keys, live: false }));
      expect(asPaper.detail).to.match(/^Alpaca refused the API key ID and secret key for a paper account/);
      expect(liveAlpaca.violations()).to.deep.equal([]);
    } finally {
      await liveAlpaca.close();
    }
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
    await connect(accountId, OTHER);
    const reconnected = await connections().portFor(accountId);
    expect(reconnected).to.not.equal(port);
    expect((await reconnected!.account()).accountNumber).to.equal(numbers.other);
    expect((await connections().disconnect(accountId))?.key_id).to.equal(OTHER.keyId);
    expect(await connections().portFor(accountId)).to.equal(undefined);
    expect(await connections().disconnect(accountId)).to.equal(undefined);
  });

  it('opens the sealed secret for a port made on another instance, and notices a reconnection made there', async () => {
    const { accountId } = await server.account(['read']);
    const other = new BrokerConnections(server.database.db.kysely, systemClock, server.context.config.brokers, recording);
    await connect(accountId);
    const opened = await other.portFor(accountId);
    expect(made.at(-1)!.connection).to.include({ keyId: KEY_ID, secretKey: SECRET });
    expect((await opened!.account()).accountNumber).to.equal(numbers.first);
    await connect(accountId, OTHER);
    expect(await other.portFor(accountId)).to.not.equal(opened);
  });

  it('refuses to connect without BROKER_CREDENTIALS_KEY, and a port whose secret another key sealed does not open', async () => {
    const { accountId } = await server.account(['read']);
    const keyless = new BrokerConnections(server.database.db.kysely, systemClock, loadConfig({}).brokers, recording);
    const refused = await problemOf(keyless.connect(accountId, { broker: 'alpaca', keyId: KEY_ID, secretKey: SECRET, live: false }));
    expect(refused.slug).to.equal('broker-not-configured');
    expect(refused.detail).to.match(/needs BROKER_CREDENTIALS_KEY/);
    expect((await keyless.state(accountId)).canConnect).to.equal(false);
    await connect(accountId);
    const otherKey = loadConfig({ BROKER_CREDENTIALS_KEY: 'cd'.repeat(32) }).brokers;
    const wrong = new BrokerConnections(server.database.db.kysely, systemClock, otherKey, recording);
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
    const leak = (connection: BrokerConnectionConfig) => new TypeError(`fetch failed with APCA-API-SECRET-KEY: ${connection.secretKey}`);
    const failing = new BrokerConnections(server.database.db.kysely, systemClock, server.context.config.brokers, (_id, connection) =>
      failingPort(leak(connection)),
    );
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
    expect(stdout).to.include(KEY_ID).and.include(numbers.first);
    expect(stdout).to.not.include(SECRET);
  });
});
