// An account connected to Alpaca (a stand-in speaking Alpaca's published documents), through REST: the portfolio
// and prices come from the broker, an approval places one order with the order's id as client order id, fills and
// partial fills come back by the stream or by polling (once), the kill switch cancels at the broker, an order
// approved while the market is closed rests there until it opens, and a broker that does not answer never gets an
// order twice.
import { expect } from 'chai';
import { BrokerSync } from '../../src/services/brokerage/sync.js';
import type { AlpacaStandIn } from '../support/alpaca-stand-in.js';
import { until } from '../support/poll.js';
import { connectedHolders, SECRET } from '../support/alpaca-suite.js';
import type { TestServer } from '../support/server.js';
import { policyHolder } from '../support/trading.js';

describe('orders on an account connected to Alpaca (a stand-in), over REST', function () {
  this.timeout(30_000);
  const flow = connectedHolders('PKBROKERFLOW');
  const { get, approve, orderOf, posts, atBroker } = flow;
  let alpaca: AlpacaStandIn;
  let server: TestServer;
  let holder: typeof flow.holder;
  beforeEach(() => {
    ({ alpaca, server } = flow.suite);
    holder = flow.holder;
  });

  it("shows the broker's cash, positions and prices in the portfolio, with when they were read", async () => {
    const portfolio = await get('/v1/portfolio?market=US');
    expect(portfolio.status, JSON.stringify(portfolio.body)).to.equal(200);
    expect(portfolio.body.cash).to.equal(20000);
    expect(portfolio.body.holdings.map((h: any) => [h.symbol, h.quantity, h.average_cost, h.last_price])).to.deep.equal([
      ['BND', 10, 72, 74],
    ]);
    const brokers = await get('/v1/brokers');
    expect(brokers.body.data.find((b: any) => b.id === 'alpaca').status).to.equal('active');
  });

  it("places one order per approval, client_order_id the order's id, and books the fill the stream reports", async () => {
    const [order] = await holder.propose({ symbol: 'VTI', side: 'buy', quantity: '3' });
    const approved = await approve(order!.id);
    expect(approved.status, JSON.stringify(approved.body)).to.equal(200);
    expect(['submitted', 'filled']).to.include(approved.body.status);
    expect(approved.body.broker.id).to.equal('alpaca');
    // The answer follows the first try: the broker's id of the order is known, and the step says where it went.
    expect(approved.body.broker.order_id).to.equal(atBroker(order!.id)[0]!.id);
    expect(approved.body.events[1]).to.include({ from: 'proposed', to: 'submitted', reason: 'approved; sent to Alpaca' });
    const filled = await until('the fill', async () => ((await orderOf(order!.id)).status === 'filled' ? orderOf(order!.id) : undefined));
    expect([filled.filled_quantity, filled.average_fill_price, filled.broker.order_id]).to.deep.equal([3, 330, atBroker(order!.id)[0]!.id]);
    expect(posts(order!.id)).to.have.length(1);
    const body = posts(order!.id)[0]!.body as Record<string, unknown>;
    expect([body.symbol, body.qty, body.side, body.type, body.time_in_force]).to.deep.equal(['VTI', '3', 'buy', 'market', 'day']);
    const portfolio = await get('/v1/portfolio?market=US');
    expect(portfolio.body.holdings.find((h: any) => h.symbol === 'VTI').quantity).to.equal(3);
    expect(portfolio.body.cash).to.equal(20000 - 990);
  });

  it('goes partially_filled, then filled, each once, even when the stream repeats itself', async () => {
    alpaca.onSubmit = 'partial';
    alpaca.repeatUpdates = true;
    try {
      const [order] = await holder.propose({ symbol: 'VTI', side: 'buy', quantity: '4' });
      await approve(order!.id);
      await until('the partial fill', async () => (await orderOf(order!.id)).status === 'partially_filled');
      alpaca.setPrice('VTI', '331.00');
      alpaca.fill(order!.id);
      const filled = await until('the fill', async () => ((await orderOf(order!.id)).status === 'filled' ? orderOf(order!.id) : undefined));
      expect(filled.events.map((e: any) => e.to)).to.deep.equal(['proposed', 'submitted', 'partially_filled', 'filled']);
      expect([filled.filled_quantity, filled.average_fill_price]).to.deep.equal([4, 330.5]);
      const fills = await server.context.store.db
        .selectFrom('fills')
        .select(['quantity', 'price'])
        .where('order_id', '=', order!.id)
        .orderBy('id')
        .execute();
      expect(fills.map((f) => [Number(f.quantity), Number(f.price)])).to.deep.equal([
        [2, 330],
        [2, 331],
      ]);
    } finally {
      alpaca.repeatUpdates = false;
    }
  });

  it('applies a fill made while the stream was lost, once, by polling', async () => {
    alpaca.onSubmit = 'rest';
    const [order] = await holder.propose({ symbol: 'VTI', side: 'buy', quantity: '1' });
    await approve(order!.id);
    await until('the broker to hold it', () => atBroker(order!.id).length === 1);
    alpaca.muteStream(true);
    alpaca.fill(order!.id);
    const filled = await until('the poll', async () => ((await orderOf(order!.id)).status === 'filled' ? orderOf(order!.id) : undefined));
    expect(filled.filled_quantity).to.equal(1);
    const fills = await server.context.store.db.selectFrom('fills').select('id').where('order_id', '=', order!.id).execute();
    expect(fills).to.have.length(1);
  });

  it('cancels a resting order at the broker when the kill switch is engaged', async () => {
    alpaca.onSubmit = 'rest';
    const [order] = await holder.propose({ symbol: 'VTI', side: 'buy', quantity: '1' });
    await approve(order!.id);
    await until('the broker to hold it', async () => (await orderOf(order!.id)).broker.order_id);
    const engaged = await server.api.request('POST', '/v1/kill-switch', { token: holder.token, json: { reason: 'stop everything' } });
    expect(engaged.status, JSON.stringify(engaged.body)).to.equal(200);
    const cancelled = await until('the cancellation', async () =>
      (await orderOf(order!.id)).status === 'cancelled' ? orderOf(order!.id) : undefined,
    );
    expect(cancelled.broker.status).to.equal('canceled');
    expect(atBroker(order!.id)[0]!.status).to.equal('canceled');
  });

  it('rests an order approved while the market is closed until it opens', async () => {
    const opens = new Date(Date.now() + 3_600_000);
    alpaca.setClock({ isOpen: false, nextOpen: opens });
    const [order] = await holder.propose({ symbol: 'VTI', side: 'buy', quantity: '1' });
    const approved = await approve(order!.id);
    expect(approved.body.status).to.equal('submitted');
    expect(approved.body.broker.rests_until).to.equal(opens.toISOString());
    alpaca.setClock({ isOpen: true });
    const filled = await until('the open', async () => ((await orderOf(order!.id)).status === 'filled' ? orderOf(order!.id) : undefined));
    expect(filled.broker.rests_until).to.equal(null);
  });

  it('sends once when the answer is slower than BROKER_TIMEOUT_MS; a broker that does not answer the reads decides nothing', async () => {
    alpaca.slow(1_500, 'POST /v2/orders');
    const [slow] = await holder.propose({ symbol: 'VTI', side: 'buy', quantity: '1' });
    const approved = await approve(slow!.id);
    expect(approved.body.status).to.equal('submitted');
    alpaca.slow(0);
    await until('the retry to find it', async () => (await orderOf(slow!.id)).broker.order_id);
    expect(atBroker(slow!.id)).to.have.length(1);

    const [lost] = await holder.propose({ symbol: 'VTI', side: 'buy', quantity: '1' });
    alpaca.down({ mode: '503' });
    // The reads fail too: the approval is refused with 503 and the order stays proposed.
    const refused = await approve(lost!.id);
    expect(refused.status).to.equal(503);
    expect((await orderOf(lost!.id)).status).to.equal('proposed');
  });

  it('ends an order the broker never took rejected when the window closes, and never sends it after', async () => {
    alpaca.down({ mode: '503', only: 'POST /v2/orders' });
    const [order] = await holder.propose({ symbol: 'VTI', side: 'buy', quantity: '1' });
    const approved = await approve(order!.id);
    expect([approved.body.status, approved.body.broker.order_id]).to.deep.equal(['submitted', null]);
    const rejected = await until(
      'the window to close',
      async () => ((await orderOf(order!.id)).status === 'rejected' ? orderOf(order!.id) : undefined),
      {
        attempts: 400,
      },
    );
    expect(rejected.events.at(-1).reason).to.match(/could not be reached .* it was not sent/);
    const tries = posts(order!.id).length;
    expect(tries).to.be.at.least(2);
    alpaca.up();
    await server.services.brokerSync.sweep();
    expect(posts(order!.id)).to.have.length(tries);
    expect(atBroker(order!.id)).to.deep.equal([]);
  });

  it('applies, once, a fill made while the service was down (a crash: its lease never handed back), when it starts', async () => {
    alpaca.onSubmit = 'rest';
    const [order] = await holder.propose({ symbol: 'VTI', side: 'buy', quantity: '2' });
    await approve(order!.id);
    await until('the broker to hold it', async () => (await orderOf(order!.id)).broker.order_id);
    await server.services.brokerSync.stop();
    // The process that held the account's stream died without handing it back.
    await server.context.store.db
      .updateTable('broker_connections')
      .set({ stream_owner: 'sync_crashed', stream_lease_until: new Date(Date.now() + 3_600_000) })
      .execute();
    alpaca.fill(order!.id);
    expect((await orderOf(order!.id)).status).to.equal('submitted');
    const restarted = new BrokerSync(server.context, server.services.brokerConnections);
    restarted.start(60_000, { warn: () => undefined });
    try {
      const filled = await until('the start to reconcile', async () =>
        (await orderOf(order!.id)).status === 'filled' ? orderOf(order!.id) : undefined,
      );
      expect(filled.filled_quantity).to.equal(2);
      await restarted.sweep(true);
      const fills = await server.context.store.db.selectFrom('fills').select('id').where('order_id', '=', order!.id).execute();
      expect(fills).to.have.length(1);
    } finally {
      await restarted.stop();
      await server.context.store.db.updateTable('broker_connections').set({ stream_owner: null, stream_lease_until: null }).execute();
      server.services.brokerSync.start(300, { warn: () => undefined });
    }
  });

  it('generates ideas from the broker: its cash, its positions, its prices', async () => {
    const generated = await server.api.request('POST', '/v1/ideas/generate', {
      token: holder.token,
      json: { mode: 'invest_cash', market: 'US' },
    });
    expect(generated.status, JSON.stringify(generated.body)).to.equal(201);
    const orders = generated.body.ideas[0].orders;
    const vti = orders.find((o: any) => o.symbol === 'VTI');
    expect(vti.notional / vti.quantity).to.be.closeTo(330, 0.01);
    const spent = orders.reduce((sum: number, o: any) => sum + o.notional, 0);
    expect(spent).to.be.at.most(20000).and.above(15000);
  });

  it("values a holding outside the catalogue at the broker's price, and the daily report says how the books compared", async () => {
    alpaca.addAccount({
      keyId: 'PKOUTSIDE',
      secretKey: SECRET,
      cash: '1000',
      positions: [{ symbol: 'TSLA', qty: '2', avgEntryPrice: '250' }],
    });
    alpaca.setPrice('TSLA', '260.00');
    const other = await policyHolder(server);
    await server.services.brokerConnections.connect(other.accountId, {
      broker: 'alpaca',
      keyId: 'PKOUTSIDE',
      secretKey: SECRET,
      live: false,
    });
    const portfolio = await server.api.request('GET', '/v1/portfolio?market=US', { token: other.token });
    expect(portfolio.status, JSON.stringify(portfolio.body)).to.equal(200);
    expect(portfolio.body.holdings.map((h: any) => [h.symbol, h.market_value])).to.deep.equal([['TSLA', 520]]);
    // The books drift (as if a fill were missed), and the next reading says so.
    await server.context.store.db.updateTable('positions').set({ quantity: '3' }).where('account_id', '=', other.accountId).execute();
    await server.services.brokerSync.sweep();
    const today = new Date().toISOString().slice(0, 10);
    const report = await server.api.request('POST', '/v1/reports/daily', { token: other.token, json: { date: today } });
    expect(report.status, JSON.stringify(report.body)).to.be.oneOf([200, 201]);
    expect(report.body.broker.id).to.equal('alpaca');
    const { at, ...drift } = report.body.broker.drift;
    expect(drift).to.deep.equal({ positions: [{ symbol: 'TSLA', books: '3', broker: '2' }] });
    expect(Date.parse(at)).to.be.at.most(Date.parse(report.body.broker.mirror_read_at));
    expect(report.body.broker.mirror_read_at).to.be.a('string');
  });
});
