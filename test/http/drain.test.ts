import { expect } from 'chai';
import { RawConnection } from '../support/raw-connection.js';
import { startTestServer, type TestServer } from '../support/server.js';

/**
 * What a load balancer sees while a server drains: readiness turns 503 at once on the connections it still serves,
 * and only for that server (readiness is each server's own, not the process's). Runs on both databases.
 */
describe('draining', () => {
  let draining: TestServer;
  let other: TestServer;
  before(async () => {
    [draining, other] = await Promise.all([startTestServer(), startTestServer()]);
  });
  after(() => other?.close());

  it('answers /readyz 503 (requests: draining) with Connection: close during the drain; another server in the process stays ready', async () => {
    const connection = new RawConnection(draining.running.port);
    try {
      const ready = await connection.get('/readyz');
      expect(ready?.status).to.equal(200);
      expect(JSON.parse(ready!.body)).to.deep.equal({ status: 'ready', checks: { database: 'ok', requests: 'ok' } });
      const drained = draining.running.drain();
      const during = await connection.get('/readyz');
      expect(during?.status, 'readiness during the drain').to.equal(503);
      expect(during!.headers.connection).to.equal('close');
      expect(JSON.parse(during!.body).checks).to.deep.include({ database: 'ok', requests: 'draining' });
      expect((await other.api.get('/readyz')).status, 'the other server').to.equal(200);
      expect(await connection.get('/readyz'), 'the connection closes after the answer').to.equal(null);
      expect(await drained).to.deep.equal({ forced: false });
    } finally {
      connection.close();
      await draining.database.drop();
    }
  });
});
