import { expect } from 'chai';
import type { Order as OrderRow } from '../../db/schema.js';
import { withPaperBroker, type Step } from '../../src/services/orders/transitions.js';
import { orderView, type Order } from '../../src/services/orders/views.js';

type OrderEvent = Order['events'][number];

const now = new Date('2026-12-01T15:00:00.000Z');
const system = { kind: 'system', name: 'the service' } as const;

/** An order row of 10 VTI, proposed an hour before `now`, with whatever `changes` set. */
function row(changes: Partial<OrderRow> = {}): OrderRow {
  return {
    id: 'ord_view',
    account_id: 'acct_view',
    idea_id: 'idea_view',
    market: 'US',
    currency: 'USD',
    symbol: 'VTI',
    side: 'buy',
    quantity: '10',
    order_type: 'market',
    limit_price: null,
    notional: '2000.00',
    status: 'proposed',
    fill_price: null,
    filled_quantity: '0',
    failed_checks: null,
    expires_at: new Date('2026-12-02T14:00:00.000Z'),
    filled_at: null,
    broker_id: null,
    broker_order_id: null,
    broker_status: null,
    broker_submitted_at: null,
    rests_until: null,
    submit_by: null,
    next_submit_at: null,
    submit_attempts: 0,
    preview_id: null,
    created_at: new Date('2026-12-01T14:00:00.000Z'),
    updated_at: new Date('2026-12-01T14:00:00.000Z'),
    ...changes,
  };
}

const event = (from: OrderEvent['from'], to: OrderEvent['to'], at: string): OrderEvent => ({
  from,
  to,
  at,
  client_id: null,
  actor: system,
  reason: null,
});
const proposedEvent = event(null, 'proposed', '2026-12-01T14:00:00.000Z');
const submittedEvent = event('proposed', 'submitted', '2026-12-01T14:30:00.000Z');

describe('orderView: an order at its broker', () => {
  it('shows a partially filled order as its columns say: what executed so far, at its average price, and the broker’s record', () => {
    const view = orderView(
      row({
        status: 'partially_filled',
        fill_price: '231.405',
        filled_quantity: '3.5',
        broker_id: 'alpaca',
        broker_order_id: '61e69015-8549-4bfd-b9c3-01e75843f47d',
        broker_status: 'partially_filled',
        broker_submitted_at: new Date('2026-12-01T14:30:00.000Z'),
      }),
      [proposedEvent, submittedEvent, event('submitted', 'partially_filled', '2026-12-01T14:31:00.000Z')],
      now,
    );
    expect(view).to.include({
      status: 'partially_filled',
      fill_price: 231.405,
      average_fill_price: 231.405,
      filled_quantity: 3.5,
      quantity: 10,
      filled_at: null,
    });
    expect(view.broker).to.deep.equal({
      id: 'alpaca',
      order_id: '61e69015-8549-4bfd-b9c3-01e75843f47d',
      status: 'partially_filled',
      submitted_at: '2026-12-01T14:30:00.000Z',
      rests_until: null,
    });
  });

  it('shows when an order waits at the broker for the market to open', () => {
    const view = orderView(
      row({
        status: 'submitted',
        broker_id: 'alpaca',
        broker_order_id: 'b-1',
        broker_status: 'accepted',
        broker_submitted_at: new Date('2026-12-01T23:00:00.000Z'),
        rests_until: new Date('2026-12-02T14:30:00.000Z'),
      }),
      [proposedEvent, submittedEvent],
      now,
    );
    expect(view.broker).to.deep.include({ status: 'accepted', rests_until: '2026-12-02T14:30:00.000Z' });
    expect(view).to.include({ average_fill_price: null, fill_price: null, filled_quantity: 0 });
  });

  it('has no broker while the order was never sent: proposed, blocked, rejected, cancelled or expired before a decision', () => {
    expect(orderView(row(), [proposedEvent], now).broker).to.equal(null);
    for (const status of ['blocked', 'rejected', 'cancelled'] as const)
      expect(orderView(row({ status }), [proposedEvent, event('proposed', status, now.toISOString())], now).broker, status).to.equal(null);
    const late = new Date('2026-12-03T00:00:00.000Z');
    const expired = orderView(row(), [proposedEvent], late);
    expect([expired.status, expired.broker]).to.deep.equal(['expired', null]);
  });

  it('shows an order the paper broker took before the broker columns existed as the paper broker’s, sent when its event says', () => {
    const filled = orderView(
      row({ status: 'filled', fill_price: '200', filled_quantity: '10', filled_at: new Date('2026-12-01T14:30:00.000Z') }),
      [proposedEvent, submittedEvent, event('submitted', 'filled', '2026-12-01T14:30:00.000Z')],
      now,
    );
    expect(filled.broker).to.deep.equal({
      id: 'paper',
      order_id: null,
      status: 'filled',
      submitted_at: submittedEvent.at,
      rests_until: null,
    });
    expect(filled.average_fill_price).to.equal(200);
    const resting = orderView(row({ status: 'submitted' }), [proposedEvent, submittedEvent], now);
    expect(resting.broker).to.deep.include({ id: 'paper', status: 'accepted', submitted_at: submittedEvent.at });
    const cancelled = orderView(
      row({ status: 'cancelled' }),
      [proposedEvent, submittedEvent, event('submitted', 'cancelled', now.toISOString())],
      now,
    );
    expect(cancelled.broker).to.deep.include({ id: 'paper', status: 'canceled' });
    // A row written without its events (as a benchmark seeds them) still says it was sent, not when.
    expect(orderView(row({ status: 'filled' }), [], now).broker).to.deep.include({ id: 'paper', submitted_at: null });
  });
});

describe('withPaperBroker: what record() stores of the paper broker', () => {
  const at = new Date('2026-12-01T14:30:00.000Z');
  const step = (to: Step['to']): Step => ({ to, at, clientId: null, reason: null });

  it('names the paper broker when a step submits an order without naming a broker, with its word for the last state', () => {
    expect(withPaperBroker(row(), [step('submitted'), step('filled')], { fill_price: '200' })).to.deep.equal({
      broker_id: 'paper',
      broker_submitted_at: at,
      broker_status: 'filled',
      fill_price: '200',
    });
    expect(withPaperBroker(row(), [step('submitted')], {})).to.deep.equal({
      broker_id: 'paper',
      broker_submitted_at: at,
      broker_status: 'accepted',
    });
  });

  it('records the paper broker’s word for each later step of a paper order, and nothing for an order never sent', () => {
    expect(withPaperBroker(row({ status: 'submitted', broker_id: 'paper' }), [step('cancelled')], {})).to.deep.equal({
      broker_status: 'canceled',
    });
    expect(withPaperBroker(row(), [step('rejected')], {})).to.deep.equal({});
    expect(withPaperBroker(row(), [step('blocked')], {})).to.deep.equal({});
  });

  it('leaves an order at another broker to its caller: the fields it names are the fields stored', () => {
    const alpaca = { broker_id: 'alpaca', broker_order_id: 'b-1', broker_status: 'accepted', broker_submitted_at: at };
    expect(withPaperBroker(row(), [step('submitted')], alpaca)).to.deep.equal(alpaca);
    const sent = row({ status: 'submitted', broker_id: 'alpaca', broker_status: 'accepted' });
    expect(withPaperBroker(sent, [step('partially_filled')], { filled_quantity: '2' })).to.deep.equal({ filled_quantity: '2' });
    expect(withPaperBroker(row({ broker_id: 'alpaca' }), [step('submitted')], {})).to.deep.equal({});
    // Approved for Alpaca and not sent yet: no word of the broker and no time it took the order until Alpaca answers.
    const approved = { broker_id: 'alpaca', submit_by: at, next_submit_at: at, rests_until: null };
    expect(withPaperBroker(row(), [step('submitted')], approved)).to.deep.equal(approved);
  });
});
