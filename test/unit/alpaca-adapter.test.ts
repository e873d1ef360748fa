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

  it('names the call that failed, and a refused key finds no order rather than answering that there is none', async () => {
    const refused = adapter({ ...KEYS, secretKey: 'wrong' });
    const calls: [string, () => Promise<unknown>][] = [
      ['the account', () => refused.account()],
      ['the positions', () => refused.positions()],
      ['the latest trades', () => refused.latestPrices(['AAPL'])],
      ['the market clock', () => refused.clock()],
      ['the order', () => refused.submit(order('ord_adapter_keys'))],
      ['order', () => refused.orderByClientId('ord_adapter_keys')],
      ['order', () => refused.cancel('ord_adapter_keys')],
      ['the open orders', () => refused.openOrders()],
    ];
    for (const [what, call] of calls) {
      const error = await failure(call());
      expect([error.kind, error.message], what).to.deep.equal([
        'unauthorized',
        `Alpaca refused the API keys (${what}, HTTP 401: request is not authorized).`,
      ]);
    }
    alpaca.onSubmit = 'rest';
    const placed = await broker.submit(order('ord_adapter_6'));
    alpaca.down({ mode: '503', only: `DELETE /v2/orders/${placed.brokerOrderId}` });
    const cancelling = await failure(broker.cancel('ord_adapter_6'));
    expect([cancelling.kind, cancelling.message]).to.deep.equal(['unavailable', 'Alpaca did not answer (the cancellation, HTTP 503).']);
    const missing = await failure(broker.cancel('ord_nobody'));
    expect([missing.kind, missing.message, missing.status]).to.deep.equal(['not_found', 'Alpaca has no order ord_nobody.', 404]);
  });

  it('bounds a read by its deadline, its retries included', async () => {
    alpaca.down({ mode: '503' });
    const late = await failure(broker.account());
    expect([late.kind, late.message]).to.deep.equal(['unavailable', 'Alpaca did not answer in time (the account).']);
    // Up to four retries are allowed; the deadline of 1 s ends the call before they are spent (250, 500, 1000 ms apart).
    expect(alpaca.requests.filter((r) => r.path === '/v2/account').length).to.be.below(5);
  });

  it('reads the start-of-day equity and whether trading is blocked; asks nothing of no symbols', async () => {
    const account = await broker.account();
    // 50 000 in cash and 10 VTI at their cost of 300 when the account opened: its equity at the last close.
    expect([account.equityAtDayStart?.toFixed(2), account.buyingPower.toFixed(2), account.tradingBlocked]).to.deep.equal([
      '53000.00',
      '50000.00',
      false,
    ]);
    alpaca.addAccount({ keyId: 'PKBLOCKED', secretKey: 'blocked-secret', cash: '10', tradingBlocked: true });
    expect((await adapter({ keyId: 'PKBLOCKED', secretKey: 'blocked-secret' }).account()).tradingBlocked).to.equal(true);
    expect((await broker.latestPrices([])).size).to.equal(0);
    expect(alpaca.requests.filter((r) => r.host === 'data')).to.deep.equal([]);
  });

  it('takes its hosts with or without trailing slashes', async () => {
    const slashed = new AlpacaBroker({
      tradingUrl: `${alpaca.tradingUrl}//`,
      dataUrl: `${alpaca.dataUrl}//`,
      streamUrl: alpaca.streamUrl,
      timeoutMs: 1_000,
      ...KEYS,
    });
    expect((await slashed.account()).cash.toFixed(2)).to.equal('50000.00');
    expect((await slashed.latestPrices(['AAPL'])).get('AAPL')?.price.toFixed(2)).to.equal('190.12');
    expect(alpaca.requests.map((r) => `${r.host} ${r.path}`)).to.deep.equal(['trading /v2/account', 'data /v2/stocks/trades/latest']);
  });

  it('sends a limit price with a limit order only, and lists the open orders oldest first', async () => {
    alpaca.onSubmit = 'rest';
    await broker.submit({ ...order('ord_adapter_7'), type: 'limit', limitPrice: '180.5' });
    await broker.submit({ ...order('ord_adapter_8'), limitPrice: '180.5' });
    await broker.submit(order('ord_adapter_9'));
    const bodies = alpaca.requests.filter((r) => r.method === 'POST').map((r) => r.body as Record<string, unknown>);
    expect(bodies.map((b) => [b.client_order_id, b.type, b.limit_price])).to.deep.equal([
      ['ord_adapter_7', 'limit', '180.5'],
      ['ord_adapter_8', 'market', undefined],
      ['ord_adapter_9', 'market', undefined],
    ]);
    expect((await broker.openOrders()).map((o) => o.clientOrderId)).to.deep.equal(['ord_adapter_7', 'ord_adapter_8', 'ord_adapter_9']);
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

  it('keeps reconnecting while the broker refuses the stream, and says why it dropped', async () => {
    const dropped: string[] = [];
    let listening = 0;
    const stream = broker.updates({ update: () => undefined, listening: () => listening++, dropped: (reason) => dropped.push(reason) });
    try {
      await until('the stream to listen', () => listening === 1);
      // Down for longer than the first attempts to reconnect (every 200 ms here): each fails, the next one is made.
      alpaca.down({ ms: 1_000 });
      alpaca.dropStream();
      await until('the stream to listen again', () => listening === 2, { attempts: 400 });
      expect(dropped[0]).to.equal('the trade-updates stream closed');
      expect(dropped.length).to.be.at.least(2);
    } finally {
      stream.close();
    }
  });

  it('says that the stream refused the keys, and never listens with them', async () => {
    const dropped: string[] = [];
    let listening = 0;
    const refused = adapter({ ...KEYS, secretKey: 'wrong' });
    const stream = refused.updates({ update: () => undefined, listening: () => listening++, dropped: (reason) => dropped.push(reason) });
    try {
      await until('the refusal', () => dropped.includes('the trade-updates stream closed'));
      expect(dropped).to.include('the trade-updates stream failed: auth failed');
      expect(listening).to.equal(0);
    } finally {
      stream.close();
    }
  });
});
