import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../support/browser.js';
import { startTestServer, type TestServer } from '../support/server.js';

/** Debian's Chromium; CI installs it when missing. No browser is ever downloaded. */
const SCREENSHOT = '/tmp/docs-try-it.png';
const WAIT = { timeout: 15_000 };

describe('interactive docs in a headless browser (GET /docs)', function () {
  this.timeout(90_000);

  let server: TestServer;
  let browser: Browser;
  let page: Page;
  const requests: string[] = [];
  const pageErrors: string[] = [];
  const consoleErrors: string[] = [];

  before(async function () {
    server = await startTestServer();
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

  it('authorizes with OAuth client credentials and runs "Try it out" on POST /v1/goals/feasibility', async () => {
    const client = await server.createClient(['read']);
    const origin = new URL(server.url).origin;

    // 1. Swagger UI renders the operations of /openapi.json.
    await page.goto(`${origin}/docs`);
    const operation = page.locator('#operations-Goals-evaluateGoalFeasibility');
    await operation.locator('.opblock-summary').filter({ hasText: '/v1/goals/feasibility' }).waitFor(WAIT);

    // 2. "Authorize" → the OAuth2 client credentials form → Swagger UI itself calls POST /oauth/token.
    await page.locator('.scheme-container .btn.authorize').click();
    // The OAuth2 scheme's box (not ClientBasic's); its client_id label stays once the input turns into "******".
    const oauth2 = page.locator('.dialog-ux .auth-container').filter({ has: page.locator('label[for^="client_id"]') });
    await oauth2.waitFor(WAIT);
    await oauth2.locator('input[id^="client_id"]').fill(client.client_id);
    await oauth2.locator('input[id^="client_secret"]').fill(client.client_secret);
    const readScope = oauth2.locator('input[type="checkbox"][data-value="read"]');
    // The checkbox is styled (visually hidden input): click its label.
    await oauth2.locator(`label[for="${await readScope.getAttribute('id')}"]`).click();
    expect(await readScope.isChecked(), 'scope read checked').to.equal(true);
    const tokenResponse = page.waitForResponse(
      (response) => response.url() === `${origin}/oauth/token` && response.request().method() === 'POST',
    );
    await oauth2.locator('.auth-btn-wrapper button.authorize').click();
    expect((await tokenResponse).status(), 'POST /oauth/token status').to.equal(200);
    await oauth2.locator('.auth-btn-wrapper button', { hasText: 'Logout' }).waitFor(WAIT);
    await oauth2.locator('h6', { hasText: 'Authorized' }).waitFor(WAIT);
    await page.locator('.dialog-ux .btn-done, .dialog-ux .close-modal').first().click();
    await page.locator('.dialog-ux').waitFor({ state: 'detached', ...WAIT });

    // 3. Expand the operation, "Try it out" (already on when init.js sets tryItOutEnabled), body, "Execute".
    await operation.locator('.opblock-summary').click();
    const tryOut = operation.locator('.try-out__btn');
    await tryOut.waitFor(WAIT);
    if ((await tryOut.textContent())?.trim() === 'Try it out') await tryOut.click();
    const body = operation.locator('textarea.body-param__text');
    await body.waitFor(WAIT);
    await body.fill(JSON.stringify({ capital: 10000, target: 25000, horizon_years: 10, market: 'US' }));
    const apiResponse = page.waitForResponse((response) => response.url() === `${origin}/v1/goals/feasibility`);
    await operation.locator('button.execute').click();
    const sent = (await apiResponse).request();
    expect(sent.headers().authorization, 'the request carries the bearer token').to.match(/^Bearer ey/);

    const live = operation.locator('.live-responses-table');
    const status = live.locator('tbody tr.response .response-col_status'); // not the "Code" header cell
    await status.waitFor(WAIT);
    expect((await status.textContent())?.trim()).to.equal('200');
    const shownBody = live.locator('tbody tr.response .response-col_description pre').first();
    await shownBody.waitFor(WAIT);
    expect(await shownBody.textContent()).to.include('"required_growth_rate"');

    await live.scrollIntoViewIfNeeded();
    await page.screenshot({ path: SCREENSHOT });

    // 4. Everything came from the service itself, and nothing broke.
    expect(requests.length).to.be.greaterThan(3);
    const foreign = requests.filter((url) => !/^(data|blob):/.test(url) && new URL(url).origin !== origin);
    expect(foreign, 'requests to another origin').to.deep.equal([]);
    expect(pageErrors, 'page errors').to.deep.equal([]);
    expect(consoleErrors, 'console errors (e.g. CSP violations)').to.deep.equal([]);
  });

  it('links the MCP server page from the API description', async () => {
    await page.goto(`${new URL(server.url).origin}/docs`);
    const link = page.locator('.information-container a[href="/docs/mcp"]');
    await link.waitFor(WAIT);
    // Swagger UI opens description links in a new tab.
    const [opened] = await Promise.all([page.context().waitForEvent('page'), link.click()]);
    await opened.locator('h1', { hasText: 'MCP server' }).waitFor(WAIT);
    expect(await opened.locator('dt code', { hasText: 'approveOrder' }).count()).to.equal(1);
    await opened.close();
  });

  it('links the guides, whose links lead from page to page and heading, under the same CSP', async () => {
    const origin = new URL(server.url).origin;
    const errorsBefore = consoleErrors.length;
    await page.goto(`${origin}/docs`);
    await page.locator('#other-interfaces a[href="/docs/guides"]').click();
    await page.locator('h1', { hasText: 'Guides' }).waitFor(WAIT);
    await page.locator('a', { hasText: 'GraphQL' }).first().click();
    await page.locator('h1', { hasText: 'GraphQL' }).waitFor(WAIT);
    await page.locator('a', { hasText: 'Safe retries' }).click();
    await page.waitForURL(`${origin}/docs/guides/rest#safe-retries-idempotency-key`, WAIT);
    expect(await page.locator('#safe-retries-idempotency-key').textContent()).to.equal('Safe retries: Idempotency-Key');
    expect(consoleErrors.slice(errorsBefore), 'console errors (e.g. CSP violations)').to.deep.equal([]);
  });
});
