// The dashboard's approvals go through a preview (issue 33): Approve opens the preview of the order (every check, the
// price with its time, the notional, the cash and weight after), the person confirms that preview, and a stale one
// (expired, the price moved, a kill switch engaged since) is refreshed with a note saying what changed while the order
// stays proposed. At a price the test states and on a clock it moves.
import { expect } from 'chai';
import { Visitor } from '../support/dashboard-visitor.js';
import { FixedPrices } from '../support/prices.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { createPolicy, manualClock, propose, type PolicyOverrides } from '../support/trading.js';

const START = '2026-11-20T15:00:00.000Z';

describe('the dashboard: approving what the person was shown, through a preview (HTTP)', () => {
  const clock = manualClock(START);
  const prices = new FixedPrices();
  const password = 'a long and unusual passphrase';
  let server: TestServer;
  let people = 0;

  before(async () => {
    server = await startTestServer({ POW_DIFFICULTY: '6' }, { clock, prices });
  });
  after(() => server?.close());
  beforeEach(() => {
    clock.set(START);
    prices.set('VTI', '330.00');
    prices.set('BND', '74.00');
  });

  /** A person signed in to the dashboard whose account holds a policy (60/40 VTI and BND) and proposed orders. */
  async function person(trades = [{ symbol: 'VTI', side: 'buy' as const, quantity: '10' }], policy: PolicyOverrides = {}) {
    const email = `previewer${++people}@example.com`;
    await server.services.people.setPassword(email, password, 'Mary Jackson');
    const account = await server.account(['read', 'trade'], email);
    await createPolicy(server, account.token, policy);
    const visitor = new Visitor(server.dashboardUrl);
    expect((await visitor.logIn(email, password)).status).to.equal(303);
    const orders = await propose(server, account, trades);
    const order = async (id: string) => (await server.api.get(`/v1/orders/${id}`, { token: account.token })).body;
    return { visitor, account, orders, order };
  }

  /** A page's confirmation forms: the preview each one confirms. */
  const previewIds = (html: string) => [...html.matchAll(/name="preview_id" value="([^"]+)"/g)].map((m) => m[1]!);
  /** What a person reads: the tags dropped (a space each), entities decoded, white space collapsed. */
  const textOf = (html: string) =>
    html
      .replace(/<[^>]+>/g, ' ')
      .replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))
      .replace(/\s+/g, ' ')
      .trim();
  /** The text of the page's alert (what went wrong with the last form). */
  const alertOf = (html: string) => textOf(/<div class="error" role="alert">([\s\S]*?)<\/div>/.exec(html)?.[1] ?? '');

  it(
    'Approve opens the preview: each check, the price with its time, notional, cash after, weight after against the target; ' +
      'confirming approves it and the order cites it',
    async () => {
      const { visitor, orders, order } = await person();
      const id = orders[0]!.id;
      const orderPage = await visitor.page(`/orders/${id}`);
      expect(orderPage.html).to.include(`<form method="get" action="/orders/${id}/preview">`);
      expect(orderPage.html, 'no approval without its preview').to.not.include(`action="/orders/${id}/approve"`);

      const shown = await visitor.page(`/orders/${id}/preview?back=${encodeURIComponent('/orders?status=proposed')}`);
      expect(shown.status).to.equal(200);
      const text = textOf(shown.html);
      expect(text)
        .to.include(`Approve order ${id}?`)
        .and.include('Every check passes.')
        .and.include('Buy 10 VTI (US), market')
        .and.include('USD 330.00, as of 2026-11-20 15:00 UTC')
        .and.include('Notional USD 3,300.00 (the most it can cost)')
        .and.include('Cash now USD 100,000.00')
        .and.include('Cash after USD 96,700.00')
        .and.include('Weight of VTI after 3.3% (your policy’s target is 60.0%)')
        .and.include('Policy version 1')
        .and.include('valid until 2026-11-20 15:02 UTC');
      expect(text)
        .to.include("Largest order your policy allows Passed Order notional 3300.00 is within the policy's maximum of 50000.00.")
        .and.include('Kill switch Passed No kill switch is engaged.')
        .and.not.include('Failed');
      const [previewId] = previewIds(shown.html);
      expect(previewId).to.match(/^prv_/);
      expect((await order(id)).status, 'a preview changes nothing').to.equal('proposed');

      const unseen = await visitor.submit(`/orders/${id}/approve`, { back: '/orders?status=proposed' });
      expect([unseen.status, unseen.headers.get('location')], 'a form without a preview opens one').to.deep.equal([
        303,
        `/orders/${id}/preview?back=%2Forders%3Fstatus%3Dproposed`,
      ]);
      expect((await order(id)).status).to.equal('proposed');

      clock.advance(60_000);
      const approved = await visitor.submit(`/orders/${id}/approve`, { preview_id: previewId!, back: '/orders?status=proposed' });
      expect([approved.status, approved.headers.get('location')]).to.deep.equal([303, `/orders?status=proposed&done=filled&order=${id}`]);
      const filled = await order(id);
      expect([filled.status, filled.preview_id]).to.deep.equal(['filled', previewId]);
      expect(filled.events[1]).to.deep.include({ to: 'submitted', preview_id: previewId, actor: { kind: 'person', name: 'Mary Jackson' } });
    },
  );

  it('refreshes an expired preview with a note saying so, the order still proposed; confirming the fresh one approves', async () => {
    const { visitor, orders, order } = await person();
    const id = orders[0]!.id;
    const [first] = previewIds((await visitor.page(`/orders/${id}/preview`)).html);
    clock.advance(121_000);
    const stale = await visitor.submit(`/orders/${id}/approve`, { preview_id: first! });
    expect(stale.status).to.equal(409);
    const html = await stale.text();
    expect(alertOf(html)).to.equal(
      'Nothing was approved and the order is still proposed, because the preview you confirmed is out of date: ' +
        'it expired at 2026-11-20T15:02:00.000Z. Below is a fresh preview: check it, and confirm again if you still want to approve.',
    );
    expect(html).to.include('valid until <time datetime="2026-11-20T15:04:01.000Z">');
    const [fresh] = previewIds(html);
    expect(fresh).to.match(/^prv_/).and.not.equal(first);
    expect((await order(id)).status).to.equal('proposed');

    const approved = await visitor.submit(`/orders/${id}/approve`, { preview_id: fresh! });
    expect(approved.status).to.equal(303);
    expect((await order(id)).preview_id).to.equal(fresh);
  });

  it('refreshes a preview whose price moved beyond the policy’s limit, saying from what to what, and shows the new price', async () => {
    const { visitor, orders, order } = await person();
    const id = orders[0]!.id;
    const [first] = previewIds((await visitor.page(`/orders/${id}/preview`)).html);
    prices.set('VTI', '336.60');
    const stale = await visitor.submit(`/orders/${id}/approve`, { preview_id: first! });
    expect(stale.status).to.equal(409);
    const html = await stale.text();
    expect(alertOf(html)).to.include(
      "out of date: the price of VTI moved from 330.00 to 336.60 (2.00 %, beyond the policy's 1.00 %). Below is a fresh preview",
    );
    expect(html).to.include('USD 336.60, as of').and.include('USD 3,366.00');
    expect((await order(id)).status).to.equal('proposed');
    const [fresh] = previewIds(html);
    expect((await visitor.submit(`/orders/${id}/approve`, { preview_id: fresh! })).status).to.equal(303);
    expect((await order(id)).status).to.equal('filled');
  });

  it('offers no approval when the preview says it would be blocked, or refused by a kill switch engaged since', async () => {
    const { visitor, account, orders, order } = await person(
      [
        { symbol: 'VTI', side: 'buy', quantity: '10' },
        { symbol: 'BND', side: 'buy', quantity: '1' },
      ],
      { limits: { max_order_notional: 1000 } },
    );
    const [big, small] = orders.map((o) => o.id);
    const blocked = await visitor.page(`/orders/${big}/preview`);
    const text = textOf(blocked.html);
    expect(text)
      .to.include('Approving now would block this order')
      .and.include("Largest order your policy allows Failed Order notional 3300.00 exceeds the policy's maximum of 1000.00.");
    expect(previewIds(blocked.html), 'no Confirm approval').to.deep.equal([]);
    expect(blocked.html).to.include(`action="/orders/${big}/reject"`);

    const [seen] = previewIds((await visitor.page(`/orders/${small}/preview`)).html);
    clock.advance(1_000);
    expect((await server.api.post('/v1/kill-switch', { token: account.token, json: { reason: 'Lunch' } })).status).to.equal(200);
    const refused = await visitor.submit(`/orders/${small}/approve`, { preview_id: seen! });
    expect(refused.status).to.equal(409);
    const html = await refused.text();
    expect(alertOf(html)).to.include('the account kill switch was engaged since (Lunch)');
    expect(html).to.include('Approving now would be refused');
    expect(previewIds(html)).to.deep.equal([]);
    expect((await order(small!)).status).to.equal('proposed');
  });

  it('shows why an approval was blocked when what its preview did not cover changed since (the day’s limit used by another)', async () => {
    const { visitor, orders, order } = await person(
      [
        { symbol: 'VTI', side: 'buy', quantity: '2' },
        { symbol: 'BND', side: 'buy', quantity: '5' },
      ],
      { limits: { max_order_notional: 1000, max_daily_notional: 1000 } },
    );
    const [vti, bnd] = orders.map((o) => o.id);
    const firstPage = (await visitor.page(`/orders/${vti}/preview?back=https://evil.example/`)).html;
    expect(firstPage, 'back only to a page of the dashboard').to.include(`name="back" value="/orders/${vti}"`).and.not.include('evil');
    const [first] = previewIds(firstPage);
    const [second] = previewIds((await visitor.page(`/orders/${bnd}/preview`)).html);
    const approved = await visitor.submit(`/orders/${vti}/approve`, { preview_id: first!, back: `/orders/${vti}` });
    expect(approved.headers.get('location')).to.equal(`/orders/${vti}?done=filled&order=${vti}`);
    const blocked = await visitor.submit(`/orders/${bnd}/approve`, { preview_id: second! });
    expect(blocked.status).to.equal(422);
    expect(textOf(await blocked.text()))
      .to.include('Why it was blocked')
      .and.include('Day’s trading would exceed your policy’s daily limit');
    expect(await order(bnd!)).to.deep.include({ status: 'blocked', preview_id: second });
  });

  it(
    'Approve all shows every proposed order’s preview and confirms each bound to its own; ' +
      'a stale one is refreshed with a note, the others approved',
    async () => {
      const { visitor, orders, order } = await person([
        { symbol: 'VTI', side: 'buy', quantity: '10' },
        { symbol: 'BND', side: 'buy', quantity: '5' },
      ]);
      const [vti, bnd] = orders.map((o) => o.id);
      const ideaId = orders[0]!.idea_id!;
      const previews = await visitor.page(`/ideas/${ideaId}/preview`);
      expect(previews.status).to.equal(200);
      expect(textOf(previews.html))
        .to.include('2 of 2 orders pass every check.')
        .and.include('Buy 10 VTI (US), market')
        .and.include('Buy 5 BND (US), market')
        .and.include('USD 74.00, as of 2026-11-20 15:00 UTC')
        .and.include('Confirm approval of 2 orders');
      const form = [...previews.html.matchAll(/name="order_id" value="([^"]+)"><input type="hidden" name="preview_id" value="([^"]+)"/g)];
      expect(form.map((m) => m[1])).to.deep.equal([vti, bnd]);
      const confirm = { order_id: form.map((m) => m[1]!), preview_id: form.map((m) => m[2]!) };

      prices.set('VTI', '340.00');
      const stale = await visitor.submit(`/ideas/${ideaId}/approve-all`, confirm);
      expect(stale.status).to.equal(409);
      const html = await stale.text();
      expect(html).to.include('Done: 1 filled.');
      expect(alertOf(html)).to.include(
        `One order was not approved and is still proposed, because the preview you confirmed is out of date: for order ${vti}, ` +
          'the price of VTI moved from 330.00 to 340.00',
      );
      expect((await order(bnd!)).preview_id).to.equal(confirm.preview_id[1]);
      expect((await order(vti!)).status).to.equal('proposed');
      const [fresh] = previewIds(html);
      expect(html).to.include('Confirm approval of 1 order').and.include('USD 340.00, as of');

      const done = await visitor.submit(`/ideas/${ideaId}/approve-all`, { order_id: vti!, preview_id: fresh! });
      expect([done.status, done.headers.get('location')]).to.deep.equal([303, `/ideas/${ideaId}?filled=1`]);
      expect((await order(vti!)).preview_id).to.equal(fresh);

      const foreign = await visitor.submit(`/ideas/${ideaId}/approve-all`, { order_id: 'ord_other', preview_id: fresh! });
      expect(foreign.status, 'only the orders of the idea').to.equal(400);
    },
  );
});
