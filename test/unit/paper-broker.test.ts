// The built-in paper broker behind the broker port (paper.ts), on a database at a clock the test moves and prices it
// states: what it says of the books, the prices and the clock, how it executes a submit, and how it answers for the
// orders it took. The contract it shares with the Alpaca adapter is test/http/broker-port.test.ts.
import { expect } from 'chai';
import type { BrokerError, SubmitRequest } from '../../src/brokers/port.js';
import { PaperBroker } from '../../src/services/brokerage/paper.js';
import type { ServiceContext } from '../../src/services/context.js';
import { syncFixture, SENT_AT } from '../support/broker-fixture.js';
import type { FixedPrices } from '../support/prices.js';

describe('the paper broker', () => {
  const f = syncFixture();
  let ctx: ServiceContext;
  let paper: PaperBroker;
  let account: string;
  beforeEach(() => {
    ({ ctx, account } = f);
    paper = new PaperBroker(ctx, account);
    const prices = ctx.prices as FixedPrices;
    prices.set('VTI', '330.00');
    prices.set('BND', '74.00');
  });
  const { db, approved, clock, at } = f;
  const now = () => clock.now();

  const buy = (changes: Partial<SubmitRequest> = {}): SubmitRequest => ({
    clientOrderId: 'ord_paper_1',
    symbol: 'VTI',
    side: 'buy',
    quantity: '2',
    type: 'market',
    timeInForce: 'day',
    ...changes,
  });
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: BrokerError) => [error.kind, error.message, error.status],
    );

  it('states the books: cash as buying power, no margin, never blocked, read now', async () => {
    expect(await paper.account()).to.deep.include({
      buyingPower: (await paper.account()).cash,
      equityAtDayStart: null,
      currency: 'USD',
      accountNumber: account,
      tradingBlocked: false,
      readAt: now(),
    });
    expect((await paper.account()).cash.toFixed(2)).to.equal('1000.00');
  });

  it('states its positions at their cost, priced when the market knows the symbol', async () => {
    await db()
      .insertInto('positions')
      .values({ account_id: account, symbol: 'ZZZZ', quantity: '1', average_cost: '5', updated_at: SENT_AT })
      .execute();
    const positions = (await paper.positions()).map((p) => [
      p.symbol,
      p.quantity.toFixed(),
      p.averageCost.toFixed(),
      p.lastPrice?.toFixed(),
    ]);
    expect(positions).to.deep.equal([
      ['BND', '10', '72', '74'],
      ['ZZZZ', '1', '5', undefined],
    ]);
  });

  it('quotes the symbols the market knows, as of now, and trades around the clock', async () => {
    const quotes = await paper.latestPrices(['VTI', 'ZZZZ']);
    expect([...quotes.values()].map((q) => [q.symbol, q.price.toFixed(2), q.asOf])).to.deep.equal([['VTI', '330.00', now()]]);
    expect(await paper.clock()).to.deep.equal({ isOpen: true, nextOpen: now(), nextClose: at(86_400_000), at: now() });
  });

  it('fills a marketable order in full at the price on the spot; it has no order id of its own', async () => {
    expect(await paper.submit(buy())).to.deep.include({
      brokerOrderId: '',
      clientOrderId: 'ord_paper_1',
      status: 'filled',
      brokerStatus: 'filled',
      submittedAt: now(),
      filledAt: now(),
      updatedAt: now(),
    });
    const fills = async (request: SubmitRequest) => {
      const answer = await paper.submit(request);
      return [answer.status, answer.filledQuantity.toFixed(), answer.averageFillPrice?.toFixed(2) ?? null, answer.filledAt];
    };
    expect(await fills(buy())).to.deep.equal(['filled', '2', '330.00', now()]);
    // A market order's limit price means nothing; a limit at the price is marketable, one short of it rests.
    expect(await fills(buy({ limitPrice: '300' }))).to.deep.equal(['filled', '2', '330.00', now()]);
    expect(await fills(buy({ type: 'limit', limitPrice: '330.00' }))).to.deep.equal(['filled', '2', '330.00', now()]);
    expect(await fills(buy({ type: 'limit', limitPrice: '329.99' }))).to.deep.equal(['accepted', '0', null, null]);
    expect(await fills(buy({ side: 'sell', type: 'limit', limitPrice: '330.00' }))).to.deep.equal(['filled', '2', '330.00', now()]);
    expect(await fills(buy({ side: 'sell', type: 'limit', limitPrice: '330.01' }))).to.deep.equal(['accepted', '0', null, null]);
    const resting = await paper.submit(buy({ type: 'limit', limitPrice: '1' }));
    expect([resting.brokerStatus, resting.brokerOrderId]).to.deep.equal(['accepted', '']);
  });

  it('streams nothing: it listens at once and never drops', async () => {
    const heard: string[] = [];
    const stream = paper.updates({
      update: () => heard.push('update'),
      listening: () => heard.push('listening'),
      dropped: () => heard.push('dropped'),
    });
    expect(heard, 'not before the caller holds the stream').to.deep.equal([]);
    await Promise.resolve();
    expect(heard).to.deep.equal(['listening']);
    stream.close();
  });

  it('refuses a symbol it does not trade', async () => {
    expect(await failure(paper.submit(buy({ symbol: 'ZZZZ' })))).to.deep.equal(['refused', 'The paper broker does not trade ZZZZ.', 422]);
  });

  it('answers for the orders it took, as they stand here, and cancels only a resting one', async () => {
    const resting = await approved({ broker_id: 'paper', next_submit_at: null });
    const filled = await approved({ broker_id: null, status: 'filled', filled_quantity: '2', fill_price: '330', filled_at: SENT_AT });
    const proposed = await approved({ broker_id: null, status: 'proposed', next_submit_at: null });
    const alpaca = await approved({ next_submit_at: null });
    expect(await paper.orderByClientId(resting)).to.deep.include({
      brokerOrderId: '',
      status: 'accepted',
      brokerStatus: 'accepted',
      averageFillPrice: null,
    });
    const done = await paper.orderByClientId(filled);
    expect([done?.status, done?.brokerStatus, done?.filledQuantity.toFixed(), done?.averageFillPrice?.toFixed()]).to.deep.equal([
      'filled',
      'filled',
      '2',
      '330',
    ]);
    expect([await paper.orderByClientId(proposed), await paper.orderByClientId(alpaca)]).to.deep.equal([undefined, undefined]);
    expect((await paper.openOrders()).map((o) => o.clientOrderId)).to.deep.equal([resting]);

    await paper.cancel(resting);
    expect(await failure(paper.cancel(filled))).to.deep.equal(['refused', 'The order is filled; it cannot be cancelled.', 422]);
    expect(await failure(paper.cancel(alpaca))).to.deep.equal(['not_found', `The paper broker has no order ${alpaca}.`, 404]);
  });
});
