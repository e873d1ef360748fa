import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { expect } from 'chai';
import { pino } from 'pino';
import { loadConfig } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { until } from '../support/poll.js';
import { drainServer, listeningSocket } from '../support/server.js';
import { ownRedisUnavailable, startOwnRedis, type OwnRedis } from '../support/redis-server.js';

/** Every request here must answer within this, or the test fails: the target is "within 2 s", whatever Redis does. */
const ANSWER_WITHIN_MS = 2000;
const STORE_LOG = /rate-limit store/;

/**
 * Measurement 4 of issue 20: a Redis that hangs (SIGSTOP), not only one that is gone, must never hang a request.
 * The server runs in this process with a logger of the test's own, so the test reads what it logged; the Redis is
 * the test's own redis-server, frozen and killed without touching the machine's shared one.
 */
describe('rate limits with a Redis that hangs or dies', () => {
  let redis: OwnRedis;
  let database: TestDatabase;
  let running: RunningServer;
  let base: string;
  const logged: { level: number; msg: string }[] = [];
  const printed: string[] = [];
  const consoleMethods = ['error', 'warn', 'log', 'info'] as const;
  const originals = consoleMethods.map((name) => console[name].bind(console));
  let token: string;
  let client: { client_id: string; client_secret: string };

  const call = (path: string, init: RequestInit & { from?: string } = {}) =>
    fetch(`${base}${path}`, {
      ...init,
      headers: { ...(init.headers as Record<string, string>), 'x-forwarded-for': init.from ?? '192.0.2.1' },
      signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
    });
  const read = (from?: string) => call('/v1/brokers', { headers: { authorization: `Bearer ${token}` }, from });
  const askToken = (from?: string) =>
    call('/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', ...client }).toString(),
      from,
    });
  const storeState = async () => {
    const response = await call('/readyz');
    const body = (await response.json()) as { status: string; checks: { rate_limit_store?: string } };
    return { status: response.status, ready: body.status === 'ready', store: body.checks.rate_limit_store };
  };
  /** Polls /readyz (50 ms apart, about `withinMs` in all) until the store reads `state`; /readyz stays 200 throughout. */
  const untilStore = (state: 'ok' | 'fail', withinMs: number) =>
    until(
      `/readyz to say rate_limit_store ${state}`,
      async () => {
        const now = await storeState();
        expect(now.status, '/readyz stays 200').to.equal(200);
        expect(now.ready).to.equal(true);
        return now.store === state;
      },
      { attempts: Math.ceil(withinMs / 50), intervalMs: 50 },
    );

  before(async function () {
    if (ownRedisUnavailable()) this.skip();
    redis = await startOwnRedis();
    database = await createTestDatabase();
    const { socket, port } = await listeningSocket();
    const config = loadConfig({
      PORT: String(port),
      HOST: '127.0.0.1',
      BASE_URL: `http://127.0.0.1:${port}`,
      BCRYPT_COST: '4',
      DASHBOARD_PORT: '0',
      TRUST_PROXY: '1',
      REDIS_URL: redis.url,
      RATE_LIMIT_REDIS_PREFIX: `ias-test:${randomBytes(4).toString('hex')}:`,
      RATE_LIMIT_REDIS_BREAKER_MS: '500',
      RATE_LIMIT_PER_MINUTE: '5',
      TOKEN_RATE_LIMIT_PER_MINUTE: '1000',
    });
    const lines = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) logged.push(JSON.parse(line));
        done();
      },
    });
    // express-rate-limit's own messages go to the console: any of them is a line per request.
    consoleMethods.forEach((name) => (console[name] = (...args: unknown[]) => void printed.push(args.map(String).join(' '))));
    running = await startServer(config, database.db, pino({ level: 'info' }, lines), { apiSocket: socket });
    base = `http://127.0.0.1:${port}`;
    const created = await running.services.clients.create({ accountEmail: `outage.${port}@example.com`, scopes: ['read'] });
    client = { client_id: created.client_id, client_secret: created.client_secret };
    token = (await running.services.tokens.issue({ ...created, generation: 1 }, ['read'])).access_token;
    await untilStore('ok', 10_000);
  });

  after(async () => {
    consoleMethods.forEach((name, i) => (console[name] = originals[i]!));
    redis?.thaw();
    await drainServer(running);
    await database?.drop();
    await redis?.kill();
  });

  it('answers reads, token requests and /readyz within 2 s while Redis is frozen, reports the store failing, and logs it once', async () => {
    const before = logged.length;
    redis.freeze();
    // With no traffic at all, readiness notices the hang by itself.
    await untilStore('fail', ANSWER_WITHIN_MS);
    for (let i = 0; i < 8; i++) expect((await read(`192.0.2.${10 + i}`)).status, `read ${i + 1}`).to.equal(200);
    for (let i = 0; i < 8; i++) expect((await read('192.0.2.20')).status, `read ${i + 1} from one address`).to.equal(200);
    for (let i = 0; i < 3; i++) expect((await askToken('192.0.2.30')).status, `token request ${i + 1}`).to.equal(200);
    const wrong = await call('/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: 'wrong' }).toString(),
      from: '192.0.2.31',
    });
    expect(wrong.status).to.equal(401);
    await untilStore('fail', ANSWER_WITHIN_MS);
    const storeLines = logged.slice(before).filter((line) => STORE_LOG.test(line.msg));
    expect(storeLines.map((line) => line.msg)).to.have.length(1);
    expect(storeLines[0]!.level).to.equal(50);
    expect(printed.filter((line) => /rate-limit|rate limit/i.test(line))).to.deep.equal([]);
  });

  it('counts again once Redis answers after SIGCONT', async () => {
    redis.thaw();
    await untilStore('ok', 10_000);
    const from = '192.0.2.40';
    for (let i = 0; i < 5; i++) expect((await read(from)).status, `read ${i + 1}`).to.equal(200);
    const over = await read(from);
    expect(over.status).to.equal(429);
    expect(logged.some((line) => /rate-limit store \(Redis\) is back/.test(line.msg))).to.equal(true);
  });

  it('lets requests through when Redis is killed, and /readyz says so while staying ready', async () => {
    await redis.kill();
    await untilStore('fail', ANSWER_WITHIN_MS);
    const from = '192.0.2.50';
    for (let i = 0; i < 8; i++) expect((await read(from)).status, `read ${i + 1}`).to.equal(200);
    for (let i = 0; i < 3; i++) expect((await askToken(from)).status, `token request ${i + 1}`).to.equal(200);
    expect(printed.filter((line) => /rate-limit|rate limit/i.test(line))).to.deep.equal([]);
  });
});
