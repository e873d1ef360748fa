import { expect } from 'chai';
import pg from 'pg';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * Every bearer request checks its client's status (rotated or revoked?) through a short cache. The requests that find
 * it expired must share one read of the row: each reading it sent thousands of identical queries into the pool at
 * once under load (30k reads a second in make bench), which timed out connecting and answered 503.
 */
describe('client status reads', () => {
  let server: TestServer;
  const statusReads: string[] = [];

  before(async () => {
    server = await startTestServer({ CLIENT_STATUS_CACHE_MS: '500' }, {}, (sql) => {
      if (/select "generation", "revoked_at" from "api_clients"/.test(sql)) statusReads.push(sql);
    });
  });
  after(() => server.close());

  it('simultaneous requests that find the status expired share one read of it', async function () {
    // The read is held back by a lock on the table (PostgreSQL), so that every request is waiting for the status
    // at once, as under load.
    if (!server.database.url) this.skip();
    const token = await server.token(['read']);
    expect((await server.api.get('/v1/brokers', { token })).status).to.equal(200);
    await new Promise((resolve) => setTimeout(resolve, 550)); // past the cache's 500 ms
    const lock = new pg.Client({ connectionString: server.database.url });
    await lock.connect();
    try {
      await lock.query('begin');
      await lock.query('lock table api_clients in access exclusive mode');
      statusReads.length = 0;
      const answers = Promise.all(Array.from({ length: 100 }, () => server.api.get('/v1/brokers', { token }).then((r) => r.status)));
      await new Promise((resolve) => setTimeout(resolve, 500)); // every request has reached the status by now
      await lock.query('commit');
      const statuses = await answers;
      expect(statuses.every((status) => status === 200)).to.equal(true);
    } finally {
      await lock.end();
    }
    // One read (each request reading it: 100).
    expect(statusReads.length).to.be.within(1, 2);
  });
});
