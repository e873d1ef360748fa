// The Alpaca adapter (src/brokers/alpaca.ts) against the stand-in: every request it sends valid against Alpaca's
// published documents, each failure in the port's terms, and a submit that never places two orders for one id.
import { ApiError, FetchError, type trading } from '@alpacahq/alpaca-trade-api';
import { expect } from 'chai';
import { AlpacaBroker, brokerFailure, brokerOrderOf, orderUpdateOf } from '../../src/brokers/alpaca.js';
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

describe("the Alpaca adapter's translations: Alpaca's orders, updates and failures in the port's terms", () => {
  const submitted = new Date('2026-12-01T14:30:00Z');
  const created = new Date('2026-12-01T14:29:59Z');
  const updated = new Date('2026-12-01T14:31:00Z');
  const sdkOrder = (changes: Partial<trading.Order> = {}) =>
    ({
      id: 'b-61e69015',
      clientOrderId: 'ord_1',
      symbol: 'VTI',
      side: 'sell',
      qty: '10',
      status: 'partially_filled',
      filledQty: '3',
      filledAvgPrice: '190.25',
      submittedAt: submitted,
      filledAt: null,
      createdAt: created,
      updatedAt: updated,
      ...changes,
    }) as trading.Order;
  const plain = (o: ReturnType<typeof brokerOrderOf>) => ({
    ...o,
    quantity: o.quantity.toFixed(),
    filledQuantity: o.filledQuantity.toFixed(),
    averageFillPrice: o.averageFillPrice?.toFixed() ?? null,
  });

  it('reads an order as Alpaca states it', () => {
    expect(plain(brokerOrderOf(sdkOrder()))).to.deep.equal({
      brokerOrderId: 'b-61e69015',
      clientOrderId: 'ord_1',
      symbol: 'VTI',
      side: 'sell',
      quantity: '10',
      status: 'partially_filled',
      brokerStatus: 'partially_filled',
      filledQuantity: '3',
      averageFillPrice: '190.25',
      submittedAt: submitted,
      filledAt: null,
      updatedAt: updated,
    });
  });

  it("maps each of Alpaca's statuses to the port's, keeping Alpaca's word; one it does not know is still open", () => {
    const statuses = [
      'new',
      'accepted',
      'pending_new',
      'accepted_for_bidding',
      'partially_filled',
      'filled',
      'canceled',
      'expired',
      'rejected',
    ];
    expect(statuses.map((status) => brokerOrderOf(sdkOrder({ status: status as trading.OrderStatus })).status)).to.deep.equal([
      'accepted',
      'accepted',
      'accepted',
      'accepted',
      'partially_filled',
      'filled',
      'canceled',
      'expired',
      'rejected',
    ]);
    const pending = brokerOrderOf(sdkOrder({ status: 'pending_cancel' as trading.OrderStatus }));
    expect([pending.status, pending.brokerStatus]).to.deep.equal(['open', 'pending_cancel']);
  });

  it('fills in what an order leaves out: a new buy of nothing filled, no average price, updated when created', () => {
    const sparse = {} as trading.Order;
    const before = Date.now();
    const empty = brokerOrderOf(sparse);
    expect({ ...plain(empty), updatedAt: undefined }).to.deep.equal({
      brokerOrderId: '',
      clientOrderId: '',
      symbol: '',
      side: 'buy',
      quantity: '0',
      status: 'accepted',
      brokerStatus: 'new',
      filledQuantity: '0',
      averageFillPrice: null,
      submittedAt: null,
      filledAt: null,
      updatedAt: undefined,
    });
    expect(empty.updatedAt.getTime()).to.be.within(before, Date.now());
    expect(brokerOrderOf(sdkOrder({ updatedAt: null })).updatedAt).to.equal(created);
    expect(brokerOrderOf(sdkOrder({ side: 'buy', filledAvgPrice: null })).averageFillPrice).to.equal(null);
  });

  it('reads a trade update: the event, the order after it, when, and the execution when it states one', () => {
    const at = new Date('2026-12-01T14:31:00.5Z');
    const fill = orderUpdateOf({ event: 'partial_fill', timestamp: at, order: sdkOrder(), qty: '1.5', price: '190.5' });
    expect([
      fill.event,
      fill.order.clientOrderId,
      fill.at,
      fill.execution?.quantity.toFixed(),
      fill.execution?.price.toFixed(),
    ]).to.deep.equal(['partial_fill', 'ord_1', at, '1.5', '190.5']);
    const before = Date.now();
    const accepted = orderUpdateOf({ event: 'new', order: sdkOrder({ status: 'new' as trading.OrderStatus }) });
    expect(Object.keys(accepted)).to.not.include('execution');
    expect(accepted.at.getTime()).to.be.within(before, Date.now());
    expect(orderUpdateOf({ event: 'fill', order: sdkOrder(), qty: '1' })).to.not.have.property('execution');
    expect(orderUpdateOf({ event: 'fill', order: sdkOrder(), price: '190' })).to.not.have.property('execution');
  });

  const apiError = (status: number, message?: string) => new ApiError(new Response(null, { status }), status, undefined, message);
  const said = (error: BrokerError) => [error.kind, error.message, error.status];

  it('says what each answer of Alpaca means: keys refused, no such thing, slow down, down, or refused, with what Alpaca said', () => {
    expect(said(brokerFailure(apiError(401, 'access key verification failed'), 'the account'))).to.deep.equal([
      'unauthorized',
      'Alpaca refused the API keys (the account, HTTP 401: access key verification failed).',
      401,
    ]);
    expect(said(brokerFailure(apiError(404, 'order not found'), 'order'))).to.deep.equal([
      'not_found',
      'Alpaca has no such order (HTTP 404: order not found).',
      404,
    ]);
    expect(said(brokerFailure(apiError(429, 'rate limit exceeded'), 'the order'))).to.deep.equal([
      'rate_limited',
      'Alpaca asked to slow down (the order, HTTP 429).',
      429,
    ]);
    for (const status of [408, 500, 503])
      expect(said(brokerFailure(apiError(status, 'busy'), 'the order'))).to.deep.equal([
        'unavailable',
        `Alpaca did not answer (the order, HTTP ${status}).`,
        status,
      ]);
    expect(said(brokerFailure(apiError(403, 'insufficient buying power'), 'the order'))).to.deep.equal([
      'refused',
      'Alpaca refused the order (HTTP 403: insufficient buying power).',
      403,
    ]);
    expect(said(brokerFailure(apiError(422), 'the order'))).to.deep.equal(['refused', 'Alpaca refused the order (HTTP 422).', 422]);
    expect(said(brokerFailure(apiError(401), 'the account'))[1]).to.equal('Alpaca refused the API keys (the account, HTTP 401).');
    expect(said(brokerFailure(apiError(404), 'order'))[1]).to.equal('Alpaca has no such order (HTTP 404).');
    expect(said(brokerFailure(apiError(499), 'the order'))[0]).to.equal('refused');
  });

  it('tells a call that timed out from one that could not connect, and passes its own failures on as they are', () => {
    const named = (name: string) => Object.assign(new Error('aborted'), { name });
    const unavailable = (error: unknown) => said(brokerFailure(error, 'the clock'));
    const late = ['unavailable', 'Alpaca did not answer in time (the clock).', undefined];
    const unreachable = ['unavailable', 'Alpaca could not be reached (the clock).', undefined];
    expect(unavailable(new FetchError(named('TimeoutError')))).to.deep.equal(late);
    expect(unavailable(new FetchError(named('AbortError')))).to.deep.equal(late);
    expect(unavailable(new FetchError(new TypeError('fetch failed')))).to.deep.equal(unreachable);
    expect(unavailable(named('TimeoutError'))).to.deep.equal(late);
    expect(unavailable(named('AbortError'))).to.deep.equal(late);
    expect(unavailable(new TypeError('fetch failed'))).to.deep.equal(unreachable);
    expect(unavailable('not an error')).to.deep.equal(unreachable);
    const own = new BrokerError('not_found', 'Alpaca has no order ord_1.', 404);
    expect(brokerFailure(own, 'the cancellation')).to.equal(own);
  });
});
