// The server's own pages (/pos, /pay/<handle>, /tap/<sessionId>, /pay/checkout/<id>,
// /wallet/offline-qr) at the sizes people use them: each page in each of its states is checked by
// axe-core and kept as a screenshot under test-artifacts/web-pages/ (WEB_PAGES_SHOTS names the
// subfolder) at 1366x768, 1024x768 and a phone's 390x844, for people to look at. The pages'
// behaviour is driven by pos, checkout, offline-qr and i18n e2e tests; this one fails on a
// script error, a serious or critical accessibility violation, or a page whose built script
// did not run.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { assertAccessible } from './axe.ts';
import { launchChromium, trackedPage, waitForExpression } from './browser.ts';
import { shopWithTerminal } from './shop.ts';
import { databaseTargets, useTestServer } from '@tapline/sync-server/testing';

const ARTIFACTS = fileURLToPath(new URL(`../../test-artifacts/web-pages/${process.env.WEB_PAGES_SHOTS ?? 'current'}/`, import.meta.url));
const SIZES = [
  { name: '1366x768', options: { viewport: { width: 1366, height: 768 } } },
  { name: '1024x768', options: { viewport: { width: 1024, height: 768 } } },
  { name: '390x844', options: { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true } },
];

// One database is enough: the pages' look does not depend on it (their behaviour is tested on both).
const [target] = await databaseTargets();

describe(`the server's pages at kiosk, laptop and phone sizes on ${target!.name}`, () => {
  const server = useTestServer(target!, { rateLimitScale: 10 });
  let browser: Browser;
  /** A merchant's page on another origin (localhost, not 127.0.0.1) that loads the checkout drop-in. */
  let shop: Server;
  let shopUrl: string;
  const pageErrors: string[] = [];

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    browser = await launchChromium();
    shop = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Ada Fabrics</title><script src="${server().baseUrl}/sdk/service.js"></script></head><body><main><h1>Blue ankara</h1></main></body></html>`);
    });
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
    shopUrl = `http://localhost:${(shop.address() as AddressInfo).port}/`;
  });
  after(async () => {
    await browser?.close();
    await new Promise((resolve) => shop?.close(resolve));
  });

  async function shoot(page: Page, name: string, size: string): Promise<void> {
    await assertAccessible(page, `${name} at ${size}`);
    await page.screenshot({ path: `${ARTIFACTS}${name}-${size}.png`, fullPage: true });
  }

  for (const size of SIZES) {
    it(`${size.name}: every page and state is accessible, without a script error`, async () => {
      const { s, merchant, key, terminalId, payer } = await shopWithTerminal(server(), { fund: 100 });
      const page = await trackedPage(browser, size.options, pageErrors);

      await page.goto(`${s.baseUrl}/pos`);
      await page.locator('#signin').waitFor({ state: 'visible' });
      await shoot(page, 'pos-signin', size.name);
      await page.click('#show-advanced');
      await page.fill('#token', 'nonsense');
      await page.click('#signin-form button[type=submit]');
      assert.notEqual(await page.locator('#signin-error').innerText(), '', 'the script refuses a malformed token');
      await shoot(page, 'pos-signin-token', size.name);
      await page.click('#show-advanced');
      await page.fill('#pairing-code', 'nonsense');
      await page.click('#pair-button');
      await page.locator('#signin-error', { hasText: 'pairing code' }).waitFor();
      await shoot(page, 'pos-signin-error', size.name);
      const pairing = await s.request<{ pairingCode: string }>('POST', `/api/merchant/terminals/${terminalId}/pairing-code`, { headers: key });
      assert.equal(pairing.status, 201);
      await page.fill('#pairing-code', pairing.body.pairingCode);
      await page.click('#pair-button');
      await page.locator('#charge').waitFor({ state: 'visible' });
      await page.fill('#amount', '12.50');
      await page.fill('#description', 'Jollof rice');
      await shoot(page, 'pos-charge', size.name);
      await page.click('#charge-button');
      await page.locator('#waiting').waitFor({ state: 'visible' });
      await waitForExpression(page, "(() => { const image = document.getElementById('qr'); return image !== null && image.complete && image.naturalWidth > 0; })()");
      await shoot(page, 'pos-waiting', size.name);
      const sessionId = await page.locator('#waiting').getAttribute('data-session-id');
      assert.ok(sessionId);

      // The session's pay page (/tap/<sessionId>), as the customer's phone would show it.
      const customer = await trackedPage(browser, size.options, pageErrors);
      await customer.goto(`${s.baseUrl}/tap/${sessionId}`);
      await shoot(customer, 'tap-session', size.name);
      await customer.fill('#handle', `@${payer}`);
      await customer.fill('#pin', '1234');
      await customer.click('#pay-button');
      await customer.locator('#pay-result[data-status="completed"]').waitFor({ state: 'visible' });
      await shoot(customer, 'tap-session-paid', size.name);

      await page.locator('#result[data-status="completed"]').waitFor({ state: 'visible', timeout: 60_000 });
      await shoot(page, 'pos-completed', size.name);

      await customer.goto(`${s.baseUrl}/pay/${merchant.handle}?source=nfc`);
      await shoot(customer, 'pay-handle', size.name);
      await customer.fill('#amount', 'abc');
      await customer.fill('#handle', `@${payer}`);
      await customer.fill('#pin', '1234');
      await customer.click('#pay-button');
      assert.match(await customer.locator('#pay-error').innerText(), /amount/i);
      await shoot(customer, 'pay-handle-error', size.name);

      const pk = await s.request<{ key: string }>('POST', '/api/merchant/publishable-keys', { headers: key, body: {} });
      const checkout = await s.request<{ id: string }>('POST', '/api/checkout/sessions', { headers: { authorization: `Bearer ${pk.body.key}` }, body: { amount: 45, currency: 'NGN', description: 'Blue ankara' } });
      assert.equal(checkout.status, 201);
      await customer.goto(`${s.baseUrl}/pay/checkout/${checkout.body.id}`);
      await shoot(customer, 'pay-checkout', size.name);

      // The drop-in's modal on the merchant's page, on its first rail and on the wallet's.
      await customer.goto(shopUrl);
      await customer.evaluate(`Tapline.checkout({ publishableKey: ${JSON.stringify(pk.body.key)}, amount: 45, currency: 'NGN', reference: 'order-1042', description: 'Blue ankara, 2 yards' })`);
      await customer.locator('[data-tab="wallet"]').waitFor({ state: 'visible' });
      assert.match(await customer.locator('.amount').innerText(), /NGN\s*45\.00/);
      await shoot(customer, 'drop-in', size.name);
      await customer.click('[data-tab="wallet"]');
      await customer.click('#pay-wallet');
      assert.equal(await customer.locator('#error').innerText(), 'Enter your @handle.');
      await shoot(customer, 'drop-in-wallet', size.name);

      await customer.goto(`${s.baseUrl}/wallet/offline-qr`);
      await shoot(customer, 'offline-qr-signin', size.name);
      await customer.fill('#handle', `@${payer}`);
      await customer.fill('#pin', '1234');
      await customer.click('#signin-button');
      await customer.locator('#voucher-card').waitFor({ state: 'visible' });
      await customer.fill('#amount', '5');
      await shoot(customer, 'offline-qr-amount', size.name);
      await customer.click('#voucher-button');
      await customer.locator('#voucher-result').waitFor({ state: 'visible' });
      await waitForExpression(customer, "(() => { const image = document.getElementById('voucher-qr'); return image !== null && image.complete && image.naturalWidth > 0; })()");
      await shoot(customer, 'offline-qr-voucher', size.name);

      await customer.goto(`${s.baseUrl}/pay/nobody_here_at_all`);
      await shoot(customer, 'pay-unknown', size.name);
      await page.context().close();
      await customer.context().close();
      assert.deepEqual(pageErrors, []);
    });
  }
});
