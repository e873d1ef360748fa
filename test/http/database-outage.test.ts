import { expect } from 'chai';
import { pino } from 'pino';
import { migrateToLatest, openDatabase, type Db } from '../../db/connect.js';
import { loadConfig } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { ApiClient } from '../support/client.js';
import { createTestDatabase, testBackend, type TestDatabase } from '../support/database.js';
import { drainServer } from '../support/server.js';
import { TcpProxy } from '../support/tcp-proxy.js';

describe('losing the database', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let db: Db;
  let running: RunningServer;
  let api: ApiClient;

  before(async function () {
    if ((await testBackend()) !== 'postgres') this.skip();
    database = await createTestDatabase();
    const target = new URL(database.url!);
    proxy = new TcpProxy(Number(target.port || 5432), target.hostname);
    await proxy.start();
    target.port = String(proxy.port);
    db = await openDatabase({ databaseUrl: target.toString() });
    await migrateToLatest(db.kysely);
    const config = loadConfig({
      PORT: '0',
      DASHBOARD_PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      BCRYPT_COST: '4',
      CLIENT_STATUS_CACHE_MS: '0',
    });
    running = await startServer(config, db, pino({ level: 'silent' }));
    api = new ApiClient(`http://127.0.0.1:${running.port}`);
  });
  after(async () => {
    await drainServer(running);
    await db?.close();
    await proxy?.stop();
    await database?.drop();
  });

  it('answers 503 with Retry-After while the database is gone, and serves again once it is back, without a restart', async () => {
    const client = await running.services.clients.create({ accountEmail: 'outage@example.com', scopes: ['read'] });
    const form = { grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret };
    const { access_token: token } = (await api.post('/oauth/token', { form })).body;
    expect((await api.get('/v1/portfolio', { token })).status).to.equal(200);

    proxy.cut();
    const portfolio = await api.get('/v1/portfolio', { token });
    expect(portfolio.status).to.equal(503);
    expect(portfolio.headers.get('retry-after')).to.match(/^\d+$/);
    expect(portfolio.body.type).to.match(/\/problems\/service-unavailable$/);
    expect(portfolio.text).to.not.match(/ECONN|terminated|stack/i);
    expect((await api.post('/oauth/token', { form })).status).to.equal(503);
    const readiness = await api.get('/readyz');
    expect(readiness.status).to.equal(503);
    expect(readiness.body.checks.database).to.equal('fail');
    expect((await api.get('/healthz')).status).to.equal(200);

    proxy.restore();
    expect((await api.get('/readyz')).status).to.equal(200);
    expect((await api.get('/v1/portfolio', { token })).status).to.equal(200);
    expect((await api.post('/oauth/token', { form })).status).to.equal(200);
  });
});

describe('a database that hangs', () => {
  const timeouts = {
    DATABASE_CONNECT_TIMEOUT_MS: '1000',
    DATABASE_QUERY_TIMEOUT_MS: '2000',
    DATABASE_STATEMENT_TIMEOUT_MS: '1500',
    DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: '5000',
  };
  let database: TestDatabase;
  let proxy: TcpProxy;
  let db: Db;
  let running: RunningServer;
  let api: ApiClient;

  before(async function () {
    if ((await testBackend()) !== 'postgres') this.skip();
    database = await createTestDatabase();
    const target = new URL(database.url!);
    proxy = new TcpProxy(Number(target.port || 5432), target.hostname);
    await proxy.start();
    target.port = String(proxy.port);
    const config = loadConfig({
      PORT: '0',
      DASHBOARD_PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      BCRYPT_COST: '4',
      CLIENT_STATUS_CACHE_MS: '0',
      ...timeouts,
    });
    db = await openDatabase({ databaseUrl: target.toString(), timeouts: config.databaseTimeouts, poolSize: 4 });
    await migrateToLatest(db.kysely);
    running = await startServer(config, db, pino({ level: 'silent' }));
    api = new ApiClient(`http://127.0.0.1:${running.port}`);
  });
  after(async () => {
    proxy?.thaw();
    await drainServer(running);
    await db?.close();
    await proxy?.stop();
    await database?.drop();
  });

  it('answers 503 with Retry-After within the configured timeouts while it is frozen, /readyz too, and recovers once it thaws', async () => {
    const client = await running.services.clients.create({ accountEmail: 'frozen@example.com', scopes: ['read', 'trade'] });
    const form = { grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret };
    const { access_token: token } = (await api.post('/oauth/token', { form })).body;
    expect((await api.get('/v1/orders', { token })).status).to.equal(200);

    proxy.freeze();
    // More requests than pool connections: some wait for a connection (connect timeout), some for an answer (query
    // timeout); none hangs, each is a 503 problem the client can retry.
    const requests = [
      ...Array.from({ length: 6 }, () => api.get('/v1/orders', { token })),
      api.post('/v1/kill-switch', { token, json: { reason: 'frozen database test' } }),
      api.post('/oauth/token', { form }),
    ];
    const readiness = await api.get('/readyz');
    expect(readiness.status).to.equal(503);
    expect(readiness.body.checks.database).to.equal('fail');
    for (const response of await Promise.all(requests)) {
      expect(response.status).to.equal(503);
      expect(response.headers.get('retry-after')).to.match(/^\d+$/);
      expect(response.body.type).to.match(/\/problems\/service-unavailable$/);
    }
    expect((await api.get('/healthz')).status).to.equal(200);

    proxy.thaw();
    expect((await api.get('/readyz')).status).to.equal(200);
    expect((await api.get('/v1/orders', { token })).status).to.equal(200);
    const engaged = await api.post('/v1/kill-switch', { token, json: { reason: 'after the thaw' } });
    expect(engaged.status).to.equal(200);
  });
});
