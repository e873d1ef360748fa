import type { Fields } from '../../src/services/orders/record-statement.js';
import { record, type Step } from '../../src/services/orders/transitions.js';
import { eventsOf } from '../../src/services/orders/views.js';
import type { TestServer } from './server.js';

/** One step of an order at a broker: the state it reaches, the event's reason, and what it sets on the order. */
export interface BrokerStep {
  to: Step['to'];
  reason: string;
  fields: Fields;
}

/**
 * Test set-up: the order taken through `steps` as a broker's updates take it, each through record() (the one write of
 * every transition: the order's columns, its event and its outbox event), by the service, at the server's clock. It
 * brings an order into a state only a broker reaches; the broker flow that decides these steps has tests of its own.
 */
export async function recordAtBroker(server: TestServer, orderId: string, steps: BrokerStep[]): Promise<void> {
  const { store, clock } = server.context;
  for (const step of steps) {
    await store.transaction(async (trx) => {
      const row = await trx.selectFrom('orders').selectAll().where('id', '=', orderId).forUpdate().executeTakeFirstOrThrow();
      const events = (await eventsOf(trx, [orderId])).get(orderId)!;
      await record(trx, row, [{ to: step.to, at: clock.now(), clientId: null, reason: step.reason }], { events }, step.fields);
    });
  }
}

/** An order sent to Alpaca (`b-<n>` its id there), then partly filled: 3 shares at 190.00, then 2 more (5 at 190.40). */
export const ALPACA_PARTIAL_FILLS = (submittedAt: Date, brokerOrderId: string): BrokerStep[] => [
  {
    to: 'submitted',
    reason: 'approved',
    fields: { broker_id: 'alpaca', broker_order_id: brokerOrderId, broker_status: 'accepted', broker_submitted_at: submittedAt },
  },
  {
    to: 'partially_filled',
    reason: 'partially filled by Alpaca: 3 at 190.00',
    fields: { fill_price: '190', filled_quantity: '3', broker_status: 'partially_filled' },
  },
  {
    to: 'partially_filled',
    reason: 'partially filled by Alpaca: 2 at 191.00',
    fields: { fill_price: '190.4', filled_quantity: '5', broker_status: 'partially_filled' },
  },
];
