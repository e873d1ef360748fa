// The Alpaca adapter (src/brokers/alpaca.ts) against the stand-in: every request it sends valid against Alpaca's
// published documents, each failure in the port's terms, and a submit that never places two orders for one id.
import { expect } from 'chai';
import { AlpacaBroker } from '../../src/brokers/alpaca.js';
import { BrokerError, type OrderUpdate } from '../../src/brokers/port.js';
import { AlpacaStandIn } from '../support/alpaca-stand-in.js';
import { until } from '../support/poll.js';

const KEYS = { keyId: 'PKADAPTER1', secretKey: 'adapter-secret' };
const order = (clientOrderId: string, quantity = '2') =>
  ({ clientOrderId, symbol: 'AAPL', side: 'buy', quantity, type: 'market', timeInForce: 'day' }) as const;
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.fail('the call succeeded'),
    (error: unknown) => error as BrokerError,
  );

describe("the Alpaca adapter, against a stand-in speaking Alpaca's published documents", () => {
  let alpaca: AlpacaStandIn;
  let broker: AlpacaBroker;
  const adapter = (keys = KEYS, timeoutMs = 1_000) =>
    new AlpacaBroker({
      tradingUrl: alpaca.tradingUrl,
      dataUrl: alpaca.dataUrl,
      streamUrl: alpaca.streamUrl,
      timeoutMs,
      maxReconnectMs: 200,
      ...keys,
    });

  beforeEach(async () => {
    alpaca = await AlpacaStandIn.start();
    alpaca.addAccount({ ...KEYS, cash: '50000', positions: [{ symbol: 'VTI', qty: '10', avgEntryPrice: '300' }] });
    alpaca.setPrice('AAPL', '190.12', new Date('2026-11-27T20:59:00Z'));
    alpaca.setPrice('VTI', '331.5');
    broker = adapter();
  });

  afterEach(async () => {
    expect(alpaca.violations(), 'requests outside the published documents').to.deep.equal([]);
    expect(alpaca.answerViolations(), "the stand-in's answers outside the documents").to.deep.equal([]);
    await alpaca.close();
  });

  it('reads the account, positions, latest prices and the clock as the broker states them, with the keys on every call', async () => {
    const account = await broker.account();
    expect(account.cash.toFixed(2)).to.equal('50000.00');
    expect(account.currency).to.equal('USD');
    const positions = await broker.positions();
    expect(positions.map((p) => [p.symbol, p.quantity.toFixed(), p.averageCost.toFixed(2), p.lastPrice?.toFixed(2)])).to.deep.equal([
      ['VTI', '10', '300.00', '331.50'],
    ]);
    const prices = await broker.latestPrices(['AAPL', 'NOPE']);
    expect([...prices.keys()]).to.deep.equal(['AAPL']);
    expect(prices.get('AAPL')!.price.toFixed(2)).to.equal('190.12');
    expect(prices.get('AAPL')!.asOf.toISOString()).to.equal('2026-11-27T20:59:00.000Z');
    alpaca.setClock({ isOpen: false, nextOpen: new Date('2026-11-30T14:30:00Z') });
    const clock = await broker.clock();
    expect([clock.isOpen, clock.nextOpen.toISOString()]).to.deep.equal([false, '2026-11-30T14:30:00.000Z']);
    const hosts = alpaca.requests.map((r) => `${r.host} ${r.method} ${r.path}`);
    expect(hosts).to.include.members([
      'trading GET /v2/account',
      'trading GET /v2/positions',
      'data GET /v2/stocks/trades/latest',
      'trading GET /v2/clock',
    ]);
    for (const request of alpaca.requests) {
      expect([request.headers['apca-api-key-id'], request.headers['apca-api-secret-key']]).to.deep.equal([KEYS.keyId, KEYS.secretKey]);
    }
  });

  it('refuses wrong keys as unauthorized, an outage and a slow answer as unavailable', async () => {
    expect((await failure(adapter({ ...KEYS, secretKey: 'wrong' }).account())).kind).to.equal('unauthorized');
    alpaca.down({ mode: '503' });
    expect((await failure(broker.account())).kind).to.equal('unavailable');
    alpaca.up();
    alpaca.slow(1_500);
    expect((await failure(broker.clock())).kind).to.equal('unavailable');
  });

  it('retries reads through a 3 s outage within the default deadline (5 s), whether refused or answered 503', async () => {
    alpaca.down({ ms: 3_000, mode: '503' });
    const account = await adapter(KEYS, 5_000).account();
    expect(account.cash.toFixed(2)).to.equal('50000.00');
    alpaca.down({ ms: 600, mode: 'reset' });
    expect((await adapter(KEYS, 5_000).positions()).map((p) => p.symbol)).to.deep.equal(['VTI']);
  });

  it('submits once per client order id: a retry after a timeout finds the order the first try placed', async () => {
    alpaca.slow(1_500);
    expect((await failure(broker.submit(order('ord_adapter_1')))).kind).to.equal('unavailable');
    alpaca.slow(0);
    const again = await broker.submit(order('ord_adapter_1'));
    expect(again.clientOrderId).to.equal('ord_adapter_1');
    expect(alpaca.orders(KEYS.keyId).filter((o) => o.client_order_id === 'ord_adapter_1')).to.have.length(1);
    const posts = alpaca.requests.filter((r) => r.method === 'POST' && r.path === '/v2/orders');
    expect(posts).to.have.length(2);
    expect(posts[1]!.status).to.equal(422);
    expect((posts[0]!.body as Record<string, unknown>).client_order_id).to.equal('ord_adapter_1');
    expect((posts[0]!.body as Record<string, unknown>).qty).to.equal('2');
  });

  it('answers a refusal as refused and an unknown order as undefined; cancels by client order id', async () => {
    const refused = await failure(broker.submit(order('ord_adapter_2', '100000')));
    expect([refused.kind, refused.status]).to.deep.equal(['refused', 403]);
    expect(await broker.orderByClientId('ord_nobody')).to.equal(undefined);
    alpaca.onSubmit = 'rest';
    await broker.submit(order('ord_adapter_3'));
    expect((await broker.openOrders()).map((o) => o.clientOrderId)).to.deep.equal(['ord_adapter_3']);
    await broker.cancel('ord_adapter_3');
    expect((await broker.orderByClientId('ord_adapter_3'))!.status).to.equal('canceled');
  });

  it('streams trade updates (binary frames), reconnects after a drop and says when it listens again', async () => {
    const updates: OrderUpdate[] = [];
    let listening = 0;
    const stream = broker.updates({ update: (u) => updates.push(u), listening: () => listening++, dropped: () => undefined });
    try {
      await until('the stream to listen', () => listening === 1);
      alpaca.onSubmit = 'partial';
      await broker.submit(order('ord_adapter_4'));
      await until('the partial fill', () => updates.some((u) => u.event === 'partial_fill'));
      const partial = updates.find((u) => u.event === 'partial_fill')!;
      expect([partial.order.status, partial.order.filledQuantity.toFixed(), partial.execution?.quantity.toFixed()]).to.deep.equal([
        'partially_filled',
        '1',
        '1',
      ]);
      alpaca.dropStream();
      await until('the stream to listen again', () => listening === 2);
      alpaca.fill('ord_adapter_4');
      await until('the fill', () => updates.some((u) => u.event === 'fill'));
      const fill = updates.find((u) => u.event === 'fill')!;
      expect([fill.order.status, fill.order.filledQuantity.toFixed(), fill.order.averageFillPrice?.toFixed(2)]).to.deep.equal([
        'filled',
        '2',
        '190.12',
      ]);
    } finally {
      stream.close();
    }
  });
});
