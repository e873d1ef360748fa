// The broker catalogue's connection status is read through per instance (BROKER_STATUS_CACHE_MS): a read per account
// and window, not per request; this instance's changes show at once, another instance's within the window.
import { expect } from 'chai';
import { AlpacaStandIn } from '../support/alpaca-stand-in.js';
import { startTestServer, type TestServer } from '../support/server.js';

const KEY_ID = 'PKCACHE00001';
const SECRET = 'cache-secret-key-0123456789';
const WINDOW_MS = 600;

describe('GET /v1/brokers: the account connection it shows, read through per instance', () => {
  let server: TestServer;
  let alpaca: AlpacaStandIn;
  const statements: string[] = [];

  before(async () => {
    alpaca = await AlpacaStandIn.start();
    alpaca.addAccount({ keyId: KEY_ID, secretKey: SECRET, cash: '1000' });
    const env = {
      ALPACA_PAPER_URL: alpaca.tradingUrl,
      ALPACA_DATA_URL: alpaca.dataUrl,
      BROKER_TIMEOUT_MS: '1000',
      BROKER_STATUS_CACHE_MS: String(WINDOW_MS),
    };
    server = await startTestServer(env, {}, (sql) => statements.push(sql));
  });
  after(async () => {
    await server?.close();
    await alpaca?.close();
  });

  const alpacaStatus = async (token: string) => {
    const answer = await server.api.get('/v1/brokers', { token });
    expect(answer.status).to.equal(200);
    return answer.body.data.find((b: { id: string }) => b.id === 'alpaca').status as string;
  };
  const connectionReads = () => statements.filter((sql) => /from "broker_connections"/.test(sql) && /^select/i.test(sql)).length;

  it('answers many reads of an account within the window from one query', async () => {
    const { token } = await server.account(['read']);
    const before = connectionReads();
    await Promise.all(Array.from({ length: 5 }, () => alpacaStatus(token)));
    for (let i = 0; i < 5; i++) expect(await alpacaStatus(token)).to.equal('not_configured');
    expect(connectionReads() - before).to.equal(1);
  });

  it("shows this instance's connect and disconnect at once, and another instance's within BROKER_STATUS_CACHE_MS", async () => {
    const { token, accountId } = await server.account(['read']);
    expect(await alpacaStatus(token)).to.equal('not_configured');
    const connections = server.services.brokerConnections;
    await connections.connect(accountId, { broker: 'alpaca', keyId: KEY_ID, secretKey: SECRET, live: false });
    expect(await alpacaStatus(token)).to.equal('active');
    await connections.disconnect(accountId);
    expect(await alpacaStatus(token)).to.equal('not_configured');

    await connections.connect(accountId, { broker: 'alpaca', keyId: KEY_ID, secretKey: SECRET, live: false });
    expect(await alpacaStatus(token)).to.equal('active');
    // Another instance (or the operator CLI) disconnects: the row goes, this instance is not told.
    const removedAt = Date.now();
    await server.database.db.kysely.deleteFrom('broker_connections').where('account_id', '=', accountId).execute();
    const stale = await alpacaStatus(token);
    if (Date.now() - removedAt < WINDOW_MS / 2) expect(stale, 'within the window: what this instance read').to.equal('active');
    await new Promise((resolve) => setTimeout(resolve, WINDOW_MS + 50));
    expect(await alpacaStatus(token)).to.equal('not_configured');
  });
});
