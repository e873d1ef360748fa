import { expect } from 'chai';
import { Decimal } from 'decimal.js';
import { D, dec, type Dec } from '../../src/services/money.js';
import { testBackend } from '../support/database.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { createPolicy, manualClock, propose, type TradeSpec } from '../support/trading.js';

/** A fill's cash, stated here rather than taken from the code: quantity × price to the cent, exact halves to the even cent. */
const cents = (value: Dec) => new Decimal(value.toString()).toDecimalPlaces(2, Decimal.ROUND_HALF_EVEN).toString();

const LOOSE = { max_order_notional: 1e9, max_position_weight: 1, max_daily_notional: 1e11, max_daily_loss: 1e9 };

describe('orders under concurrency, and money that never drifts', function () {
  let server: TestServer;
  const clock = manualClock('2026-11-20T15:00:00Z');

  before(async function () {
    // Real parallel transactions need PostgreSQL; the embedded database runs one at a time by design.
    if ((await testBackend()) !== 'postgres') this.skip();
    server = await startTestServer({}, { clock });
  });
  after(() => server?.close());

  async function holder(limits: Record<string, number> = LOOSE) {
    const account = await server.account(['read', 'trade']);
    await createPolicy(server, account.token, { limits });
    return account;
  }

  const approve = (token: string, id: string) => server.api.post(`/v1/orders/${id}/approve`, { token });

  it('of many simultaneous approvals of one order exactly one wins; the others get 409', async () => {
    const account = await holder();
    const [order] = await propose(server, account, [{ symbol: 'VTI', side: 'buy', quantity: '3' }]);
    const responses = await Promise.all(Array.from({ length: 12 }, () => approve(account.token, order!.id)));
    expect(responses.filter((r) => r.status === 200)).to.have.length(1);
    expect(responses.filter((r) => r.status === 409)).to.have.length(11);
    const stored = await server.api.get(`/v1/orders/${order!.id}`, { token: account.token });
    expect(stored.body.events.filter((e: any) => e.to === 'filled')).to.have.length(1);
    expect((await server.api.get('/v1/portfolio', { token: account.token })).body.holdings[0].quantity).to.equal(3);
  });

  it('of simultaneous approve, reject and cancel on one order exactly one takes effect', async () => {
    const account = await holder();
    for (let round = 0; round < 5; round++) {
      const [order] = await propose(server, account, [{ symbol: 'BND', side: 'buy', quantity: `${round + 1}.5` }]);
      const triggers = ['approve', 'reject', 'cancel', 'approve', 'cancel', 'reject'];
      const responses = await Promise.all(triggers.map((t) => server.api.post(`/v1/orders/${order!.id}/${t}`, { token: account.token })));
      expect(
        responses.filter((r) => r.status === 200),
        `round ${round}`,
      ).to.have.length(1);
      expect(responses.every((r) => r.status === 200 || r.status === 409)).to.equal(true);
    }
  });

  it('simultaneous approvals of different orders never overdraw cash', async () => {
    const account = await holder();
    // 20 buys of about 12,000 each against 100,000 of cash.
    const trades: TradeSpec[] = Array.from({ length: 20 }, (_, i) => ({
      symbol: 'SPY',
      side: 'buy',
      quantity: `18.${String(i).padStart(2, '0')}`,
    }));
    const orders = await propose(server, account, trades);
    const responses = await Promise.all(orders.map((o) => approve(account.token, o.id)));
    const filled = responses.filter((r) => r.status === 200).map((r) => r.body);
    const blocked = responses.filter((r) => r.status === 422);
    expect(filled.length + blocked.length).to.equal(20);
    expect(filled.length).to.be.within(1, 8);
    for (const response of blocked) expect(response.body.failed_checks.map((f: any) => f.check)).to.include('risk.buying_power');
    const spent = filled.reduce((sum: Dec, o: any) => sum.plus(dec(cents(dec(o.fill_price).times(dec(o.filled_quantity))))), new D(0));
    const cash = (await server.api.get('/v1/portfolio', { token: account.token })).body.cash;
    expect(cash).to.be.at.least(0);
    expect(dec(cash).equals(dec(100000).minus(spent))).to.equal(true);
  });

  it('simultaneous approvals never exceed the policy’s daily notional together', async () => {
    const account = await holder({ ...LOOSE, max_daily_notional: 20_000 });
    const trades: TradeSpec[] = Array.from({ length: 10 }, (_, i) => ({ symbol: 'VTI', side: 'buy', quantity: `12.${i}1` }));
    const orders = await propose(server, account, trades);
    const responses = await Promise.all(orders.map((o) => approve(account.token, o.id)));
    const traded = responses
      .filter((r) => r.status === 200)
      .reduce((sum: Dec, r) => sum.plus(dec(cents(dec(r.body.fill_price).times(dec(r.body.filled_quantity))))), new D(0));
    expect(traded.lessThanOrEqualTo(20_000)).to.equal(true);
    expect(responses.filter((r) => r.status === 422).length).to.be.greaterThan(0);
  });

  it('thousands of fills reconcile exactly: cash, positions and the sum of fills', async function () {
    this.timeout(180_000);
    const symbols = ['VTI', 'BND', 'QQQ', 'GLD', 'AAPL'];
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const accounts = await Promise.all([0, 1, 2, 3].map(() => holder()));
    const perAccount = 500;
    await Promise.all(
      accounts.map(async (account, a) => {
        const trades: TradeSpec[] = Array.from({ length: perAccount }, (_, i) => ({
          symbol: symbols[Math.floor(random() * symbols.length)]!,
          side: i % 4 === 3 ? 'sell' : 'buy',
          // Distinct fractional quantities, so no two orders look like duplicates.
          quantity: (0.01 + random() * 0.5 + (a * perAccount + i) * 1e-6).toFixed(6),
        }));
        const orders = await propose(server, account, trades);
        for (let i = 0; i < orders.length; i += 4) {
          await Promise.all(orders.slice(i, i + 4).map((o) => approve(account.token, o.id)));
        }
      }),
    );
    let fills = 0;
    for (const account of accounts) {
      const cash = new Map<string, Dec>([['cash', dec(100000)]]);
      const held = new Map<string, Dec>();
      let cursor: string | null = null;
      do {
        const page: any = (
          await server.api.get(`/v1/orders?status=filled&limit=100${cursor ? `&cursor=${cursor}` : ''}`, { token: account.token })
        ).body;
        for (const order of page.data) {
          const quantity = dec(order.filled_quantity);
          const notional = dec(cents(quantity.times(dec(order.fill_price))));
          const sign = order.side === 'buy' ? 1 : -1;
          cash.set('cash', cash.get('cash')!.minus(notional.times(sign)));
          held.set(order.symbol, (held.get(order.symbol) ?? new D(0)).plus(quantity.times(sign)));
          fills++;
        }
        cursor = page.next_cursor;
      } while (cursor);
      const portfolio = (await server.api.get('/v1/portfolio', { token: account.token })).body;
      expect(dec(portfolio.cash).equals(cash.get('cash')!), `cash ${portfolio.cash} vs ${cash.get('cash')?.toString()}`).to.equal(true);
      const expectedHoldings = [...held]
        .filter(([, q]) => !q.isZero())
        .map(([symbol, q]) => [symbol, q.toNumber()])
        .sort();
      const actualHoldings = portfolio.holdings.map((h: any) => [h.symbol, h.quantity]).sort();
      expect(actualHoldings).to.deep.equal(expectedHoldings);
    }
    expect(fills).to.be.greaterThan(1500);
  });
});
