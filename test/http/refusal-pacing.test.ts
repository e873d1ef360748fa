import { expect } from 'chai';
import { RefusalPacing } from '../../src/http/refusal-pacing.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('refusals at a pace', () => {
  it('answers an address its burst at once, then one refusal per interval, each address on its own, bounded', () => {
    const pacing = new RefusalPacing(10, 2, 250, 3);
    const delays = (address: string, count: number, now: number) => Array.from({ length: count }, () => pacing.delay(address, now));
    expect(delays('a', 5, 1000)).to.deep.equal([0, 0, 100, 200, 250]);
    // Another address has its own burst.
    expect(delays('b', 3, 1000)).to.deep.equal([0, 0, 100]);
    // Sending without pause never pushes the turn past the longest hold.
    expect(delays('a', 3, 1000)).to.deep.equal([250, 250, 250]);
    // Its turn comes: once the held ones are past, the address is answered at once again.
    expect(pacing.delay('a', 2000)).to.equal(0);
    expect(pacing.delay('b', 1100)).to.equal(100);
  });

  it('holds no more than its maximum at once (past it, answers at once) and forgets addresses past their turn', async () => {
    const pacing = new RefusalPacing(1, 1, 50, 2, 2);
    const answered: string[] = [];
    for (const name of ['x1', 'x2', 'x3', 'x4']) pacing.answer('x', () => answered.push(name));
    // The burst (x1) and the third past the two held (x4) went at once.
    expect(answered).to.deep.equal(['x1', 'x4']);
    expect(pacing.holding).to.equal(2);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(answered.sort()).to.deep.equal(['x1', 'x2', 'x3', 'x4']);
    expect(pacing.holding).to.equal(0);
    // Two addresses remembered at most: a new one makes room by forgetting those whose turn has come, or all.
    const bounded = new RefusalPacing(1, 1, 5000, 10, 2);
    expect([bounded.delay('p', 0), bounded.delay('p', 0), bounded.delay('q', 0)]).to.deep.equal([0, 1000, 0]);
    expect(bounded.delay('r', 1500)).to.equal(0); // q (its turn at 1000) forgotten, p kept
    expect(bounded.delay('p', 1500)).to.equal(500);
    expect(bounded.delay('s', 1500)).to.equal(0); // p and r both still waiting: all forgotten
    expect(bounded.delay('p', 1500)).to.equal(0);
  });

  describe('over HTTP', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ RATE_LIMIT_PER_MINUTE: '1', REFUSAL_PACE_PER_SECOND: '1', TRUST_PROXY: '1' });
    });
    after(() => server.close());

    it("holds an address's refusals past its burst while other clients are answered, then answers them as refused", async () => {
      const token = await server.token(['read']);
      const from = (address: string) => ({ token, headers: { 'x-forwarded-for': address } });
      expect((await server.api.get('/v1/brokers', from('203.0.113.40'))).status).to.equal(200);
      // The first refusal at once (the burst), the next held for its turn (a second).
      expect((await server.api.get('/v1/brokers', from('203.0.113.40'))).status).to.equal(429);
      const order: string[] = [];
      const held = server.api.get('/v1/brokers', from('203.0.113.40')).then((response) => {
        order.push('held');
        return response;
      });
      // Another client, sent after it and doing more work (a database read), is answered first.
      const other = await server.api.get('/v1/portfolio?market=US', from('203.0.113.41'));
      order.push('other');
      expect(other.status).to.equal(200);
      const refused = await held;
      expect(order).to.deep.equal(['other', 'held']);
      expect(refused.status).to.equal(429);
      expect(refused.body['violated-policies']).to.deep.equal(['route']);
      expect(refused.headers.get('retry-after')).to.match(/^[1-9]\d*$/);
    });
  });
});
