import { expect } from 'chai';
import { startServiceProcess, type ServiceProcess } from '../support/process.js';
import { until } from '../support/poll.js';
import { startTestServer, type TestServer } from '../support/server.js';

const form = (fields: Record<string, string>) => ({
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

describe('a token endpoint that cannot starve the service', () => {
  describe('bcrypt under a bound', () => {
    let server: TestServer;
    before(async () => {
      // One bcrypt at a time, no waiting, a real cost: concurrent checks beyond the first are refused at once.
      server = await startTestServer({
        BCRYPT_CONCURRENCY: '1',
        BCRYPT_WAIT_MS: '0',
        BCRYPT_COST: '10',
        TOKEN_FAILURE_LIMIT_PER_MINUTE: '1000',
      });
    });
    after(() => server.close());

    it('answers 503 service-unavailable with Retry-After to checks beyond the bound instead of queueing them', async () => {
      const { client_id } = await server.createClient(['read']);
      const responses = await Promise.all(
        Array.from({ length: 6 }, () =>
          server.api.post('/oauth/token', form({ grant_type: 'client_credentials', client_id, client_secret: 'wrong' })),
        ),
      );
      const statuses = responses.map((r) => r.status);
      expect(statuses, statuses.join(',')).to.include(401);
      const busy = responses.filter((r) => r.status === 503);
      expect(busy.length, statuses.join(',')).to.be.greaterThan(0);
      for (const response of busy) {
        expect(response.headers.get('retry-after')).to.equal('1');
        expect(response.body.type).to.match(/\/problems\/service-unavailable$/);
      }
    });

    it('remembers a verified secret only for the stored hash: a rotated secret stops working at once', async () => {
      const client = await server.createClient(['read']);
      const ask = (secret: string) =>
        server.api.post('/oauth/token', form({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: secret }));
      expect((await ask(client.client_secret)).status).to.equal(200);
      expect((await ask(client.client_secret)).status).to.equal(200);
      const rotated = await server.services.clients.rotate(client.client_id);
      expect((await ask(client.client_secret)).status).to.equal(401);
      expect((await ask(rotated!.client_secret)).status).to.equal(200);
      await server.services.clients.revoke(client.client_id);
      expect((await ask(rotated!.client_secret)).status).to.equal(401);
    });
  });

  it('makes a revocation take effect on another instance within CLIENT_STATUS_CACHE_MS', async function () {
    const server = await startTestServer({ CLIENT_STATUS_CACHE_MS: '100' });
    let second: ServiceProcess | undefined;
    try {
      if (!server.database.url) this.skip(); // two processes need PostgreSQL
      this.timeout(120_000);
      second = await startServiceProcess({ DATABASE_URL: server.database.url, BASE_URL: server.url, CLIENT_STATUS_CACHE_MS: '100' });
      const account = await server.account(['read']);
      const other = (path: string) =>
        fetch(`http://127.0.0.1:${second!.port}${path}`, { headers: { authorization: `Bearer ${account.token}` } });
      expect((await other('/v1/brokers')).status).to.equal(200);
      await server.services.clients.revoke(account.clientId);
      // The other instance learns of it when its cached status expires (100 ms): a bounded poll, no assumed delay.
      const refused = await until(
        'the other instance to refuse the revoked client',
        async () => {
          const answer = await other('/v1/brokers');
          await answer.arrayBuffer();
          return answer.status === 200 ? undefined : answer;
        },
        { attempts: 100, intervalMs: 20 },
      );
      expect(refused.status).to.equal(401);
      expect(refused.headers.get('www-authenticate')).to.include('rotated or revoked');
    } finally {
      second?.stop();
      await server.close();
    }
  });
});
