import { trading, ValidationError } from '@alpacahq/alpaca-trade-api';
import { expect } from 'chai';
import { type WebSocket as Socket, WebSocket } from 'ws';
import { openStream, sdkClients, type StreamClient } from '../support/alpaca-sdk.js';
import { AlpacaStandIn } from '../support/alpaca-stand-in.js';
import { until } from '../support/poll.js';

const KEYS = { keyId: 'PKSTANDIN1', secret: 'stand-in-secret' };
const TRADED_AT = new Date('2026-03-02T15:04:05.123Z');
const buy = (clientOrderId: string, qty = '10', extra: Partial<trading.PostOrderRequest> = {}) => ({
  postOrderRequest: {
    symbol: 'AAPL',
    qty,
    side: trading.OrderSide.Buy,
    type: trading.OrderType.Market,
    timeInForce: trading.TimeInForce.Day,
    clientOrderId,
    ...extra,
  },
});

describe('alpaca stand-in, driven by the Alpaca SDK: accounts, prices, orders and their updates', () => {
  let alpaca: AlpacaStandIn;
  let sdk: ReturnType<typeof sdkClients>;
  let stream: StreamClient | undefined;
  const events = () => stream!.updates.map((u) => `${u.event}:${String(u.order.status)}`);

  beforeEach(async () => {
    alpaca = await AlpacaStandIn.start();
    alpaca.addAccount({
      keyId: KEYS.keyId,
      secretKey: KEYS.secret,
      cash: '100000',
      buyingPower: '200000',
      positions: [{ symbol: 'MSFT', qty: '3', avgEntryPrice: '400' }],
    });
    alpaca.setPrice('AAPL', '190.12', TRADED_AT);
    alpaca.setPrice('MSFT', '410.5', TRADED_AT);
    sdk = sdkClients(alpaca, KEYS);
  });

  afterEach(async function () {
    stream?.stream.disconnect();
    stream = undefined;
    await alpaca.close();
    if (this.currentTest?.state !== 'passed') return;
    expect(alpaca.violations(), 'requests against the documents').to.deep.equal([]);
    expect(alpaca.answerViolations(), 'answers against the documents').to.deep.equal([]);
  });

  it('answers the account (last_equity: its equity when added), positions and both clocks in the shapes the SDK reads', async () => {
    const account = await sdk.accounts.getAccount();
    expect(account).to.include({ cash: '100000', buyingPower: '200000', equity: '101231.5', lastEquity: '101200', currency: 'USD' });
    expect(account).to.include({ status: 'ACTIVE', tradingBlocked: false, accountNumber: 'PA0000000001', longMarketValue: '1231.5' });
    const [position, ...others] = await sdk.positions.getAllOpenPositions();
    expect(others).to.deep.equal([]);
    expect(position).to.include({ symbol: 'MSFT', qty: '3', avgEntryPrice: '400', marketValue: '1231.5', costBasis: '1200', side: 'long' });
    const nextOpen = new Date('2026-03-03T14:30:00Z');
    const nextClose = new Date('2026-03-02T21:00:00Z');
    alpaca.setClock({ isOpen: false, nextOpen, nextClose });
    expect(await sdk.clock.legacyClock()).to.include({ isOpen: false });
    expect((await sdk.clock.legacyClock()).nextOpen.toISOString()).to.equal(nextOpen.toISOString());
    const [nyse] = (await sdk.clock.clock({ markets: 'NYSE' })).clocks;
    expect(nyse).to.include({ phase: 'closed' });
    expect(nyse!.nextMarketOpen.toISOString()).to.equal(nextOpen.toISOString());
    expect(alpaca.requests.map((r) => `${r.method} ${r.path}`)).to.include.members(['GET /v2/clock', 'GET /v3/clock']);
  });

  it('answers the latest trades from the data host, leaving out a symbol without one', async () => {
    const { trades } = await sdk.stocks.stockLatestTrades({ symbols: 'AAPL,MSFT,NOPE', feed: 'iex' });
    expect(Object.keys(trades).sort()).to.deep.equal(['AAPL', 'MSFT']);
    expect(trades.AAPL).to.include({ p: 190.12 });
    expect(trades.AAPL!.t.toISOString()).to.equal(TRADED_AT.toISOString());
    const single = await sdk.stocks.stockLatestTradeSingle({ symbol: 'MSFT' });
    expect(single.trade).to.include({ p: 410.5 });
    const request = alpaca.requests.find((r) => r.host === 'data')!;
    expect(request.query.get('symbols')).to.equal('AAPL,MSFT,NOPE');
  });

  it('fills a market order at the latest price: new, then fill, over the stream; cash, buying power and the position follow', async () => {
    stream = await openStream(alpaca, KEYS);
    const placed = await sdk.orders.postOrder(buy('order-1'));
    expect(placed).to.include({ clientOrderId: 'order-1', status: 'pending_new', qty: '10', filledQty: '0' });
    await until('the fill update', () => stream!.updates.length === 2);
    expect(events()).to.deep.equal(['new:new', 'fill:filled']);
    const fill = stream.updates[1]!;
    expect(fill).to.include({ price: '190.12', qty: '10', positionQty: '10' });
    expect(fill.order).to.include({ id: placed.id, filledQty: '10', filledAvgPrice: '190.12' });
    const order = await sdk.orders.getOrderByOrderID({ orderId: placed.id! });
    expect(order).to.include({ status: 'filled', filledQty: '10', filledAvgPrice: '190.12' });
    expect(order.filledAt).to.be.instanceOf(Date);
    expect(await sdk.accounts.getAccount()).to.include({ cash: '98098.8', buyingPower: '198098.8' });
    const aapl = (await sdk.positions.getAllOpenPositions()).find((p) => p.symbol === 'AAPL');
    expect(aapl).to.include({ qty: '10', avgEntryPrice: '190.12', marketValue: '1901.2' });
  });

  it('refuses a second order with the same client_order_id (422) and finds the one order by it', async () => {
    await sdk.orders.postOrder(buy('order-dup'));
    const refused = await sdk.orders.postOrder(buy('order-dup', '1')).catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(ValidationError);
    expect(refused).to.include({ status: 422, code: 40010001, message: 'client_order_id must be unique' });
    const found = await sdk.orders.getOrderByClientOrderId({ clientOrderId: 'order-dup' });
    expect(found).to.include({ clientOrderId: 'order-dup', qty: '10' });
    expect(alpaca.orders().map((o) => o.client_order_id)).to.deep.equal(['order-dup']);
  });

  it('rests an order sent while the market is closed and fills it when the market opens', async () => {
    stream = await openStream(alpaca, KEYS);
    alpaca.setClock({ isOpen: false });
    const placed = await sdk.orders.postOrder(buy('order-night', '2'));
    expect(placed.status).to.equal('accepted');
    await until('the accepted update', () => stream!.updates.length === 1);
    expect((await sdk.orders.getAllOrders({ status: 'open' })).map((o) => o.clientOrderId)).to.deep.equal(['order-night']);
    alpaca.setClock({ isOpen: true });
    await until('the fill at the open', () => stream!.updates.length === 3);
    expect(events()).to.deep.equal(['accepted:accepted', 'new:new', 'fill:filled']);
    expect(await sdk.orders.getAllOrders({ status: 'open' })).to.deep.equal([]);
    expect((await sdk.orders.getAllOrders({ status: 'closed' })).map((o) => o.status)).to.deep.equal(['filled']);
  });

  it('fills half at once, then the rest when told, averaging the two prices', async () => {
    stream = await openStream(alpaca, KEYS);
    alpaca.onSubmit = 'partial';
    await sdk.orders.postOrder(buy('order-half', '4'));
    await until('the partial fill', () => stream!.updates.length === 2);
    expect(stream.updates[1]).to.include({ event: 'partial_fill', qty: '2', positionQty: '2' });
    expect(await sdk.orders.getOrderByClientOrderId({ clientOrderId: 'order-half' })).to.include({
      status: 'partially_filled',
      filledQty: '2',
    });
    alpaca.fill('order-half', { price: '190.14' });
    await until('the final fill', () => stream!.updates.length === 3);
    expect(stream.updates[2]).to.include({ event: 'fill', qty: '2', price: '190.14', positionQty: '4' });
    expect(stream.updates[2]!.order).to.include({ status: 'filled', filledQty: '4', filledAvgPrice: '190.13' });
  });

  it('cancels a resting order (204, then a canceled update) and refuses to cancel a filled one (422)', async () => {
    stream = await openStream(alpaca, KEYS);
    alpaca.onSubmit = 'rest';
    const resting = await sdk.orders.postOrder(buy('order-rest', '1'));
    await sdk.orders.deleteOrderByOrderID({ orderId: resting.id! });
    await until('the canceled update', () => stream!.updates.length === 2);
    expect(events()).to.deep.equal(['new:new', 'canceled:canceled']);
    expect(alpaca.requests.at(-1)).to.include({ method: 'DELETE', status: 204 });
    alpaca.onSubmit = 'fill';
    const filled = await sdk.orders.postOrder(buy('order-done', '1'));
    const refused = await sdk.orders.deleteOrderByOrderID({ orderId: filled.id! }).catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(ValidationError);
    expect(refused).to.include({ status: 422, message: 'order is already in "filled" state' });
  });

  it('cancels every open order with DELETE /v2/orders (207, one entry per order)', async () => {
    alpaca.onSubmit = 'rest';
    const first = await sdk.orders.postOrder(buy('order-a', '1'));
    const second = await sdk.orders.postOrder(buy('order-b', '1'));
    const canceled = await sdk.orders.deleteAllOrders();
    expect(canceled.map((c) => c.id).sort()).to.deep.equal([first.id, second.id].sort());
    expect(alpaca.orders().map((o) => o.status)).to.deep.equal(['canceled', 'canceled']);
  });

  it('sends every stream message as a binary frame holding JSON', async () => {
    const socket: Socket = new WebSocket(alpaca.streamUrl);
    const frames: { binary: boolean; message: any }[] = [];
    socket.on('message', (data: Buffer, binary: boolean) => frames.push({ binary, message: JSON.parse(data.toString('utf8')) }));
    await new Promise((resolve) => socket.once('open', resolve));
    socket.send(JSON.stringify({ action: 'auth', key: KEYS.keyId, secret: KEYS.secret }));
    socket.send(JSON.stringify({ action: 'listen', data: { streams: ['trade_updates'] } }));
    await until('the listening answer', () => frames.length === 2);
    await sdk.orders.postOrder(buy('order-raw', '1'));
    await until('two updates', () => frames.length === 4);
    socket.close();
    expect(frames.map((f) => f.binary)).to.deep.equal([true, true, true, true]);
    expect(frames[0]!.message).to.deep.equal({ stream: 'authorization', data: { action: 'authenticate', status: 'authorized' } });
    expect(frames[1]!.message).to.deep.equal({ stream: 'listening', data: { streams: ['trade_updates'] } });
    expect(frames[3]!.message.data).to.include({ event: 'fill', qty: '1', price: '190.12', position_qty: '1' });
  });
});
