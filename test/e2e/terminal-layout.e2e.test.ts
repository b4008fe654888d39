// The kiosk made for touch screens and cashiers, in Chromium against the real sync server on each
// database: every control of the sale screen on screen at 800x600, 1024x768, 1280x800 and
// 1920x1080 (with an error showing too), touch targets of 48 px, the keypad by the currency's
// minor unit, one money format, the offline limits before the tap, cashier sentences with the
// code on a detail line, and no serious or critical accessibility violation (axe-core).
// Screenshots of every screen at every size: test-artifacts/kiosk-layout/.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { assertAccessible } from './axe.ts';
import { launchChromium, trackedPage } from './browser.ts';
import { ARTIFACTS, KIOSK, KIOSK_SIZES, SYNC_WAIT, assertControlsOnScreen, builtRenderer, signInKiosk, startKiosk } from './kiosk.ts';
import { shopWithTerminal } from './shop.ts';
import type { SimulatedNfcReader } from '@tapline/hardware';
import { databaseTargets, useTestServer } from '@tapline/sync-server/testing';
import type { TerminalHost } from '@tapline/terminal/host';

const rendererDir = await builtRenderer();
const SHOTS = `${ARTIFACTS}kiosk-layout/`;
mkdirSync(SHOTS, { recursive: true });

for (const target of await databaseTargets()) {
  describe(`kiosk layout and words in Chromium on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 10 });
    let browser: Browser;
    let host: TerminalHost;
    let reader: SimulatedNfcReader;
    const pageErrors: string[] = [];

    before(async () => {
      browser = await launchChromium();
      ({ host, reader } = await startKiosk({ rendererDir, serverUrl: server().baseUrl, previews: `terminal-layout-receipts-${target.name}` }));
    });
    after(async () => {
      await browser?.close();
      await host?.close();
    });

    async function signedIn(): Promise<{ page: Page; shop: Awaited<ReturnType<typeof shopWithTerminal>> }> {
      const shop = await shopWithTerminal(server(), { fund: 5000, pin: '4829' });
      const limits = await shop.s.request('PATCH', `/api/merchant/terminals/${shop.terminalId}`, { headers: shop.key, body: { offlineLimits: { perPayment: 30, total: 50, maxAgeHours: 24 } } });
      assert.equal(limits.status, 200, JSON.stringify(limits.body));
      const page = await trackedPage(browser, KIOSK, pageErrors);
      await signInKiosk(page, host, shop.terminalToken);
      return { page, shop };
    }

    /** The screen at every kiosk size: all its controls on screen, a screenshot, and (once) axe-core. */
    async function atEverySize(page: Page, root: string, name: string, check?: (size: string) => Promise<void>): Promise<void> {
      for (const size of KIOSK_SIZES) {
        await page.setViewportSize(size);
        await assertControlsOnScreen(page, root, `${name} at ${size.width}x${size.height}`);
        await check?.(`${name} at ${size.width}x${size.height}`);
        await page.screenshot({ path: `${SHOTS}${name}-${size.width}x${size.height}-${target.name}.png` });
      }
      await page.setViewportSize(KIOSK.viewport);
      await assertAccessible(page, name);
    }

    it('keeps every control of the sale, waiting, outcome, history and offline screens on screen at four kiosk sizes, with 48 px touch targets and no serious accessibility problem', async () => {
      const { page, shop } = await signedIn();
      await page.keyboard.type('1250');
      assert.equal(await page.locator('#amount-display').innerText(), '1,250');
      // One money format: the button says what the waiting screen will say.
      assert.equal(await page.locator('#charge-button').innerText(), 'Charge NGN\u00a01,250.00');
      await atEverySize(page, '#sale', 'sale');

      // An error does not push Charge off screen: the answer of a refused charge at every size.
      await page.route('**/api/pos/sessions', (route) => route.fulfill({ status: 422, contentType: 'application/json', body: JSON.stringify({ error: 'Currency not supported by this merchant', code: 'currency_not_supported' }) }));
      await page.click('#charge-button');
      await page.locator('#sale-error').waitFor();
      assert.equal(await page.locator('#sale-error .text').innerText(), 'This currency cannot be charged here.');
      assert.equal(await page.locator('#sale-error .detail').innerText(), 'Code for support: currency_not_supported');
      await atEverySize(page, '#sale', 'sale-error');
      await page.unroute('**/api/pos/sessions');

      // The waiting screen, then a paid outcome.
      await page.click('#charge-button');
      await page.locator('#waiting #qr svg').waitFor();
      assert.equal(await page.locator('#waiting-amount').innerText(), 'NGN\u00a01,250.00');
      await atEverySize(page, '#waiting', 'waiting');
      // An unregistered tag: a sentence, the code on the detail line, the sale still open.
      assert.ok(reader.tap('TG00000000'));
      await page.locator('#waiting-message[data-code="tag_not_found"]').waitFor();
      assert.equal(await page.locator('#waiting-message .text').innerText(), 'This ring, band or card is not registered. Ask the customer to pay with the QR code.');
      assert.ok(reader.tap(shop.tagId));
      await page.locator('#result[data-status="completed"]').waitFor(SYNC_WAIT);
      assert.equal(await page.locator('#result-amount').innerText(), 'NGN\u00a01,250.00');
      await atEverySize(page, '#result', 'paid');
      await page.click('#new-sale');
      await page.locator('#sale').waitFor();

      // Today's sales.
      await page.click('#history-button');
      await page.locator('#history tbody tr').first().waitFor();
      await atEverySize(page, '#history', 'history');
      await page.click('#history-back');

      // The gift card form.
      await page.click('#sell-gift-card');
      await page.locator('#sell-gift-card-screen').waitFor();
      await atEverySize(page, '#sell-gift-card-screen', 'sell-gift-card');
      await page.click('#gift-card-back');

      // The offline QR screen, with the offline limits shown before anything is scanned.
      await page.keyboard.type('5');
      await page.click('#offline-qr');
      await page.locator('#offline-pay').waitFor();
      assert.equal(await page.locator('#offline-limits').innerText(), 'Offline: up to NGN\u00a030.00 a payment · NGN\u00a00.00 of NGN\u00a050.00 waiting to settle');
      await atEverySize(page, '#offline-pay', 'offline-pay');
      await page.click('#offline-back');
      await page.context().close();
      assert.deepEqual(pageErrors, [], 'no script errors on the page');
    });

    it('keeps the sale (with its language switcher), waiting, history and pairing screens whole in French as in English at every size', async () => {
      const { page } = await signedIn();
      for (const language of ['en', 'fr'] as const) {
        await page.selectOption('#language-switcher', language);
        await page.locator(`html[lang="${language}"]`).waitFor({ state: 'attached' });
        await page.click('#key-clear');
        await page.keyboard.type('1250');
        assert.equal(await page.locator('#amount-display').innerText(), language === 'fr' ? '1\u202f250' : '1,250', 'the keypad display groups as the language does');
        assert.equal(await page.locator('#key-dot').innerText(), language === 'fr' ? ',' : '.');
        assert.equal(await page.locator('#charge-button').innerText(), language === 'fr' ? 'Encaisser 1\u202f250,00\u00a0NGN' : 'Charge NGN\u00a01,250.00');
        await atEverySize(page, '#sale', `i18n-${language}-sale`, async (where) => {
          // The shop's @handle is read whole: never broken across lines, never cut short.
          const handle = await page.locator('#who .handle').evaluate((element) => ({ rects: element.getClientRects().length, cut: element.scrollWidth > element.clientWidth + 1, text: element.textContent }));
          assert.deepEqual({ rects: handle.rects, cut: handle.cut }, { rects: 1, cut: false }, `${where}: the handle ${handle.text} is on one line and whole`);
        });
        await page.click('#charge-button');
        await page.locator('#waiting #qr svg').waitFor();
        assert.equal(await page.locator('#waiting h1').innerText(), language === 'fr' ? 'En attente du paiement' : 'Waiting for payment');
        await atEverySize(page, '#waiting', `i18n-${language}-waiting`);
        await page.click('#cancel');
        await page.locator('#result[data-status="cancelled"]').waitFor(SYNC_WAIT);
        await page.click('#new-sale');
        await page.click('#history-button');
        await page.locator('#history tbody tr').first().waitFor();
        assert.equal(await page.locator('#history h1').innerText(), language === 'fr' ? 'Ventes du jour' : 'Sales today');
        await atEverySize(page, '#history', `i18n-${language}-history`);
        await page.click('#history-back');
        await page.locator('#sale').waitFor();
      }
      // The pairing screen, with its switcher, in both languages (the choice stays over sign-out).
      await page.click('#sign-out');
      // No manager PIN on this terminal: signing out (unpairing) is confirmed once.
      await page.click('#sign-out-confirm');
      await page.locator('#pairing-code').waitFor();
      for (const language of ['fr', 'en'] as const) {
        await page.selectOption('#language-switcher', language);
        await page.locator(`html[lang="${language}"]`).waitFor({ state: 'attached' });
        assert.equal(await page.locator('#signin h1').innerText(), language === 'fr' ? 'Appairer cette caisse' : 'Pair this till');
        await atEverySize(page, '#signin', `i18n-${language}-pairing`);
      }
      await page.context().close();
      assert.deepEqual(pageErrors, [], 'no script errors on the page');
    });

    it('follows the currency minor unit on the keypad and the keyboard: no decimal key for UGX or XOF, three decimals for TND, and a hint instead of a dropped or shifted digit', async () => {
      const { page } = await signedIn();
      await page.selectOption('#currency', 'UGX');
      assert.equal(await page.locator('#key-dot').count(), 0, 'no decimal point for UGX');
      assert.equal(await page.locator('#key-00').count(), 1);
      // 1 5 0 0 . 5 once showed "15005": the point is refused with a hint, and so is the digit after it.
      await page.keyboard.type('1500.5');
      assert.equal(await page.locator('#amount-display').innerText(), '1,500');
      assert.equal(await page.locator('#charge-button').innerText(), 'Charge UGX\u00a01,500');
      assert.match(await page.locator('#amount-hint').innerText(), /UGX has no decimals/);
      await page.click('#key-clear');
      for (const key of ['#key-1', '#key-5', '#key-00']) await page.click(key);
      assert.equal(await page.locator('#amount-display').innerText(), '1,500');
      assert.equal(await page.locator('#charge-button').innerText(), 'Charge UGX\u00a01,500');

      await page.selectOption('#currency', 'XOF');
      assert.equal(await page.locator('#key-dot').count(), 0, 'no decimal point for XOF');

      await page.selectOption('#currency', 'TND');
      for (const key of ['#key-2', '#key-dot', '#key-1', '#key-2', '#key-5']) await page.click(key);
      assert.equal(await page.locator('#amount-display').innerText(), '2.125');
      assert.equal(await page.locator('#charge-button').innerText(), 'Charge TND\u00a02.125');
      await page.click('#key-7');
      assert.equal(await page.locator('#amount-display').innerText(), '2.125');
      assert.match(await page.locator('#amount-hint').innerText(), /TND has 3 decimals/);

      await page.selectOption('#currency', 'NGN');
      await page.keyboard.type('12.505');
      assert.equal(await page.locator('#amount-display').innerText(), '12.50');
      assert.match(await page.locator('#amount-hint').innerText(), /NGN has 2 decimals/);
      await page.screenshot({ path: `${SHOTS}keypad-hint-${target.name}.png` });
      await page.context().close();
      assert.deepEqual(pageErrors, [], 'no script errors on the page');
    });

    it('speaks to the cashier: a pasted merchant key, an unknown token, a refused charge and the offline limits read as sentences with the code on a detail line', async () => {
      const shop = await shopWithTerminal(server(), { fund: 10, pin: '4829' });
      const page = await trackedPage(browser, KIOSK, pageErrors);
      await page.goto(host.url);
      await page.locator('#signin').waitFor();
      assert.doesNotMatch(await page.locator('#signin').innerText(), /POST|\/api\//, 'no API paths on the sign-in screen');
      await assertAccessible(page, 'sign-in');
      const merchantKey = shop.merchant.testKey;
      await page.click('#show-advanced');
      await page.fill('#token', merchantKey);
      await page.click('#signin-button');
      await page.locator('#signin-error[data-code="merchant_key_not_a_terminal_token"]').waitFor();
      assert.match(await page.locator('#signin-error .text').innerText(), /secret API key, not a terminal token/);
      await page.fill('#token', `term.${'0'.repeat(64)}`);
      await page.click('#signin-button');
      await page.locator('#signin-error[data-code="invalid_terminal_token"]').waitFor();
      assert.equal(await page.locator('#signin-error .text').innerText(), 'This till is not paired any more. Ask the manager for a new pairing code.');
      assert.doesNotMatch(await page.locator('#signin-error').innerText(), /Unknown terminal token|Malformed/);
      await page.context().close();
      assert.deepEqual(pageErrors, [], 'no script errors on the page');
    });
  });
}
