import { mkdirSync } from 'node:fs';
import { expect } from 'chai';
import * as oauth from 'oauth4webapi';
import type { Browser, Page } from 'playwright-core';
import { axeViolations, launchChromium } from '../support/browser.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { expectReadableValueChart } from '../support/value-chart.js';

/** Debian's Chromium; CI installs it when missing. No browser is ever downloaded. */
/** Screenshots for a reviewer to look at; git-ignored. */
const SCREENSHOTS = 'test-results/dashboard';
const WAIT = { timeout: 20_000 };
const insecure = { [oauth.allowInsecureRequests]: true };

describe('the dashboard in a headless browser', function () {
  this.timeout(180_000);

  let server: TestServer;
  let browser: Browser;
  let page: Page;
  let as: oauth.AuthorizationServer;
  const requests: string[] = [];
  const pageErrors: string[] = [];
  const consoleErrors: string[] = [];
  const audited: string[] = [];

  before(async function () {
    mkdirSync(SCREENSHOTS, { recursive: true });
    // The default proof-of-work difficulty: the page solves it as a person's browser would.
    server = await startTestServer();
    as = await oauth.processDiscoveryResponse(
      new URL(server.url),
      await oauth.discoveryRequest(new URL(server.url), { algorithm: 'oauth2', ...insecure }),
    );
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    page.on('request', (request) => requests.push(request.url()));
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  /** axe-core finds no serious or critical violation, and a screenshot is kept. */
  async function audit(name: string) {
    const violations = await axeViolations(page);
    expect(violations, `accessibility of ${name}`).to.deep.equal([]);
    await page.screenshot({ path: `${SCREENSHOTS}/${String(audited.length + 1).padStart(2, '0')}-${name}.png`, fullPage: true });
    // Usable on a phone: nothing scrolls sideways at 390 px.
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate(() => document.scrollingElement!.scrollWidth), `${name} at 390 px`).to.be.at.most(390);
    await page.setViewportSize({ width: 1280, height: 1000 });
    audited.push(name);
  }

  async function token(clientId: string, secret: string, scope?: string) {
    const response = await oauth.clientCredentialsGrantRequest(
      as,
      { client_id: clientId },
      oauth.ClientSecretBasic(secret),
      scope ? { scope } : {},
      insecure,
    );
    return oauth.processClientCredentialsResponse(as, { client_id: clientId }, response);
  }

  async function refused(clientId: string, secret: string) {
    try {
      await token(clientId, secret);
    } catch (error) {
      return error;
    }
    throw new Error('the secret still works');
  }

  async function createClient(name: string, scopes: string[]) {
    await page.getByRole('link', { name: 'Developer' }).click();
    await page.getByLabel('Name', { exact: true }).fill(name);
    for (const scope of ['read', 'write', 'trade', 'mcp']) await page.getByLabel(scope, { exact: true }).setChecked(scopes.includes(scope));
    await page.getByRole('button', { name: 'Create client' }).click();
    await page.getByLabel('Client secret').waitFor(WAIT);
    return { id: await page.getByLabel('Client ID').inputValue(), secret: await page.getByLabel('Client secret').inputValue() };
  }

  it('signs up, logs in, creates, rotates and revokes a client, signs a policy, and releases a kill switch the API engaged', async () => {
    const dashboard = server.dashboardUrl;
    const email = `person.${Date.now()}@example.com`;
    const password = 'a long and unusual passphrase';

    // Sign up: the page solves the proof-of-work challenge (default difficulty) before it submits.
    await page.goto(`${dashboard}/signup`);
    await audit('signup');
    await page.getByLabel('Your name').fill('Ada Lovelace');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.waitForURL(`${dashboard}/login?created=1`, WAIT);
    await audit('login');

    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`${dashboard}/overview`, WAIT);
    await audit('overview-empty');
    // A new account's value is flat: drawn at its height above zero, its labels apart, at both widths.
    await expectReadableValueChart(page, `${SCREENSHOTS}/value-chart-flat`, { flat: true });

    // Developer → Create client (read + trade): the secret is shown once, in a field labelled "Client secret".
    await page.getByRole('link', { name: 'Developer' }).click();
    expect(await page.getByLabel('read', { exact: true }).isChecked(), 'the narrowest scope is preselected').to.equal(true);
    expect(await page.getByLabel('trade', { exact: true }).isChecked()).to.equal(false);
    const first = await createClient('Robo-advisor', ['read', 'trade']);
    expect(first.secret).to.match(/^ias_secret_/);
    await audit('developer-secret-shown');

    const granted = await token(first.id, first.secret);
    expect(granted.scope).to.equal('read trade');
    const issued = await token(first.id, first.secret, 'read');
    expect((await server.api.get('/v1/portfolio?market=US', { token: issued.access_token })).status).to.equal(200);
    const beyond = await token(first.id, first.secret, 'write').catch((error: unknown) => error);
    expect(beyond).to.be.instanceOf(oauth.ResponseBodyError);

    // A reload does not show the secret again.
    await page.reload();
    expect(await page.getByLabel('Client secret').count()).to.equal(0);
    expect(await page.content()).to.not.include(first.secret);
    const row = page.getByRole('row').filter({ hasText: first.id });
    expect(await row.textContent()).to.include('read trade');

    // Rotate: a new secret, shown once; the old one and its tokens stop working.
    await row.getByRole('link', { name: /^Rotate/ }).click();
    await audit('rotate-confirm');
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByLabel('Client secret').waitFor(WAIT);
    const rotated = await page.getByLabel('Client secret').inputValue();
    expect(rotated).to.not.equal(first.secret);
    expect(await refused(first.id, first.secret)).to.be.instanceOf(oauth.WWWAuthenticateChallengeError);
    expect((await server.api.get('/v1/portfolio?market=US', { token: issued.access_token })).status).to.equal(401);
    const afterRotation = await token(first.id, rotated, 'read');

    // Revoke, after confirmation: outstanding tokens are refused.
    await page
      .getByRole('row')
      .filter({ hasText: first.id })
      .getByRole('link', { name: /^Revoke/ })
      .click();
    await audit('revoke-confirm');
    await page.getByRole('button', { name: 'Revoke client' }).click();
    await page.waitForURL(`${dashboard}/developer?revoked=1`, WAIT);
    expect((await server.api.get('/v1/portfolio?market=US', { token: afterRotation.access_token })).status).to.equal(401);
    expect(await refused(first.id, rotated)).to.be.instanceOf(oauth.WWWAuthenticateChallengeError);

    // Policy: sign a first version with the disclosure shown in full.
    await page.getByRole('link', { name: 'Policy' }).click();
    await page.locator('input[name="target_symbol"]').nth(0).fill('VTI');
    await page.locator('input[name="target_percent"]').nth(0).fill('60');
    await page.locator('input[name="target_symbol"]').nth(1).fill('BND');
    await page.locator('input[name="target_percent"]').nth(1).fill('40');
    await page.getByLabel(/I have read disclosure/).check();
    await page.getByLabel('Type your full name to sign').fill('Ada Lovelace');
    await page.getByRole('button', { name: 'Sign and create the new version' }).click();
    await page.getByText('Version 1 is now in force.').waitFor(WAIT);
    await audit('policy');

    // The kill switch, engaged through the API, blocks approval until the human releases it in Safety.
    const bot = await createClient('Assistant', ['read', 'trade']);
    const { access_token: botToken } = await token(bot.id, bot.secret);
    const ideas = await server.api.post('/v1/ideas/generate', { token: botToken, json: { mode: 'invest_cash', market: 'US' } });
    expect(ideas.status, JSON.stringify(ideas.body)).to.equal(201);
    const orderId = ideas.body.ideas[0].orders[0].id;
    expect(
      (await server.api.post('/v1/kill-switch', { token: botToken, json: { reason: 'Assistant paused for review' } })).status,
    ).to.equal(200);
    expect((await server.api.post(`/v1/orders/${orderId}/approve`, { token: botToken })).status).to.equal(409);

    await page.getByRole('link', { name: 'Safety' }).click();
    expect(await page.locator('main').textContent()).to.include('Assistant paused for review');
    await audit('safety-engaged');
    await page.getByLabel('Reason (optional)').fill('Reviewed the fills');
    await page.getByRole('button', { name: 'Release kill switch' }).click();
    await page.getByText('Kill switch released.').waitFor(WAIT);

    // Approve opens the order's preview (its checks and numbers); the person confirms that preview.
    await page.goto(`${dashboard}/orders/${orderId}`);
    await page.getByRole('button', { name: `Approve order ${orderId}` }).click();
    await page.getByRole('heading', { name: 'What approving would do' }).waitFor(WAIT);
    expect(await page.getByRole('table', { name: /^Checks/ }).textContent()).to.include('Passed');
    await audit('approve-preview');
    await page.getByRole('button', { name: `Confirm approval of order ${orderId}` }).click();
    await page.getByText(`Order ${orderId} approved and filled by the paper broker.`).waitFor(WAIT);
    const approved = await server.api.get(`/v1/orders/${orderId}`, { token: botToken });
    expect(approved.body.status).to.equal('filled');
    expect(approved.body.preview_id).to.match(/^prv_/);

    await page.getByRole('link', { name: 'Orders', exact: true }).click();
    expect(await page.getByRole('table', { name: /Orders \(newest first\)/ }).textContent()).to.include('filled');
    await page.getByRole('link', { name: 'Overview' }).click();
    await audit('overview');
    await expectReadableValueChart(page, `${SCREENSHOTS}/value-chart`, { flat: false });

    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(`${dashboard}/login?ended=1`, WAIT);
    await page.goto(`${dashboard}/developer`);
    expect(page.url()).to.equal(`${dashboard}/login`);

    // Everything came from the dashboard itself, and nothing broke.
    expect(audited).to.have.length(10);
    const foreign = requests.filter((url) => !/^(data|blob):/.test(url) && new URL(url).origin !== dashboard);
    expect(foreign, 'requests to another origin').to.deep.equal([]);
    expect(pageErrors, 'page errors').to.deep.equal([]);
    expect(consoleErrors, 'console errors (e.g. CSP violations)').to.deep.equal([]);
  });
});
