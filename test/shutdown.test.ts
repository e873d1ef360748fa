import { expect } from 'chai';
import { createTestDatabase, testBackend, type TestDatabase } from './support/database.js';
import { KeepAliveLoad } from './support/keep-alive-load.js';
import { RawConnection } from './support/raw-connection.js';
import { startServiceProcess, waitForOutput, type ServiceProcess } from './support/process.js';

/**
 * SIGTERM under keep-alive load, as a load balancer's clients see it: 200 requests a second over 16 pooled sockets
 * of a stock Node agent, the signal sent mid-stream. No request the client writes on a pooled socket may be reset;
 * once the listener is closed new connections are refused (ECONNREFUSED: nothing was sent, safe to retry elsewhere).
 * One connection is driven by hand: left idle across the signal, it must still carry its next request (answered
 * with Connection: close), which is what makes a reset impossible rather than unlikely.
 */
describe('SIGTERM under keep-alive load', () => {
  let database: TestDatabase | undefined;

  before(async () => {
    if ((await testBackend()) === 'postgres') database = await createTestDatabase();
  });
  after(() => database?.drop());

  for (const workers of [1, 2]) {
    it(`WEB_CONCURRENCY=${workers}: resets no pooled connection, asks each to close on its next answer, exits 0`, async function () {
      this.timeout(120_000); // process starts (a primary and two workers under tsx) on a loaded machine
      if (workers > 1 && !database) this.skip(); // several workers need PostgreSQL
      const service: ServiceProcess = await startServiceProcess({
        ...(database ? { DATABASE_URL: database.url! } : {}),
        WEB_CONCURRENCY: String(workers),
      });
      const load = new KeepAliveLoad(`http://127.0.0.1:${service.port}/healthz`, 200, 16);
      const idle = new RawConnection(service.port);
      try {
        const exited = new Promise<number | null>((resolve) => service.child.once('exit', resolve));
        load.start();
        await load.answeredAtLeast(400);
        expect(load.pooledSockets()).to.equal(16);
        expect((await idle.get())?.headers.connection).to.equal('keep-alive');
        const draining = waitForOutput(service.child, new RegExp(Array(workers).fill('draining in-flight requests').join('[\\s\\S]*')));
        load.mark();
        service.child.kill('SIGTERM');
        await draining;
        const afterSignal = await idle.get();
        expect(afterSignal, 'the idle connection was closed under the client').to.not.equal(null);
        expect(afterSignal).to.deep.include({ status: 200 });
        expect(afterSignal!.headers.connection).to.equal('close');

        // A hang fails here (SHUTDOWN_TIMEOUT_MS is 10 s), not by the suite's timeout.
        let deadline: NodeJS.Timeout | undefined;
        const code = await Promise.race([
          exited,
          new Promise<never>(
            (_, reject) => (deadline = setTimeout(() => reject(new Error('the service did not exit within 20 s of SIGTERM')), 20_000)),
          ),
        ]);
        clearTimeout(deadline);
        await load.stop();
        expect(code).to.equal(0);
        const failures = Object.fromEntries(load.failures);
        expect(
          Object.keys(failures).filter((c) => c !== 'ECONNREFUSED'),
          JSON.stringify(failures),
        ).to.deep.equal([]);
        // The drain was exercised: requests kept being answered after the signal, each socket told to close.
        expect(load.answeredAfterMark, JSON.stringify(failures)).to.be.greaterThan(0);
        expect(load.closingAfterMark).to.be.greaterThan(0);
      } finally {
        idle.close();
        await load.stop();
        service.stop();
      }
    });
  }
});
