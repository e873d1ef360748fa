import { expect } from 'chai';
import { request } from 'node:http';
import { createTestDatabase, testBackend, type TestDatabase } from './support/database.js';
import { startServiceProcess, waitForOutput, type ServiceProcess } from './support/process.js';
import { until } from './support/poll.js';

const DELAY_MS = 3000;

/** GET on a connection of its own (no agent): its status and JSON body, or the connection's error code. */
function fresh(port: number, path: string): Promise<{ status: number; body: any } | { code: string }> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body: text.startsWith('{') ? JSON.parse(text) : text }));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ code: error.code ?? error.message }));
    req.end();
  });
}

/**
 * SHUTDOWN_DELAY_MS, as a load balancer's health checks need it (deploy/haproxy.cfg checks /readyz): on SIGTERM
 * readiness turns 503 at once while new connections are still accepted and answered, for the delay; only then do the
 * listeners close and the drain begin, and the process exits 0.
 */
describe('SHUTDOWN_DELAY_MS: unready first, closed later', () => {
  let database: TestDatabase | undefined;

  before(async () => {
    if ((await testBackend()) === 'postgres') database = await createTestDatabase();
  });
  after(() => database?.drop());

  for (const workers of [1, 2]) {
    it(`WEB_CONCURRENCY=${workers}: /readyz is 503 and new connections are served during the delay, refused after it`, async function () {
      this.timeout(120_000); // process starts under tsx on a loaded machine
      if (workers > 1 && !database) this.skip(); // several workers need PostgreSQL
      const service: ServiceProcess = await startServiceProcess({
        ...(database ? { DATABASE_URL: database.url! } : {}),
        WEB_CONCURRENCY: String(workers),
        SHUTDOWN_DELAY_MS: String(DELAY_MS),
      });
      try {
        const exited = new Promise<number | null>((resolve) => service.child.once('exit', resolve));
        // A cluster's primary says "serving" once its workers listen; each is ready once its pool is warm.
        for (let i = 0; i < 4; i++) {
          await until('ready', async () => ((await fresh(service.port, '/readyz')) as { status?: number }).status === 200, {
            attempts: 200,
            intervalMs: 50,
          });
        }
        const unready = waitForOutput(service.child, /not ready; still accepting/);
        const draining = waitForOutput(service.child, /draining (in-flight requests|every worker)/);
        const probed = waitForOutput(service.child, /"path":"\/readyz","status":503/);
        const signalled = Date.now();
        service.child.kill('SIGTERM');
        await unready;
        // Every worker answers on new connections: unready, yet serving.
        for (let i = 0; i < 4; i++) {
          const readyz = await fresh(service.port, '/readyz');
          expect(readyz).to.deep.include({ status: 503 });
          expect((readyz as { body: any }).body.checks.requests).to.equal('draining');
          expect(await fresh(service.port, '/healthz')).to.deep.include({ status: 200 });
        }
        expect(Date.now() - signalled, 'the checks ran within the delay').to.be.lessThan(DELAY_MS);
        // A readiness probe's 503 is what it is for: logged as a warning, not an error.
        const probe = (await probed).split('\n').find((line) => line.includes('"path":"/readyz","status":503'))!;
        expect((JSON.parse(probe) as { level: number }).level).to.equal(40);
        await draining;
        expect(Date.now() - signalled).to.be.at.least(DELAY_MS - 50);
        // Then the listeners close: new connections are refused (nothing sent, safe to retry elsewhere).
        await until('new connections refused', async () => 'code' in (await fresh(service.port, '/healthz')), {
          attempts: 100,
          intervalMs: 50,
        });
        expect(await fresh(service.port, '/healthz')).to.deep.equal({ code: 'ECONNREFUSED' });
        expect(await exited).to.equal(0);
      } finally {
        service.stop();
      }
    });
  }
});
