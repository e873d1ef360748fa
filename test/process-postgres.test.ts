import { expect } from 'chai';
import { createTestDatabase, testBackend, type TestDatabase } from './support/database.js';
import { startServiceProcess, type ServiceProcess } from './support/process.js';
import { until } from './support/poll.js';
import { freePort } from './support/server.js';

async function tokenFor(service: ServiceProcess): Promise<string> {
  const { id, secret } = service.credentials();
  const response = await fetch(`http://127.0.0.1:${service.port}/oauth/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials&scope=read%20trade',
  });
  return ((await response.json()) as { access_token: string }).access_token;
}

const exited = (service: ServiceProcess) =>
  new Promise<number | null>((resolve) =>
    service.child.exitCode !== null ? resolve(service.child.exitCode) : service.child.once('exit', resolve),
  );

describe('the service process on PostgreSQL', () => {
  let database: TestDatabase;

  before(async function () {
    if ((await testBackend()) !== 'postgres') this.skip();
    database = await createTestDatabase();
  });
  after(() => database?.drop());

  it('drains under load on SIGTERM: accepted requests complete, every acknowledged write is stored, and it exits without the timeout', async () => {
    // The load is policy versions of one account, well past its quota a minute (ACCOUNT_POLICIES_PER_MINUTE): raised here.
    const service = await startServiceProcess({
      DATABASE_URL: database.url!,
      SHUTDOWN_TIMEOUT_MS: '20000',
      LOG_LEVEL: 'info',
      ACCOUNT_POLICIES_PER_MINUTE: '1000000',
    });
    let log = service.output;
    service.child.stdout!.on('data', (chunk: Buffer) => (log += chunk.toString()));
    try {
      const base = `http://127.0.0.1:${service.port}`;
      const token = await tokenFor(service);
      const disclosure = (await (
        await fetch(`${base}/v1/disclosures/current`, { headers: { authorization: `Bearer ${token}` } })
      ).json()) as { version: string };
      const policy = JSON.stringify({
        limits: {
          max_order_notional: 1000,
          max_position_weight: 0.5,
          max_daily_notional: 5000,
          max_daily_loss: 1000,
          allowed_markets: ['US'],
        },
        target_allocation: [{ symbol: 'VTI', weight: 1 }],
        consent: { disclosure_version: disclosure.version, accepted: true, signer_name: 'Load Test' },
      });
      let signalled = false;
      let acknowledged = 0;
      let closingAfterSignal = 0;
      const refusedCodes = new Set<string>();
      // Keep-alive connections (fetch pools them), each sending writes one after another until the server is gone.
      const worker = async () => {
        for (;;) {
          try {
            const response = await fetch(`${base}/v1/policies`, {
              method: 'POST',
              headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
              body: policy,
            });
            await response.arrayBuffer();
            expect(response.status).to.equal(201);
            acknowledged++;
            if (signalled && response.headers.get('connection') === 'close') closingAfterSignal++;
          } catch (error) {
            if (!signalled) throw error;
            const code = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
            refusedCodes.add(code);
            return;
          }
        }
      };
      const workers = Array.from({ length: 12 }, worker);
      await until('60 acknowledged requests', () => acknowledged >= 60, { attempts: 1500, intervalMs: 20 });
      signalled = true;
      service.child.kill('SIGTERM');
      await Promise.all(workers);
      expect(await exited(service)).to.equal(0);

      // Every answer the server gave after the signal asked the client to close; nothing was cut by the timeout.
      expect(closingAfterSignal).to.be.greaterThan(0);
      expect(log).to.include('"msg":"stopped"');
      expect(log).to.not.include('shutdown timeout reached');
      // Acknowledged writes are exactly the stored ones: none lost, none done without its answer reaching the client.
      const stored = await database.db.kysely
        .selectFrom('policies')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(stored.n)).to.equal(acknowledged + 1); // + the demo seed's policy
      // Every request the server handled was answered: it logged exactly the 201s the clients received, and no request
      // was cut off (pino-http logs "request aborted" for one that closed unanswered).
      const answered = log.split('\n').filter((line) => line.includes('"path":"/v1/policies"') && line.includes('"status":201')).length;
      expect(answered).to.equal(acknowledged);
      expect(log).to.not.include('request aborted');
      // What the clients saw fail was never sent: the closed port (ECONNREFUSED). No pooled connection was closed
      // under a client writing on it (that was ECONNRESET, or undici's UND_ERR_SOCKET "other side closed").
      expect([...refusedCodes], [...refusedCodes].join(', ')).to.deep.equal(['ECONNREFUSED']);
    } finally {
      service.stop();
    }
  });

  it('runs WEB_CONCURRENCY workers behind one port, replaces one that dies, and stops them all on SIGTERM', async function () {
    // Four process starts under tsx (primary, two workers, a replacement): on a loaded machine that alone nears 30 s.
    this.timeout(90_000);
    const metricsPort = await freePort();
    const service = await startServiceProcess({
      DATABASE_URL: database.url!,
      WEB_CONCURRENCY: '2',
      LOG_LEVEL: 'info',
      METRICS_PORT: String(metricsPort),
    });
    let log = service.output;
    service.child.stdout!.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const workers = () => [...log.matchAll(/"pid":(\d+)[^\n]*"msg":"worker serving"/g)].map((m) => Number(m[1]));
    try {
      await until('two workers serving', () => workers().length >= 2, { attempts: 1200, intervalMs: 50 });
      const token = await tokenFor(service);
      const read = () =>
        fetch(`http://127.0.0.1:${service.port}/v1/brokers`, { headers: { authorization: `Bearer ${token}`, connection: 'close' } });
      for (let i = 0; i < 6; i++) expect((await read()).status).to.equal(200);
      // The primary answers /metrics for both workers: the six reads, wherever each was served, add up.
      const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      const reads = metrics
        .split('\n')
        .find((line) => line.startsWith('http_server_request_duration_seconds_count{') && line.includes('http_route="/v1/brokers"'));
      expect(reads, metrics.slice(0, 2000)).to.match(/ 6$/);

      process.kill(workers()[0]!, 'SIGKILL');
      await until('a replacement worker serving', () => workers().length >= 3, { attempts: 1200, intervalMs: 50 });
      for (let i = 0; i < 6; i++) expect((await read()).status).to.equal(200);

      service.child.kill('SIGTERM');
      expect(await exited(service)).to.equal(0);
      for (const pid of workers()) expect(() => process.kill(pid, 0), `worker ${pid} still runs`).to.throw();
    } finally {
      for (const pid of workers()) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      service.stop();
    }
  });
});
