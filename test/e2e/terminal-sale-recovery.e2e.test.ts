// A sale in progress survives anything, in Chromium against the real sync server on each
// database: the sale lives in the replica from Charge on, so a reload or a crash of the kiosk
// resumes it (the outcome shown, the receipt printed once); when the server goes away during a
// sale (a TCP relay the test cuts), the code is hidden, Cancel works at once on the kiosk and is
// sent when the server returns, the countdown ends in a clear state with "Take offline instead";
// and when the server is back its answer wins: a sale the customer paid by QR meanwhile shows as
// paid, and an offline payment taken instead is never sent (never charged twice). Today's sales
// list them all, and the alerts stay until the cashier acknowledges them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { assertAccessible } from './axe.ts';
import { trackedPage } from './browser.ts';
import { ARTIFACTS, KIOSK, KIOSK_SIZES, SYNC_WAIT, assertControlsOnScreen, builtRenderer, signInKiosk, useKioskRig } from './kiosk.ts';
import { shopWithTerminal } from './shop.ts';
import { checkLedger } from '@tapline/sync-server/ledger/check';
import { type TestServer, balanceMinor, databaseTargets, useTestServer } from '@tapline/sync-server/testing';

const PIN = '4829';
const rendererDir = await builtRenderer();

for (const target of await databaseTargets()) {
  describe(`kiosk sale recovery in Chromium on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 10 });
    const kiosk = useKioskRig(server, { rendererDir, previews: `terminal-recovery-receipts-${target.name}` });

    async function setup() {
      const shop = await shopWithTerminal(server(), { fund: 100, pin: PIN });
      const limits = await shop.s.request('PATCH', `/api/merchant/terminals/${shop.terminalId}`, { headers: shop.key, body: { offlineLimits: { perPayment: 30, total: 50, maxAgeHours: 24 } } });
      assert.equal(limits.status, 200);
      return shop;
    }

    /** The customer pays the session on the QR code's page from their own phone (straight to the server). */
    async function payByQr(s: TestServer, handle: string, sessionId: string): Promise<void> {
      const session = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle, pin: PIN } });
      assert.equal(session.status, 201);
      const paid = await s.request<{ status: string }>('POST', `/api/pos/sessions/${sessionId}/pay`, { headers: { authorization: `Bearer wallet.${session.body.token}` } });
      assert.equal(paid.status, 200, JSON.stringify(paid.body));
      assert.equal(paid.body.status, 'completed');
    }

    async function charge(page: Page, amount: string): Promise<string> {
      await page.click('#key-clear');
      await page.keyboard.type(amount);
      await page.click('#charge-button');
      await page.locator('#waiting #qr svg').waitFor();
      const sessionId = await page.locator('#waiting').getAttribute('data-session-id');
      assert.ok(sessionId);
      return sessionId;
    }

    const receiptsOf = (sessionId: string) => kiosk.printer.jobs.filter((job) => job.jobId === `pos-${sessionId}`).length;

    it('resumes a sale after a reload and after a crash of the kiosk: the customer paid on the QR page meanwhile, the kiosk shows it paid and prints the receipt once', async () => {
      const { s, key, payer, terminalToken } = await setup();
      const page = await trackedPage(kiosk.browser, KIOSK, kiosk.pageErrors);
      await signInKiosk(page, kiosk.host, terminalToken);
      const before = await balanceMinor(s, payer, 'NGN');
      const sessionId = await charge(page, '7.50');

      // The kiosk reloads; the customer pays on the QR page while it does.
      await Promise.all([page.reload(), payByQr(s, payer, sessionId)]);
      await page.locator(`#result[data-status="completed"][data-session-id="${sessionId}"]`).waitFor(SYNC_WAIT);
      assert.equal(await page.locator('#result-payer').innerText(), `@${payer}`);
      await page.locator('#receipt-status[data-state="printed"]').waitFor(SYNC_WAIT);
      assert.equal(receiptsOf(sessionId), 1, 'printed once');
      const printed = Buffer.from(kiosk.printer.jobs.find((job) => job.jobId === `pos-${sessionId}`)!.bytes).toString('latin1');
      assert.match(printed, /Method +QR/, 'the receipt says it was paid by QR');
      await page.screenshot({ path: `${ARTIFACTS}terminal-recovery-resumed-${target.name}.png` });

      // A crash: the window is gone; a new one (same browser profile, so the same IndexedDB) comes back to the outcome, and does not print again.
      const context = page.context();
      await page.close();
      const again = await context.newPage();
      await again.goto(kiosk.host.url);
      await again.locator(`#result[data-status="completed"][data-session-id="${sessionId}"]`).waitFor(SYNC_WAIT);
      await again.locator('#receipt-status[data-state="printed"]').waitFor();
      assert.equal(receiptsOf(sessionId), 1, 'still printed once');
      assert.equal(before - (await balanceMinor(s, payer, 'NGN')), 750, 'charged once');
      const session = await s.request<{ status: string }>('GET', `/api/pos/sessions/${sessionId}`, { headers: key });
      assert.equal(session.body.status, 'completed');

      // Done with it: the next start is a new sale, and today's sales list it with a reprint.
      await again.click('#new-sale');
      await again.locator('#sale').waitFor();
      await again.reload();
      await again.locator('#sale').waitFor();
      await again.click('#history-button');
      const row = again.locator('#history tbody tr').first();
      await row.waitFor();
      assert.equal(await row.getAttribute('data-outcome'), 'paid');
      assert.match(await row.innerText(), new RegExp(`NGN\u00a07\\.50\\s+QR code\\s+@${payer}\\s+Paid`));
      await row.locator('button.reprint').click();
      await row.locator('.print-state').waitFor();
      const copy = kiosk.printer.jobs.at(-1)!;
      assert.match(copy.jobId, new RegExp(`^pos-${sessionId}-copy-\\d+$`));
      assert.match(Buffer.from(copy.bytes).toString('latin1'), /COPY - REPRINTED/);
      await again.close();
      assert.deepEqual(kiosk.pageErrors, [], 'no script errors on the page');
    });

    it('cancels at once when the server goes away during a sale, hides the code nobody can pay, and sends the cancel when the server returns', async () => {
      const { s, key, payer, terminalToken } = await setup();
      const page = await trackedPage(kiosk.browser, KIOSK, kiosk.pageErrors);
      await signInKiosk(page, kiosk.host, terminalToken);
      const before = await balanceMinor(s, payer, 'NGN');
      const sessionId = await charge(page, '3');

      kiosk.relay.cut();
      await page.locator('#waiting[data-reachable="false"]').waitFor(SYNC_WAIT);
      assert.equal(await page.locator('#qr').count(), 0, 'no QR code that nobody could pay');
      assert.match(await page.locator('#waiting-offline').innerText(), /cannot be reached/);
      assert.doesNotMatch(await page.locator('#waiting').innerText(), /ECONNREFUSED|sync_server_unreachable|HTTP/);
      await page.locator('#take-offline').waitFor();
      // Nothing offers a way to pay that cannot work: no "scan the code", no running countdown;
      // the notice says what the cashier can do (take it offline, or cancel).
      assert.equal(await page.locator('#countdown').count(), 0, 'no countdown while the server is away');
      assert.doesNotMatch(await page.locator('#waiting').innerText(), /scan the code|Expires in/);
      assert.equal(await page.locator('#waiting-offline .offline-title').innerText(), 'The server cannot be reached');
      assert.match(await page.locator('#waiting-offline').innerText(), /Take the payment offline .*or cancel the sale\./s);
      for (const size of KIOSK_SIZES) {
        await page.setViewportSize(size);
        await assertControlsOnScreen(page, '#waiting', `waiting without the server at ${size.width}x${size.height}`);
        await page.screenshot({ path: `${ARTIFACTS}terminal-recovery-server-gone-${size.width}x${size.height}-${target.name}.png` });
      }
      await page.setViewportSize(KIOSK.viewport);
      await page.screenshot({ path: `${ARTIFACTS}terminal-recovery-server-gone-${target.name}.png` });
      await assertAccessible(page, 'waiting without the server');

      // A tap meanwhile gets an answer in words, not silence.
      assert.ok(kiosk.reader.tap('TG0BADC0DE'));
      // "Tag read: paying…" shows first (it has no code); the answer replaces it.
      await page.locator('#waiting-message.error[data-code]').waitFor(SYNC_WAIT);
      assert.match(await page.locator('#waiting-message .text').innerText(), /cannot be reached|not connected/);

      // Cancelled on the kiosk at once: while the server still cannot be reached, not when it returns.
      await page.click('#cancel');
      await page.locator('#result[data-status="cancelled-locally"][data-confirmed="false"]').waitFor();
      assert.equal(await page.locator('#result-title').innerText(), 'Cancelled on this till');
      // Still pending on the server, which has not heard of it yet.
      assert.equal((await s.request<{ status: string }>('GET', `/api/pos/sessions/${sessionId}`, { headers: key })).body.status, 'pending');

      kiosk.relay.restore();
      await page.locator('#result[data-status="cancelled"][data-confirmed="true"]').waitFor(SYNC_WAIT);
      assert.equal((await s.request<{ status: string }>('GET', `/api/pos/sessions/${sessionId}`, { headers: key })).body.status, 'cancelled');
      assert.equal(await balanceMinor(s, payer, 'NGN'), before, 'nothing charged');
      assert.equal(receiptsOf(sessionId), 0, 'nothing printed');
      await page.context().close();
      assert.deepEqual(kiosk.pageErrors, [], 'no script errors on the page');
    });

    it('lets the server answer win: a sale cancelled on the kiosk but paid by QR shows as paid with an alert, and an offline payment taken instead of a paid sale is never sent', async () => {
      const { s, key, merchant, payer, terminalToken, tagId } = await setup();
      const page = await trackedPage(kiosk.browser, KIOSK, kiosk.pageErrors);
      await signInKiosk(page, kiosk.host, terminalToken);
      const payerStart = await balanceMinor(s, payer, 'NGN');
      const merchantStart = await balanceMinor(s, merchant.handle, 'NGN');

      // 1. Cancelled on the kiosk while the customer paid on their phone.
      const first = await charge(page, '4');
      kiosk.relay.cut();
      await page.locator('#waiting[data-reachable="false"]').waitFor(SYNC_WAIT);
      await payByQr(s, payer, first);
      await page.click('#cancel');
      await page.locator('#result[data-status="cancelled-locally"]').waitFor();
      await page.click('#new-sale');
      await page.locator('#sale').waitFor();

      kiosk.relay.restore();
      await page.locator('#status-sync[data-state="online"]').waitFor(SYNC_WAIT);
      // The first sale's real outcome arrives: paid, with an alert that stays.
      await page.locator(`#alert[data-kind="sale_paid_after_cancel"]`).waitFor(SYNC_WAIT);
      assert.match(await page.locator('#alert').innerText(), /NGN\u00a04\.00.*had paid it/s);
      await page.screenshot({ path: `${ARTIFACTS}terminal-recovery-paid-after-cancel-${target.name}.png` });
      await assertAccessible(page, 'sale screen with an alert');
      // The alert takes its room above the sale screen: every control stays on screen at every size.
      for (const size of KIOSK_SIZES) {
        await page.setViewportSize(size);
        await assertControlsOnScreen(page, 'main', `sale with an alert at ${size.width}x${size.height}`);
      }
      await page.screenshot({ path: `${ARTIFACTS}terminal-recovery-alert-1920x1080-${target.name}.png` });
      await page.setViewportSize({ width: 800, height: 600 });
      await page.screenshot({ path: `${ARTIFACTS}terminal-recovery-alert-800x600-${target.name}.png` });
      await page.setViewportSize(KIOSK.viewport);

      // 2. Taken offline instead while the customer paid on their phone: tapped offline too.
      const third = await charge(page, '6');
      kiosk.relay.cut();
      await page.locator('#waiting[data-reachable="false"]').waitFor(SYNC_WAIT);
      await payByQr(s, payer, third);
      await page.click('#take-offline');
      await page.locator('#offline-pay[data-accept-taps="true"]').waitFor();
      assert.ok(kiosk.reader.tap(tagId));
      await page.locator('#offline-result[data-status="queued"]').waitFor();
      const offlineId = await page.locator('#offline-result').getAttribute('data-payment-id');
      assert.ok(offlineId);
      kiosk.relay.restore();
      // The sale was paid by QR: the offline payment is voided on the kiosk, never sent.
      await page.locator('#offline-result[data-status="declined"]').waitFor(SYNC_WAIT);
      assert.equal(await page.locator('#offline-result-reason').getAttribute('data-code'), 'sale_paid_by_qr');
      await page.locator('#status-sync[data-state="online"][data-queued="0"]').waitFor(SYNC_WAIT);
      const offline = await s.request<{ total: number }>('GET', '/api/offline/payments', { headers: key });
      assert.equal(offline.body.total, 0, 'the server never saw the offline payment');
      assert.equal(payerStart - (await balanceMinor(s, payer, 'NGN')), 1000, 'the customer paid 4 + 6 once each');
      assert.equal((await balanceMinor(s, merchant.handle, 'NGN')) - merchantStart, 1000);
      for (const sessionId of [first, third]) assert.equal((await s.request<{ status: string }>('GET', `/api/pos/sessions/${sessionId}`, { headers: key })).body.status, 'completed');

      // Both alerts stay over a reload until acknowledged, one at a time.
      await page.reload();
      await page.locator('#alert').waitFor(SYNC_WAIT);
      assert.equal(await page.locator('#alert').getAttribute('data-open'), '2');
      const kinds = [await page.locator('#alert').getAttribute('data-kind')];
      await page.click('#alert-acknowledge');
      await page.locator('#alert[data-open="1"]').waitFor();
      kinds.push(await page.locator('#alert').getAttribute('data-kind'));
      assert.deepEqual(kinds.sort(), ['offline_payment_declined', 'sale_paid_after_cancel']);
      await page.click('#alert-acknowledge');
      await page.locator('#alert').waitFor({ state: 'detached' });
      await page.reload();
      await page.locator('#sale').waitFor();
      // Not a guessed pause: the replica caught up with the server, and the open alerts read from it.
      await page.locator('#status-sync[data-state="online"][data-queued="0"]').waitFor(SYNC_WAIT);
      await page.locator('#alerts-read[data-read="true"]').waitFor({ state: 'attached' });
      assert.equal(await page.locator('#alerts-read').getAttribute('data-open'), '0');
      assert.equal(await page.locator('#alert').count(), 0, 'acknowledged alerts do not come back');

      // Today's sales: both paid sales and the voided offline payment.
      await page.click('#history-button');
      await page.locator('#history tbody tr').nth(2).waitFor();
      const outcomes = await page.locator('#history tbody tr').evaluateAll((rows) => rows.map((row) => `${row.getAttribute('data-kind')}:${row.getAttribute('data-outcome')}`));
      assert.deepEqual(outcomes.sort(), ['offline:declined', 'pos:paid', 'pos:paid']);
      await page.screenshot({ path: `${ARTIFACTS}terminal-recovery-history-${target.name}.png` });
      assert.deepEqual((await checkLedger(s.db)).violations, []);
      await page.context().close();
      assert.deepEqual(kiosk.pageErrors, [], 'no script errors on the page');
    });

    it('ends the countdown in a clear state when the server is away at the end, and offers the offline path', async () => {
      const { terminalToken } = await setup();
      const context = await kiosk.browser.newContext(KIOSK);
      // The page's clock runs on, and jumps past the session's 90 seconds below.
      await context.clock.install();
      const page = await context.newPage();
      page.on('pageerror', (error) => kiosk.pageErrors.push(error.message));
      await signInKiosk(page, kiosk.host, terminalToken);
      await charge(page, '2');
      kiosk.relay.cut();
      await page.locator('#waiting[data-reachable="false"]').waitFor(SYNC_WAIT);
      await page.clock.fastForward('01:35');
      await page.locator('#result[data-status="timed-out"]').waitFor(SYNC_WAIT);
      assert.equal(await page.locator('#result-title').innerText(), 'Time is up');
      await page.locator('#result #take-offline').waitFor();
      await page.screenshot({ path: `${ARTIFACTS}terminal-recovery-timed-out-${target.name}.png` });
      await page.click('#result #take-offline');
      await page.locator('#offline-pay[data-accept-taps="true"]').waitFor();
      assert.match(await page.locator('#offline-amount').innerText(), /NGN\u00a02\.00/);
      kiosk.relay.restore();
      await context.close();
      assert.deepEqual(kiosk.pageErrors, [], 'no script errors on the page');
    });
  });
}
