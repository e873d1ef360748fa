// The Alpaca adapter's translations (src/brokers/alpaca.ts): Alpaca's orders, trade updates and failures in the broker
// port's terms, from the SDK's own shapes, without a network.
import { ApiError, FetchError, type trading } from '@alpacahq/alpaca-trade-api';
import { expect } from 'chai';
import { brokerFailure, brokerOrderOf, orderUpdateOf } from '../../src/brokers/alpaca.js';
import { BrokerError } from '../../src/brokers/port.js';

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
