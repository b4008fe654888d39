// Split tender offline at the kiosk in Chromium against the real sync server on each database
// (docs/till.md, "Split tender offline"). The kiosk reaches the sync server through a TCP relay
// the test cuts and restores. Offline, the Split screen's Tap takes the part as an offline tap
// (the same offline rules as a whole sale's): a cart paid part in cash and part by an offline ring
// tap is written as one till sale naming the offline payment; when the connection is back the tap
// and the sale settle exactly once. The tag's no-PIN limit refuses a part over it at the till,
// nothing queued; a split sale cancelled offline withdraws its queued tap, which is never sent; a
// tap declined when it syncs leaves its sale recorded short, and the cashier's alert names the sale.
// Offline, the sale screen offers no Gift card nor Mobile money (they come back online).
// The offline tap screen and the outcome at 800x600 and 1024x768, in English and French.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { checkLedger } from '@tapline/sync-server/ledger/check';
import { balanceMinor, databaseTargets, useTestServer } from '@tapline/sync-server/testing';
import { trackedPage, waitForExpression } from './browser.ts';
import { ARTIFACTS, KIOSK, SYNC_WAIT, assertControlsOnScreen, builtRenderer, signInKiosk, useKioskRig } from './kiosk.ts';
import { DASHBOARD_DIR, dashboardOwner, openPage, prepareDashboard, shoot as shootDashboard, signIn } from './dashboard.ts';
import { shopWithTerminal } from './shop.ts';

const rendererDir = await builtRenderer();
await prepareDashboard();
const SIZES = [{ width: 800, height: 600 }, KIOSK.viewport] as const;

interface SaleRecord {
  kind: string;
  status: string;
  amount: number;
  unpaid: number;
  tenders: { kind: string; amount: number; reference?: string }[];
}

for (const target of await databaseTargets()) {
  describe(`split tender offline at the kiosk in Chromium on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 10, env: { DASHBOARD_DIR } });
    const kiosk = useKioskRig(server, { rendererDir, previews: `terminal-split-offline-receipts-${target.name}`, noPageErrors: true });

    /** A shop with Jollof rice (15.00), a ring funded with 100.00, a terminal taking up to 30.00 per offline payment. */
    async function shop() {
      const shopped = await shopWithTerminal(server(), { fund: 100 });
      const jollof = await shopped.s.request<{ id: string }>('POST', '/api/merchant/products', { headers: shopped.key, body: { name: 'Jollof rice', price: 15, category: 'Food' } });
      assert.equal(jollof.status, 201);
      const limits = await shopped.s.request('PATCH', `/api/merchant/terminals/${shopped.terminalId}`, { headers: shopped.key, body: { offlineLimits: { perPayment: 30, total: 50, maxAgeHours: 24 } } });
      assert.equal(limits.status, 200, JSON.stringify(limits.body));
      return { ...shopped, jollofId: jollof.body.id };
    }

    async function screenshots(page: Page, name: string, root: string): Promise<void> {
      for (const size of SIZES) {
        await page.setViewportSize(size);
        await page.screenshot({ path: `${ARTIFACTS}terminal-split-offline-${name}-${size.width}x${size.height}-${target.name}.png` });
        await assertControlsOnScreen(page, root, `${name} at ${size.width}x${size.height}`);
      }
      await page.setViewportSize(KIOSK.viewport);
    }

    /** Signed in, the hello cached (offline taps need one), then the shop's connection cut. */
    async function offlineKiosk(terminalToken: string): Promise<Page> {
      const page = await trackedPage(kiosk.browser, KIOSK, kiosk.pageErrors);
      await signInKiosk(page, kiosk.host, terminalToken);
      await waitForExpression(page, "localStorage.getItem('tapline.syncHello') !== null", SYNC_WAIT.timeout);
      await page.locator('#sale[data-catalogue-size="1"]').waitFor(SYNC_WAIT);
      kiosk.relay.cut();
      await page.locator('#status-sync[data-state="offline"]').waitFor(SYNC_WAIT);
      return page;
    }

    async function splitCart(page: Page, productId: string): Promise<void> {
      await page.locator(`#items button[data-product="${productId}"]`).click();
      await page.locator(`#cart li[data-product="${productId}"]`).waitFor();
      await page.click('#split-button');
      await page.locator('#split[data-state="tenders"]').waitFor();
    }

    async function typePart(page: Page, amount: string): Promise<void> {
      await page.click('#split-key-clear');
      await page.keyboard.type(amount, { delay: 60 });
    }

    it('offline, the sale screen offers no Gift card nor Mobile money (the Split screen\'s say why), and offers them again once online, in English and French', async () => {
      const { terminalToken, jollofId } = await shop();
      const page = await offlineKiosk(terminalToken);
      await page.locator(`#items button[data-product="${jollofId}"]`).click();
      await page.locator(`#cart li[data-product="${jollofId}"]`).waitFor();
      assert.equal(await page.locator('#split-button').isVisible(), true);
      assert.deepEqual([await page.locator('#gift-card-button').count(), await page.locator('#mobile-money-button').count()], [0, 0], 'not offered offline');
      await screenshots(page, 'sale-buttons-offline-en', '#sale .actions');
      await page.selectOption('#language-switcher', 'fr');
      await screenshots(page, 'sale-buttons-offline-fr', '#sale .actions');
      // The Split screen's Gift card says why it cannot be used now.
      await page.click('#split-button');
      await page.locator('#split[data-state="tenders"]').waitFor();
      await page.click('#split-gift');
      await page.locator('#gift-card-tender[data-view="offline"]').waitFor();
      assert.match(await page.locator('#gift-offline').innerText(), /hors ligne/);
      await page.click('#gift-back');
      await page.click('#split-cancel-button');
      await page.locator('#sale').waitFor();
      await page.selectOption('#language-switcher', 'en');
      kiosk.relay.restore();
      await page.locator('#status-sync[data-state="online"]').waitFor(SYNC_WAIT);
      await page.locator('#gift-card-button').waitFor();
      assert.equal(await page.locator('#mobile-money-button').isVisible(), true, 'offered again once online');
      await page.close();
    });

    it('offline, takes part in cash and part by an offline tap, writes one till sale naming it, and settles the tap and the sale exactly once when the connection is back', async () => {
      const { s, key, merchant, terminalToken, payer, tagId, jollofId } = await shop();
      const payerBefore = await balanceMinor(s, payer, 'NGN');
      const merchantBefore = await balanceMinor(s, merchant.handle, 'NGN');
      const page = await offlineKiosk(terminalToken);
      await splitCart(page, jollofId);

      await typePart(page, '6');
      await page.click('#split-cash');
      await page.locator('#split[data-remaining="900"]').waitFor();
      // The rest by a tap, offline: the offline tap screen for NGN 9, taps only (no voucher field); in French, then back.
      await page.selectOption('#language-switcher', 'fr');
      await page.click('#split-key-clear');
      await page.click('#split-tap');
      await page.locator('#offline-pay[data-split="true"]').waitFor();
      assert.equal(await page.locator('#offline-pay h1').innerText(), 'Sans contact pour une partie de la vente (hors ligne)');
      await screenshots(page, 'tap-fr', '#offline-pay');
      await page.click('#offline-back');
      await page.locator('#split[data-state="tenders"][data-tenders="1"][data-remaining="900"]').waitFor();
      await page.selectOption('#language-switcher', 'en');
      await page.click('#split-tap');
      await page.locator('#offline-pay[data-split="true"]').waitFor();
      assert.equal(await page.locator('#offline-amount').innerText(), 'NGN\u00a09.00');
      assert.equal(await page.locator('#voucher-form').count(), 0, 'a split part is a tap');
      assert.equal(await page.locator('#offline-pay h1').innerText(), 'Tap for part of the sale (offline)');
      await screenshots(page, 'tap-en', '#offline-pay');

      assert.ok(kiosk.reader.tap(tagId), 'the simulated reader read the ring');
      await page.locator('#cash-result').waitFor(SYNC_WAIT);
      const saleId = (await page.locator('#cash-result').getAttribute('data-sale-id'))!;
      assert.deepEqual(await page.locator('#cash-result-tenders li').allInnerTexts(), ['Cash NGN\u00a06.00 (handed over NGN\u00a06.00, change NGN\u00a00.00)', 'Offline tap NGN\u00a09.00']);
      assert.equal(await page.locator('#cash-sync-status').getAttribute('data-status'), 'queued');
      await screenshots(page, 'outcome-en', '#cash-result');
      // Two documents wait for the server: the offline payment and the till sale naming it.
      await page.locator('#status-queued[data-count="2"]').waitFor(SYNC_WAIT);
      assert.equal(await balanceMinor(s, payer, 'NGN'), payerBefore, 'nothing moved while offline');

      // The connection back: both settle, the tap once.
      kiosk.relay.restore();
      await page.locator('#cash-sync-status[data-status="accepted"]').waitFor(SYNC_WAIT);
      await page.locator('#status-queued[data-count="0"]').waitFor(SYNC_WAIT);
      const record = await s.request<SaleRecord>('GET', `/api/pos/sales/${saleId}`, { headers: key });
      assert.equal(record.status, 200, JSON.stringify(record.body));
      assert.deepEqual([record.body.kind, record.body.status, record.body.amount, record.body.unpaid], ['till_sale', 'accepted', 15, 0]);
      assert.deepEqual(record.body.tenders.map((tender) => [tender.kind, tender.amount]), [['cash', 6], ['offline_tap', 9]]);
      const tapId = record.body.tenders[1]!.reference!;
      const payments = await s.request<{ data: { id: string; status: string; amount: number; tenderOf: string | null }[] }>('GET', '/api/offline/payments', { headers: key });
      assert.deepEqual(payments.body.data.map((payment) => [payment.id, payment.status, payment.amount, payment.tenderOf]), [[tapId, 'accepted', 9, saleId]]);
      assert.equal(await balanceMinor(s, payer, 'NGN'), payerBefore - 900, 'the ring paid its part once');
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), merchantBefore + 900);

      // A reload pushes nothing again: still one payment, one sale, the same balances.
      await page.click('#cash-new-sale');
      await page.reload();
      await page.locator('#sale').waitFor(SYNC_WAIT);
      await page.locator('#status-sync[data-state="online"]').waitFor(SYNC_WAIT);
      await page.locator('#status-queued[data-count="0"]').waitFor(SYNC_WAIT);
      const [counts] = await s.db.query<{ payments: number; sales: number }>(
        'SELECT (SELECT count(*)::int FROM offline_payments WHERE id = $1::uuid) AS payments, (SELECT count(*)::int FROM till_sales WHERE id = $2::uuid) AS sales',
        [tapId, saleId],
      );
      assert.deepEqual([Number(counts?.payments), Number(counts?.sales)], [1, 1]);
      assert.equal(await balanceMinor(s, payer, 'NGN'), payerBefore - 900);
      // Sales today lists the sale once: its tap is a tender of it.
      await page.click('#history-button');
      await page.locator(`#history tr[data-id="${saleId}"]`).waitFor();
      assert.equal(await page.locator('#history tbody tr').count(), 1);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
      await page.close();
    });

    it('refuses an offline split tap over the tag\'s no-PIN limit at the till, queues nothing, and withdraws a queued tap when the sale is cancelled offline', async () => {
      const { s, key, terminalId, terminalToken, payer, tagId, jollofId } = await shop();
      const payerBefore = await balanceMinor(s, payer, 'NGN');
      const page = await trackedPage(kiosk.browser, KIOSK, kiosk.pageErrors);
      await signInKiosk(page, kiosk.host, terminalToken);
      await waitForExpression(page, "localStorage.getItem('tapline.syncHello') !== null", SYNC_WAIT.timeout);
      const cached = JSON.parse((await page.evaluate<string | null>("localStorage.getItem('tapline.syncHello')")) ?? 'null') as { hello: { offlineLimits: { noPinPerTapMaxMinor: number } } };
      const noPinMinor = cached.hello.offlineLimits.noPinPerTapMaxMinor;
      assert.ok(noPinMinor > 0, `the no-PIN limit per tap: ${noPinMinor}`);
      // The terminal's own limits above the no-PIN limit, so that limit is the one that refuses.
      const perPayment = Math.ceil(noPinMinor / 100) * 2;
      const raised = await s.request('PATCH', `/api/merchant/terminals/${terminalId}`, { headers: key, body: { offlineLimits: { perPayment, total: perPayment * 2, maxAgeHours: 24 } } });
      assert.equal(raised.status, 200, JSON.stringify(raised.body));
      await waitForExpression(page, `(JSON.parse(localStorage.getItem('tapline.syncHello') ?? 'null')?.hello?.offlineLimits?.perPaymentMaxMinor ?? 0) === ${perPayment * 100}`, SYNC_WAIT.timeout);
      const typed = (minor: number) => (minor / 100).toFixed(2);
      // A catering order of the no-PIN limit and 10.00 more.
      const order = await s.request<{ id: string }>('POST', '/api/merchant/products', { headers: key, body: { name: 'Catering tray', price: (noPinMinor + 1_000) / 100, category: 'Food' } });
      assert.equal(order.status, 201, JSON.stringify(order.body));
      await page.locator('#sale[data-catalogue-size="2"]').waitFor(SYNC_WAIT);
      kiosk.relay.cut();
      await page.locator('#status-sync[data-state="offline"]').waitFor(SYNC_WAIT);

      // The order split, its tap part over the no-PIN limit by 0.01: refused when the ring taps.
      await splitCart(page, order.body.id);
      await typePart(page, typed(noPinMinor + 1));
      await page.click('#split-tap');
      await page.locator('#offline-pay[data-split="true"]').waitFor();
      assert.ok(kiosk.reader.tap(tagId));
      await page.locator('#offline-refusal').waitFor();
      assert.equal(await page.locator('#offline-refusal').getAttribute('data-code'), 'pin_required');
      await screenshots(page, 'refused-en', '#offline-pay');
      assert.equal(await page.locator('#status-queued').getAttribute('data-count'), '0', 'nothing queued');
      await page.click('#offline-back');
      await page.locator('#split[data-state="tenders"][data-tenders="0"]').waitFor();
      await page.click('#split-cancel-button');
      await page.locator('#sale').waitFor();
      await page.click('#clear-cart');
      assert.equal(await page.locator('#cart li').count(), 0);

      // A split sale with cash and an offline tap (not finished), cancelled offline: the tap is withdrawn.
      await page.locator(`#items button[data-product="${jollofId}"]`).click();
      await page.click('#split-button');
      await page.locator('#split[data-state="tenders"]').waitFor();
      await typePart(page, '5');
      await page.click('#split-cash');
      await page.locator('#split[data-remaining="1000"]').waitFor();
      await typePart(page, '4');
      await page.click('#split-tap');
      await page.locator('#offline-pay[data-split="true"]').waitFor();
      assert.ok(kiosk.reader.tap(tagId));
      await page.locator('#split[data-state="tenders"][data-tenders="2"][data-remaining="600"]').waitFor();
      assert.deepEqual(await page.locator('#split-tenders li').allInnerTexts(), ['Cash NGN\u00a05.00 (handed over NGN\u00a05.00, change NGN\u00a00.00)', 'Offline tap NGN\u00a04.00']);
      await screenshots(page, 'part-paid-en', '#split');
      await page.locator('#status-queued[data-count="1"]').waitFor();
      await page.selectOption('#language-switcher', 'fr');
      await page.locator('#split-tenders li[data-kind="offline_tap"]').filter({ hasText: 'Sans contact hors ligne' }).waitFor();
      await screenshots(page, 'part-paid-fr', '#split');
      await page.click('#split-cancel-button');
      await page.locator('#split-cancel li.give-offline-tap[data-queued="true"]').waitFor();
      await screenshots(page, 'cancel-fr', '#split');
      await page.selectOption('#language-switcher', 'en');
      assert.equal(await page.locator('#split-cancel li.give-offline-tap').innerText(), 'Withdraw the offline tap of NGN\u00a04.00: it has not been sent, nothing is charged');
      await screenshots(page, 'cancel-en', '#split');
      await page.click('#split-confirm-cancel');
      await page.locator('#sale').waitFor();
      await page.locator('#status-queued[data-count="0"]').waitFor();
      // The same cart then paid whole by an offline tap: queued after the withdrawn one, in the same collection.
      await page.click('#charge-button');
      await page.locator('#offline-pay[data-accept-taps="true"][data-split="false"]').waitFor();
      assert.ok(kiosk.reader.tap(tagId));
      await page.locator('#offline-result[data-status="queued"]').waitFor();
      const wholeId = (await page.locator('#offline-result').getAttribute('data-payment-id'))!;
      await page.click('#offline-new-sale');

      // Back online: the whole sale's tap settles; the withdrawn tap, before it in the queue, is never sent; no alert for it.
      kiosk.relay.restore();
      await page.locator('#status-sync[data-state="online"]').waitFor(SYNC_WAIT);
      await page.locator('#status-queued[data-count="0"]').waitFor(SYNC_WAIT);
      await page.click('#history-button');
      await page.locator('#history').waitFor();
      // The list is read from the replica after the screen appears: its row is waited for (on a
      // loaded machine the list was read empty once), then the whole list must be that one row.
      await page.locator(`#history tbody tr[data-kind="offline"][data-id="${wholeId}"]`).waitFor();
      assert.deepEqual(await page.locator('#history tbody tr[data-kind="offline"]').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-id'))), [wholeId], 'a withdrawn tap is not a sale');
      await page.click('#history-back');
      const payments = await s.request<{ data: { id: string; status: string; amount: number }[] }>('GET', '/api/offline/payments', { headers: key });
      assert.deepEqual(payments.body.data.map((payment) => [payment.id, payment.status, payment.amount]), [[wholeId, 'accepted', 15]], 'the withdrawn tap never reached the server');
      assert.equal(await balanceMinor(s, payer, 'NGN'), payerBefore - 1_500, 'the customer paid the whole sale once, nothing for the withdrawn tap');
      assert.equal(await page.locator('#alert').count(), 0, 'no alert for a withdrawn tap');
      assert.deepEqual((await checkLedger(s.db)).violations, []);
      await page.close();
    });

    it('a split sale whose offline tap the server declines is recorded short, and the cashier is told which sale and how much to collect, in English and French', async () => {
      const { s, key, merchant, terminalToken, payer, tagId, jollofId } = await shop();
      const payerBefore = await balanceMinor(s, payer, 'NGN');
      const merchantBefore = await balanceMinor(s, merchant.handle, 'NGN');
      const page = await offlineKiosk(terminalToken);
      await splitCart(page, jollofId);
      await typePart(page, '6');
      await page.click('#split-cash');
      await page.locator('#split[data-remaining="900"]').waitFor();
      await page.click('#split-tap');
      await page.locator('#offline-pay[data-split="true"]').waitFor();
      assert.ok(kiosk.reader.tap(tagId));
      await page.locator('#cash-result').waitFor(SYNC_WAIT);
      const saleId = (await page.locator('#cash-result').getAttribute('data-sale-id'))!;
      await page.click('#cash-new-sale');
      // While the till is offline the ring is reported lost: its tap is declined when it syncs.
      const disabled = await s.request('PUT', `/api/wearables/${tagId}`, { headers: key, body: { status: 'disabled' } });
      assert.equal(disabled.status, 200, JSON.stringify(disabled.body));

      kiosk.relay.restore();
      await page.locator('#status-queued[data-count="0"]').waitFor(SYNC_WAIT);
      const record = await s.request<SaleRecord>('GET', `/api/pos/sales/${saleId}`, { headers: key });
      assert.deepEqual([record.body.status, record.body.amount, record.body.unpaid], ['accepted', 15, 9], 'the sale is recorded, 9.00 short');
      const alert = page.locator(`#alert[data-kind="offline_payment_declined"][data-sale-id="${saleId}"]`);
      await alert.waitFor(SYNC_WAIT);
      assert.equal(await alert.getAttribute('data-code'), 'tag_disabled');
      const time = (await page.locator('#alert .headline').innerText()).match(/taken at (\S+) /)?.[1];
      assert.ok(time, 'the headline says when the tap was taken');
      assert.equal(await page.locator('#alert .headline').innerText(), `Part of a split sale declined: the NGN\u00a09.00 tap taken at ${time} (${tagId}).`);
      assert.match(await page.locator('#alert .advice').innerText(), / The rest of the sale was paid; it is NGN\u00a09\.00 short\. Collect that from the customer, or tell the manager\.$/);
      await screenshots(page, 'tap-declined-en', '#alert');
      await page.selectOption('#language-switcher', 'fr');
      await page.locator('#alert .headline').filter({ hasText: 'Partie d\'une vente fractionnée refusée' }).waitFor();
      assert.match(await page.locator('#alert .advice').innerText(), / Le reste de la vente a été payé ; il manque 9,00\u00a0NGN, à encaisser auprès du client, sinon prévenez le responsable\.$/);
      await screenshots(page, 'tap-declined-fr', '#alert');
      await page.selectOption('#language-switcher', 'en');
      await page.click('#alert-acknowledge');
      await page.locator('#alert').waitFor({ state: 'detached' });

      assert.equal(await balanceMinor(s, payer, 'NGN'), payerBefore, 'the declined ring paid nothing');
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), merchantBefore, 'the merchant got no wallet money (the cash part is in the drawer)');
      assert.deepEqual((await checkLedger(s.db)).violations, []);
      await page.close();

      // The dashboard: the declined payment leads to its sale, which shows its tenders and what is unpaid.
      const dashboard = await trackedPage(kiosk.browser, { viewport: { width: 1366, height: 768 } }, kiosk.pageErrors);
      await signIn(dashboard, s.baseUrl, await dashboardOwner(s, merchant));
      await openPage(dashboard, 'offlinePayments');
      await dashboard.locator('main table button.link').first().click();
      await dashboard.locator(`[data-split-sale="${saleId}"]`).waitFor();
      assert.equal(await dashboard.locator(`[data-split-sale="${saleId}"]`).innerText(), 'This tap paid part of a split sale. Open the sale');
      await dashboard.locator(`[data-split-sale="${saleId}"] a`).click();
      await dashboard.locator(`section[data-sale="${saleId}"]`).waitFor();
      assert.equal(await dashboard.locator('[data-sale-unpaid]').innerText(), 'NGN\u00a09.00');
      assert.equal(await dashboard.locator('[data-sale-paid]').innerText(), 'NGN\u00a06.00');
      assert.deepEqual(await dashboard.locator('ul.tenders li').allInnerTexts(), ['Cash · handed over NGN\u00a06.00, change NGN\u00a00.00: NGN\u00a06.00', 'Offline tap: NGN\u00a09.00 · declined at sync: not paid']);
      await shootDashboard(dashboard, 'split-offline', `sale-short-${target.name}`, ['1366x768', '1024x768', '800x600', '390x844']);

      // A link with no sale opens the page as usual; one naming no sale of this merchant says so and keeps what was asked.
      // (Each link loaded afresh, as when it is followed from elsewhere: the signed-in session is the tab's.)
      const openLink = async (hash: string) => {
        await dashboard.goto(`${s.baseUrl}/dashboard/${hash}`);
        await dashboard.reload();
        await dashboard.locator('input[name="sale-id"]').waitFor();
      };
      await openLink('#/refunds?sale=');
      assert.equal(await dashboard.locator('input[name="sale-id"]').inputValue(), '');
      assert.equal(await dashboard.locator('section[data-sale]').count(), 0);
      assert.equal(await dashboard.locator('main p.error').count(), 0, 'nothing to complain about');
      await openLink(`#/refunds?sale=${encodeURIComponent('nope"%ZZ<b>')}`);
      await dashboard.locator('main p.error[role="alert"]').waitFor();
      assert.equal(await dashboard.locator('input[name="sale-id"]').inputValue(), 'nope"%ZZ<b>');
      assert.match(await dashboard.locator('main p.error').innerText(), /no sale|not found/i);
      assert.equal(await dashboard.locator('section[data-sale]').count(), 0);
      await dashboard.close();
    });
  });
}
