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

      // A reload keeps the sign-in; the voucher that paid is no longer listed, nothing is reserved.
      await page.reload();
      await page.locator('#vouchers-card').waitFor({ state: 'visible' });
      assert.equal(await page.locator('#signin-card').isHidden(), true);
      assert.match(await page.locator('#signed-in-as').innerText(), /NGN\s*75\.00 available/);
      assert.equal(await page.locator('#vouchers li').count(), 0);
      assert.match(await page.locator('#reserved').innerText(), /NGN\s*0\.00/);

      // A second voucher, cancelled from the page: the money comes straight back.
      await page.fill('#amount', '30');
      await page.click('#voucher-button');
      await page.locator('#voucher-result').waitFor({ state: 'visible' });
      assert.equal(await balanceMinor(s, payer, 'NGN'), 4_500);
      await page.click('#voucher-revoke');
      await page.locator('#voucher-status', { hasText: 'back in your wallet' }).waitFor();
      assert.equal(await page.locator('#voucher-result').getAttribute('data-status'), 'revoked');
      assert.equal(await balanceMinor(s, payer, 'NGN'), 7_500);
      await page.locator('#reserved[data-count="0"]').waitFor();
      assert.match(await page.locator('#signed-in-as').innerText(), /NGN\s*75\.00 available/);
      assert.deepEqual(pageErrors, []);
    });

    it('lists an expired voucher that still holds its money (until the grace ends) without a QR code, and cancels it at once', async () => {
      const { s, payer } = await shopWithTerminal(server(), { fund: 100, pin: '4829' });
      const session = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle: payer, pin: '4829' } });
      const made = await s.request<{ id: string; expiresAt: string }>('POST', '/api/offline/qr', { headers: { authorization: `Bearer wallet.${session.body.token}` }, body: { amount: 20, expiresInHours: 4 } });
      assert.equal(made.status, 201);
      const page = await trackedPage(browser, PHONE, pageErrors);
      // The phone's clock five hours on: the voucher has expired, and the server has not released it yet.
      await page.clock.install({ time: new Date(Date.parse(made.body.expiresAt) + 3600_000) });
      await page.goto(`${s.baseUrl}/wallet/offline-qr`);
      await page.fill('#handle', payer);
      await page.fill('#pin', '4829');
      await page.click('#signin-button');
      const item = page.locator(`#vouchers li[data-voucher-id="${made.body.id}"]`);
      await item.waitFor({ state: 'visible' });
      assert.equal(await item.getAttribute('data-expired'), 'true');
      assert.equal(await item.locator('.voucher-show').count(), 0, 'an expired voucher has no QR code to show');
      assert.match(await item.locator('.voucher-expiry').innerText(), /^Expired .*comes back to your wallet on its own, or now if you cancel it\.$/);
      assert.match(await page.locator('#reserved').innerText(), /NGN\s*20\.00/);
      assert.match(await page.locator('#signed-in-as').innerText(), /NGN\s*80\.00 available/);
      await page.screenshot({ path: `${ARTIFACTS}offline-qr-expired-${target.name}-390x844.png`, fullPage: true });
      await item.locator('.voucher-cancel').click();
      await page.locator('#reserved[data-count="0"]').waitFor();
      await page.locator('#signed-in-as', { hasText: /NGN\s*100\.00 available/ }).waitFor();
      assert.equal(await balanceMinor(s, payer, 'NGN'), 10_000);
      await page.context().close();
      assert.deepEqual(pageErrors, []);
    });

    it('lists the active vouchers after a reload and a new sign-in: shown again, cancelled, the balance and the reserve kept true', async () => {
      const { s, payer } = await shopWithTerminal(server(), { fund: 100, pin: '4829' });
      const page = await trackedPage(browser, PHONE, pageErrors);
      await page.goto(`${s.baseUrl}/wallet/offline-qr`);
      await page.fill('#handle', `@${payer}`);
      await page.fill('#pin', '4829');
      await page.click('#signin-button');
      await page.locator('#vouchers-card').waitFor({ state: 'visible' });
      assert.match(await page.locator('#reserved').innerText(), /Set aside in QR codes: NGN\s*0\.00/);
      assert.match(await page.locator('#vouchers-empty').innerText(), /No QR code/);

      await page.fill('#amount', '40');
      await page.click('#voucher-button');
      await page.locator('#voucher-result').waitFor({ state: 'visible' });
      const payload = await page.locator('#voucher-qr').getAttribute('data-payload');
      assert.match(payload ?? '', /^TLQ1\./);
      const expiry = await page.locator('#voucher-expiry').innerText();
      // The balance is read again after the voucher: 100 - 40.
      await page.locator('#signed-in-as', { hasText: /NGN\s*60\.00 available/ }).waitFor();
      await page.locator('#reserved[data-count="1"]').waitFor();
      assert.match(await page.locator('#reserved').innerText(), /NGN\s*40\.00/);

      // What the tab keeps: the session's token and expiry, never the PIN.
      const stored = JSON.parse((await page.evaluate("sessionStorage.getItem('tapline.wallet.session')")) as string) as Record<string, string>;
      assert.deepEqual(Object.keys(stored).sort(), ['expiresAt', 'handle', 'token']);
      assert.equal(stored.handle, `@${payer}`);
      assert.doesNotMatch(JSON.stringify(await page.evaluate('({ ...sessionStorage })')), /"4829"/);

      await page.reload();
      await page.locator('#vouchers li').first().waitFor({ state: 'visible' });
      assert.equal(await page.locator('#signin-card').isHidden(), true, 'still signed in after the reload');
      assert.match(await page.locator('#signed-in-as').innerText(), /NGN\s*60\.00 available/);
      assert.equal(await page.locator('#vouchers li').count(), 1);
      const item = page.locator('#vouchers li').first();
      assert.match(await item.locator('.voucher-amount').innerText(), /NGN\s*40\.00/);
      const listedExpiry = await item.locator('.voucher-expiry').innerText();
      assert.match(listedExpiry, /^Valid until /);
      assert.ok(expiry.includes(listedExpiry.replace(/^Valid until /, '')), `${listedExpiry} is the voucher's expiry (${expiry})`);
      assert.match(await page.locator('#reserved').innerText(), /NGN\s*40\.00/);
      await page.screenshot({ path: `${ARTIFACTS}offline-qr-list-${target.name}-390x844.png`, fullPage: true });

      // Shown again: the same voucher text.
      await item.locator('.voucher-show').click();
      await page.locator('#voucher-result').waitFor({ state: 'visible' });
      await waitForExpression(page, "(() => { const image = document.getElementById('voucher-qr'); return image !== null && image.complete && image.naturalWidth > 0 && image.dataset.payload !== ''; })()");
      assert.equal(await page.locator('#voucher-qr').getAttribute('data-payload'), payload);
      assert.match(await page.locator('#voucher-amount').innerText(), /NGN\s*40\.00/);
      await page.screenshot({ path: `${ARTIFACTS}offline-qr-shown-again-${target.name}-390x844.png`, fullPage: true });

      // A new sign-in elsewhere (another browser, desktop size) lists it too.
      const desktop = await trackedPage(browser, { viewport: { width: 1366, height: 768 } }, pageErrors);
      await desktop.goto(`${s.baseUrl}/wallet/offline-qr`);
      await desktop.fill('#handle', payer);
      await desktop.fill('#pin', '4829');
      await desktop.click('#signin-button');
      await desktop.locator('#vouchers li').first().waitFor({ state: 'visible' });
      assert.equal(await desktop.locator('#vouchers li').count(), 1);
      assert.match(await desktop.locator('#vouchers li .voucher-amount').innerText(), /NGN\s*40\.00/);
      await desktop.screenshot({ path: `${ARTIFACTS}offline-qr-list-${target.name}-1366x768.png`, fullPage: true });

      // Cancelled from the list: the money is back, nothing is reserved, the list is empty.
      await desktop.locator('#vouchers li .voucher-cancel').click();
      await desktop.locator('#reserved[data-count="0"]').waitFor();
      assert.match(await desktop.locator('#reserved').innerText(), /NGN\s*0\.00/);
      await desktop.locator('#signed-in-as', { hasText: /NGN\s*100\.00 available/ }).waitFor();
      assert.equal(await desktop.locator('#vouchers li').count(), 0);
      assert.equal(await balanceMinor(s, payer, 'NGN'), 10_000);
      const after = await s.request<{ total: number }>('GET', '/api/offline/qr?status=active', { headers: { authorization: `Bearer wallet.${stored.token}` } });
      assert.equal(after.body.total, 0);
      await desktop.screenshot({ path: `${ARTIFACTS}offline-qr-cancelled-${target.name}-1366x768.png`, fullPage: true });

      // The phone's tab learns it on its next reload.
      await page.reload();
      await page.locator('#reserved[data-count="0"]').waitFor();
      assert.match(await page.locator('#signed-in-as').innerText(), /NGN\s*100\.00 available/);

      // Signing out forgets the session here and on the server; a reload asks to sign in.
      await page.click('#signout');
      await page.locator('#signin-card').waitFor({ state: 'visible' });
      assert.equal(await page.evaluate("sessionStorage.getItem('tapline.wallet.session')"), null);
      await waitForExpression(page, `fetch('/api/wallet/balance', { headers: { authorization: 'Bearer wallet.${stored.token}' } }).then((r) => r.status === 401)`, 30_000);
      await page.reload();
      await page.locator('#signin-card').waitFor({ state: 'visible' });
      assert.equal(await page.locator('#voucher-card').isHidden(), true);
      await page.context().close();
      await desktop.context().close();
      assert.deepEqual(pageErrors, []);
    });
  });
}
