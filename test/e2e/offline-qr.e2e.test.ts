// The wallet holder's offline QR page (/wallet/offline-qr) in Chromium against a real server on
// each database: sign in, set money aside in a voucher, see its QR code, pay with it at a
// merchant, and cancel another to get the money back. Screenshots under test-artifacts/.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchChromium, trackedPage, waitForExpression } from './browser.ts';
import { shopWithTerminal } from './shop.ts';
import { balanceMinor, databaseTargets, useTestServer } from '@tapline/sync-server/testing';

const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));
const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

for (const target of await databaseTargets()) {
  describe(`offline QR page in Chromium on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 10 });
    let browser: Browser;
    const pageErrors: string[] = [];

    before(async () => {
      mkdirSync(ARTIFACTS, { recursive: true });
      browser = await launchChromium();
    });
    after(async () => {
      await browser?.close();
    });

    it('makes a voucher that a merchant redeems for part of it, and cancels a second one back into the wallet', async () => {
      const { s, key, payer, merchant } = await shopWithTerminal(server(), { fund: 100, pin: '4829' });
      const page = await trackedPage(browser, PHONE, pageErrors);
      await page.goto(`${s.baseUrl}/wallet/offline-qr`);
      await page.fill('#handle', `@${payer}`);
      await page.fill('#pin', '0000');
      await page.click('#signin-button');
      await page.locator('#signin-error', { hasText: 'Wrong PIN' }).waitFor();
      await page.fill('#pin', '4829');
      await page.click('#signin-button');
      await page.locator('#voucher-card').waitFor({ state: 'visible' });
      assert.match(await page.locator('#signed-in-as').innerText(), /NGN\s*100\.00 available/);

      await page.fill('#amount', '500');
      await page.click('#voucher-button');
      await page.locator('#voucher-error', { hasText: 'not enough money' }).waitFor();
      await page.fill('#amount', '40');
      await page.click('#voucher-button');
      await page.locator('#voucher-result').waitFor({ state: 'visible' });
      await waitForExpression(page, "(() => { const image = document.getElementById('voucher-qr'); return image !== null && image.complete && image.naturalWidth > 0; })()");
      assert.match(await page.locator('#voucher-amount').innerText(), /NGN\s*40\.00/);
      await page.screenshot({ path: `${ARTIFACTS}offline-qr-${target.name}.png`, fullPage: true });
      const payload = await page.locator('#voucher-qr').getAttribute('data-payload');
      assert.match(payload ?? '', /^TLQ1\./);
      assert.equal(await balanceMinor(s, payer, 'NGN'), 6_000);

      const redeemed = await s.request<{ status: string; amount: number }>('POST', '/api/offline/qr/redeem', { headers: key, body: { voucher: payload, amount: 25 } });
      assert.equal(redeemed.status, 200, JSON.stringify(redeemed.body));
      assert.equal(redeemed.body.status, 'accepted');
      assert.equal(await balanceMinor(s, payer, 'NGN'), 7_500, 'the 15.00 the payment did not use came back');
      assert.ok((await balanceMinor(s, merchant.handle, 'NGN')) > 0);

      // A second voucher, cancelled from the page: the money comes straight back.
      await page.reload();
      await page.fill('#handle', payer);
      await page.fill('#pin', '4829');
      await page.click('#signin-button');
      await page.fill('#amount', '30');
      await page.click('#voucher-button');
      await page.locator('#voucher-result').waitFor({ state: 'visible' });
      assert.equal(await balanceMinor(s, payer, 'NGN'), 4_500);
      await page.click('#voucher-revoke');
      await page.locator('#voucher-status', { hasText: 'back in your wallet' }).waitFor();
      assert.equal(await page.locator('#voucher-result').getAttribute('data-status'), 'revoked');
      assert.equal(await balanceMinor(s, payer, 'NGN'), 7_500);
      assert.deepEqual(pageErrors, []);
    });
  });
}
