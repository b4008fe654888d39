// Rough edges a new cashier met at the kiosk, in Chromium against the real sync server on each
// database: the cart kept over a reload and after a payment that did not go through (emptied once
// paid); "Scan offline QR" before an amount says what to do; Sign out unpairs only with the
// manager's PIN when one is set, in words the cashier knows; a sale taken offline instead is
// listed once in Sales today; a card the reader cannot use is named in the kiosk's language.
// The host reaches the server through a relay the test cuts and restores. Screenshots at the four
// kiosk sizes: test-artifacts/kiosk-edges/.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { balanceMinor, databaseTargets, useTestServer } from '@tapline/sync-server/testing';
import { trackedPage, waitForExpression } from './browser.ts';
import { ARTIFACTS, KIOSK, KIOSK_SIZES, SYNC_WAIT, assertControlsOnScreen, builtRenderer, signInKiosk, createMerchantProduct, useKioskRig } from './kiosk.ts';
import { shopWithTerminal } from './shop.ts';

const rendererDir = await builtRenderer();
const SHOTS = `${ARTIFACTS}kiosk-edges/`;
mkdirSync(SHOTS, { recursive: true });
const PIN = '4829';

for (const target of await databaseTargets()) {
  describe(`kiosk rough edges in Chromium on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 10 });
    const kiosk = useKioskRig(server, { rendererDir, previews: `terminal-edges-receipts-${target.name}`, noPageErrors: true });

    /** Every control of `root` on screen at each kiosk size, and a screenshot of each. */
    async function atEverySize(page: Page, root: string, name: string): Promise<void> {
      for (const size of KIOSK_SIZES) {
        await page.setViewportSize(size);
        await assertControlsOnScreen(page, root, `${name} at ${size.width}x${size.height}`);
        await page.screenshot({ path: `${SHOTS}${name}-${size.width}x${size.height}-${target.name}.png` });
      }
      await page.setViewportSize(KIOSK.viewport);
    }

    const cartLines = (page: Page) => page.locator('#cart li').evaluateAll((items) => items.map((item) => `${item.getAttribute('data-product')}`));

    it('keeps the cart over a reload and after a payment that did not go through, and empties it once the sale is paid', async () => {
      const shop = await shopWithTerminal(server(), { fund: 200, pin: PIN });
      const jollof = await createMerchantProduct(shop.s, shop.key, { name: 'Jollof rice', price: 15, category: 'Food' });
      const zobo = await createMerchantProduct(shop.s, shop.key, { name: 'Zobo', price: 3, category: 'Drinks' });
      const page = await trackedPage(kiosk.browser, KIOSK, kiosk.pageErrors);
      await signInKiosk(page, kiosk.host, shop.terminalToken);
      await page.locator('#sale[data-catalogue-size="2"]').waitFor(SYNC_WAIT);
      await page.locator(`#items button[data-product="${jollof.id}"]`).click();
      await page.locator(`#items button[data-product="${jollof.id}"]`).click();
      await page.locator(`#items button[data-product="${zobo.id}"]`).click();
      await page.locator(`#cart li[data-product="${zobo.id}"]`).waitFor();
      const charge = await page.locator('#charge-button').innerText();
      assert.equal(charge, 'Charge NGN\u00a033.00');

      // A reload (or a crash): the cart is back, lines, quantities and total.
      await page.reload();
      await page.locator(`#cart li[data-product="${zobo.id}"]`).waitFor(SYNC_WAIT);
      assert.deepEqual(await cartLines(page), [jollof.id, zobo.id]);
      assert.equal(await page.locator('#charge-button').innerText(), charge);
      // Charge and the actions at every size (the catalogue's category tabs and the cart's lines are
      // 44 px tall at 800x600: a limit of those panels, not touched here).
      await atEverySize(page, '#sale .actions', 'cart-after-reload');

      // Charged, then cancelled (the customer changed their mind): the cart is still there to charge again.
      await page.click('#charge-button');
      await page.locator('#waiting #qr svg').waitFor();
      await page.click('#cancel');
      await page.locator('#result[data-status="cancelled"]').waitFor(SYNC_WAIT);
      await page.click('#new-sale');
      await page.locator(`#cart li[data-product="${zobo.id}"]`).waitFor();
      assert.deepEqual(await cartLines(page), [jollof.id, zobo.id]);
      assert.equal(await page.locator('#charge-button').innerText(), charge);

      // Charged again and paid: the next sale starts empty, after a reload too.
      const before = await balanceMinor(shop.s, shop.payer, 'NGN');
      await page.click('#charge-button');
      await page.locator('#waiting #qr svg').waitFor();
      assert.ok(kiosk.reader.tap(shop.tagId));
      await page.locator('#result[data-status="completed"]').waitFor({ timeout: 15_000 });
      assert.equal(before - (await balanceMinor(shop.s, shop.payer, 'NGN')), 3_300, 'charged the kept cart once');
      await page.click('#new-sale');
      await page.locator('#sale').waitFor();
      assert.equal(await page.locator('#cart li').count(), 0);
      await page.reload();
      await page.locator('#sale[data-catalogue-size="2"]').waitFor(SYNC_WAIT);
      assert.equal(await page.locator('#cart li').count(), 0, 'a paid cart does not come back');

      // Cleared by the cashier: gone over a reload too.
      await page.locator(`#items button[data-product="${zobo.id}"]`).click();
      await page.locator(`#cart li[data-product="${zobo.id}"]`).waitFor();
      await page.click('#clear-cart');
      assert.equal(await page.locator('#cart li').count(), 0);
      await page.reload();
      await page.locator('#sale[data-catalogue-size="2"]').waitFor(SYNC_WAIT);
      assert.equal(await page.locator('#cart li').count(), 0);
      assert.equal(await page.evaluate<string | null>(`localStorage.getItem('tapline.cart.${shop.terminalId}')`), null);
      await page.context().close();
    });

    it('says to type the amount before scanning an offline QR, and signs out (unpairs) only with the manager PIN when one is set', async () => {
      const shop = await shopWithTerminal(server(), { fund: 100, pin: PIN });
      const page = await trackedPage(kiosk.browser, KIOSK, kiosk.pageErrors);
      await signInKiosk(page, kiosk.host, shop.terminalToken);

      // "Scan offline QR" is never greyed out: before an amount it says what comes first.
      assert.equal(await page.locator('#offline-qr').isDisabled(), false);
      await page.click('#offline-qr');
      await page.locator('#sale-error').waitFor();
      assert.equal(await page.locator('#sale-error .text').innerText(), 'Type the amount of the sale first (or ring up the items), then scan the customer\'s offline QR code: it pays up to the value the customer set aside.');
      assert.equal(await page.locator('#offline-pay').count(), 0, 'no voucher screen without an amount');
      await atEverySize(page, '#sale', 'offline-qr-amount-first');
      await page.keyboard.type('5');
      assert.equal(await page.locator('#sale-error').count(), 0, 'typing the amount clears it');
      await page.click('#offline-qr');
      await page.locator('#offline-pay[data-accept-taps="false"]').waitFor();
      assert.match(await page.locator('#offline-amount').innerText(), /NGN\s*5\.00/);
      await page.click('#offline-back');

      // No manager PIN: Sign out says what it means and asks once more.
      await page.click('#sign-out');
      await page.locator('#sign-out-panel[data-state="confirm"]').waitFor();
      assert.equal(await page.locator('#sign-out-warning').innerText(), 'Signing out unpairs this till. To use it again, the manager needs a new pairing code from the dashboard (Terminals).');
      assert.doesNotMatch(await page.locator('#sign-out-panel').innerText(), /token/i);
      // The keyboard's digits and Enter do nothing to the sale while the panel is up.
      const amountBefore = await page.locator('#amount-display').innerText();
      await page.keyboard.type('7');
      await page.keyboard.press('Enter');
      assert.equal(await page.locator('#amount-display').innerText(), amountBefore);
      assert.equal(await page.locator('#sale').count(), 1);
      await atEverySize(page, '#sale', 'sign-out-confirm');
      await page.click('#sign-out-cancel');
      await page.locator('#charge-button').waitFor();

      // With a manager PIN: the PIN pad, a wrong PIN refused, the right one signs out.
      const set = await shop.s.request('PUT', `/api/merchant/terminals/${shop.terminalId}/manager-pin`, { headers: shop.key, body: { pin: '2468' } });
      assert.equal(set.status, 200);
      await page.click('#sign-out');
      await page.locator('#sign-out-panel[data-state="pin"] #pin-pad').waitFor();
      assert.equal(await page.locator('#sign-out-confirm').count(), 0, 'no way round the PIN');
      assert.equal(await page.locator('#pin-pad .title').innerText(), 'Manager: type your PIN to sign this till out');
      await atEverySize(page, '#sale', 'sign-out-pin');
      for (const digit of '1111') await page.click(`#pin-${digit}`);
      await page.click('#pin-ok');
      await page.locator('#sign-out-error[data-code="wrong_manager_pin"]').waitFor();
      assert.equal(await page.locator('#sale').count(), 1, 'still signed in');
      assert.notEqual(await page.evaluate<string | null>("localStorage.getItem('tapline.terminalToken')"), null, 'the token is kept');
      await page.screenshot({ path: `${SHOTS}sign-out-wrong-pin-${target.name}.png` });
      for (const digit of '2468') await page.click(`#pin-${digit}`);
      await page.click('#pin-ok');
      await page.locator('#pairing-code').waitFor();
      await waitForExpression(page, "localStorage.getItem('tapline.terminalToken') === null && localStorage.getItem('tapline.syncHello') === null", SYNC_WAIT.timeout);
      await page.context().close();
    });

    it('lists a sale taken offline instead once, and names a card the reader cannot use in the kiosk\'s language', async () => {
      const shop = await shopWithTerminal(server(), { fund: 100, pin: PIN });
      const limits = await shop.s.request('PATCH', `/api/merchant/terminals/${shop.terminalId}`, { headers: shop.key, body: { offlineLimits: { perPayment: 30, total: 50, maxAgeHours: 24 } } });
      assert.equal(limits.status, 200, JSON.stringify(limits.body));
      const page = await trackedPage(kiosk.browser, KIOSK, kiosk.pageErrors);
      await signInKiosk(page, kiosk.host, shop.terminalToken);
      // The cashier works in French.
      await page.selectOption('#language-switcher', 'fr');
      await page.locator('html[lang="fr"]').waitFor({ state: 'attached' });
      await page.keyboard.type('6');
      await page.click('#charge-button');
      await page.locator('#waiting #qr svg').waitFor();
      kiosk.relay.cut();
      await page.locator('#waiting[data-reachable="false"]').waitFor(SYNC_WAIT);
      await page.click('#take-offline');
      await page.locator('#offline-pay[data-accept-taps="true"]').waitFor();

      // A bank card on the reader: named in French, tag kinds included.
      assert.ok(kiosk.reader.present('08A1B2C3'));
      await page.locator('#offline-message[data-code="iso14443_4"]').waitFor();
      assert.equal(await page.locator('#offline-message .text').innerText(), 'Cette carte ou ce téléphone n\'est pas un badge Tapline. Passez un autocollant, une carte, une bague ou un bracelet Tapline.');
      await page.screenshot({ path: `${SHOTS}offline-unsupported-card-fr-${target.name}.png` });

      assert.ok(kiosk.reader.tap(shop.tagId));
      await page.locator('#offline-result[data-status="queued"]').waitFor();
      const paymentId = await page.locator('#offline-result').getAttribute('data-payment-id');
      await page.click('#offline-new-sale');
      await page.click('#history-button');
      // Sales today is "Ventes du jour" on its button and its screen alike.
      assert.equal(await page.locator('#history h1').innerText(), 'Ventes du jour');
      await page.locator(`#history tr[data-id="${paymentId}"]`).waitFor();
      // One row: the offline payment; not "Cancelled on this till" beside it.
      const rows = await page.locator('#history tbody tr').evaluateAll((items) => items.map((item) => `${item.getAttribute('data-kind')}:${item.getAttribute('data-outcome')}`));
      assert.deepEqual(rows, ['offline:waiting']);
      await atEverySize(page, '#history', 'history-taken-offline');
      await page.context().close();
    });
  });
}
