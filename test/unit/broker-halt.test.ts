// The kill switch reaching the broker (halt.ts), against a broker port of the test's own: an order not sent yet is
// cancelled here and never sent, one the broker holds is cancelled there and ends as the broker then says, and
// nothing else is touched.
import { expect } from 'chai';
import { BrokerError } from '../../src/brokers/port.js';
import { haltAtBroker } from '../../src/services/brokerage/halt.js';
import type { ServiceContext } from '../../src/services/context.js';
import { effectiveKillSwitch, engage, GLOBAL_SCOPE, OFF, release } from '../../src/services/kill-switch.js';
import { brokerOrder, type FakeBroker, syncFixture } from '../support/broker-fixture.js';

describe('the kill switch at a connected broker (haltAtBroker)', () => {
  const f = syncFixture();
  let ctx: ServiceContext;
  let port: FakeBroker;
  let account: string;
  beforeEach(() => ({ ctx, port, account } = f));
  const { db, approved, sent, row, at } = f;

  const engaged = async () => {
    await engage(db(), account, 'ops', 'stop', at(0));
    return effectiveKillSwitch(db(), account);
  };
  const events = (id: string) =>
    db().selectFrom('order_events').select(['to_status', 'reason']).where('order_id', '=', id).orderBy('id').execute();
  const notSent = (level: string) => `the ${level} kill switch was engaged before the order reached Alpaca; it was not sent`;

  it('does nothing while the switch in force is released', async () => {
    const due = await approved();
    const held = await sent();
    port.held.set(held, brokerOrder(held));
    expect(await haltAtBroker(ctx, account, port, OFF)).to.equal(false);
    expect([port.cancels, port.lookups]).to.deep.equal([[], []]);
    expect([(await row(due)).status, (await row(held)).status]).to.deep.equal(['submitted', 'submitted']);
  });

  it('cancels an order not sent yet here, for good, and asks the broker to cancel what a try in flight may have placed', async () => {
    const first = await approved();
    const second = await approved();
    // The broker does not answer the first cancellation: the order is cancelled here all the same, and the next one too.
    port.onCancel = async (id) => {
      if (id === first) throw new BrokerError('unavailable', 'Alpaca did not answer (HTTP 503).', 503);
    };
    expect(await haltAtBroker(ctx, account, port, await engaged())).to.equal(true);
    expect(port.cancels).to.deep.equal([first, second]);
    expect(port.lookups).to.deep.equal([]);
    for (const id of [first, second]) {
      expect((await row(id)).status).to.equal('cancelled');
      expect((await row(id)).next_submit_at).to.equal(null);
      expect(await events(id)).to.deep.equal([{ to_status: 'cancelled', reason: notSent('account') }]);
    }
    expect(await f.sender().due(account)).to.deep.equal([]);
    expect(port.submits).to.deep.equal([]);
  });

  it('names the level of the switch that stopped the order', async () => {
    const id = await approved();
    await engage(db(), GLOBAL_SCOPE, 'ops', 'market halt', at(0));
    try {
      await haltAtBroker(ctx, account, port, await effectiveKillSwitch(db(), account));
    } finally {
      await release(db(), GLOBAL_SCOPE, 'ops', null, at(1));
    }
    expect(await events(id)).to.deep.equal([{ to_status: 'cancelled', reason: notSent('global') }]);
  });

  it('leaves an order not sent yet that changed meanwhile (its try answered, or it was cancelled) as it stands', async () => {
    const first = await approved();
    const answered = await approved();
    const cancelled = await approved();
    port.onCancel = async (id) => {
      if (id !== first) return;
      await db().updateTable('orders').set({ next_submit_at: null, broker_order_id: 'b-late' }).where('id', '=', answered).execute();
      await db().updateTable('orders').set({ status: 'cancelled' }).where('id', '=', cancelled).execute();
    };
    await haltAtBroker(ctx, account, port, await engaged());
    expect([(await row(answered)).status, await events(answered)]).to.deep.equal(['submitted', []]);
    expect([(await row(cancelled)).status, await events(cancelled)]).to.deep.equal(['cancelled', []]);
    expect(port.cancels).to.deep.equal([first, answered, cancelled]);
  });

  it('cancels at the broker an order it holds and records how the broker then states it', async () => {
    const resting = await sent();
    const unknown = await sent();
    port.held.set(resting, brokerOrder(resting));
    expect(await haltAtBroker(ctx, account, port, await engaged())).to.equal(true);
    expect(port.cancels).to.deep.equal([resting, unknown]);
    expect(port.lookups).to.deep.equal([resting, unknown]);
    expect((await row(resting)).status).to.equal('cancelled');
    expect(await events(resting)).to.deep.equal([{ to_status: 'cancelled', reason: 'canceled by Alpaca' }]);
    // The broker holds nothing under the id: the order stays as it is until the broker says otherwise.
    expect([(await row(unknown)).status, await events(unknown)]).to.deep.equal(['submitted', []]);
  });

  it('passes on a broker that does not answer the cancellation of an order it holds; the order stays as it was', async () => {
    const resting = await sent();
    port.held.set(resting, brokerOrder(resting));
    port.onCancel = () => Promise.reject(new BrokerError('unavailable', 'Alpaca did not answer (HTTP 503).', 503));
    const failure = await haltAtBroker(ctx, account, port, await engaged()).then(
      () => undefined,
      (error: BrokerError) => error.kind,
    );
    expect(failure).to.equal('unavailable');
    expect([(await row(resting)).status, port.lookups]).to.deep.equal(['submitted', []]);
  });

  it('touches only the account’s open orders at this broker', async () => {
    const mine = await sent();
    const other = await f.openAccount();
    const elsewhere = await sent({ account_id: other });
    const paper = await sent({ broker_id: 'paper' });
    const done = await sent({ status: 'filled' });
    const partly = await sent({ status: 'partially_filled' });
    for (const id of [mine, elsewhere, paper, done, partly]) port.held.set(id, brokerOrder(id));
    await haltAtBroker(ctx, account, port, await engaged());
    expect(port.cancels).to.deep.equal([mine, partly]);
    expect([(await row(elsewhere)).status, (await row(paper)).status, (await row(done)).status]).to.deep.equal([
      'submitted',
      'submitted',
      'filled',
    ]);
  });
});
