import { expect } from 'chai';
import { Visitor } from '../support/dashboard-visitor.js';
import { AdjustablePrices } from '../support/prices.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { createPolicy, propose } from '../support/trading.js';

/**
 * The dashboard runs its forms through the application's pipeline, as the API does: the service's rules decide (the
 * same on every channel), a problem is the form's error with the form's own field names, and a failure of the
 * service is the error page.
 */
describe('the dashboard’s forms through the pipeline: the service’s rules, the form’s field names, the error page (HTTP)', () => {
  let server: TestServer;
  const prices = new AdjustablePrices();
  const password = 'a long and unusual passphrase';
  let people = 0;

  before(async () => {
    server = await startTestServer({ POW_DIFFICULTY: '6' }, { prices });
  });
  beforeEach(() => prices.reset());
  after(() => server.close());

  async function person(userAgent?: string) {
    const email = `problems${++people}@example.com`;
    await server.services.people.setPassword(email, password, 'Dorothy Vaughan');
    const account = await server.account(['read', 'trade'], email);
    const visitor = new Visitor(server.dashboardUrl, userAgent);
    expect((await visitor.logIn(email, password)).status).to.equal(303);
    return { visitor, account };
  }

  const policyForm = (overrides: Record<string, string | string[]> = {}) => ({
    max_order_notional: '10000',
    max_position_weight: '70',
    max_daily_notional: '50000',
    max_daily_loss: '5000',
    allowed_markets: 'US',
    rebalance_band: '5',
    target_symbol: ['VTI', 'BND', 'GLD'],
    target_percent: ['33.3333333333', '33.3333333333', '33.3333333333'],
    consent_accepted: 'yes',
    signer_name: 'Dorothy Vaughan',
    ...overrides,
  });

  it('accepts weights that sum to 100 % within the service’s tolerance (three times 33.3333333333 %), as REST does', async () => {
    const { visitor, account } = await person();
    const signed = await visitor.submit('/policy', policyForm(), '/policy');
    expect(signed.status, await signed.clone().text()).to.equal(303);
    const policy = (await server.api.get('/v1/policies/current', { token: account.token })).body;
    expect(policy.target_allocation.map((t: { weight: number }) => t.weight)).to.deep.equal([
      0.333333333333, 0.333333333333, 0.333333333333,
    ]);

    const disclosure = (await server.api.get('/v1/disclosures/current', { token: account.token })).body;
    const overRest = await server.api.post('/v1/policies', {
      token: account.token,
      json: {
        limits: policy.limits,
        target_allocation: policy.target_allocation,
        consent: { disclosure_version: disclosure.version, accepted: true, signer_name: 'Dorothy Vaughan' },
      },
    });
    expect(overRest.status).to.equal(201);
  });

  it('keeps at most 512 characters of a User-Agent with a consent record and a session, as the API does', async () => {
    const { visitor, account } = await person('b'.repeat(5000));
    expect((await visitor.submit('/policy', policyForm(), '/policy')).status).to.equal(303);
    const policy = (await server.api.get('/v1/policies/current', { token: account.token })).body;
    expect(policy.consent.user_agent).to.equal('b'.repeat(512));
    const sessions = await server.context.store.db
      .selectFrom('dashboard_sessions')
      .select('user_agent')
      .where('account_id', '=', account.accountId)
      .execute();
    expect(sessions.map((s) => s.user_agent)).to.deep.equal(['b'.repeat(512)]);
  });

  it('names the form’s fields in a problem of the contract, where the API names its pointers, and stores nothing', async () => {
    const { visitor, account } = await person();
    const refused = await visitor.submit(
      '/policy',
      policyForm({ max_order_notional: '0', target_symbol: ['VTI', ''], target_percent: ['150', '10'] }),
      '/policy',
    );
    expect(refused.status).to.equal(400);
    const alert = /<div class="error" role="alert">([\s\S]*?)<\/div>/.exec(await refused.text())![1]!;
    expect(alert).to.include('The request has 3 invalid fields');
    expect(alert)
      .to.include('<strong>Largest order</strong> must be &#62;= 0.01')
      .and.include('<strong>Allocation row 1: weight (a fraction here: 1 is 100 %)</strong> must be &#60;= 1')
      .and.include('<strong>Allocation row 2: symbol</strong> is required');
    expect(alert).to.not.include('max_order_notional').and.not.include('target_allocation');
    expect((await server.api.get('/v1/policies/current', { token: account.token })).status, 'nothing stored').to.equal(404);
  });

  it('asks for the proof of work first, whatever else is wrong with the form, as REST does', async () => {
    const visitor = new Visitor(server.dashboardUrl);
    const csrf = await visitor.csrf('/contact');
    const empty = await visitor.post('/contact', { _csrf: csrf, name: 'Ann', email: 'not an address', message: '' });
    expect(empty.status).to.equal(400);
    expect(await empty.text()).to.include('This request needs a solved proof-of-work challenge.');
    const overRest = await server.api.post('/v1/contact', { json: { name: 'Ann', email: 'not an address', message: '' } });
    expect(overRest.status).to.equal(400);
    expect(overRest.body.type).to.match(/\/challenge-missing$/);
  });

  it('shows the error page, not the form, when the service fails (5xx), and nothing internal', async () => {
    const { visitor, account } = await person();
    await createPolicy(server, account.token);
    const [order] = await propose(server, account, [{ symbol: 'VTI', side: 'buy', quantity: '1' }]);
    prices.failing = true;
    for (const path of [`/orders/${order!.id}/preview`, `/ideas/${order!.idea_id}/preview`]) {
      const failed = await visitor.fetch(path);
      expect(failed.status, path).to.equal(500);
      const page = await failed.text();
      expect(page, path).to.include('<title>Something went wrong').and.include('An unexpected error occurred; it has been logged.');
      expect(page, path)
        .to.not.include('price feed')
        .and.not.include('Your decision')
        .and.not.match(/\bat \S+\.ts:\d+/);
    }
    prices.failing = false;
    expect((await server.api.get(`/v1/orders/${order!.id}`, { token: account.token })).body.status).to.equal('proposed');
  });
});
