// The kiosk terminal's offline-first replica in Chromium against the real sync server on each
// database. The host reaches the server through a TCP relay the test cuts and restores, so the
// server (database, ledger) keeps running while the shop's connection is down.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { trackedPage, waitForExpression } from './browser.ts';
import { ARTIFACTS, KIOSK, SYNC_WAIT, builtRenderer, signInKiosk, useKioskRig } from './kiosk.ts';
import { shopWithTerminal } from './shop.ts';
import { checkLedger } from '@tapline/sync-server/ledger/check';
import { type TestServer, balanceMinor, databaseTargets, uniqueHandle, useTestServer } from '@tapline/sync-server/testing';
const PIN = '4829';

const rendererDir = await builtRenderer();

async function walletToken(s: TestServer, handle: string): Promise<string> {
  const session = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle, pin: PIN } });
  assert.equal(session.status, 201);
  return `wallet.${session.body.token}`;
}

/** The holder sets money aside in an offline QR voucher (online, beforehand) and shows its payload. */
async function makeVoucher(s: TestServer, handle: string, amount: number): Promise<{ id: string; qrPayload: string }> {
  const made = await s.request<{ id: string; qrPayload: string; amount: number; status: string }>('POST', '/api/offline/qr', { headers: { authorization: `Bearer ${await walletToken(s, handle)}` }, body: { amount, currency: 'NGN' } });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  assert.deepEqual([made.body.amount, made.body.status], [amount, 'active']);
  assert.match(made.body.qrPayload, /^TLQ1\./);
  return made.body;
}

for (const target of await databaseTargets()) {
  describe(`kiosk terminal offline in Chromium on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 10 });
    const kiosk = useKioskRig(server, { rendererDir, previews: `terminal-offline-receipts-${target.name}` });

    /** A shop whose terminal may take 30.00 per offline payment and hold 50.00 unsettled. */
    async function setup() {
      const shop = await shopWithTerminal(server(), { fund: 100, pin: PIN });
      const limits = await shop.s.request<{ perPayment: number; total: number }>('PATCH', `/api/merchant/terminals/${shop.terminalId}`, { headers: shop.key, body: { offlineLimits: { perPayment: 30, total: 50, maxAgeHours: 24 } } });
      assert.equal(limits.status, 200, JSON.stringify(limits.body));
      return shop;
    }

    const signIn = (page: Page, terminalToken: string) => signInKiosk(page, kiosk.host, terminalToken);

    async function typeAmount(page: Page, amount: string): Promise<void> {
      await page.click('#key-clear');
      await page.keyboard.type(amount);
      assert.equal(await page.locator('#amount-display').innerText(), amount);
    }

    /** Charge while offline: the Sale screen goes straight to the offline screen, which takes taps. */
    async function offlineTap(page: Page, amount: string, tagId: string): Promise<void> {
      await typeAmount(page, amount);
      assert.match(await page.locator('#charge-button').innerText(), /^Take offline NGN/);
      await page.click('#charge-button');
      await page.locator('#offline-pay[data-accept-taps="true"]').waitFor();
      assert.ok(kiosk.reader.tap(tagId), 'the simulated reader read the tag');
    }

    async function scanVoucher(page: Page, amount: string, payload: string): Promise<void> {
      await typeAmount(page, amount);
      await page.click('#offline-qr');
      await page.locator('#offline-pay').waitFor();
      // A keyboard-wedge scanner: the payload typed into the focused field, then Enter.
      await page.keyboard.type(payload);
      await page.keyboard.press('Enter');
    }

    async function queuedOutcome(page: Page): Promise<string> {
      await page.locator('#offline-result[data-status="queued"]').waitFor();
      assert.equal(await page.locator('#offline-result-title').innerText(), 'Accepted offline - will settle when online');
      const id = await page.locator('#offline-result').getAttribute('data-payment-id');
      assert.match(id ?? '', /^[0-9a-f-]{36}$/);
      return id!;
    }

    async function refusal(page: Page): Promise<{ code: string | null; text: string }> {
      await page.locator('#offline-refusal').waitFor();
      return { code: await page.locator('#offline-refusal').getAttribute('data-code'), text: await page.locator('#offline-refusal').innerText() };
    }

    /** Today's offline payments as the sales history shows them: id=outcome (waiting, paid, declined). */
    async function listStatuses(page: Page, count: number): Promise<string[]> {
      await page.click('#history-button');
      await page.locator('#history tr[data-kind="offline"]').nth(count - 1).waitFor();
      const statuses = await page.locator('#history tr[data-kind="offline"]').evaluateAll((rows) => rows.map((row) => `${row.getAttribute('data-id')}=${row.getAttribute('data-outcome')}`).sort());
      await page.click('#history-back');
      return statuses;
    }

    it('takes a tap and a QR voucher offline within the limits, refuses beyond them, keeps them over a reload, and settles them exactly once when the connection is back', async () => {
      const { s, key, merchant, terminalId, terminalToken, payer, tagId } = await setup();
      const broke = uniqueHandle('broke');
      await s.createWallet({ handle: broke, pin: PIN });
      const brokeTag = await s.request<{ tagId: string }>('POST', '/api/wearables', { headers: key, body: { handle: broke, tagType: 'card', displayName: 'Empty card' } });
      assert.equal(brokeTag.status, 201);
      const voucher = await makeVoucher(s, payer, 20);
      const payerStart = await balanceMinor(s, payer, 'NGN');
      const merchantStart = await balanceMinor(s, merchant.handle, 'NGN');
      assert.equal(payerStart, 8000, 'the voucher set 20.00 aside from 100.00');

      const page = await trackedPage(kiosk.browser, KIOSK, kiosk.pageErrors);
      await signIn(page, terminalToken);
      // The status bar says "online" on socket.io's connect; the hello is the server's first
      // message after it, so it may still be on its way.
      await waitForExpression(page, "localStorage.getItem('tapline.syncHello') !== null", SYNC_WAIT.timeout);
      // A string expression: this file is type-checked without the DOM library.
      const cached = JSON.parse((await page.evaluate<string | null>("localStorage.getItem('tapline.syncHello')")) ?? 'null') as { hello: { terminal: { id: string }; mode: string; offlineLimits: Record<string, unknown>; offlineQrKeys: unknown[] } } | null;
      assert.ok(cached, 'the hello is cached for an offline start');
      assert.equal(cached.hello.terminal.id, terminalId);
      assert.equal(cached.hello.mode, 'test');
      const { noPinPerTapMaxMinor, noPinPerDayMaxMinor, ...limits } = cached.hello.offlineLimits;
      assert.deepEqual(limits, { currency: 'NGN', perPaymentMaxMinor: 3000, totalMaxMinor: 5000, maxAgeSeconds: 86_400 });
      assert.ok(typeof noPinPerTapMaxMinor === 'number' && noPinPerTapMaxMinor > 3000, 'the largest offline tap (the no-PIN limit) is above this terminal\'s own limit');
      assert.ok(typeof noPinPerDayMaxMinor === 'number' && noPinPerDayMaxMinor >= noPinPerTapMaxMinor, 'the most one tag pays without its PIN in a day');
      assert.ok(cached.hello.offlineQrKeys.length >= 1);

      kiosk.relay.cut();
      await page.locator('#status-sync[data-state="offline"]').waitFor(SYNC_WAIT);

      // 1. A ring tap, offline: stored, shown, and a receipt marked offline.
      const jobsBefore = kiosk.printer.jobs.length;
      await offlineTap(page, '12.50', tagId);
      const tapId = await queuedOutcome(page);
      assert.match(await page.locator('#offline-result-amount').innerText(), /NGN\s*12\.50/);
      await page.locator('#offline-receipt-status').waitFor();
      assert.equal(kiosk.printer.jobs.length, jobsBefore + 1);
      const receipt = kiosk.printer.jobs.at(-1)!;
      assert.equal(receipt.jobId, `offline-${tapId}`);
      const printed = Buffer.from(receipt.bytes).toString('latin1');
      assert.match(printed, /OFFLINE - PENDING SYNC/);
      assert.match(printed, /12\.50/);
      assert.match(printed, new RegExp(tagId));
      await page.screenshot({ path: `${ARTIFACTS}terminal-offline-queued-${target.name}.png` });
      await page.click('#offline-new-sale');

      // 2. The QR voucher, offline: verified with the cached keys.
      await scanVoucher(page, '20', voucher.qrPayload);
      const qrId = await queuedOutcome(page);
      assert.equal(await page.locator('#offline-result').getAttribute('data-kind'), 'qr');
      await page.click('#offline-new-sale');

      // 3. Refusals: the same voucher again; over the per-payment limit and over the total are
      // refused on the sale screen as the amount is typed, before the customer taps; nothing stored.
      await scanVoucher(page, '20', voucher.qrPayload);
      assert.deepEqual(await refusal(page), { code: 'voucher_already_used', text: 'This QR code has already paid at this terminal.' });
      await page.click('#offline-back');
      assert.equal(await page.locator('#offline-limits').innerText(), 'Offline: up to NGN\u00a030.00 a payment · NGN\u00a032.50 of NGN\u00a050.00 waiting to settle');
      await typeAmount(page, '31');
      assert.equal((await refusal(page)).code, 'offline_amount_over_limit');
      assert.equal(await page.locator('#charge-button').isDisabled(), true, 'no tap over the limit');
      await typeAmount(page, '25');
      const overTotal = await refusal(page);
      assert.equal(overTotal.code, 'offline_exposure_limit');
      assert.match(overTotal.text, /connect to sync/);
      assert.equal(await page.locator('#charge-button').isDisabled(), true);
      await page.screenshot({ path: `${ARTIFACTS}terminal-offline-refused-${target.name}.png` });

      // 4. The empty card, offline: taken (the terminal cannot know), declined when it settles.
      await offlineTap(page, '5', brokeTag.body.tagId);
      const brokeId = await queuedOutcome(page);
      await page.click('#offline-new-sale');
      assert.deepEqual(await listStatuses(page, 3), [`${brokeId}=waiting`, `${qrId}=waiting`, `${tapId}=waiting`].sort());
      assert.equal(await page.locator('#status-queued').getAttribute('data-count'), '3');
      const lastSyncBefore = await page.locator('#status-queued').getAttribute('data-last-sync');
      assert.ok(lastSyncBefore, 'the last sync is known');

      // 5. A reload while offline: the saved token and cached hello start the terminal, IndexedDB keeps the payments.
      await page.reload();
      await page.locator('#sale').waitFor({ state: 'visible' });
      await page.locator('#status-sync[data-state="offline"]').waitFor(SYNC_WAIT);
      // The Sale screen shows before the replica opens: what waits to settle is still the three
      // queued payments' sum (12.50 + 20 + 5), never NGN 0.00.
      await page.locator('#offline-limits[data-used="3750"]').waitFor();
      assert.equal(await page.locator('#offline-limits').innerText(), 'Offline: up to NGN\u00a030.00 a payment · NGN\u00a037.50 of NGN\u00a050.00 waiting to settle');
      await page.screenshot({ path: `${ARTIFACTS}terminal-offline-reloaded-${target.name}.png` });
      assert.deepEqual(await listStatuses(page, 3), [`${brokeId}=waiting`, `${qrId}=waiting`, `${tapId}=waiting`].sort());
      assert.equal(await page.locator('#status-queued').getAttribute('data-count'), '3');
      // "Last sync" survives the reload: not "never" while offline.
      assert.equal(await page.locator('#status-queued').getAttribute('data-last-sync'), lastSyncBefore);
      assert.doesNotMatch(await page.locator('#status-queued').innerText(), /never/);
      const databases = await page.evaluate<string[]>('indexedDB.databases().then((list) => list.map((db) => db.name))');
      assert.ok(databases.some((name) => name.includes(`tapline_terminal_${terminalId.toLowerCase().replace(/[^a-z0-9]/g, '_')}`)), `the replica lives in IndexedDB: ${databases.join(', ')}`);
      // Signing out says what it means, with the payments waiting; without the server, which
      // checks the manager PIN (this till never heard whether it has one), it cannot.
      await page.click('#sign-out');
      assert.equal(await page.locator('#sign-out-warning').innerText(), 'Signing out unpairs this till. To use it again, the manager needs a new pairing code from the dashboard (Terminals).');
      assert.match(await page.locator('#sign-out-queued').innerText(), /^3 offline sales have not synced yet .* once the till is paired again, which needs the server\.$/);
      await page.locator('#sign-out-panel[data-state="blocked"]').waitFor();
      assert.equal(await page.locator('#sign-out-blocked').innerText(), 'Signing out needs the server, to check the manager PIN. Try again when the till is back online.');
      assert.equal(await page.locator('#sign-out-confirm').count(), 0, 'no way to sign out offline');
      await page.screenshot({ path: `${ARTIFACTS}terminal-offline-sign-out-${target.name}.png` });
      await page.click('#sign-out-cancel');
      await page.locator('#charge-button').waitFor();
      assert.equal(await page.locator('#sale').count(), 1, 'still signed in');
      await page.locator('#status-reader[data-state="ready"]').waitFor();
      // One more tap after the reload (37.50 + 10.00 <= 50.00); its screen stays up for the verdict.
      await offlineTap(page, '10', tagId);
      const lastId = await queuedOutcome(page);
      assert.equal(await page.locator('#status-queued').getAttribute('data-count'), '4');

      // Nothing reached the server while it was cut off.
      assert.equal(await balanceMinor(s, payer, 'NGN'), payerStart);
      const none = await s.request<{ total: number }>('GET', '/api/offline/payments', { headers: key });
      assert.equal(none.body.total, 0);

      // 6. The connection is back: the verdicts replicate to the open screen and the list.
      kiosk.relay.restore();
      await page.locator('#offline-result[data-status="accepted"]').waitFor(SYNC_WAIT);
      assert.equal(await page.locator('#offline-result-title').innerText(), 'Paid');
      assert.equal(await page.locator('#offline-result-payer').innerText(), `@${payer}`);
      await page.screenshot({ path: `${ARTIFACTS}terminal-offline-settled-${target.name}.png` });
      await page.locator('#status-sync[data-state="online"][data-queued="0"]').waitFor(SYNC_WAIT);
      await page.click('#offline-new-sale');
      // The empty card's decline raises an alert on screen, with the time, until the cashier acknowledges it.
      await page.locator(`#alert[data-kind="offline_payment_declined"][data-ref-id="${brokeId}"]`).waitFor(SYNC_WAIT);
      assert.match(await page.locator('#alert .headline').innerText(), new RegExp(`^Offline payment declined: NGN\u00a05\\.00 taken at \\d\\d:\\d\\d \\(@${broke}\\)\\.$`));
      assert.match(await page.locator('#alert .advice').innerText(), /does not have enough money/);
      assert.equal(await page.locator('#alert').getAttribute('data-code'), 'insufficient_funds');
      await page.screenshot({ path: `${ARTIFACTS}terminal-offline-alert-${target.name}.png` });
      assert.deepEqual(await listStatuses(page, 4), [`${brokeId}=declined`, `${lastId}=paid`, `${qrId}=paid`, `${tapId}=paid`].sort());
      await page.click('#history-button');
      assert.equal(await page.locator(`#history tr[data-id="${brokeId}"]`).getAttribute('data-code'), 'insufficient_funds');
      assert.match(await page.locator(`#history tr[data-id="${tapId}"]`).innerText(), new RegExp(`NGN\u00a012\\.50\\s+Offline tap\\s+@${payer}\\s+Paid`));
      await page.screenshot({ path: `${ARTIFACTS}terminal-offline-list-${target.name}.png` });
      await page.click('#history-back');

      // The ledger: the customer paid 12.50 + 10.00 by taps and 20.00 from the voucher's reserve, once each.
      assert.equal(payerStart - (await balanceMinor(s, payer, 'NGN')), 2250);
      assert.equal((await balanceMinor(s, merchant.handle, 'NGN')) - merchantStart, 4250);
      assert.equal(await balanceMinor(s, broke, 'NGN'), 0);
      const settled = await s.request<{ total: number; data: { id: string; status: string; amount: number; declineCode: string | null; payerHandle: string | null }[] }>('GET', '/api/offline/payments?limit=100', { headers: key });
      assert.equal(settled.body.total, 4);
      const byId = new Map(settled.body.data.map((payment) => [payment.id, payment]));
      assert.deepEqual([byId.get(tapId)?.status, byId.get(tapId)?.amount, byId.get(tapId)?.payerHandle], ['accepted', 12.5, `@${payer}`]);
      assert.deepEqual([byId.get(qrId)?.status, byId.get(qrId)?.amount], ['accepted', 20]);
      assert.deepEqual([byId.get(lastId)?.status, byId.get(lastId)?.amount], ['accepted', 10]);
      assert.deepEqual([byId.get(brokeId)?.status, byId.get(brokeId)?.declineCode], ['declined', 'insufficient_funds']);
      assert.deepEqual((await checkLedger(s.db)).violations, []);

      // A second reload online pushes nothing again: still exactly once. The alert is still there until acknowledged.
      await page.reload();
      await page.locator('#status-sync[data-state="online"][data-queued="0"]').waitFor(SYNC_WAIT);
      assert.equal(payerStart - (await balanceMinor(s, payer, 'NGN')), 2250);
      // The kiosk told the server it holds nothing unsent: the merchant's terminals list says so.
      let reported: { id: string; queuedCount: number | null; queuedReportedAt: string | null } | undefined;
      for (let attempt = 0, deadline = Date.now() + 60_000; reported?.queuedCount !== 0 && Date.now() < deadline; attempt++) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 100));
        const terminals = await s.request<{ data: { id: string; queuedCount: number | null; queuedReportedAt: string | null }[] }>('GET', '/api/merchant/terminals', { headers: key });
        reported = terminals.body.data.find((row) => row.id === terminalId);
      }
      assert.equal(reported?.queuedCount, 0);
      assert.ok(reported?.queuedReportedAt, 'with the time it said so');
      await page.locator(`#alert[data-ref-id="${brokeId}"]`).waitFor();
      await page.click('#alert-acknowledge');
      await page.locator('#alert').waitFor({ state: 'detached' });
      await page.context().close();
      assert.deepEqual(kiosk.pageErrors, [], 'no script errors on the page');
    });

    it('settles a QR voucher through the replica at once while online, refuses a forged one, and offers the offline path when a charge cannot reach the server', async () => {
      const { s, merchant, terminalToken, payer, tagId } = await setup();
      const voucher = await makeVoucher(s, payer, 15);
      const merchantStart = await balanceMinor(s, merchant.handle, 'NGN');
      const page = await trackedPage(kiosk.browser, KIOSK, kiosk.pageErrors);
      await signIn(page, terminalToken);

      // A forged voucher (the signature of another payload) is refused before anything is stored.
      const [prefix, claims] = voucher.qrPayload.split('.');
      await scanVoucher(page, '15', `${prefix}.${claims}.${'A'.repeat(86)}`);
      assert.equal((await refusal(page)).code, 'voucher_signature_invalid');
      await page.click('#offline-back');

      await scanVoucher(page, '12', voucher.qrPayload);
      await page.locator('#offline-result[data-status="accepted"]').waitFor(SYNC_WAIT);
      assert.equal(await page.locator('#offline-result-payer').innerText(), `@${payer}`);
      assert.match(await page.locator('#offline-result-amount').innerText(), /NGN\s*12\.00/);
      assert.equal((await balanceMinor(s, merchant.handle, 'NGN')) - merchantStart, 1200);
      await page.click('#offline-new-sale');

      // The socket still looks up but the POS call fails on the network: the cashier may take it offline.
      await page.route('**/api/pos/sessions', (route) => route.abort('internetdisconnected'));
      await typeAmount(page, '3');
      assert.match(await page.locator('#charge-button').innerText(), /^Charge NGN\u00a03/);
      await page.click('#charge-button');
      await page.locator('#take-offline').waitFor();
      assert.equal(await page.locator('#sale-error .text').innerText(), 'The till is not connected to the network. Check the cable or Wi-Fi.');
      assert.equal(await page.locator('#sale-error').getAttribute('data-code'), 'network_error');
      await page.click('#take-offline');
      await page.locator('#offline-pay[data-accept-taps="true"]').waitFor();
      assert.ok(kiosk.reader.tap(tagId));
      // Taken through the replica, and settled as soon as it is pushed (the socket is up).
      await page.locator('#offline-result[data-status="accepted"]').waitFor(SYNC_WAIT);
      assert.equal(await page.locator('#offline-result-payer').innerText(), `@${payer}`);
      assert.equal((await balanceMinor(s, merchant.handle, 'NGN')) - merchantStart, 1500);
      await page.context().close();
      assert.deepEqual(kiosk.pageErrors, [], 'no script errors on the page');
    });
  });
}
