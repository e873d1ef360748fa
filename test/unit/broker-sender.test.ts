// Sending approved orders and applying what the broker says (sender.ts, apply.ts), against a broker port of the
// test's own on a database, at a clock the test moves: every wait and deadline in exact instants.
import { expect } from 'chai';
import { BrokerError } from '../../src/brokers/port.js';
import { applyBrokerOrder } from '../../src/services/brokerage/apply.js';
import type { ServiceContext } from '../../src/services/context.js';
import { engage } from '../../src/services/kill-switch.js';
import { dec } from '../../src/services/money.js';
import { brokerOrder, filled, FakeBroker, SENT_AT, syncFixture } from '../support/broker-fixture.js';

describe('connected accounts against a broker port of their own: sending, applying, reconciling', () => {
  const f = syncFixture();
  let ctx: ServiceContext;
  let port: FakeBroker;
  let account: string;
  beforeEach(() => ({ ctx, port, account } = f));
  const { clock, db, openAccount, approved, sent, row, lastEvent, fillsOf, at, sender } = f;

  describe('BrokerSender', () => {
    it('sends a due order once, by its id as client order id, and keeps what the broker answered', async () => {
      const id = await approved();
      const limited = await approved({ order_type: 'limit', limit_price: '190.5', side: 'sell' });
      expect(await sender().due(account)).to.deep.equal([id, limited]);
      expect(await sender().attempt(account, id, port)).to.equal(true);
      expect(await sender().attempt(account, limited, port)).to.equal(true);
      expect(port.submits).to.deep.equal([
        { clientOrderId: id, symbol: 'VTI', side: 'buy', quantity: '2', type: 'market', timeInForce: 'day' },
        { clientOrderId: limited, symbol: 'VTI', side: 'sell', quantity: '2', type: 'limit', limitPrice: '190.5', timeInForce: 'day' },
      ]);
      const after = await row(id);
      expect([after.status, after.broker_order_id, after.broker_status, after.next_submit_at, after.submit_attempts]).to.deep.equal([
        'submitted',
        `b-${id}`,
        'pending_new',
        null,
        1,
      ]);
      expect(after.broker_submitted_at).to.deep.equal(SENT_AT);
      expect(await sender().attempt(account, id, port), 'sent already: not this instance’s to try').to.equal(false);
      expect(await sender().due(account)).to.deep.equal([]);
      expect(port.submits).to.have.length(2);
    });

    it('holds the order for one try: until BROKER_TIMEOUT_MS and a second have passed, nobody else tries it', async () => {
      const id = await approved();
      let during: { next: Date | null; due: string[]; other: boolean } | undefined;
      port.onSubmit = async () => {
        during = {
          next: (await row(id)).next_submit_at,
          due: await sender().due(account),
          other: await sender().attempt(account, id, port),
        };
      };
      await sender().attempt(account, id, port);
      expect(during).to.deep.equal({ next: at(2_000), due: [], other: false });
      expect(port.submits).to.have.length(1);
    });

    it('tries again with the same id after a broker that did not answer, 1 s later, then 2 s, also when it asked to slow down', async () => {
      const id = await approved();
      port.onSubmit = () => Promise.reject(new BrokerError('unavailable', 'Alpaca did not answer (the order, HTTP 503).', 503));
      expect(await sender().attempt(account, id, port)).to.equal(true);
      expect([(await row(id)).status, (await row(id)).next_submit_at, (await row(id)).submit_attempts]).to.deep.equal([
        'submitted',
        at(1_000),
        1,
      ]);
      clock.advance(999);
      expect(await sender().due(account)).to.deep.equal([]);
      clock.advance(1);
      expect(await sender().due(account)).to.deep.equal([id]);
      port.onSubmit = () => Promise.reject(new BrokerError('rate_limited', 'Alpaca asked to slow down (the order, HTTP 429).', 429));
      await sender().attempt(account, id, port);
      expect((await row(id)).next_submit_at).to.deep.equal(at(3_000));
      clock.set(at(3_000).toISOString());
      port.onSubmit = undefined;
      await sender().attempt(account, id, port);
      expect(port.submits.map((s) => s.clientOrderId)).to.deep.equal([id, id, id]);
      expect([(await row(id)).broker_order_id, (await row(id)).submit_attempts]).to.deep.equal([`b-${id}`, 3]);
    });

    it('ends the order rejected, with what the broker said, when the broker refuses it; it is never tried again', async () => {
      const id = await approved();
      port.onSubmit = () =>
        Promise.reject(new BrokerError('refused', 'Alpaca refused the order (HTTP 403: insufficient buying power).', 403));
      expect(await sender().attempt(account, id, port)).to.equal(true);
      expect(await lastEvent(id)).to.deep.equal({
        to_status: 'rejected',
        reason: 'Alpaca refused the order: Alpaca refused the order (HTTP 403: insufficient buying power).',
      });
      expect([(await row(id)).status, (await row(id)).next_submit_at]).to.deep.equal(['rejected', null]);
      expect(await sender().attempt(account, id, port)).to.equal(false);
      expect(port.submits).to.have.length(1);
    });

    it('passes on a failure that is not the broker’s, and the order waits for its next try', async () => {
      const id = await approved();
      port.onSubmit = () => Promise.reject(new TypeError('a defect'));
      let thrown: unknown;
      await sender()
        .attempt(account, id, port)
        .catch((error: unknown) => (thrown = error));
      expect(thrown).to.be.instanceOf(TypeError);
      expect([(await row(id)).status, (await row(id)).next_submit_at]).to.deep.equal(['submitted', at(2_000)]);
    });

    it('sends up to the last instant of the window; after it, what an earlier try placed is the answer, else it ends rejected', async () => {
      const last = await approved({ submit_by: at(0) });
      const placedEarlier = await approved({ submit_by: at(-1) });
      const never = await approved({ submit_by: at(-1) });
      port.held.set(placedEarlier, filled(placedEarlier));
      for (const id of [last, placedEarlier, never]) expect(await sender().attempt(account, id, port), id).to.equal(true);
      expect(port.submits.map((s) => s.clientOrderId)).to.deep.equal([last]);
      expect([(await row(placedEarlier)).status, (await row(placedEarlier)).filled_quantity]).to.deep.equal(['filled', '2.000000']);
      expect(await lastEvent(never)).to.deep.equal({
        to_status: 'rejected',
        reason: 'Alpaca could not be reached before the window to send the order closed; it was not sent',
      });
      // A broker that cannot be asked either: nothing is known to be placed.
      port.failLookups = new BrokerError('unavailable', 'Alpaca did not answer (order, HTTP 503).', 503);
      const unknown = await approved({ submit_by: at(-1) });
      expect(await sender().attempt(account, unknown, port)).to.equal(true);
      expect((await row(unknown)).status).to.equal('rejected');
    });

    it('cancels instead of sending when the kill switch was engaged before the order reached the broker', async () => {
      const id = await approved();
      await engage(db(), account, 'system', 'stop', at(0));
      expect(await sender().attempt(account, id, port)).to.equal(true);
      expect(port.submits).to.deep.equal([]);
      expect(await lastEvent(id)).to.deep.equal({
        to_status: 'cancelled',
        reason: 'the account kill switch was engaged before the order reached Alpaca; it was not sent',
      });
    });

    it('leaves an order that changed while its try was out (the stream, a poll, a cancellation) as it now stands', async () => {
      const reported = await approved();
      const cancelled = await approved();
      const refusal = new BrokerError('refused', 'Alpaca refused the order (HTTP 422: client_order_id must be unique).', 422);
      port.onSubmit = async ({ clientOrderId }) => {
        if (clientOrderId === reported) await applyBrokerOrder(ctx.store, account, brokerOrder(reported), 'Alpaca', clock.now());
        // As the holder's cancellation of an order not sent yet records it.
        else await db().updateTable('orders').set({ status: 'cancelled' }).where('id', '=', clientOrderId).execute();
        throw refusal;
      };
      await sender().attempt(account, reported, port);
      await sender().attempt(account, cancelled, port);
      expect([(await row(reported)).status, (await row(reported)).broker_order_id]).to.deep.equal(['submitted', `b-${reported}`]);
      expect((await row(cancelled)).status).to.equal('cancelled');
      const events = await db().selectFrom('order_events').select('to_status').where('order_id', 'in', [reported, cancelled]).execute();
      expect(events.map((e) => e.to_status)).to.not.include('rejected');
    });
  });

  describe('applyBrokerOrder', () => {
    it('books a fill on the position of the order’s symbol, once, and says whether the order moved', async () => {
      await db()
        .insertInto('positions')
        .values({ account_id: account, symbol: 'VTI', quantity: '2', average_cost: '300', updated_at: SENT_AT })
        .execute();
      const id = await sent();
      expect(await applyBrokerOrder(ctx.store, account, filled(id), 'Alpaca', clock.now())).to.equal(true);
      expect(await applyBrokerOrder(ctx.store, account, filled(id), 'Alpaca', clock.now())).to.equal(false);
      const positions = await db()
        .selectFrom('positions')
        .select(['symbol', 'quantity', 'average_cost'])
        .where('account_id', '=', account)
        .orderBy('symbol')
        .execute();
      expect(positions.map((p) => [p.symbol, dec(p.quantity).toFixed(), dec(p.average_cost).toFixed()])).to.deep.equal([
        ['BND', '10', '72'],
        ['VTI', '4', '315'],
      ]);
      expect((await fillsOf(id)).map((f) => [dec(f.quantity).toFixed(), dec(f.price).toFixed()])).to.deep.equal([['2', '330']]);
      expect(await lastEvent(id)).to.deep.equal({ to_status: 'filled', reason: 'filled by Alpaca: 2 at 330.00' });
    });

    it('stores the broker’s word without a step when nothing moved, keeping when the order was first sent', async () => {
      const first = await approved({ next_submit_at: null });
      expect(await applyBrokerOrder(ctx.store, account, brokerOrder(first, { brokerStatus: 'new' }), 'Alpaca', clock.now())).to.equal(
        false,
      );
      expect([(await row(first)).broker_status, (await row(first)).broker_submitted_at]).to.deep.equal(['new', SENT_AT]);
      const later = new Date('2026-12-01T14:59:30.000Z');
      await applyBrokerOrder(
        ctx.store,
        account,
        brokerOrder(first, { brokerStatus: 'accepted', submittedAt: later }),
        'Alpaca',
        clock.now(),
      );
      expect([(await row(first)).broker_status, (await row(first)).broker_submitted_at]).to.deep.equal(['accepted', SENT_AT]);
      expect(await lastEvent(first).catch(() => undefined)).to.equal(undefined);
    });

    it('never writes an earlier word of the broker over a later one, nor anything over an order ended here', async () => {
      const accepted = (id: string) => brokerOrder(id, { status: 'accepted', brokerStatus: 'accepted' });
      for (const word of ['partially_filled', 'filled', 'canceled', 'expired', 'rejected', 'done_for_day']) {
        const id = await sent({ broker_status: word });
        expect(await applyBrokerOrder(ctx.store, account, accepted(id), 'Alpaca', clock.now())).to.equal(false);
        expect((await row(id)).broker_status, word).to.equal(word);
      }
      const ended = await sent({ status: 'cancelled', broker_status: 'canceled' });
      expect(await applyBrokerOrder(ctx.store, account, filled(ended), 'Alpaca', clock.now())).to.equal(false);
      expect([(await row(ended)).status, (await row(ended)).broker_status, await fillsOf(ended)]).to.deep.equal([
        'cancelled',
        'canceled',
        [],
      ]);
    });

    it('touches nothing for an order that is not the account’s', async () => {
      const id = await sent();
      const other = await openAccount();
      expect(await applyBrokerOrder(ctx.store, other, filled(id), 'Alpaca', clock.now())).to.equal(false);
      expect(await applyBrokerOrder(ctx.store, account, filled('ord_nobody'), 'Alpaca', clock.now())).to.equal(false);
      expect((await row(id)).status).to.equal('submitted');
    });
  });
});
