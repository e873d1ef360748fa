// The approval of an order on a connected account (broker-approval.ts), against a broker port of the test's own, with
// the decision lent by a judge of the test's own that approves: what is recorded with the decision, and who sends.
import { expect } from 'chai';
import type { Actor } from '../../src/auth/authorize.js';
import { approveAtBroker, type Judge } from '../../src/services/orders/broker-approval.js';
import type { ServiceContext } from '../../src/services/context.js';
import { dec } from '../../src/services/money.js';
import { type FakeBroker, syncFixture } from '../support/broker-fixture.js';

describe('an approval on a connected account', () => {
  const f = syncFixture();
  let ctx: ServiceContext;
  let port: FakeBroker;
  let account: string;
  beforeEach(() => ({ ctx, port, account } = f));
  const { approved, row, clock, at } = f;

  /** A judge that approves, on `store`; after its transaction, `meanwhile` runs (as another instance's sync could). */
  const approving = (meanwhile: () => Promise<void>, store = () => ctx.store): Judge => ({
    judge: (_trx, _actor, now) => Promise.resolve({ approved: true, quote: { symbol: 'VTI', price: dec('330'), as_of: now } }),
    settle: async (work) => {
      const outcome = await store().transaction((trx) => work(trx, clock.now()));
      await meanwhile();
      if ('problem' in outcome) throw outcome.problem;
      return outcome.order;
    },
  });
  const actor = () =>
    ({
      operationId: 'approveOrder',
      accountId: account,
      clientId: 'client_1',
      scopes: new Set(['trade']),
    }) as unknown as Actor<'approveOrder'>;
  const proposed = () => approved({ status: 'proposed', broker_id: null, submit_by: null, next_submit_at: null });

  it('records the decision with its first try claimed: a sync right after the commit finds nothing to send, and the answer is the try’s', async () => {
    const id = await proposed();
    let due: string[] = [];
    const order = await approveAtBroker(
      ctx,
      approving(async () => void (due = await f.sender().due(account))),
      actor(),
      id,
      port,
    );
    expect(due).to.deep.equal([]);
    expect(port.submits.map((s) => s.clientOrderId)).to.deep.equal([id]);
    expect([order.status, order.broker?.order_id]).to.deep.equal(['submitted', `b-${id}`]);
    const after = await row(id);
    expect([after.submit_attempts, after.submit_by, after.next_submit_at]).to.deep.equal([1, at(10_000), null]);
  });

  it('leaves a keyed approval due for the sync, sending nothing itself', async () => {
    const id = await proposed();
    // The key's transaction: the use case's store is bound to it.
    const order = await ctx.store.transaction((_, store) =>
      approveAtBroker(
        { ...ctx, store },
        approving(
          () => Promise.resolve(),
          () => store,
        ),
        actor(),
        id,
        port,
      ),
    );
    expect([order.status, order.broker?.order_id ?? null, port.submits]).to.deep.equal(['submitted', null, []]);
    const after = await row(id);
    expect([after.submit_attempts, after.next_submit_at]).to.deep.equal([0, at(0)]);
  });
});
