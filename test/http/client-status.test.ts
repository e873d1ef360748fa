import { expect } from 'chai';
import pg from 'pg';
import { until } from '../support/poll.js';
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
    // at once, as under load. A new client's status is not cached yet: its first requests all find it expired.
    if (!server.database.url) this.skip();
    const token = await server.token(['read']);
    const lock = new pg.Client({ connectionString: server.database.url });
    await lock.connect();
    try {
      await lock.query('begin');
      await lock.query('lock table api_clients in access exclusive mode');
      statusReads.length = 0;
      const answers = Promise.all(Array.from({ length: 100 }, () => server.api.get('/v1/brokers', { token }).then((r) => r.status)));
      // Every request is in (the server holds their connections) and the status read waits on the lock.
      const connections = () => new Promise<number>((resolve) => server.running.server.getConnections((_error, count) => resolve(count)));
      await until('the 100 requests to reach the server', async () => (await connections()) >= 100);
      const waiting = async () =>
        (
          await lock.query(
            `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
          )
        ).rows[0].n as number;
      await until('the status read to wait on the lock', async () => (await waiting()) >= 1);
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
