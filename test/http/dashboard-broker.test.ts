import { expect } from 'chai';
import { Visitor } from '../support/dashboard-visitor.js';
import { AlpacaStandIn } from '../support/alpaca-stand-in.js';
import { startTestServer, type TestServer } from '../support/server.js';

const SECRET = 'page-secret-9f8e7d6c5b4a39281706f5e4d3c2b1a0';
const KEY_ID = 'PKPAGE0123456789ABCD';
const PASSWORD = 'a long and unusual passphrase';

describe('dashboard: the Broker page (HTTP)', () => {
  let server: TestServer;
  let alpaca: AlpacaStandIn;
  let accountNumber: string;
  let people = 0;
  const alpacaEnv = () => ({ ALPACA_PAPER_URL: alpaca.tradingUrl, ALPACA_DATA_URL: alpaca.dataUrl, BROKER_TIMEOUT_MS: '1000' });

  before(async () => {
    alpaca = await AlpacaStandIn.start();
    accountNumber = alpaca.addAccount({ keyId: KEY_ID, secretKey: SECRET, cash: '100000' }).accountNumber;
    server = await startTestServer({ POW_DIFFICULTY: '6', ...alpacaEnv() });
  });
  after(async () => {
    await server?.close();
    await alpaca?.close();
  });
  afterEach(() => alpaca.up());

  async function holder(): Promise<Visitor> {
    const email = `broker-page-${++people}@example.com`;
    await server.services.people.setPassword(email, PASSWORD);
    const visitor = new Visitor(server.dashboardUrl);
    expect((await visitor.logIn(email, PASSWORD)).status).to.equal(303);
    return visitor;
  }

  const connectForm = (form: Record<string, string> = {}) => ({
    broker: 'alpaca',
    key_id: KEY_ID,
    secret_key: SECRET,
    environment: 'paper',
    ...form,
  });

  it('is in the navigation, and offers a form with the key ID, the secret key and paper or live (live off here, said why)', async () => {
    const visitor = await holder();
    const overview = await visitor.page('/overview');
    expect(overview.html).to.include('<a href="/broker">Broker</a>');
    const { status, html } = await visitor.page('/broker');
    expect(status).to.equal(200);
    expect(html).to.include('<a href="/broker" aria-current="page">Broker</a>');
    expect(html).to.include('Not connected').and.include('name="_csrf"');
    expect(html).to.match(/<input id="key-id" name="key_id"/);
    expect(html).to.match(/<input id="secret-key" name="secret_key" type="password"/);
    expect(html).to.match(/id="environment-paper" name="environment" value="paper" checked/);
    expect(html).to.match(/id="environment-live" name="environment" value="live" disabled/);
    expect(html).to.include('ALPACA_LIVE_ENABLED=true');
    expect(html, 'the tests derive their key, as --demo does').to.match(/fixed demonstration key that protects\s+nothing/);
  });

  it('connects with keys Alpaca accepts, shows the connection and never the secret key', async () => {
    const visitor = await holder();
    const posted = await visitor.submit('/broker', connectForm(), '/broker');
    expect(posted.status).to.equal(303);
    expect(posted.headers.get('location')).to.equal('/broker?done=connected');
    const { html } = await visitor.page('/broker?done=connected');
    expect(html).to.include('Connected: the keys were checked with Alpaca.');
    expect(html).to.include(`<code>${KEY_ID}</code>`).and.include(`<code>${accountNumber}</code>`).and.include('<dd>Paper</dd>');
    expect(html).to.include('Disconnect').and.include('Connect other keys');
    expect(html).to.not.include(SECRET);
  });

  it('shows refused keys as the form’s error, keeps the key ID typed and drops the secret key', async () => {
    const visitor = await holder();
    const refused = await visitor.submit('/broker', connectForm({ secret_key: 'not-the-secret-at-all' }), '/broker');
    expect(refused.status).to.equal(422);
    const html = await refused.text();
    expect(html).to.include('role="alert"').and.include('Alpaca refused the API key ID and secret key for a paper account.');
    expect(html).to.include(`value="${KEY_ID}"`);
    expect(html).to.not.include('not-the-secret-at-all');
    expect(html).to.include('Not connected');
  });

  it('names an empty field by its label', async () => {
    const visitor = await holder();
    const refused = await visitor.submit('/broker', connectForm({ key_id: '' }), '/broker');
    expect(refused.status).to.equal(400);
    expect(await refused.text()).to.include('<strong>API key ID</strong> must be the API key ID the broker shows');
  });

  it('refuses live keys while live trading is off, whatever the form sent', async () => {
    const visitor = await holder();
    const refused = await visitor.submit('/broker', connectForm({ environment: 'live' }), '/broker');
    expect(refused.status).to.equal(422);
    expect(await refused.text()).to.include('Live trading is off on this service');
  });

  it('answers the error page with Retry-After when Alpaca does not answer', async () => {
    const visitor = await holder();
    alpaca.down();
    const failed = await visitor.submit('/broker', connectForm(), '/broker');
    expect(failed.status).to.equal(503);
    expect(failed.headers.get('retry-after')).to.equal('5');
    const html = await failed.text();
    expect(html).to.include('Something went wrong').and.include('Alpaca did not answer in time');
    expect(html).to.not.include(SECRET);
  });

  it('refuses a form without its session’s CSRF token', async () => {
    const visitor = await holder();
    expect((await visitor.post('/broker', connectForm())).status).to.equal(403);
    expect((await visitor.post('/broker/disconnect', {})).status).to.equal(403);
    expect((await visitor.page('/broker')).html).to.include('Not connected');
  });

  it('disconnects: the keys are deleted and the page offers to connect again', async () => {
    const visitor = await holder();
    await visitor.submit('/broker', connectForm(), '/broker');
    const disconnected = await visitor.submit('/broker/disconnect', {}, '/broker');
    expect(disconnected.status).to.equal(303);
    expect(disconnected.headers.get('location')).to.equal('/broker?done=disconnected');
    const { html } = await visitor.page('/broker?done=disconnected');
    expect(html).to.include('Disconnected: the keys were deleted').and.include('Not connected').and.include('Connect an Alpaca account');
    expect(html).to.not.include(KEY_ID);
  });

  it('sends a visitor without a session to log in', async () => {
    const response = await new Visitor(server.dashboardUrl).fetch('/broker');
    expect(response.status).to.equal(303);
    expect(response.headers.get('location')).to.equal('/login');
  });

  describe('when the operator enables live trading', () => {
    let live: TestServer;
    before(async () => {
      // One stand-in serves as both Alpacas here: what tells paper from live is the URL, tested in broker-connections.test.ts.
      live = await startTestServer({
        POW_DIFFICULTY: '6',
        ALPACA_LIVE_ENABLED: 'true',
        ...alpacaEnv(),
        ALPACA_LIVE_URL: alpaca.tradingUrl,
      });
    });
    after(() => live?.close());

    it('offers live, and connects live keys as a live account', async () => {
      alpaca.addAccount({ keyId: 'AKLIVEPAGE', secretKey: SECRET, cash: '1000' });
      await live.services.people.setPassword('live-page@example.com', PASSWORD);
      const visitor = new Visitor(live.dashboardUrl);
      await visitor.logIn('live-page@example.com', PASSWORD);
      expect((await visitor.page('/broker')).html).to.match(/id="environment-live" name="environment" value="live" aria-describedby/);
      const posted = await visitor.submit('/broker', connectForm({ key_id: 'AKLIVEPAGE', environment: 'live' }), '/broker');
      expect(posted.status).to.equal(303);
      expect((await visitor.page('/broker')).html).to.include('<dd>Live (real money)</dd>');
    });
  });
});
