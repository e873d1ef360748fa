// An account connected to Alpaca (a stand-in speaking Alpaca's published documents), through REST — decisions on
// what the broker states (the day's loss, buying power), cancelling at the broker or here, disconnecting, keyed
// approvals, one stream per account. The flow itself (fills, outages, restarts) is broker-orders.test.ts.
import { expect } from 'chai';
import { BrokerSync } from '../../src/services/brokerage/sync.js';
import type { AlpacaStandIn } from '../support/alpaca-stand-in.js';
import { until } from '../support/poll.js';
import { connectedHolders, OPENING } from '../support/alpaca-suite.js';
import type { TestServer } from '../support/server.js';
import { recordAtBroker } from '../support/broker-steps.js';
import { TEST_POOL_SIZE } from '../support/database.js';

describe('decisions on an account connected to Alpaca (a stand-in), over REST', function () {
  this.timeout(30_000);
  const flow = connectedHolders('PKBROKERDECIDE');
  const { get, approve, orderOf, posts, atBroker, asked, connectedHolder } = flow;
  let alpaca: AlpacaStandIn;
  let server: TestServer;
  let holder: typeof flow.holder;
  beforeEach(() => {
    ({ alpaca, server } = flow.suite);
    holder = flow.holder;
  });

  it("measures the day's loss from the broker's equity at the last close", async () => {
    const other = await connectedHolder({ cash: '20000' }, { limits: { max_daily_loss: 500 } });
    // The account opened with 20 000.00 and no position: its last equity. 5 VTI bought at 330.00, now at 200.00: 650.00 lost.
    alpaca.setPrice('VTI', '330.00');
    const [first, second] = await other.propose(
      { symbol: 'VTI', side: 'buy', quantity: '5' },
      { symbol: 'VTI', side: 'buy', quantity: '1' },
    );
    const bought = await server.api.request('POST', `/v1/orders/${first!.id}/approve`, { token: other.token });
    expect(bought.status, JSON.stringify(bought.body)).to.equal(200);
    await until('the fill', async () => alpaca.orders().find((o) => o.client_order_id === first!.id)?.status === 'filled');
    alpaca.setPrice('VTI', '200.00');
    const refused = await server.api.request('POST', `/v1/orders/${second!.id}/approve`, { token: other.token });
    expect(refused.status, JSON.stringify(refused.body)).to.equal(409);
    expect(refused.body.kill_switch).to.include({
      level: 'account',
      reason: "Daily loss 650.00 reached the policy's limit of 500.00.",
    });
    expect(posts(second!.id)).to.deep.equal([]);
  });

  it("counts the night's fall of what was held from the broker's equity at the last close, which no fill of the day shows", async () => {
    // At the last close: 20 000.00 and 10 BND at 74.00, 20 740.00. BND is at 20.00 now: 540.00 lost, not by a trade.
    const other = await connectedHolder(OPENING, { limits: { max_daily_loss: 500 } });
    alpaca.setPrice('BND', '20.00');
    const [order] = await other.propose({ symbol: 'VTI', side: 'buy', quantity: '1' });
    const refused = await server.api.request('POST', `/v1/orders/${order!.id}/approve`, { token: other.token });
    expect(refused.status, JSON.stringify(refused.body)).to.equal(409);
    expect(refused.body.kill_switch.reason).to.equal("Daily loss 540.00 reached the policy's limit of 500.00.");
    expect(posts(order!.id)).to.deep.equal([]);
  });

  it("refuses a buy beyond the broker's buying power, whatever the cash", async () => {
    const other = await connectedHolder({ cash: '20000', buyingPower: '500' });
    const [order] = await other.propose({ symbol: 'VTI', side: 'buy', quantity: '3' });
    const refused = await server.api.request('POST', `/v1/orders/${order!.id}/approve`, { token: other.token });
    expect(refused.status, JSON.stringify(refused.body)).to.equal(422);
    expect(refused.body.failed_checks).to.deep.equal([
      { check: 'risk.buying_power', message: 'Buying needs up to 990.00 but the broker states 500.00 of buying power.' },
    ]);
    expect(posts(order!.id)).to.deep.equal([]);
  });

  it('answers 404 for an order that is not the account’s, asking the broker nothing of it', async () => {
    for (const trigger of ['approve', 'cancel']) {
      const missing = await server.api.request('POST', `/v1/orders/ord_nobody/${trigger}`, { token: holder.token });
      expect([missing.status, missing.body.detail], trigger).to.deep.equal([404, 'There is no order ord_nobody.']);
    }
    expect(asked('ord_nobody')).to.deep.equal([]);
  });

  it('cancels an order the broker holds at the broker, and one it does not hold (never or not yet sent) here', async () => {
    alpaca.onSubmit = 'rest';
    const cancel = (id: string) => server.api.request('POST', `/v1/orders/${id}/cancel`, { token: holder.token });
    const deletes = (brokerId: string) => alpaca.requests.filter((r) => r.method === 'DELETE' && r.path === `/v2/orders/${brokerId}`);

    const [resting, proposed, paper, unsent] = await holder.propose(
      { symbol: 'VTI', side: 'buy', quantity: '1' },
      { symbol: 'VTI', side: 'buy', quantity: '2' },
      { symbol: 'VTI', side: 'buy', quantity: '3' },
      { symbol: 'VTI', side: 'buy', quantity: '4' },
    );
    await approve(resting!.id);
    await until('the broker to hold it', async () => (await orderOf(resting!.id)).broker.order_id);
    const atTheBroker = await cancel(resting!.id);
    expect(atTheBroker.status, JSON.stringify(atTheBroker.body)).to.equal(200);
    expect([atTheBroker.body.status, atTheBroker.body.broker.status]).to.deep.equal(['cancelled', 'canceled']);
    expect(atBroker(resting!.id)[0]!.status).to.equal('canceled');
    expect(deletes(atTheBroker.body.broker.order_id)).to.have.length(1);

    expect((await cancel(proposed!.id)).body.status).to.equal('cancelled');
    // Sent to the paper broker before the account was connected: the paper broker cancels it.
    await recordAtBroker(server, paper!.id, [
      { to: 'submitted', reason: 'approved', fields: { broker_id: 'paper', broker_status: 'accepted', broker_submitted_at: new Date() } },
    ]);
    expect((await cancel(paper!.id)).body).to.deep.include({ status: 'cancelled' });
    expect(asked(proposed!.id).concat(asked(paper!.id))).to.deep.equal([]);

    alpaca.down({ mode: '503', only: 'POST /v2/orders' });
    expect((await approve(unsent!.id)).body.broker.order_id).to.equal(null);
    expect((await cancel(unsent!.id)).body.status).to.equal('cancelled');
    const tries = posts(unsent!.id).length;
    alpaca.up();
    await server.services.brokerSync.sweep();
    expect([posts(unsent!.id).length, atBroker(unsent!.id)]).to.deep.equal([tries, []]);
  });

  it('previews on what the broker states, sending and mirroring nothing; an approval bound to the preview is sent', async () => {
    const other = await connectedHolder({ ...OPENING, cash: '5000', buyingPower: '2000' });
    const [order] = await other.propose({ symbol: 'VTI', side: 'buy', quantity: '3' });
    const db = server.context.store.db;
    const books = () => db.selectFrom('positions').selectAll().where('account_id', '=', other.accountId).execute();
    const before = { books: await books(), requests: alpaca.requests.length };
    const preview = await server.api.request('POST', `/v1/orders/${order!.id}/preview`, { token: other.token });
    expect(preview.status, JSON.stringify(preview.body)).to.equal(200);
    // 3 × 330.00 = 990.00 of 5 000.00 + 10 BND × 74.00 = 5 740.00: a weight of 0.172474.
    expect(preview.body).to.deep.include({
      price: 330,
      notional: 990,
      cash: 5000,
      cash_after: 4010,
      weight_after: 0.172474,
      decision: 'approve',
    });
    expect(preview.body.checks.find((c: any) => c.check === 'risk.buying_power').message).to.equal(
      'Buying needs up to 990.00 and the broker states 2000.00 of buying power.',
    );
    expect(alpaca.requests.slice(before.requests).filter((r) => r.method !== 'GET')).to.deep.equal([]);
    expect(await books()).to.deep.equal(before.books);
    const missing = await server.api.request('POST', '/v1/orders/ord_missing/preview', { token: other.token });
    expect([missing.status, missing.body.detail]).to.deep.equal([404, 'There is no order ord_missing.']);
    const approved = await server.api.request('POST', `/v1/orders/${order!.id}/approve`, {
      token: other.token,
      json: { preview_id: preview.body.id },
    });
    expect([approved.status, approved.body.broker.id, approved.body.preview_id]).to.deep.equal([200, 'alpaca', preview.body.id]);
    expect(posts(order!.id)).to.have.length(1);
  });

  it('answers 503 when the broker does not answer a cancellation; the order stays as it was', async () => {
    alpaca.onSubmit = 'rest';
    const [order] = await holder.propose({ symbol: 'VTI', side: 'buy', quantity: '1' });
    await approve(order!.id);
    const brokerId = await until('the broker to hold it', async () => (await orderOf(order!.id)).broker.order_id as string | null);
    alpaca.down({ mode: '503', only: `DELETE /v2/orders/${brokerId}` });
    const refused = await server.api.request('POST', `/v1/orders/${order!.id}/cancel`, { token: holder.token });
    expect(refused.status, JSON.stringify(refused.body)).to.equal(503);
    expect((await orderOf(order!.id)).status).to.equal('submitted');
    expect(atBroker(order!.id)[0]!.status).to.not.equal('canceled');
  });

  it('streams each account from one instance at a time, and another takes over when it stops', async () => {
    const other = new BrokerSync(server.context, server.services.brokerConnections);
    await server.services.brokerSync.sweep();
    const streams = alpaca.streamListeners;
    await other.sweep();
    expect(alpaca.streamListeners, 'a second instance opens no stream of its own').to.equal(streams);
    await server.services.brokerSync.stop();
    await until('the streams to close', () => alpaca.streamListeners === 0);
    await other.sweep();
    await until('the other instance to stream them', () => alpaca.streamListeners === streams);
    await other.stop();
    server.services.brokerSync.start(300, { warn: () => undefined });
  });

  it('refuses to disconnect while orders are open at the broker, and disconnects once they are not', async () => {
    alpaca.onSubmit = 'rest';
    const [order] = await holder.propose({ symbol: 'VTI', side: 'buy', quantity: '1' });
    await approve(order!.id);
    const refused = await server.services.brokerConnections.disconnect(holder.accountId).then(
      () => expect.fail('disconnected with an order open at the broker'),
      (error: { slug: string; extensions: { order_ids: string[] } }) => error,
    );
    expect([refused.slug, refused.extensions.order_ids]).to.deep.equal(['broker-orders-open', [order!.id]]);
    const cancelled = await server.api.request('POST', `/v1/orders/${order!.id}/cancel`, { token: holder.token });
    expect(cancelled.body.status, JSON.stringify(cancelled.body)).to.equal('cancelled');
    expect((await server.services.brokerConnections.disconnect(holder.accountId))?.broker).to.equal('alpaca');
    expect((await get('/v1/brokers')).body.data.find((b: any) => b.id === 'alpaca').status).to.equal('not_configured');
  });

  it('sends a keyed approval once its decision has committed, and a replay of the key sends nothing', async () => {
    const [order] = await holder.propose({ symbol: 'VTI', side: 'buy', quantity: '1' });
    const keyed = () =>
      server.api.request('POST', `/v1/orders/${order!.id}/approve`, {
        token: holder.token,
        headers: { 'Idempotency-Key': `approve-${order!.id}` },
      });
    // The sync is told of the account once the decision committed, the order not sent yet: it sends it.
    const connections = server.services.brokerConnections;
    const watching = connections.onTouched;
    const touched: [string, number][] = [];
    connections.onTouched = (accountId) => {
      touched.push([accountId, posts(order!.id).length]);
      watching(accountId);
    };
    const first = await keyed().finally(() => (connections.onTouched = watching));
    expect([first.status, first.body.status, first.body.broker.id]).to.deep.equal([200, 'submitted', 'alpaca']);
    expect(touched).to.deep.equal([[holder.accountId, 0]]);
    expect(first.body.events.map((e: any) => [e.from, e.to, e.client_id, e.reason])).to.deep.equal([
      [null, 'proposed', holder.clientId, 'proposed by an idea'],
      ['proposed', 'submitted', holder.clientId, 'approved; sent to Alpaca'],
    ]);
    await until('the fill', async () => (await orderOf(order!.id)).status === 'filled');
    const replay = await keyed();
    expect(replay.headers.get('idempotent-replayed')).to.equal('true');
    expect(replay.body).to.deep.equal(first.body);
    expect(posts(order!.id)).to.have.length(1);
  });

  it('reads the broker before a keyed approval’s transaction: slow broker answers hold no connection of the pool', async () => {
    const [order] = await holder.propose({ symbol: 'VTI', side: 'buy', quantity: '1' });
    const reader = await server.token(['read']);
    // The broker holds its account answers; as many keyed approvals as the pool has connections wait on them.
    alpaca.slow(900, 'GET /v2/account');
    const asked = () => alpaca.requests.filter((r) => r.method === 'GET' && r.path === '/v2/account');
    const before = asked().length;
    const approvals = Array.from({ length: TEST_POOL_SIZE }, (_, n) =>
      server.api.request('POST', `/v1/orders/${order!.id}/approve`, { token: holder.token, headers: { 'Idempotency-Key': `pool-${n}` } }),
    );
    try {
      await until('every approval waiting on the broker', () => asked().length >= before + TEST_POOL_SIZE);
      // Another account is served meanwhile: before the fix each approval held its transaction's connection here.
      const read = await server.api.request('GET', '/v1/portfolio', { token: reader });
      expect(read.status).to.equal(200);
      expect(
        asked()
          .slice(before)
          .filter((r) => r.status !== undefined),
      ).to.deep.equal([]);
    } finally {
      await Promise.all(approvals);
      alpaca.slow(0);
    }
    // At most one approval decided it; the others found it decided, or gave up on the broker (so many requests at once).
    const statuses = (await Promise.all(approvals)).map((a) => a.status);
    expect(statuses.filter((status) => status === 200)).to.have.length.below(2);
    expect(statuses.filter((status) => ![200, 409, 503].includes(status))).to.deep.equal([]);
  });
});
