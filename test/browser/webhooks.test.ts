import { mkdirSync } from 'node:fs';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { axeViolations, launchChromium } from '../support/browser.js';
import { Webhook } from 'standardwebhooks';
import { startTestServer, type TestServer } from '../support/server.js';
import { Receiver, until } from '../support/webhook-receiver.js';

const SCREENSHOTS = 'test-results/dashboard';
const WAIT = { timeout: 20_000 };

describe('the dashboard’s Developer → Webhooks in a headless browser', function () {
  this.timeout(180_000);

  let server: TestServer;
  let receiver: Receiver;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const consoleErrors: string[] = [];

  before(async function () {
    mkdirSync(SCREENSHOTS, { recursive: true });
    // Retries an hour apart: only "Retry now" sends a failed test event again within the test.
    server = await startTestServer({
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '1h',
      WEBHOOK_POLL_MS: '20',
      POW_DIFFICULTY: '4',
    });
    receiver = await new Receiver().listen();
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
  });

  after(async () => {
    await browser?.close();
    await receiver?.close();
    await server?.close();
  });

  /** axe-core finds no serious or critical violation, and a screenshot is kept. */
  async function audit(name: string) {
    const violations = await axeViolations(page);
    expect(violations, `accessibility of ${name}`).to.deep.equal([]);
    await page.screenshot({ path: `${SCREENSHOTS}/webhooks-${name}.png`, fullPage: true });
  }

  /** Clicks a form's button and waits until the page it leads to has loaded (a reload meanwhile would detach the page). */
  async function submit(name: string | RegExp, within: Pick<Page, 'getByRole'> = page) {
    const loaded = page.waitForEvent('framenavigated', { predicate: (frame) => frame === page.mainFrame(), ...WAIT });
    await within.getByRole('button', { name }).click();
    await loaded;
    await page.waitForLoadState('load');
  }

  /** The delivery log's row of an event, once it shows `text` (the page is reloaded until it does). */
  async function logRow(eventId: string, text: string) {
    return until(`the log row of ${eventId} showing ${text}`, async () => {
      await page.reload();
      const row = page.getByRole('row').filter({ hasText: eventId });
      return (await row.count()) === 1 && (await row.textContent())!.includes(text) && row;
    });
  }

  it('adds an endpoint (secret shown once), sends a test event, shows the delivery log, retries now, rotates, disables and deletes', async () => {
    const dashboard = server.dashboardUrl;
    const email = `hooks.${Date.now()}@example.com`;
    const password = 'a long and unusual passphrase';
    await page.goto(`${dashboard}/signup`);
    await page.getByLabel('Your name').fill('Grace Hopper');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.waitForURL(`${dashboard}/login?created=1`, WAIT);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(`${dashboard}/overview`, WAIT);

    await page.getByRole('link', { name: 'Developer' }).click();
    await page.getByRole('link', { name: 'Manage webhook endpoints' }).click();
    await page.waitForURL(`${dashboard}/developer/webhooks`, WAIT);
    await audit('empty');

    // A URL the rules refuse is explained on the form.
    await page.getByLabel('Endpoint URL').fill('ftp://example.com/hooks');
    await page.getByLabel('order.filled').check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    expect(await page.getByRole('alert').textContent()).to.contain('must be an http:// or https:// URL');

    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByLabel('Description').fill('Order desk');
    await page.getByLabel('order.filled').check();
    await page.getByLabel('kill_switch.engaged').check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByRole('textbox', { name: 'Signing secret' }).waitFor(WAIT);
    const secret = await page.getByRole('textbox', { name: 'Signing secret' }).inputValue();
    expect(secret).to.match(/^whsec_/);
    await audit('secret-shown');
    await page.reload();
    expect(await page.getByRole('textbox', { name: 'Signing secret' }).count(), 'the secret is shown once').to.equal(0);
    expect(await page.content()).to.not.include(secret);

    // Send test event: delivered, signed with that secret, and logged.
    await submit('Send test event');
    await page.getByText('Test event queued').waitFor(WAIT);
    const [test] = await until('the test event', () => receiver.received.length > 0 && receiver.received);
    expect(new Webhook(secret).verify(test!.body, test!.headers as Record<string, string>)).to.include({ type: 'webhook.test' });
    const eventId = String(test!.headers['webhook-id']);
    await logRow(eventId, 'succeeded');
    await audit('delivery-log');

    // A failing receiver: the attempt is logged with its status code and next retry; "Retry now" sends it again.
    receiver.answer = () => ({ status: 503, body: 'busy' });
    await submit('Send test event');
    const failing = await until('the second test event', () => receiver.received.length > 1 && receiver.received[1]!);
    const failingId = String(failing.headers['webhook-id']);
    const row = await logRow(failingId, '503');
    expect(await row.textContent()).to.contain('pending');
    receiver.answer = () => ({ status: 204 });
    await submit(/^Retry now/, row);
    await page.getByText('Delivery queued to be sent again now.').waitFor(WAIT);
    await until('the retry', () => receiver.of(failingId).length === 2);
    await logRow(failingId, 'succeeded');

    // Rotate (after confirmation): a new secret, shown once; both sign for 24 hours.
    await page.getByRole('link', { name: 'Rotate secret' }).click();
    await audit('rotate-confirm');
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('textbox', { name: 'Signing secret' }).waitFor(WAIT);
    const rotated = await page.getByRole('textbox', { name: 'Signing secret' }).inputValue();
    expect(rotated).to.not.equal(secret);
    await submit('Send test event');
    const third = await until('a delivery after the rotation', () => receiver.received.length > 3 && receiver.received[3]!);
    expect(String(third.headers['webhook-signature']).split(' ')).to.have.length(2);
    new Webhook(secret).verify(third.body, third.headers as Record<string, string>);
    new Webhook(rotated).verify(third.body, third.headers as Record<string, string>);

    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByText('Endpoint disabled').waitFor(WAIT);
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByText('Endpoint enabled.').waitFor(WAIT);

    await page.getByRole('link', { name: 'Delete' }).click();
    await audit('delete-confirm');
    await page.getByRole('button', { name: 'Delete endpoint' }).click();
    await page.waitForURL(`${dashboard}/developer/webhooks?deleted=1`, WAIT);
    expect(await page.getByText('No endpoints yet.').count()).to.equal(1);

    expect(pageErrors, 'page errors').to.deep.equal([]);
    // The refused URL's page is a 422 (webhook-url-refused), which Chromium logs as a failed load; nothing else may appear.
    expect(
      consoleErrors.filter((e) => !e.includes('status of 422')),
      'console errors (e.g. CSP violations)',
    ).to.deep.equal([]);
    expect(consoleErrors.filter((e) => e.includes('status of 422'))).to.have.length(1);
  });
});
