// Fair webhook delivery (issue 34, point 2): one account's endpoints that never answer take at most their share of the
// attempts in flight (2 an endpoint, 8 an account, over every instance), and another account's delivery is sent
// while they hang. Without the shares one tenant's 12 slow endpoints held all 32 places until their attempts timed
// out (10 s); the wait below would give up first.
import { expect } from 'chai';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { publish } from '../../src/services/events/outbox.js';
import { until } from '../support/poll.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { WEBHOOK_ENV } from '../support/webhook-receiver.js';

describe('fair webhook delivery between accounts', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(WEBHOOK_ENV);
  });
  after(() => server.close());

  it('keeps one account’s hanging endpoints to their share, and delivers another account’s event meanwhile', async () => {
    // The receiver: /slow/<n> and /single never answer (until the test ends), /fast answers at once.
    const hanging: ServerResponse[] = [];
    const open = new Map<string, number>();
    const most = new Map<string, number>();
    let slowMost = 0;
    let fast = 0;
    const receiver = createServer((req: IncomingMessage, res: ServerResponse) => {
      req.resume();
      if (req.url === '/fast') {
        fast++;
        res.writeHead(204).end();
        return;
      }
      open.set(req.url!, (open.get(req.url!) ?? 0) + 1);
      most.set(req.url!, Math.max(most.get(req.url!) ?? 0, open.get(req.url!)!));
      const slowOpen = [...open].filter(([path]) => path.startsWith('/slow/')).reduce((sum, [, n]) => sum + n, 0);
      slowMost = Math.max(slowMost, slowOpen);
      hanging.push(res);
      // An attempt the sender gave up on (its timeout) is no longer in flight.
      res.once('close', () => open.set(req.url!, open.get(req.url!)! - 1));
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    try {
      const [slow, single, other] = [await server.account(['read']), await server.account(['read']), await server.account(['read'])];
      const types = ['kill_switch.engaged'];
      for (let n = 0; n < 12; n++) await server.services.webhooks.create(slow.accountId, { url: `${base}/slow/${n}`, eventTypes: types });
      await server.services.webhooks.create(single.accountId, { url: `${base}/single`, eventTypes: types });
      await server.services.webhooks.create(other.accountId, { url: `${base}/fast`, eventTypes: types });
      const events = (accountId: string, count: number) =>
        Array.from({ length: count }, () => ({ accountId, type: 'kill_switch.engaged' as const, at: new Date(), data: { engaged: true } }));
      const db = server.context.store.db;
      await publish(db, [...events(slow.accountId, 5), ...events(single.accountId, 5)]);
      await until('the slow accounts’ attempts in flight', () => hanging.length >= 10);
      await publish(db, events(other.accountId, 1));
      await until('the other account’s delivery', () => fast === 1);
      // 8 of the 60 deliveries due at the slow account's 12 endpoints (its share), 2 of the 5 at the other's one.
      expect([slowMost, most.get('/single')]).to.deep.equal([8, 2]);
    } finally {
      for (const res of hanging) res.destroy();
      receiver.closeAllConnections();
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });
});
