// An account connected to Alpaca (a stand-in speaking Alpaca's published documents), through REST — decisions on
// what the broker states (the day's loss, buying power), cancelling at the broker or here, disconnecting, keyed
// approvals, one stream per account. The flow itself (fills, outages, restarts) is broker-orders.test.ts.
import { expect } from 'chai';
import { BrokerSync } from '../../src/services/brokerage/sync.js';
import { AlpacaStandIn } from '../support/alpaca-stand-in.js';
import { until } from '../support/poll.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { recordAtBroker } from '../support/broker-steps.js';
import { policyHolder, type PolicyOverrides } from '../support/trading.js';

const KEYS = { keyId: 'PKBROKERFLOW', secretKey: 'broker-flow-secret' };

describe('decisions on an account connected to Alpaca (a stand-in), over REST', function () {
  this.timeout(30_000);
  let alpaca: AlpacaStandIn;
  let server: TestServer;
  let holder: Awaited<ReturnType<typeof policyHolder>>;
  let keyNumber = 0;

  before(async () => {
    alpaca = await AlpacaStandIn.start();
    server = await startTestServer({
      ALPACA_PAPER_URL: alpaca.tradingUrl,
      ALPACA_DATA_URL: alpaca.dataUrl,
      BROKER_TIMEOUT_MS: '1000',
      BROKER_SUBMIT_WINDOW_MS: '2500',
      BROKER_RECONCILE_INTERVAL_MS: '300',
    });
  });

  after(async () => {
    await server?.close();
    expect(alpaca.violations(), 'requests outside the published documents').to.deep.equal([]);
    await alpaca.close();
  });

  beforeEach(async () => {
    alpaca.up();
    alpaca.slow(0);
    alpaca.muteStream(false);
    alpaca.onSubmit = 'fill';
    alpaca.setClock({ isOpen: true });
    alpaca.setPrice('VTI', '330.00');
    alpaca.setPrice('BND', '74.00');
    const keys = { keyId: `${KEYS.keyId}${++keyNumber}`, secretKey: KEYS.secretKey };
    alpaca.addAccount({ ...keys, cash: '20000', positions: [{ symbol: 'BND', qty: '10', avgEntryPrice: '72.00' }] });
    holder = await policyHolder(server);
    await server.services.brokerConnections.connect(holder.accountId, {
      broker: 'alpaca',
      keyId: keys.keyId,
      secretKey: keys.secretKey,
      live: false,
    });
  });

  const get = (path: string) => server.api.request('GET', path, { token: holder.token });
  const approve = (id: string) => server.api.request('POST', `/v1/orders/${id}/approve`, { token: holder.token });
  const orderOf = async (id: string) => (await get(`/v1/orders/${id}`)).body;
  const posts = (id: string) =>
    alpaca.requests.filter((r) => r.method === 'POST' && (r.body as { client_order_id?: string })?.client_order_id === id);
  const atBroker = (id: string) => alpaca.orders().filter((o) => o.client_order_id === id);
  /** The requests that named the order (by its id as client order id). */
  const asked = (id: string) =>
    alpaca.requests.filter((r) => `${r.path}?${r.query.toString()} ${JSON.stringify(r.body ?? '')}`.includes(id));

  /** Another holder, connected to a new account at the broker holding `cash` (and `buyingPower`). */
  async function connectedHolder(spec: { cash: string; buyingPower?: string }, policy: PolicyOverrides = {}) {
    const keyId = `${KEYS.keyId}X${++keyNumber}`;
    alpaca.addAccount({ keyId, secretKey: KEYS.secretKey, ...spec });
    const other = await policyHolder(server, policy);
    await server.services.brokerConnections.connect(other.accountId, { broker: 'alpaca', keyId, secretKey: KEYS.secretKey, live: false });
    return other;
  }

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
    const first = await keyed();
    expect([first.status, first.body.status, first.body.broker.id]).to.deep.equal([200, 'submitted', 'alpaca']);
    await until('the fill', async () => (await orderOf(order!.id)).status === 'filled');
    const replay = await keyed();
    expect(replay.headers.get('idempotent-replayed')).to.equal('true');
    expect(replay.body).to.deep.equal(first.body);
    expect(posts(order!.id)).to.have.length(1);
  });
});
