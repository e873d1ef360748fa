import { expect } from 'chai';
import { Visitor } from '../support/dashboard-visitor.js';
import { startTestServer, type TestServer } from '../support/server.js';

describe('dashboard sessions, CSRF and headers (HTTP)', () => {
  let server: TestServer;
  const password = 'a long and unusual passphrase';

  before(async () => {
    server = await startTestServer({ POW_DIFFICULTY: '6' });
  });
  after(() => server.close());

  it('serves pages with a strict CSP, sets HttpOnly SameSite=Strict cookies, and rotates the session at every login', async () => {
    await server.services.people.setPassword('rotate@example.com', password);
    const visitor = new Visitor(server.dashboardUrl);
    const loginPage = await visitor.fetch('/login');
    expect(loginPage.headers.get('content-security-policy'))
      .to.include("default-src 'self'")
      .and.include("script-src 'self'")
      .and.include("form-action 'self'")
      .and.include("frame-ancestors 'none'");
    expect(loginPage.headers.get('cache-control')).to.equal('no-store');

    const first = await visitor.logIn('rotate@example.com', password);
    expect(first.status).to.equal(303);
    expect(first.headers.get('location')).to.equal('/overview');
    const cookie = visitor.lastSetCookie.find((c) => c.startsWith('ias_session='))!;
    expect(cookie)
      .to.match(/HttpOnly/i)
      .and.match(/SameSite=Strict/i)
      .and.not.match(/Secure/i);
    const firstToken = visitor.cookies.get('ias_session')!;
    expect((await visitor.fetch('/developer')).status).to.equal(200);

    // A second login (same browser) ends the first session: the old token no longer opens anything.
    expect((await visitor.logIn('rotate@example.com', password, '/developer')).status).to.equal(303);
    expect(visitor.cookies.get('ias_session')).to.not.equal(firstToken);
    const stale = new Visitor(server.dashboardUrl);
    stale.cookies.set('ias_session', firstToken);
    expect((await stale.fetch('/developer')).headers.get('location')).to.equal('/login');

    // Logging out deletes the session.
    const current = visitor.cookies.get('ias_session')!;
    expect((await visitor.post('/logout', { _csrf: await visitor.csrf('/developer') })).status).to.equal(303);
    expect(await server.services.sessions.authenticate(current)).to.equal(null);
  });

  it('refuses a form without the CSRF token of its session, and any request carrying a bearer token', async () => {
    await server.services.people.setPassword('csrf@example.com', password);
    const visitor = new Visitor(server.dashboardUrl);
    await visitor.logIn('csrf@example.com', password);
    const forged = await visitor.post('/safety/engage', { reason: 'forged' });
    expect(forged.status).to.equal(403);
    const otherSession = new Visitor(server.dashboardUrl);
    const foreignToken = await otherSession.csrf('/login');
    expect((await visitor.post('/safety/engage', { reason: 'forged', _csrf: foreignToken })).status).to.equal(403);
    expect((await visitor.post('/safety/engage', { reason: 'real', _csrf: await visitor.csrf('/safety') })).status).to.equal(303);

    const token = await server.token(['read']);
    const bearer = await visitor.fetch('/overview', { headers: { authorization: `Bearer ${token}` } });
    expect(bearer.status).to.equal(401);
    expect(await bearer.text()).to.include('Bearer tokens are not accepted here');
  });

  it('never adopts a pre-session a client chose: it issues its own, whose CSRF token the chosen value cannot give', async () => {
    // The attacker's planted cookie, in the form the service's own had before (43 base64url characters).
    const planted = 'A'.repeat(43);
    const victim = new Visitor(server.dashboardUrl);
    victim.cookies.set('ias_pre', planted);
    const token = await victim.csrf('/login');
    const issued = victim.cookies.get('ias_pre')!;
    expect(issued).to.not.equal(planted);
    expect(token).to.not.equal(server.services.sessions.csrfToken(planted));
    // The one it issued is kept: no new cookie on the next page.
    await victim.fetch('/login');
    expect(victim.lastSetCookie.filter((c) => c.startsWith('ias_pre='))).to.deep.equal([]);
    expect(victim.cookies.get('ias_pre')).to.equal(issued);
  });

  it('manages only the signed-in account’s own clients', async () => {
    const other = await server.createClient(['read'], 'other.holder@example.com');
    await server.services.people.setPassword('owner@example.com', password);
    const visitor = new Visitor(server.dashboardUrl);
    await visitor.logIn('owner@example.com', password);
    const csrf = await visitor.csrf('/developer');
    expect((await visitor.post(`/developer/clients/${other.client_id}/revoke`, { _csrf: csrf })).status).to.equal(404);
    expect((await visitor.post(`/developer/clients/${other.client_id}/rotate`, { _csrf: csrf })).status).to.equal(404);
    expect((await visitor.fetch(`/developer/clients/${other.client_id}/revoke`)).status).to.equal(404);
    expect(
      (
        await server.api.post('/oauth/token', {
          form: { grant_type: 'client_credentials', client_id: other.client_id, client_secret: other.client_secret },
        })
      ).status,
    ).to.equal(200);
  });
});

describe('dashboard served over https (DASHBOARD_URL)', () => {
  it('marks session cookies Secure with the __Host- prefix', async () => {
    const server = await startTestServer({ POW_DIFFICULTY: '6', DASHBOARD_URL: 'https://dashboard.example.com' });
    try {
      const visitor = new Visitor(server.dashboardUrl);
      await visitor.fetch('/login');
      expect(visitor.lastSetCookie[0])
        .to.match(/^__Host-ias_pre=/)
        .and.match(/Secure/i)
        .and.match(/Path=\//);
      await server.services.people.setPassword('secure@example.com', password());
      await visitor.logIn('secure@example.com', password());
      expect(visitor.lastSetCookie.find((c) => c.startsWith('__Host-ias_session=')))
        .to.match(/Secure/i)
        .and.match(/HttpOnly/i);
    } finally {
      await server.close();
    }
  });
  const password = () => 'a long and unusual passphrase';
});
