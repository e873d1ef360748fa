import { expect } from 'chai';
import { solveChallenge } from '../../scripts/solve-challenge.js';
import { Visitor } from '../support/dashboard-visitor.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { createPolicy, propose } from '../support/trading.js';

/** What a person decides and signs in the dashboard, over plain HTTP: the same use cases as the API, recorded as theirs. */
describe('the dashboard: decisions, policy signing, the kill switch banner, contact (HTTP)', () => {
  let server: TestServer;
  const password = 'a long and unusual passphrase';
  let people = 0;

  before(async () => {
    server = await startTestServer({ POW_DIFFICULTY: '6' });
  });
  after(() => server.close());

  /** A person signed in to the dashboard, with an API client (read trade) on the same account. */
  async function person(name = 'Katherine Johnson') {
    const email = `person${++people}@example.com`;
    await server.services.people.setPassword(email, password, name);
    const account = await server.account(['read', 'trade'], email);
    const visitor = new Visitor(server.dashboardUrl);
    expect((await visitor.logIn(email, password)).status).to.equal(303);
    return { visitor, account };
  }
  const noClientId = (html: string) => expect(html).to.not.match(/ias_client_/);
  /** The previews a page's confirmation forms carry (test/http/dashboard-previews.test.ts tests the previews themselves). */
  const previewIds = (html: string) => [...html.matchAll(/name="preview_id" value="([^"]+)"/g)].map((m) => m[1]!);

  /** Approves as the person does: Approve opens the order's preview, and they confirm it. */
  async function approveAsShown(visitor: Visitor, orderId: string, back: string) {
    const { html } = await visitor.page(`/orders/${orderId}/preview?back=${encodeURIComponent(back)}`);
    const [previewId] = previewIds(html);
    expect(previewId, 'the preview offers Confirm approval').to.be.a('string');
    return visitor.submit(`/orders/${orderId}/approve`, { preview_id: previewId!, back });
  }

  it(
    'approves (confirming its preview) and rejects as the person, by name, through the same use case as the API; ' +
      'a blocked order shows each failed check in words',
    async () => {
      const { visitor, account } = await person();
      await createPolicy(server, account.token, { limits: { max_order_notional: 5000 } });
      const [small, other, big] = await propose(server, account, [
        { symbol: 'VTI', side: 'buy', quantity: '2' },
        { symbol: 'BND', side: 'buy', quantity: '3' },
        { symbol: 'VTI', side: 'buy', quantity: '100' },
      ]);

      const approved = await approveAsShown(visitor, small!.id, '/orders?status=proposed');
      expect(approved.status).to.equal(303);
      expect(approved.headers.get('location')).to.equal(`/orders?status=proposed&done=filled&order=${small!.id}`);
      const rejected = await visitor.submit(`/orders/${other!.id}/reject`, { reason: 'Not this week', back: 'https://evil.example/' });
      expect(rejected.headers.get('location'), 'back only to a page of the dashboard').to.equal(
        `/orders/${other!.id}?done=rejected&order=${other!.id}`,
      );

      const filled = (await server.api.get(`/v1/orders/${small!.id}`, { token: account.token })).body;
      expect(filled.status).to.equal('filled');
      expect(filled.events.map((e: { actor: { kind: string; name: string } }) => e.actor)).to.deep.equal([
        { kind: 'client', name: 'API client' },
        { kind: 'person', name: 'Katherine Johnson' },
        { kind: 'system', name: 'the service' },
      ]);
      const refused = (await server.api.get(`/v1/orders/${other!.id}`, { token: account.token })).body;
      expect(refused.events.at(-1)).to.deep.include({
        to: 'rejected',
        client_id: 'dashboard',
        actor: { kind: 'person', name: 'Katherine Johnson' },
        reason: 'Not this week',
      });

      expect((await server.api.post(`/v1/orders/${big!.id}/approve`, { token: account.token })).status).to.equal(422);
      const page = (await visitor.page(`/orders/${big!.id}`)).html;
      expect(page).to.include('Why it was blocked').and.include('Order larger than your policy allows');

      const list = await visitor.page('/orders');
      expect(list.html).to.include('Katherine Johnson').and.include('API client (API client)');
      noClientId(list.html);
      const order = await visitor.page(`/orders/${small!.id}`);
      expect(order.html).to.include('What happened').and.include('Katherine Johnson');
      noClientId(order.html);
      const filtered = await visitor.page('/orders?status=blocked');
      expect(filtered.html).to.include(big!.id).and.not.include(small!.id);
    },
  );

  it('pages orders 20 at a time, newest first', async () => {
    const { visitor, account } = await person();
    await createPolicy(server, account.token);
    const orders = await propose(
      server,
      account,
      Array.from({ length: 23 }, () => ({ symbol: 'BND', side: 'buy' as const, quantity: '1' })),
    );
    const first = await visitor.page('/orders');
    const older = /href="(\/orders\?cursor=[^"]+)">Older orders/.exec(first.html)?.[1];
    expect(older).to.be.a('string');
    const second = await visitor.page(older!.replace(/&amp;/g, '&'));
    expect(second.html).to.include(orders[0]!.id).and.not.include(orders[22]!.id);
  });

  it('approves (confirming their previews) or rejects every proposed order of an idea at once', async () => {
    const { visitor, account } = await person();
    await createPolicy(server, account.token);
    const generated = await server.api.post('/v1/ideas/generate', { token: account.token, json: { mode: 'invest_cash', market: 'US' } });
    const idea = generated.body.ideas[0];
    const unseen = await visitor.submit(`/ideas/${idea.id}/approve-all`, {});
    expect([unseen.status, unseen.headers.get('location')], 'the previews come first').to.deep.equal([303, `/ideas/${idea.id}/preview`]);
    const previews = (await visitor.page(`/ideas/${idea.id}/preview`)).html;
    const form = [...previews.matchAll(/name="order_id" value="([^"]+)"><input type="hidden" name="preview_id" value="([^"]+)"/g)];
    expect(form.map((m) => m[1])).to.deep.equal(idea.orders.map((o: { id: string }) => o.id));
    const done = await visitor.submit(`/ideas/${idea.id}/approve-all`, {
      order_id: form.map((m) => m[1]!),
      preview_id: form.map((m) => m[2]!),
    });
    expect(done.status).to.equal(303);
    expect(done.headers.get('location')).to.equal(`/ideas/${idea.id}?filled=${idea.orders.length}`);
    for (const [, orderId, previewId] of form)
      expect((await server.api.get(`/v1/orders/${orderId}`, { token: account.token })).body.preview_id).to.equal(previewId);
    const page = await visitor.page(done.headers.get('location')!);
    expect(page.html).to.include(`Done: ${idea.orders.length} filled.`);
    noClientId(page.html);

    const next = (await server.api.post('/v1/ideas/generate', { token: account.token, json: { mode: 'rebalance', market: 'US' } })).body
      .ideas[0];
    if (next) {
      await visitor.submit(`/ideas/${next.id}/reject-all`, { reason: 'Later' });
      const orders = (await server.api.get(`/v1/ideas/${next.id}`, { token: account.token })).body.orders;
      for (const o of orders) expect(o.status).to.equal('rejected');
    }
  });

  it(
    'signs a policy from percentages and a typed full name; the service refuses a sum other than 100 % ' +
      'and a signature without a letter, storing nothing',
    async () => {
      const { visitor, account } = await person();
      const form = (overrides: Record<string, string | string[]> = {}) => ({
        max_order_notional: '10,000',
        max_position_weight: '70',
        max_daily_notional: '50000',
        max_daily_loss: '5000',
        allowed_markets: 'US',
        rebalance_band: '5',
        target_symbol: ['VTI', 'BND', 'vxus', ''],
        target_percent: ['33.3', '33.3', '33.4', ''],
        consent_accepted: 'yes',
        signer_name: 'Katherine Johnson',
        ...overrides,
      });
      const short = await visitor.submit('/policy', form({ target_percent: ['33.3', '33.3', '30', ''] }), '/policy');
      expect(short.status).to.equal(422);
      expect(await short.text()).to.include('Target weights sum to 0.966 (96.6 %); they must sum to 1 (100 %)');
      const unsigned = await visitor.submit('/policy', form({ signer_name: '1234' }), '/policy');
      expect(unsigned.status).to.equal(400);
      expect(await unsigned.text()).to.include('<strong>Signature</strong> must be a name: it holds no letter');
      expect((await server.api.get('/v1/policies/current', { token: account.token })).status, 'nothing stored').to.equal(404);

      const signed = await visitor.submit('/policy', form(), '/policy');
      expect(signed.status).to.equal(303);
      const policy = (await server.api.get('/v1/policies/current', { token: account.token })).body;
      expect(policy.target_allocation).to.deep.equal([
        { symbol: 'VTI', weight: 0.333 },
        { symbol: 'BND', weight: 0.333 },
        { symbol: 'VXUS', weight: 0.334 },
      ]);
      expect(policy.limits).to.include({ max_order_notional: 10000, max_position_weight: 0.7 });
      expect(policy.consent.signer_name).to.equal('Katherine Johnson');
      const page = await visitor.page('/policy');
      expect(page.html).to.include('USD 10,000.00').and.include('70.0%').and.include('value=""');
      expect(page.html).to.not.include('# Investment advisory disclosure');
    },
  );

  it('shows the kill switch the API engaged on every page, by the client’s name, and hides Engage while it is on', async () => {
    const { visitor, account } = await person();
    expect((await server.api.post('/v1/kill-switch', { token: account.token, json: { reason: 'Quarterly review' } })).status).to.equal(200);
    for (const path of ['/overview', '/orders', '/ideas', '/policy', '/safety', '/developer']) {
      const { html } = await visitor.page(path);
      expect(html, path).to.include('kill switch is engaged').and.include('API client (API client)').and.include('Quarterly review');
      if (path !== '/developer') noClientId(html);
    }
    const safety = await visitor.page('/safety');
    expect(safety.html).to.not.include('Engage kill switch');
    expect(safety.html).to.include('Engagements and releases');
  });

  it('takes a Contact message with a solved proof of work, and says it was received', async () => {
    const visitor = new Visitor(server.dashboardUrl);
    const csrf = await visitor.csrf('/contact');
    const without = await visitor.post('/contact', { _csrf: csrf, name: 'Ann', email: 'ann@example.org', message: 'Hello' });
    expect(without.status).to.equal(400);
    const issued = (await (await visitor.fetch('/challenge?purpose=contact')).json()) as { challenge: string; difficulty: number };
    const sent = await visitor.post('/contact', {
      _csrf: csrf,
      name: 'Ann',
      email: 'ann@example.org',
      message: 'Hello',
      challenge_solution: solveChallenge(issued.challenge, issued.difficulty),
    });
    expect(sent.status).to.equal(303);
    const confirmation = await visitor.page(sent.headers.get('location')!);
    expect(confirmation.html).to.include('Thank you: your message has reached the team.');
    const stored = await server.services.people.contactMessages();
    expect(stored.some((m) => m.email === 'ann@example.org' && m.message === 'Hello')).to.equal(true);
  });
});
