// The built-in web POS (/pos) and the pay pages, driven in Chromium by playwright-core against a
// real server on each database. Screenshots are kept under test-artifacts/ for people to look at.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, trackedPage, waitForExpression } from './browser.ts';
import { shopWithTerminal } from './shop.ts';
import { databaseTargets, uniqueHandle, useTestServer } from '@tapline/sync-server/testing';

const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));
/** A phone-sized window: the pages are built for one. */
const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

for (const target of await databaseTargets()) {
  describe(`web POS in Chromium on ${target.name}`, () => {
    // The server's clock: real time plus an offset a test moves forward to expire a session.
    let offsetMs = 0;
    const server = useTestServer(target, { rateLimitScale: 10, now: () => new Date(Date.now() + offsetMs) });
    let browser: Browser;
    const pageErrors: string[] = [];

    before(async () => {
      mkdirSync(ARTIFACTS, { recursive: true });
      browser = await launchChromium();
    });
    after(async () => {
      await browser?.close();
    });

    const phonePage = (): Promise<Page> => trackedPage(browser, PHONE, pageErrors);

    const setup = () => shopWithTerminal(server(), { fund: 100 });

    async function signInAndCharge(page: Page, baseUrl: string, terminalToken: string, amount: string, description: string, screenshots = false): Promise<string> {
      await page.goto(`${baseUrl}/pos`);
      // A saved token is checked first: the page then shows either the sign-in or the charge form.
      await page.locator('#signin:visible, #charge:visible').first().waitFor();
      if (await page.locator('#signin').isVisible()) {
        // The support path: the raw token behind the link (pairing has its own test).
        await page.click('#show-advanced');
        await page.fill('#token', `term.${terminalToken}`);
        if (screenshots) await page.screenshot({ path: `${ARTIFACTS}pos-signin-${target.name}.png`, fullPage: true });
        await page.click('#signin-form button[type=submit]');
      }
      await page.locator('#charge').waitFor({ state: 'visible' });
      await page.fill('#amount', amount);
      await page.fill('#description', description);
      if (screenshots) await page.screenshot({ path: `${ARTIFACTS}pos-charge-${target.name}.png`, fullPage: true });
      await page.click('#charge-button');
      await page.locator('#waiting').waitFor({ state: 'visible' });
      // The QR code image is served and decoded.
      await waitForExpression(page, "(() => { const image = document.getElementById('qr'); return image !== null && image.complete && image.naturalWidth > 0; })()");
      const sessionId = await page.locator('#waiting').getAttribute('data-session-id');
      assert.ok(sessionId, 'the page exposes the session it created');
      return sessionId;
    }

    it('signs in with a terminal token, charges 12.50, shows the QR code, and shows completed with amount and payer after a tap', async () => {
      const { s, merchant, key, terminalToken, payer, tagId } = await setup();
      const page = await phonePage();
      const sessionId = await signInAndCharge(page, s.baseUrl, terminalToken, '12.50', 'Jollof rice', true);
      assert.match(await page.locator('#who').innerText(), new RegExp(merchant.handle));
      assert.match(await page.locator('#waiting-amount').innerText(), /NGN\s*12\.50/);
      const countdown = Number(await page.locator('#countdown').innerText());
      assert.ok(countdown > 80 && countdown <= 90, `countdown ${countdown}`);
      const created = await s.request<{ status: string; amount: number; description: string }>('GET', `/api/pos/sessions/${sessionId}`, { headers: key });
      assert.deepEqual([created.body.status, created.body.amount, created.body.description], ['pending', 12.5, 'Jollof rice']);
      await page.screenshot({ path: `${ARTIFACTS}pos-waiting-${target.name}.png`, fullPage: true });

      // The tap arrives through the API (a reader elsewhere); the page learns of it by polling.
      const tapped = await s.request<{ status: string }>('POST', `/api/pos/sessions/${sessionId}/tap`, { headers: key, body: { tagId } });
      assert.equal(tapped.body.status, 'completed');
      await page.locator('#result[data-status="completed"]').waitFor({ state: 'visible', timeout: 60_000 });
      assert.equal(await page.locator('#result-title').innerText(), 'Paid');
      assert.match(await page.locator('#result-amount').innerText(), /NGN\s*12\.50/);
      const details = await page.locator('#result-details').innerText();
      assert.match(details, new RegExp(`@${payer}`));
      assert.match(details, /wtx_pos_/);
      await page.screenshot({ path: `${ARTIFACTS}pos-completed-${target.name}.png`, fullPage: true });
      await page.context().close();
    });

    it('pairs with the till\'s pairing code like the kiosk; the raw token stays behind the support link', async () => {
      const { s, merchant, key, terminalId, terminalToken } = await setup();
      const page = await phonePage();
      await page.goto(`${s.baseUrl}/pos`);
      await page.locator('#pair-form').waitFor({ state: 'visible' });
      assert.equal(await page.locator('#token-panel').isHidden(), true, 'the token field is not the first thing asked');
      assert.equal(await page.locator('h1:visible').first().innerText(), 'Pair this till');
      assert.equal((await page.locator('#show-advanced').innerText()).trim(), 'Support: sign in with a terminal token');
      await page.screenshot({ path: `${ARTIFACTS}pos-pair-${target.name}-390x844.png`, fullPage: true });

      await page.click('#pair-button');
      assert.equal(await page.locator('#signin-error').innerText(), 'Type the pairing code first.');
      await page.fill('#pairing-code', 'ZZZZ-ZZZZ');
      await page.click('#pair-button');
      await page.locator('#signin-error', { hasText: 'That pairing code is not right. Check it, or ask the manager for a new one.' }).waitFor();
      await page.fill('#pairing-code', 'AB');
      await page.click('#pair-button');
      await page.locator('#signin-error', { hasText: 'A pairing code has 8 letters and digits, like ABCD-EFGH.' }).waitFor();
      await page.screenshot({ path: `${ARTIFACTS}pos-pair-error-${target.name}-390x844.png`, fullPage: true });

      // The support link shows the token field, and back.
      await page.click('#show-advanced');
      await page.locator('#token').waitFor({ state: 'visible' });
      assert.equal(await page.locator('#pair-panel').isHidden(), true);
      assert.equal((await page.locator('#show-advanced').innerText()).trim(), 'Use a pairing code instead');
      assert.equal(await page.locator('#signin-error').innerText(), '');
      await page.screenshot({ path: `${ARTIFACTS}pos-pair-support-${target.name}-390x844.png`, fullPage: true });
      await page.click('#show-advanced');
      await page.locator('#pairing-code').waitFor({ state: 'visible' });

      // The code, typed in lower case without the dash, as a cashier might.
      const fresh = await s.request<{ pairingCode: string }>('POST', `/api/merchant/terminals/${terminalId}/pairing-code`, { headers: key });
      assert.equal(fresh.status, 201);
      const code = fresh.body.pairingCode;
      await page.fill('#pairing-code', code.replace('-', '').toLowerCase());
      await page.click('#pair-button');
      await page.locator('#charge').waitFor({ state: 'visible' });
      assert.match(await page.locator('#who').innerText(), new RegExp(`Mama Put Kitchen ${merchant.handle} · Front counter`));
      // Pairing gave this page a new token: the one shown at creation stops working.
      const old = await s.request('GET', '/api/pos/context', { headers: { authorization: `Bearer term.${terminalToken}` } });
      assert.equal(old.status, 401);
      const saved = (await page.evaluate("localStorage.getItem('tapline.pos.token')")) as string;
      assert.match(saved, /^term\.[0-9a-f]{64}$/);
      assert.notEqual(saved, `term.${terminalToken}`);

      // It stays paired across a reload, and charges.
      await page.reload();
      await page.locator('#charge').waitFor({ state: 'visible' });
      await page.fill('#amount', '7');
      await page.click('#charge-button');
      await page.locator('#waiting').waitFor({ state: 'visible' });
      const sessionId = await page.locator('#waiting').getAttribute('data-session-id');
      const created = await s.request<{ status: string; amount: number }>('GET', `/api/pos/sessions/${sessionId}`, { headers: key });
      assert.deepEqual([created.body.status, created.body.amount], ['pending', 7]);
      await page.click('#cancel');
      await page.locator('#result[data-status="cancelled"]').waitFor({ state: 'visible' });
      await page.click('#new-sale');

      // Signed out, the code is used up.
      await page.click('#signout');
      await page.locator('#pair-form').waitFor({ state: 'visible' });
      assert.equal(await page.evaluate("localStorage.getItem('tapline.pos.token')"), null);
      await page.fill('#pairing-code', code);
      await page.click('#pair-button');
      await page.locator('#signin-error', { hasText: 'That pairing code was already used. Ask the manager for a new one.' }).waitFor();

      // In French, at desktop size.
      const desktop = await trackedPage(browser, { viewport: { width: 1366, height: 768 } }, pageErrors);
      await desktop.goto(`${s.baseUrl}/pos?lang=fr`);
      await desktop.locator('#pair-form').waitFor({ state: 'visible' });
      assert.equal(await desktop.locator('label[for="pairing-code"]').innerText(), 'Code d\'appairage');
      await desktop.click('#pair-button');
      assert.equal(await desktop.locator('#signin-error').innerText(), 'Saisissez d\'abord le code d\'appairage.');
      await desktop.screenshot({ path: `${ARTIFACTS}pos-pair-fr-${target.name}-1366x768.png`, fullPage: true });
      await desktop.context().close();
      await page.context().close();
      assert.deepEqual(pageErrors, []);
    });

    it('shows a failed payment with its reason, a cancelled sale and an expired one', async () => {
      const { s, key, terminalToken, tagId } = await setup();
      const page = await phonePage();
      const tooDear = await signInAndCharge(page, s.baseUrl, terminalToken, '500', 'Generator');
      await s.request('POST', `/api/pos/sessions/${tooDear}/tap`, { headers: key, body: { tagId } });
      await page.locator('#result[data-status="failed"]').waitFor({ state: 'visible', timeout: 60_000 });
      assert.equal(await page.locator('#result-title').innerText(), 'Payment failed');
      assert.match(await page.locator('#result-details').innerText(), /Insufficient funds/i);
      await page.screenshot({ path: `${ARTIFACTS}pos-failed-${target.name}.png`, fullPage: true });
      await page.click('#new-sale');
      await signInAndCharge(page, s.baseUrl, terminalToken, '3', 'Water');
      await page.click('#cancel');
      await page.locator('#result[data-status="cancelled"]').waitFor({ state: 'visible', timeout: 60_000 });
      assert.equal(await page.locator('#result-title').innerText(), 'Cancelled');
      await page.click('#new-sale');
      await signInAndCharge(page, s.baseUrl, terminalToken, '4', 'Bread');
      offsetMs += 90_000;
      await page.locator('#result[data-status="expired"]').waitFor({ state: 'visible', timeout: 60_000 });
      assert.equal(await page.locator('#result-title').innerText(), 'Expired');
      assert.match(await page.locator('#result-details').innerText(), /expired/);
      await page.screenshot({ path: `${ARTIFACTS}pos-expired-${target.name}.png`, fullPage: true });
      await page.context().close();
    });

    it('pays a session without NFC: the QR link opens a page where the customer signs in with @handle and PIN', async () => {
      const { s, terminalToken } = await setup();
      const customer = uniqueHandle('bola');
      await s.createWallet({ handle: customer, pin: '2468', fund: 40 });
      const till = await phonePage();
      const sessionId = await signInAndCharge(till, s.baseUrl, terminalToken, '25', 'Haircut');
      const phone = await phonePage();
      await phone.goto(`${s.baseUrl}/tap/${sessionId}`);
      assert.match(await phone.locator('.amount-display').innerText(), /NGN\s*25\.00/);
      await phone.fill('#handle', `@${customer}`);
      await phone.fill('#pin', '1111');
      await phone.click('#pay-button');
      await phone.locator('#pay-error').filter({ hasText: /wrong pin/i }).waitFor({ timeout: 60_000 });
      await phone.fill('#pin', '2468');
      await phone.click('#pay-button');
      await phone.locator('#pay-result[data-status="completed"]').waitFor({ state: 'visible', timeout: 60_000 });
      assert.match(await phone.locator('#result-message').innerText(), new RegExp(`@${customer}`));
      await phone.screenshot({ path: `${ARTIFACTS}pay-session-${target.name}.png`, fullPage: true });
      await till.locator('#result[data-status="completed"]').waitFor({ state: 'visible', timeout: 60_000 });
      assert.match(await till.locator('#result-details').innerText(), new RegExp(`@${customer}`));
      await till.context().close();
      await phone.context().close();
    });

    it('follows /tap/<tagId> to /pay/<handle>?source=nfc and pays that handle from the visitor\'s wallet', async () => {
      const { s, payer, tagId } = await setup();
      const visitor = uniqueHandle('chidi');
      await s.createWallet({ handle: visitor, pin: '9753', fund: 30 });
      const phone = await phonePage();
      await phone.goto(`${s.baseUrl}/tap/${tagId}`);
      assert.equal(new URL(phone.url()).pathname, `/pay/${payer}`);
      assert.equal(new URL(phone.url()).searchParams.get('source'), 'nfc');
      await phone.locator('.badge').filter({ hasText: 'Tapped with NFC' }).waitFor();
      await phone.fill('#amount', '7.50');
      await phone.fill('#note', 'for the suya');
      await phone.fill('#handle', visitor);
      await phone.fill('#pin', '9753');
      await phone.click('#pay-button');
      await phone.locator('#pay-result[data-status="completed"]').waitFor({ state: 'visible', timeout: 60_000 });
      const message = await phone.locator('#result-message').innerText();
      assert.match(message, new RegExp(`@${payer}`));
      assert.match(message, /NGN\s*22\.50/, 'the visitor\'s balance after paying 7.50 of 30');
      await phone.screenshot({ path: `${ARTIFACTS}pay-handle-${target.name}.png`, fullPage: true });
      await phone.context().close();
    });

    it('pays a payment link page with @handle and PIN; the same submission sent twice charges once', async () => {
      const { s, key } = await setup();
      const visitor = uniqueHandle('dayo');
      await s.createWallet({ handle: visitor, pin: '1357', fund: 50 });
      const link = await s.request<{ id: string; url: string }>('POST', '/api/payment-links', { headers: key, body: { amount: 12, currency: 'NGN', description: 'Suya platter' } });
      assert.equal(link.status, 201);
      const phone = await phonePage();
      // Every pay request the page sends, with the Idempotency-Key it carried.
      const keys: string[] = [];
      phone.on('request', (request) => {
        if (request.url().endsWith('/pay') && request.method() === 'POST') keys.push(request.headers()['idempotency-key'] ?? '');
      });
      await phone.goto(`${s.baseUrl}/pay/link/${link.body.id}`);
      await phone.fill('#handle', `@${visitor}`);
      await phone.fill('#pin', '1357');
      // The page's own request, then the same one again, as a flaky network's retry would send it.
      const [answer] = await Promise.all([phone.waitForResponse((response) => response.url().endsWith('/pay')), phone.click('#pay-button')]);
      assert.equal(answer.status(), 200);
      await phone.locator('#result.done').waitFor({ timeout: 60_000 });
      assert.match(await phone.locator('#result').innerText(), /Paid 12 NGN/);
      assert.equal(keys.length, 1);
      assert.ok(keys[0]!.length > 8, 'the page sends an Idempotency-Key');
      const retry = await s.request('POST', `/api/payment-links/${link.body.id}/pay`, { headers: { 'idempotency-key': keys[0]! }, body: answer.request().postDataJSON() });
      assert.equal(retry.status, 200);
      assert.equal(retry.headers.get('idempotent-replayed'), 'true');
      const session = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle: visitor, pin: '1357' } });
      const balance = await s.request<{ balances: { currency: string; available: number }[] }>('GET', '/api/wallet/balance', { headers: { authorization: `Bearer wallet.${session.body.token}` } });
      assert.equal(balance.body.balances.find((entry) => entry.currency === 'NGN')?.available, 38, 'charged 12 once');
      await phone.screenshot({ path: `${ARTIFACTS}pay-link-${target.name}.png`, fullPage: true });
      await phone.context().close();
      assert.deepEqual(pageErrors, [], 'no script errors on any page');
    });
  });
}
