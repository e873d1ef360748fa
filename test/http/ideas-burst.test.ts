// A burst of one account's idea generations waits for the account's paper-account lock in the service's memory, one
// at a time (src/services/account-turns.ts), not in PostgreSQL with a connection each: another account's read answers
// meanwhile. Waiting in PostgreSQL, the burst held every connection of the pool and the read waited for one behind
// the rest of the burst (it answered after 35–45 more generations; the quota is raised here to let a burst larger
// than the tests' pool of 20 through, as the default of 30 does against the service's pool of 10).
import { expect } from 'chai';
import { until } from '../support/poll.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { policyHolder } from '../support/trading.js';

const BURST = 60;

describe('a burst of one account’s idea generations', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ ACCOUNT_IDEAS_PER_MINUTE: String(BURST) });
  });
  after(() => server.close());

  it('leaves the connections to other accounts: another account’s portfolio read answers while the burst waits', async () => {
    const holder = await policyHolder(server);
    const reader = await server.token(['read']);
    let generated = 0;
    const burst = Array.from({ length: BURST }, () =>
      server.api.post('/v1/ideas/generate', { token: holder.token, json: { mode: 'invest_cash', market: 'US' } }).then((answer) => {
        generated++;
        return answer.status;
      }),
    );
    // A few generations done, the rest of the burst is in the service, waiting for the lock.
    await until('the first generations', () => generated >= 5, { intervalMs: 1 });
    const before = generated;
    const read = await server.api.get('/v1/portfolio', { token: reader });
    const meanwhile = generated - before;
    expect(read.status).to.equal(200);
    expect(await Promise.all(burst)).to.deep.equal(Array(BURST).fill(201));
    expect(meanwhile, 'generations answered while the read waited').to.be.below(10);
  });
});
