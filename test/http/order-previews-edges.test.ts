// Previews at their edges, over REST: an account without a policy, a sell, what 404 says, the day's loss that would
// engage the kill switch, a kill switch engaged at the very instant of the preview, and the words of a stale one.
import { expect } from 'chai';
import { engage } from '../../src/services/kill-switch.js';
import { previewSuite } from '../support/previews.js';
import type { TestServer } from '../support/server.js';
import { createPolicy, propose } from '../support/trading.js';

describe('previews at their edges, over REST', () => {
  const suite = previewSuite();
  const { clock, prices, proposed, preview, approve } = suite;
  let server: TestServer;
  before(() => (server = suite.server()));

  it('without a policy: no version, no target, approving would block; a policy signed since makes the preview stale', async () => {
    const account = await server.account(['read', 'trade', 'write']);
    const [order] = await propose(server, account, [{ symbol: 'VTI', side: 'buy', quantity: '1' }]);
    const answer = (await preview(account.token, order!.id)).body;
    expect([answer.policy_version, answer.target_weight, answer.decision]).to.deep.equal([null, null, 'block']);
    expect(answer.checks.filter((c: any) => !c.passed)).to.deep.equal([
      { check: 'policy.market', passed: false, message: 'The account has no current policy; create one before approving orders.' },
    ]);
    await createPolicy(server, account.token);
    const refused = await approve(account.token, order!.id, answer.id);
    expect(refused.body.detail).to.equal(
      `The preview ${answer.id} is stale: it was made under policy version none, and version 1 is in force. ` +
        'The order is still proposed; preview it again.',
    );
  });

  it('a sell: the cash it brings, the weight it leaves, and a symbol outside the target at 0', async () => {
    const holder = await proposed({ target_allocation: [{ symbol: 'BND', weight: 1 }] });
    await holder.propose({ symbol: 'VTI', side: 'buy', quantity: '5' }).then(([o]) => approve(holder.token, o!.id));
    const [sell] = await holder.propose({ symbol: 'VTI', side: 'sell', quantity: '2' });
    const answer = (await preview(holder.token, sell!.id)).body;
    // 100 000.00 − 5 × 330.00 = 98 350.00 in cash; selling 2 brings 660.00. 3 left × 330.00 of 100 000.00: 0.0099.
    expect(answer).to.deep.include({ notional: 660, cash: 98350, cash_after: 99010, weight_after: 0.0099, target_weight: 0 });
    const [more] = await holder.propose({ symbol: 'VTI', side: 'sell', quantity: '9' });
    const short = (await preview(holder.token, more!.id)).body;
    expect([short.weight_after, short.decision]).to.deep.equal([0, 'block']);
  });

  it('answers 404 naming what is missing, on an account of the paper broker', async () => {
    const { token, order } = await proposed();
    expect((await preview(token, 'ord_missing')).body.detail).to.equal('There is no order ord_missing.');
    expect((await approve(token, order.id, 'prv_missing')).body.detail).to.equal(`There is no preview prv_missing of order ${order.id}.`);
  });

  it("shows the day's loss that approving would engage the kill switch on, as refused, changing nothing", async () => {
    const { token, order, propose: more, accountId } = await proposed({ limits: { max_daily_loss: 100 } });
    await more({ symbol: 'BND', side: 'buy', quantity: '100' }).then(([o]) => approve(token, o!.id));
    // 100 BND bought at 74.00 today, now at 72.00: 200.00 lost.
    prices.set('BND', '72.00');
    const answer = (await preview(token, order.id)).body;
    expect([answer.decision, answer.checks[0]]).to.deep.equal([
      'refuse',
      {
        check: 'kill_switch',
        passed: false,
        message: "Daily loss 200.00 reached the policy's limit of 100.00. Approving engages the account kill switch.",
      },
    ]);
    const switches = await server.context.store.db.selectFrom('kill_switches').selectAll().where('scope', '=', accountId).execute();
    expect(switches).to.deep.equal([]);
  });

  it('takes a kill switch engaged at the instant of the preview as seen by it: the approval meets the switch, not a stale preview', async () => {
    const { token, order, accountId } = await proposed();
    const { id } = (await preview(token, order.id)).body;
    await engage(server.context.store.db, accountId, 'ops', 'a pause', clock.now());
    const refused = await approve(token, order.id, id);
    expect([refused.status, refused.body.type]).to.deep.equal([409, `${server.url}/problems/kill-switch-engaged`]);
    clock.advance(1);
    const { id: next } = (await preview(token, order.id)).body;
    clock.advance(1);
    const again = await approve(token, order.id, next);
    expect(again.body.type).to.equal(`${server.url}/problems/kill-switch-engaged`);
  });

  it('says in words why a preview is stale: the kill switch engaged since, with its reason', async () => {
    const { token, order, accountId } = await proposed();
    const { id } = (await preview(token, order.id)).body;
    clock.advance(1);
    await engage(server.context.store.db, accountId, 'ops', 'a pause', clock.now());
    expect((await approve(token, order.id, id)).body.detail).to.equal(
      `The preview ${id} is stale: the account kill switch was engaged since (a pause). The order is still proposed; preview it again.`,
    );
  });

  it('records the preview on an approval it blocks, as on one it approves', async () => {
    const { token, order } = await proposed({ limits: { max_order_notional: 1000 } });
    const { id, decision } = (await preview(token, order.id)).body;
    expect(decision).to.equal('block');
    const blocked = await approve(token, order.id, id);
    expect(blocked.status).to.equal(422);
    expect([blocked.body.order.status, blocked.body.order.preview_id, blocked.body.order.events.at(-1).preview_id]).to.deep.equal([
      'blocked',
      id,
      id,
    ]);
  });
});
