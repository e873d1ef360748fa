import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { startServiceProcess, type ServiceProcess } from '../support/process.js';
import { closeTestRedis, connectTestRedis, TEST_REDIS_URL as REDIS_URL, type TestRedis } from '../support/redis.js';
import { until } from '../support/poll.js';
import { startTestServer, type TestServer } from '../support/server.js';

const IANA = 'https://iana.org/assignments/http-problem-types#quota-exceeded';

describe('rate limits', () => {
  describe('per client address and route, in memory', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({
        RATE_LIMIT_PER_MINUTE: '5',
        TOKEN_RATE_LIMIT_PER_MINUTE: '3',
        TOKEN_FAILURE_LIMIT_PER_MINUTE: '3',
        TRUST_PROXY: '1',
      });
    });
    after(() => server.close());

    it('allows exactly the limit per route template (ids share it), then 429 quota-exceeded with Retry-After; another route keeps its budget', async () => {
      const token = await server.token(['read']);
      const from = { 'x-forwarded-for': '203.0.113.10' };
      const partitions = new Set<string>();
      for (let i = 0; i < 5; i++) {
        const response = await server.api.get(`/v1/orders/ord_${i}`, { token, headers: from });
        expect(response.status, `request ${i + 1}`).to.equal(404);
        const policy = /^"route"; q=5; w=60; pk=:([A-Za-z0-9+/=]+):$/.exec(response.headers.get('ratelimit-policy') ?? '');
        expect(policy, response.headers.get('ratelimit-policy') ?? 'no RateLimit-Policy').to.not.equal(null);
        partitions.add(policy![1]!);
        const [, reset] = new RegExp(`^"route"; r=${4 - i}; t=(\\d+)$`).exec(response.headers.get('ratelimit') ?? '') ?? [];
        expect(Number(reset), response.headers.get('ratelimit') ?? 'no RateLimit').to.be.within(1, 60);
      }
      // One partition for the route template (draft-8's pk: the key's SHA-256, as express-rate-limit writes it).
      const key = '203.0.113.10 /v1/orders/{id}';
      expect([...partitions]).to.deep.equal([Buffer.from(createHash('sha256').update(key).digest('hex').slice(0, 12)).toString('base64')]);
      const over = await server.api.get('/v1/orders/ord_other', { token, headers: from });
      expect(over.status).to.equal(429);
      expect(over.headers.get('content-type')).to.match(/^application\/problem\+json/);
      expect(Number(over.headers.get('retry-after'))).to.be.within(1, 60);
      expect(over.body.type).to.equal(IANA);
      expect(over.body['violated-policies']).to.deep.equal(['route']);
      expect(over.body.instance).to.equal('/v1/orders/ord_other');
      const other = await server.api.get('/v1/brokers', { token, headers: from });
      expect(other.status).to.equal(200);
      // Another address has its own budget on the same route.
      expect((await server.api.get('/v1/orders/ord_1', { token, headers: { 'x-forwarded-for': '203.0.113.11' } })).status).to.equal(404);
    });

    it('limits the token endpoint per address in its own JSON error format, and never /healthz or /readyz', async () => {
      const { client_id, client_secret } = await server.createClient(['read']);
      const from = { 'x-forwarded-for': '203.0.113.20', 'content-type': 'application/x-www-form-urlencoded' };
      const body = new URLSearchParams({ grant_type: 'client_credentials', client_id, client_secret }).toString();
      for (let i = 0; i < 3; i++) expect((await server.api.post('/oauth/token', { headers: from, body })).status).to.equal(200);
      const over = await server.api.post('/oauth/token', { headers: from, body });
      expect(over.status).to.equal(429);
      expect(over.headers.get('content-type')).to.match(/^application\/json/);
      expect(over.headers.get('retry-after')).to.match(/^\d+$/);
      expect(over.body).to.include({ error: 'slow_down', type: IANA, status: 429, instance: '/oauth/token' });
      expect(over.body.request_id).to.equal(over.headers.get('x-request-id'));
      expect(over.body.error_description).to.match(/token requests a minute/);
      for (let i = 0; i < 8; i++) {
        const health = await server.api.get('/healthz', { headers: from });
        expect(health.status).to.equal(200);
        expect(health.headers.get('ratelimit')).to.equal(null);
      }
    });

    it('counts HEAD against its GET route, every method and id against its route template, and paths that name no route against one budget', async () => {
      const token = await server.token(['read']);
      const from = (n: number) => ({ 'x-forwarded-for': `203.0.113.${n}` });
      const send = (method: string, path: string, n: number) =>
        server.api.request(method, path, { token, headers: from(n), unchecked: true });
      // HEAD shares GET's budget (measured: 400 HEADs on fresh ids were never limited).
      for (let i = 0; i < 3; i++) expect((await send('HEAD', `/v1/orders/ord_h${i}`, 30)).status, `HEAD ${i + 1}`).to.equal(404);
      for (let i = 0; i < 2; i++) expect((await send('GET', `/v1/orders/ord_g${i}`, 30)).status, `GET ${i + 1}`).to.equal(404);
      expect((await send('HEAD', '/v1/orders/ord_h9', 30)).status).to.equal(429);
      expect((await send('GET', '/v1/orders/ord_g9', 30)).status).to.equal(429);
      // A method the route does not allow counts against the route, whatever the id.
      for (let i = 0; i < 5; i++) expect((await send('DELETE', `/v1/orders/ord_d${i}`, 31)).status, `DELETE ${i + 1}`).to.equal(405);
      const deleted = await send('DELETE', '/v1/orders/ord_d9', 31);
      expect(deleted.status).to.equal(429);
      expect(deleted.body['violated-policies']).to.deep.equal(['route']);
      expect((await send('GET', '/v1/orders/ord_g0', 31)).status, 'GET on the route the DELETEs used up').to.equal(429);
      // Unknown paths share one budget, however they vary.
      for (let i = 0; i < 5; i++) expect((await send('GET', `/v1/nothing/${i}`, 32)).status, `unknown path ${i + 1}`).to.equal(404);
      expect((await send('GET', '/v1/nothing-else', 32)).status).to.equal(429);
      expect((await send('GET', '/v1/brokers', 32)).status, 'a route of the spec keeps its budget').to.equal(200);
    });
  });

  /**
   * Measurement 7 of issue 20: failed authentications from anywhere locked the client out. Failures are limited per
   * client_id and address, and past a per-client_id ceiling only the client's usual addresses are checked.
   */
  const tokenRequest = (server: TestServer, client: { client_id: string }, secret: string, address: string) =>
    server.api.post('/oauth/token', {
      headers: { 'x-forwarded-for': address, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: secret }).toString(),
    });

  describe('failed client authentication, with the default failure limits', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({
        TRUST_PROXY: '1',
        TOKEN_RATE_LIMIT_PER_MINUTE: '1000',
        TOKEN_FAILURE_LIMIT_PER_MINUTE: '',
        TOKEN_CLIENT_FAILURE_LIMIT_PER_MINUTE: '',
      });
    });
    after(() => server.close());

    it('does not stop the client getting its token from another address after 14 wrong secrets from one', async () => {
      const client = await server.createClient(['read']);
      const statuses: number[] = [];
      for (let i = 0; i < 14; i++) statuses.push((await tokenRequest(server, client, 'wrong', '198.51.100.66')).status);
      expect(statuses).to.deep.equal([...Array(10).fill(401), ...Array(4).fill(429)]);
      const refused = await tokenRequest(server, client, client.client_secret, '198.51.100.66');
      expect(refused.status, 'the guessing address is refused for this client, the right secret included').to.equal(429);
      expect(refused.body).to.include({ error: 'slow_down', type: IANA });
      expect(refused.body['violated-policies']).to.deep.equal(['token-failures']);
      expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 60);
      const served = await tokenRequest(server, client, client.client_secret, '198.51.100.7');
      expect(served.status).to.equal(200);
      expect(served.body.access_token).to.be.a('string');
      // The address is refused only for the client it guessed at.
      const other = await server.createClient(['read']);
      expect((await tokenRequest(server, other, other.client_secret, '198.51.100.66')).status).to.equal(200);
    });
  });

  /** The per-client_id ceiling, against whichever store the server counts in. */
  const throttlesGuessesFromManyAddresses = (server: () => TestServer, prefix: string) =>
    it('refuses guesses from many addresses past the client_id ceiling without checking them, and keeps serving the client at its usual address', async () => {
      const client = await server().createClient(['read']);
      const usual = `${prefix}.1`;
      expect((await tokenRequest(server(), client, client.client_secret, usual)).status).to.equal(200);
      // Five wrong secrets from three addresses: the ceiling (5) reached, no address at its own limit (3).
      for (const [i, a] of [10, 10, 11, 11, 12].entries())
        expect((await tokenRequest(server(), client, 'wrong', `${prefix}.${a}`)).status, `guess ${i + 1}`).to.equal(401);
      for (const address of [`${prefix}.10`, `${prefix}.20`, `${prefix}.21`]) {
        const refused = await tokenRequest(server(), client, 'wrong', address);
        expect(refused.status, `a guess from ${address}`).to.equal(429);
        expect(refused.body['violated-policies']).to.deep.equal(['token-client-failures']);
        expect(refused.headers.get('ratelimit')).to.match(/"token-client-failures"; r=0; t=\d+/);
      }
      // Not checked at all from an address the client has not used: the right secret is refused as well.
      expect((await tokenRequest(server(), client, client.client_secret, `${prefix}.22`)).status).to.equal(429);
      // At its usual address the secret is checked: the right one served, a wrong one refused as wrong.
      expect((await tokenRequest(server(), client, client.client_secret, usual)).status).to.equal(200);
      expect((await tokenRequest(server(), client, 'wrong', usual)).status).to.equal(401);
      expect((await tokenRequest(server(), client, client.client_secret, usual)).status).to.equal(200);
      // Another client is not affected.
      const other = await server().createClient(['read']);
      expect((await tokenRequest(server(), other, other.client_secret, `${prefix}.23`)).status).to.equal(200);
    });

  describe('failed client authentication past the client_id ceiling, in memory', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({
        TRUST_PROXY: '1',
        TOKEN_RATE_LIMIT_PER_MINUTE: '1000',
        TOKEN_FAILURE_LIMIT_PER_MINUTE: '3',
        TOKEN_CLIENT_FAILURE_LIMIT_PER_MINUTE: '5',
      });
    });
    after(() => server.close());

    throttlesGuessesFromManyAddresses(() => server, '198.51.100');

    it('announces every token-endpoint policy in RateLimit-Policy, and the failures left in RateLimit', async () => {
      const client = await server.createClient(['read']);
      const first = await tokenRequest(server, client, 'wrong', '198.51.100.90');
      expect(first.status).to.equal(401);
      const policy = first.headers.get('ratelimit-policy') ?? '';
      const pk = 'pk=:[A-Za-z0-9+/=]+:';
      expect(policy).to.match(
        new RegExp(`^"token"; q=1000; w=60; ${pk}, "token-failures"; q=3; w=60; ${pk}, "token-client-failures"; q=5; w=60; ${pk}$`),
      );
      expect(first.headers.get('ratelimit')).to.match(
        /^"token"; r=999; t=\d+, "token-failures"; r=3; t=\d+, "token-client-failures"; r=5; t=\d+$/,
      );
      const second = await tokenRequest(server, client, client.client_secret, '198.51.100.90');
      expect(second.status).to.equal(200);
      expect(second.headers.get('ratelimit')).to.match(
        /^"token"; r=998; t=\d+, "token-failures"; r=2; t=\d+, "token-client-failures"; r=4; t=\d+$/,
      );
      // Without a client_id only the address's token budget applies.
      const anonymous = await server.api.post('/oauth/token', {
        headers: { 'x-forwarded-for': '198.51.100.91', 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
      });
      expect(anonymous.status).to.equal(401);
      expect(anonymous.headers.get('ratelimit-policy')).to.match(/^"token"; q=1000; w=60; pk=:[A-Za-z0-9+/=]+:$/);
    });
  });

  describe('failed client authentication past the client_id ceiling, counted in Redis', () => {
    const prefix = `ias-test:${randomBytes(4).toString('hex')}:`;
    let redis: TestRedis | undefined;
    let server: TestServer | undefined;
    before(async function () {
      redis = await connectTestRedis();
      if (!redis) this.skip(); // no Redis answers (TEST_REDIS_URL); make test says so before it starts
      server = await startTestServer({
        REDIS_URL,
        RATE_LIMIT_REDIS_PREFIX: prefix,
        TRUST_PROXY: '1',
        TOKEN_RATE_LIMIT_PER_MINUTE: '1000',
        TOKEN_FAILURE_LIMIT_PER_MINUTE: '3',
        TOKEN_CLIENT_FAILURE_LIMIT_PER_MINUTE: '5',
      });
      // The connection opens in the background; until then nothing would be counted.
      await until('the server to connect to Redis', async () => (await server!.api.get('/readyz')).body.checks.rate_limit_store === 'ok', {
        attempts: 100,
        intervalMs: 50,
      });
    });
    after(async () => {
      await server?.close();
      await closeTestRedis(redis, prefix);
    });

    throttlesGuessesFromManyAddresses(() => server!, '198.51.101');

    it('keeps the counts in Redis under the configured prefix', async () => {
      const keys = await redis!.keys(`${prefix}*`);
      for (const name of ['token:', 'token-failures:', 'token-client-failures:', 'token-known-addresses:']) {
        expect(
          keys.some((key) => key.startsWith(`${prefix}${name}`)),
          name,
        ).to.equal(true);
      }
    });
  });

  describe('shared through Redis by two server processes on one PostgreSQL', () => {
    const prefix = `ias-test:${randomBytes(4).toString('hex')}:`;
    let redis: TestRedis | undefined;
    let database: TestServer | undefined;
    const processes: ServiceProcess[] = [];
    before(async function () {
      this.timeout(120_000);
      redis = await connectTestRedis();
      if (!redis) this.skip(); // no Redis answers (TEST_REDIS_URL); make test says so before it starts
      database = await startTestServer();
      if (!database.database.url) this.skip(); // two processes need PostgreSQL
      const env = {
        DATABASE_URL: database.database.url,
        BASE_URL: database.url,
        REDIS_URL,
        RATE_LIMIT_REDIS_PREFIX: prefix,
        RATE_LIMIT_PER_MINUTE: '6',
      };
      processes.push(...(await Promise.all([startServiceProcess(env), startServiceProcess(env)])));
    });
    after(async () => {
      for (const p of processes) p.stop();
      await database?.close();
      await closeTestRedis(redis, prefix);
    });

    it('gives the two instances one budget', async () => {
      const get = (p: ServiceProcess, path: string) => fetch(`http://127.0.0.1:${p.port}${path}`);
      // Each instance connects to Redis in the background; until then requests would pass uncounted.
      for (const p of processes) {
        await until(
          'an instance to connect to Redis',
          async () =>
            ((await (await get(p, '/readyz')).json()) as { checks: { rate_limit_store?: string } }).checks.rate_limit_store === 'ok',
          { attempts: 100, intervalMs: 50 },
        );
      }
      for (let i = 0; i < 6; i++) expect((await get(processes[i % 2]!, '/openapi.json')).status, `request ${i + 1}`).to.equal(200);
      expect((await get(processes[0]!, '/openapi.json')).status).to.equal(429);
      expect((await get(processes[1]!, '/openapi.json')).status).to.equal(429);
      expect((await redis!.keys(`${prefix}*`)).length).to.be.greaterThan(0);
    });
  });

  it('lets requests through when Redis is unreachable, and /readyz says so while staying ready', async () => {
    const server = await startTestServer({ REDIS_URL: 'redis://127.0.0.1:1', RATE_LIMIT_PER_MINUTE: '2' });
    try {
      for (let i = 0; i < 4; i++) expect((await server.api.get('/openapi.json')).status).to.equal(200);
      const ready = await server.api.get('/readyz');
      expect(ready.status).to.equal(200);
      expect(ready.body.checks.rate_limit_store).to.equal('fail');
    } finally {
      await server.close();
    }
  });
});
