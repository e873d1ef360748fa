// Previews of an approval (POST /v1/orders/{id}/preview) and approvals bound to them, over REST: every check an
// approval runs, at a price the test states, changing nothing; an approval with a fresh preview fills and cites it;
// a stale one (expired, another policy version, the price moved, a kill switch engaged since) is refused with 409
// preview-stale and the order stays proposed.
import { expect } from 'chai';
import { sql } from 'kysely';
import { engage } from '../../src/services/kill-switch.js';
import { previewSuite, START } from '../support/previews.js';
import type { TestServer } from '../support/server.js';
import { createPolicy, type PolicyOverrides } from '../support/trading.js';

describe('previews of an approval, and approvals bound to them, over REST', () => {
  const suite = previewSuite();
  const { clock, prices, proposed, preview, approve, order } = suite;
  let server: TestServer;
  before(() => (server = suite.server()));

  /**
   * Every table's content, as a digest per table: what a preview must leave as it was. Aside: the previews, and the
   * webhook worker's own cursor (webhook_dispatch), which moves in the background over events made before.
   */
  async function everything(): Promise<Record<string, string>> {
    const db = server.context.store.db;
    const tables = await sql<{ name: string }>`select table_name as name from information_schema.tables
      where table_schema = 'public' and table_type = 'BASE TABLE' and table_name not in ('order_previews', 'webhook_dispatch') order by 1`.execute(
      db,
    );
    const digests: Record<string, string> = {};
    for (const { name } of tables.rows) {
      const digest = await sql<{
        d: string | null;
      }>`select md5(string_agg(t::text, ',' order by t::text)) as d from ${sql.table(name)} t`.execute(db);
      digests[name] = digest.rows[0]!.d ?? '';
    }
    return digests;
  }

  it('answers every check an approval runs, at the price of the moment, and changes nothing', async () => {
    const { token, order: o } = await proposed();
    const before = await everything();
    const answer = await preview(token, o.id);
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    expect(await everything()).to.deep.equal(before);
    const { id, checks, ...rest } = answer.body;
    expect(id).to.match(/^prv_[0-9a-z]{26}$/);
    expect(rest).to.deep.equal({
      order_id: o.id,
      created_at: START,
      expires_at: '2026-11-20T15:02:00.000Z',
      policy_version: 1,
      price: 330,
      price_as_of: START,
      notional: 3300,
      cash: 100000,
      cash_after: 96700,
      weight_after: 0.033,
      target_weight: 0.6,
      decision: 'approve',
    });
    expect(checks.map((c: any) => [c.check, c.passed])).to.deep.equal([
      ['kill_switch', true],
      ['policy.market', true],
      ['policy.symbol_allowed', true],
      ['policy.symbol_blocked', true],
      ['policy.max_order_notional', true],
      ['policy.max_position_weight', true],
      ['policy.max_daily_notional', true],
      ['risk.buying_power', true],
      ['risk.max_quantity', true],
      ['risk.duplicate_order', true],
      ['risk.stale_price', true],
    ]);
    expect(checks[4].message).to.equal("Order notional 3300.00 is within the policy's maximum of 50000.00.");
    expect((await order(token, o.id)).status).to.equal('proposed');
  });

  it('says when approving would block (naming the notional check) or be refused by a kill switch, still changing nothing', async () => {
    const { token, order: o, accountId } = await proposed({ limits: { max_order_notional: 1000 } });
    const blocked = (await preview(token, o.id)).body;
    expect(blocked.decision).to.equal('block');
    expect(blocked.checks.filter((c: any) => !c.passed)).to.deep.equal([
      { check: 'policy.max_order_notional', passed: false, message: "Order notional 3300.00 exceeds the policy's maximum of 1000.00." },
    ]);
    await engage(server.context.store.db, accountId, 'ops', 'a pause', clock.now());
    const before = await everything();
    const refused = (await preview(token, o.id)).body;
    expect(await everything()).to.deep.equal(before);
    expect([refused.decision, refused.checks[0]]).to.deep.equal([
      'refuse',
      { check: 'kill_switch', passed: false, message: 'The account kill switch is engaged (a pause).' },
    ]);
    expect((await order(token, o.id)).status).to.equal('proposed');
  });

  it('approves with a fresh preview: the order fills and records the preview, as its approval event does', async () => {
    const { token, order: o } = await proposed();
    const { id } = (await preview(token, o.id)).body;
    clock.advance(60_000);
    const approved = await approve(token, o.id, id);
    expect([approved.status, approved.body.status, approved.body.preview_id]).to.deep.equal([200, 'filled', id]);
    expect(approved.body.events.map((e: any) => [e.to, e.preview_id])).to.deep.equal([
      ['proposed', undefined],
      ['submitted', id],
      ['filled', undefined],
    ]);
    expect((await order(token, o.id)).preview_id).to.equal(id);
  });

  it('refuses an approval bound to a stale preview with 409 preview-stale, naming why, and the order stays proposed', async () => {
    const stale = async (change: (holder: Awaited<ReturnType<typeof proposed>>) => Promise<void>, policy: PolicyOverrides = {}) => {
      clock.set(START);
      prices.set('VTI', '330.00');
      const holder = await proposed(policy);
      const { id } = (await preview(holder.token, holder.order.id)).body;
      await change(holder);
      const refused = await approve(holder.token, holder.order.id, id);
      expect(refused.status, JSON.stringify(refused.body)).to.equal(409);
      expect(refused.body.type).to.equal(`${server.url}/problems/preview-stale`);
      expect(refused.body.preview_id).to.equal(id);
      const after = await order(holder.token, holder.order.id);
      expect([after.status, after.events.length, after.preview_id]).to.deep.equal(['proposed', 1, null]);
      return refused.body;
    };
    const expired = await stale(async () => clock.advance(120_000));
    expect(expired.stale_reasons).to.deep.equal(['expired']);
    expect(expired.detail).to.include('it expired at 2026-11-20T15:02:00.000Z');
    const policy = await stale(async ({ token }) => void (await createPolicy(server, token)));
    expect(policy.stale_reasons).to.deep.equal(['policy_changed']);
    expect(policy.detail).to.include('it was made under policy version 1, and version 2 is in force');
    // 330.00 to 333.31: 1.003 %, beyond the 1 % that applies when the policy does not say.
    const moved = await stale(async () => prices.set('VTI', '333.31'));
    expect(moved.stale_reasons).to.deep.equal(['price_moved']);
    expect(moved.detail).to.include("the price of VTI moved from 330.00 to 333.31 (1.00 %, beyond the policy's 1.00 %)");
    const halted = await stale(async ({ accountId }) => {
      clock.advance(1_000);
      await engage(server.context.store.db, accountId, 'ops', 'a pause', clock.now());
    });
    expect(halted.stale_reasons).to.deep.equal(['kill_switch_engaged']);
    const all = await stale(async () => {
      clock.advance(130_000);
      prices.set('VTI', '320.00');
    });
    expect(all.stale_reasons).to.deep.equal(['expired', 'price_moved']);
    expect(all.detail).to.match(/: it expired at [^;]+; the price of VTI moved from 330\.00 to 320\.00 \(/);
  });

  it("lets the price move within the policy's max_price_deviation, and 1 % when it does not say", async () => {
    const wide = await proposed({ limits: { max_price_deviation: 0.05 } });
    const first = (await preview(wide.token, wide.order.id)).body;
    prices.set('VTI', '346.50');
    expect((await approve(wide.token, wide.order.id, first.id)).body.status).to.equal('filled');
    prices.set('VTI', '330.00');
    const narrow = await proposed();
    const second = (await preview(narrow.token, narrow.order.id)).body;
    prices.set('VTI', '333.30');
    expect((await approve(narrow.token, narrow.order.id, second.id)).body.status).to.equal('filled');
  });

  it('answers 404 for a preview of another order or none, and 409 invalid-state for an order no longer proposed', async () => {
    const { token, order: o, propose } = await proposed();
    const [other] = await propose({ symbol: 'BND', side: 'buy', quantity: '1' });
    const theirs = (await preview(token, other!.id)).body.id;
    for (const id of [theirs, 'prv_nothing']) {
      const refused = await approve(token, o.id, id);
      expect([refused.status, refused.body.type]).to.deep.equal([404, `${server.url}/problems/not-found`]);
    }
    expect((await approve(token, o.id)).body.status).to.equal('filled');
    const again = await preview(token, o.id);
    expect([again.status, again.body.type, again.body.current_state]).to.deep.equal([
      409,
      `${server.url}/problems/invalid-state`,
      'filled',
    ]);
    clock.advance(86_400_000);
    const late = await preview(token, other!.id);
    expect([late.status, late.body.current_state]).to.deep.equal([409, 'expired']);
    expect((await preview(token, 'ord_nothing')).status).to.equal(404);
  });

  it('keeps the latest 10 previews of an order', async () => {
    const { token, order: o } = await proposed();
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      clock.advance(1_000);
      ids.push((await preview(token, o.id)).body.id);
    }
    const kept = await server.context.store.db
      .selectFrom('order_previews')
      .select('id')
      .where('order_id', '=', o.id)
      .orderBy('id')
      .execute();
    expect(kept.map((k) => k.id)).to.deep.equal(ids.slice(2));
    expect((await approve(token, o.id, ids[0])).status).to.equal(404);
    expect((await approve(token, o.id, ids[11])).body.status).to.equal('filled');
  });

  it('replays a keyed approval bound to a preview like any other; a preview takes no key', async () => {
    const { token, order: o } = await proposed();
    const headers = { 'Idempotency-Key': `preview-${o.id}` };
    const first = (await server.api.post(`/v1/orders/${o.id}/preview`, { token, headers })).body;
    const second = await server.api.post(`/v1/orders/${o.id}/preview`, { token, headers });
    expect([second.status, second.headers.get('idempotent-replayed')]).to.deep.equal([200, null]);
    expect(second.body.id).to.not.equal(first.id);
    const keyed = () => server.api.post(`/v1/orders/${o.id}/approve`, { token, headers, json: { preview_id: first.id } });
    const approved = await keyed();
    clock.advance(600_000);
    const replay = await keyed();
    expect([replay.status, replay.headers.get('idempotent-replayed')]).to.deep.equal([200, 'true']);
    expect(replay.body).to.deep.equal(approved.body);
    expect([approved.body.status, approved.body.preview_id]).to.deep.equal(['filled', first.id]);
  });
});
