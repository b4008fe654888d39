// The customer display on a tablet paired to the till, in Chromium against the real sync server
// on each database: TWO browser contexts (two devices, so no BroadcastChannel between them), the
// till at the host's loopback address and the "tablet" at the host's LAN listener (bound to
// 127.0.0.1 on a port of its own here). An unpaired tablet sees nothing of the sale and a wrong
// code is refused; the tablet pairs with the code read from the till's Customer tablet screen,
// then follows the cart as it is rung up, the total, the QR code to pay and the outcome; a reload
// needs no new code; a dropped connection says so and comes back; the till unpairs it. The till's
// pairing screen at 800x600 and 1024x768 and the tablet at 1280x800 and 800x1280, in English and
// French.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { databaseTargets, useTestServer } from '@tapline/sync-server/testing';
import type { SimulatedNfcReader } from '@tapline/hardware';
import type { TerminalHost } from '@tapline/terminal/host';
import { assertAccessible } from './axe.ts';
import { launchChromium, trackedPage } from './browser.ts';
import { ARTIFACTS, KIOSK, SYNC_WAIT, assertControlsOnScreen, builtRenderer, signInKiosk, startKiosk, createMerchantProduct } from './kiosk.ts';
import { shopWithTerminal } from './shop.ts';

const rendererDir = await builtRenderer();
const TILL_SIZES = [{ width: 800, height: 600 }, { width: 1024, height: 768 }] as const;
const TABLET_SIZES = [{ width: 1280, height: 800 }, { width: 800, height: 1280 }] as const;
const NBSP = '\u00a0';

for (const target of await databaseTargets()) {
  describe(`a tablet paired to the till follows the sale in Chromium on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 10 });
    let browser: Browser;
    let host: TerminalHost;
    let reader: SimulatedNfcReader;
    const pageErrors: string[] = [];

    before(async () => {
      browser = await launchChromium();
      ({ host, reader } = await startKiosk({ rendererDir, serverUrl: server().baseUrl, previews: `terminal-tablet-receipts-${target.name}`, displayListen: { host: '127.0.0.1', port: 0 } }));
    });
    after(async () => {
      await browser?.close();
      await host?.close();
      // The tablet's refused requests (the wrong code's 403, the revoked token's 401) are what the test asks for.
      assert.deepEqual(pageErrors.filter((error) => !error.includes('WebSocket is already in CLOSING or CLOSED state')), [], 'no script error on either device');
    });

    /** The tablet: a browser context of its own (another device), at the LAN listener's /tablet. */
    async function openTablet(): Promise<{ context: BrowserContext; tablet: Page }> {
      const context = await browser.newContext({ viewport: TABLET_SIZES[0], locale: 'en-GB' });
      context.setDefaultTimeout(60_000);
      const tablet = await context.newPage();
      tablet.on('pageerror', (error) => pageErrors.push(`tablet: ${error.message}`));
      assert.ok(host.displayUrl !== null);
      await tablet.goto(`${host.displayUrl}/tablet`);
      await tablet.locator('#customer-display[data-transport="tablet"]').waitFor();
      return { context, tablet };
    }

    /** The lines the tablet shows: [name, quantity, line total]. */
    async function tabletLines(tablet: Page): Promise<[string, number, number][]> {
      return tablet.locator('#display-lines li').evaluateAll((items) =>
        items.map((item) => [item.querySelector('.name')!.childNodes[0]!.textContent!.trim(), Number(item.getAttribute('data-quantity')), Number(item.getAttribute('data-total'))] as [string, number, number]),
      );
    }

    /** Nothing of the page scrolls or leaves the screen. */
    async function assertNoScroll(page: Page, label: string): Promise<void> {
      const size = await page.evaluate<[number, number, number, number]>('[document.documentElement.scrollWidth, document.documentElement.scrollHeight, innerWidth, innerHeight]');
      assert.ok(size[0] <= size[2] + 1 && size[1] <= size[3] + 1, `${label}: the page scrolls (${size.join(', ')})`);
    }

    /** The tablet in English and French at each tablet size; ends in English at 1280x800. */
    async function tabletShots(tablet: Page, name: string): Promise<void> {
      for (const language of ['en', 'fr'] as const) {
        await tablet.click(`#customer-display .languages button[data-language="${language}"]`);
        await tablet.locator(`#customer-display[data-language="${language}"]`).waitFor();
        for (const size of TABLET_SIZES) {
          await tablet.setViewportSize(size);
          await tablet.screenshot({ path: `${ARTIFACTS}terminal-tablet-${name}-${language}-${size.width}x${size.height}-${target.name}.png` });
          await assertNoScroll(tablet, `tablet ${name} in ${language} at ${size.width}x${size.height}`);
        }
      }
      await tablet.click('#customer-display .languages button[data-language="en"]');
      await tablet.setViewportSize(TABLET_SIZES[0]);
    }

    it('pairs with the till\'s code, follows the cart, the QR code and the outcome, survives a reload and a dropped connection, and is unpaired', async () => {
      const { s, key, terminalToken, tagId } = await shopWithTerminal(server(), { fund: 100 });
      const jollof = await createMerchantProduct(s, key, { name: 'Jollof rice', price: 15, category: 'Food', taxRate: 7.5, taxInclusive: true });
      const malt = await createMerchantProduct(s, key, { name: 'Malt', price: 5, category: 'Drinks', taxRate: 7.5, taxInclusive: false });
      const till = await trackedPage(browser, KIOSK, pageErrors);
      await signInKiosk(till, host, terminalToken);
      await till.locator('#sale[data-catalogue-size="2"][data-mode="items"]').waitFor(SYNC_WAIT);
      // Something on the till's display already: the unpaired tablet must not see it.
      await till.locator(`#items button[data-product="${jollof.id}"]`).click();

      // An unpaired tablet: the pairing form, nothing of the sale, the till's name included.
      const { context, tablet } = await openTablet();
      await tablet.locator('#display-pairing').waitFor();
      assert.equal(await tablet.locator('#customer-display').getAttribute('data-paired'), 'false');
      assert.equal(await tablet.locator('#display-lines, #display-total, #display-panel').count(), 0);
      assert.equal(await tablet.locator('#display-merchant').innerText(), '');
      assert.equal(await tablet.locator('#display-pairing h1').innerText(), 'Pair this display with the till');
      await tabletShots(tablet, 'pairing');
      await assertAccessible(tablet, 'the tablet\'s pairing form');

      // The till's Customer tablet screen: the address and a code, in English and French, at both till sizes.
      await till.click('#tablet-button');
      await till.locator('#tablet-pairing[data-listening="true"]').waitFor();
      assert.equal(await till.locator('#tablet-url').innerText(), `${host.displayUrl}/tablet`);
      assert.equal(await till.locator('#tablet-paired').innerText(), 'No tablet paired yet.');
      assert.equal(await till.locator('#tablet-pairing #qr').getAttribute('data-payload'), `${host.displayUrl}/tablet`, 'the QR code is the address');
      await till.click('#tablet-show-code');
      await till.locator('#tablet-code[data-code]').waitFor();
      const code = (await till.locator('#tablet-code').getAttribute('data-code'))!;
      assert.match(code, /^\d{6}$/);
      assert.equal(await till.locator('#tablet-code').innerText(), `${code.slice(0, 3)}${NBSP}${code.slice(3)}`);
      for (const language of ['en', 'fr'] as const) {
        if (language === 'fr') {
          await till.click('#tablet-back');
          await till.selectOption('#language-switcher', 'fr');
          await till.click('#tablet-button');
          await till.locator('#tablet-code[data-code]').waitFor();
          assert.equal(await till.locator('#tablet-pairing h1').innerText(), 'Écran client sur une tablette');
        }
        for (const size of TILL_SIZES) {
          await till.setViewportSize(size);
          await till.screenshot({ path: `${ARTIFACTS}terminal-tablet-till-pairing-${language}-${size.width}x${size.height}-${target.name}.png` });
          await assertControlsOnScreen(till, '#tablet-pairing', `the till's pairing screen in ${language} at ${size.width}x${size.height}`);
          await assertNoScroll(till, `the till's pairing screen in ${language} at ${size.width}x${size.height}`);
        }
      }
      await assertAccessible(till, 'the till\'s pairing screen');
      await till.setViewportSize(KIOSK.viewport);

      // A wrong code is refused, and says so; the tablet stays unpaired.
      const wrong = code === '000000' ? '000001' : '000000';
      await tablet.fill('#display-code', wrong);
      await tablet.click('#display-pair');
      await tablet.locator('#display-pair-error').waitFor();
      assert.equal(await tablet.locator('#display-pair-error').innerText(), 'This code is wrong or already used. Show a new code on the till.');
      await tabletShots(tablet, 'wrong-code');
      await tablet.click('#customer-display .languages button[data-language="fr"]');
      assert.equal(await tablet.locator('#display-pair-error').innerText(), 'Ce code est faux ou a déjà servi. Affichez un nouveau code sur la caisse.', 'the refusal speaks the language tapped');
      await tablet.click('#customer-display .languages button[data-language="en"]');
      assert.equal(await tablet.locator('#customer-display').getAttribute('data-paired'), 'false');

      // The right code: paired, and at once the till's current state: its welcome while the till shows
      // a screen of its own (this one), in the till's French.
      await tablet.fill('#display-code', code);
      await tablet.click('#display-pair');
      await tablet.locator('#customer-display[data-paired="true"][data-connection="live"]').waitFor();
      await tablet.locator('#customer-display[data-phase="idle"][data-language="fr"] #display-welcome').waitFor();
      assert.equal(await tablet.locator('#display-merchant').innerText(), 'Mama Put Kitchen');
      assert.equal(await tablet.locator('#display-welcome h1').innerText(), 'Bienvenue chez Mama Put Kitchen');
      assert.equal(await tablet.evaluate<number>("localStorage.getItem('tapline.displayToken').length"), 43, 'the token is kept on the tablet');
      // The code is used up: a second tablet could not pair with it.
      const reused = await fetch(`${host.displayUrl}/display-hub/pair`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code }) });
      assert.deepEqual([reused.status, ((await reused.json()) as { code: string }).code], [403, 'display_code_wrong']);

      // The till sees the tablet paired (it reads the count again by itself), then goes back to the
      // sale, in English: the tablet shows the cart rung up before it was paired.
      await till.locator('#tablet-paired[data-count="1"]').waitFor();
      assert.equal(await till.locator('#tablet-paired').innerText(), '1 tablette appairée');
      await till.click('#tablet-back');
      await till.selectOption('#language-switcher', 'en');
      await tablet.locator('#customer-display[data-phase="cart"][data-language="en"]').waitFor();
      assert.deepEqual(await tabletLines(tablet), [['Jollof rice', 1, 1_500]]);

      // Rung up on the till: the tablet follows each line, quantity and the total.
      await till.locator(`#items button[data-product="${jollof.id}"]`).click();
      await tablet.locator('#display-lines li[data-line="0"][data-quantity="2"]').waitFor();
      await till.locator(`#items button[data-product="${malt.id}"]`).click();
      await tablet.locator('#display-lines li[data-line="1"]').waitFor();
      assert.deepEqual(await tabletLines(tablet), [['Jollof rice', 2, 3_000], ['Malt', 1, 500]]);
      assert.equal(await tablet.locator('#display-total').getAttribute('data-amount'), '3538');
      assert.equal(await tablet.locator('#display-total').innerText(), `NGN${NBSP}35.38`);
      assert.equal(await tablet.locator('#display-total').innerText(), await till.locator('#cart-total').innerText(), 'the tablet and the till say the same total');
      await tabletShots(tablet, 'cart');

      // Reloaded: still paired (its token kept), the cart at once, no code asked.
      await tablet.reload();
      await tablet.locator('#customer-display[data-phase="cart"][data-connection="live"]').waitFor();
      assert.equal(await tablet.locator('#display-pairing').count(), 0);
      assert.deepEqual(await tabletLines(tablet), [['Jollof rice', 2, 3_000], ['Malt', 1, 500]]);

      // The network drops: the tablet says so, and follows again by itself once it is back.
      await context.setOffline(true);
      await tablet.locator('#customer-display[data-connection="lost"] #display-connection').waitFor();
      assert.equal(await tablet.locator('#display-connection').innerText(), 'Connection lost, reconnecting…');
      await tabletShots(tablet, 'lost');
      await context.setOffline(false);
      await tablet.locator('#customer-display[data-connection="live"]').waitFor();
      assert.equal(await tablet.locator('#display-connection').count(), 0);

      // Charge: the tablet shows the till's own QR code and what to pay; paid by a tap: the outcome.
      await till.click('#charge-button');
      await till.locator('#waiting #qr').waitFor();
      const payload = (await till.locator('#waiting #qr').getAttribute('data-payload'))!;
      await tablet.locator('#display-panel #qr').waitFor();
      assert.equal(await tablet.locator('#display-panel #qr').getAttribute('data-payload'), payload);
      assert.equal(await tablet.locator('#display-due').getAttribute('data-amount'), '3538');
      assert.match(await tablet.locator('#display-how').innerText(), /^Scan the code with your phone to pay/);
      await tabletShots(tablet, 'qr');
      assert.ok(reader.tap(tagId));
      await till.locator('#result[data-status="completed"]').waitFor({ timeout: 60_000 });
      await tablet.locator('#display-outcome[data-result="paid"]').waitFor();
      assert.equal(await tablet.locator('#display-outcome h1').innerText(), 'Paid. Thank you!');
      await tabletShots(tablet, 'paid');
      await till.click('#new-sale');
      await tablet.locator('#customer-display[data-phase="idle"]').waitFor();
      assert.equal(await tablet.locator('#display-welcome h1').innerText(), 'Welcome to Mama Put Kitchen');

      // Unpaired from the till: the tablet drops the sale and asks for a new code.
      await till.click('#tablet-button');
      await till.locator('#tablet-paired[data-count="1"]').waitFor();
      await till.click('#tablet-unpair');
      await till.locator('#tablet-unpaired').waitFor();
      assert.equal(await till.locator('#tablet-paired').getAttribute('data-count'), '0');
      await tablet.locator('#display-pairing #display-unpaired').waitFor();
      assert.equal(await tablet.locator('#display-unpaired').innerText(), 'This display was unpaired from the till. Type a new code to pair it again.');
      assert.equal(await tablet.evaluate<string | null>("localStorage.getItem('tapline.displayToken')"), null, 'the token is forgotten');
      await tabletShots(tablet, 'unpaired');
      await till.click('#tablet-back');
      await context.close();
      await till.context().close();
    });

    it('says how to turn tablets on when the till does not listen on the network (the default)', async () => {
      const { terminalToken } = await shopWithTerminal(server(), { fund: 1 });
      const { host: loopbackOnly } = await startKiosk({ rendererDir, serverUrl: server().baseUrl, previews: `terminal-tablet-off-receipts-${target.name}` });
      try {
        assert.equal(loopbackOnly.displayUrl, null);
        const till = await trackedPage(browser, KIOSK, pageErrors);
        await signInKiosk(till, loopbackOnly, terminalToken);
        await till.click('#tablet-button');
        await till.locator('#tablet-pairing[data-listening="false"] #tablet-off').waitFor();
        assert.match(await till.locator('#tablet-off').innerText(), /^Tablets cannot connect: this till does not listen on the shop network\. .*KIOSK_DISPLAY_LISTEN \(for example 0\.0\.0\.0:5175\)/);
        assert.equal(await till.locator('#tablet-show-code, #tablet-code, #tablet-pairing #qr').count(), 0, 'no code to give out');
        for (const language of ['en', 'fr'] as const) {
          if (language === 'fr') {
            await till.click('#tablet-back');
            await till.selectOption('#language-switcher', 'fr');
            await till.click('#tablet-button');
            await till.locator('#tablet-off').waitFor();
            assert.match(await till.locator('#tablet-off').innerText(), /^Les tablettes ne peuvent pas se connecter/);
          }
          for (const size of TILL_SIZES) {
            await till.setViewportSize(size);
            await till.screenshot({ path: `${ARTIFACTS}terminal-tablet-till-off-${language}-${size.width}x${size.height}-${target.name}.png` });
            await assertControlsOnScreen(till, '#tablet-pairing', `the till's pairing screen, off, in ${language} at ${size.width}x${size.height}`);
          }
        }
        await till.click('#tablet-back');
        await till.selectOption('#language-switcher', 'en');
        await till.context().close();
      } finally {
        await loopbackOnly.close();
      }
    });
  });
}
