// The kiosk's Refund screen (terminal/src/renderer/screens/Refund.svelte) for a till sale whose
// refund's mobile money payout failed, in Chromium against the real sync server's sandbox: a
// harness page mounts the screen alone with the kiosk's own api layer, behind the terminal host
// (a bar in place of the kiosk's status bar, whose height it takes).
// The sale was paid 200 cash + 300 by mobile money; its refund's payout failed (sandbox reference
// test_failure), so the screen says the 300 did not reach the phone, offers it again, and the
// refund made with the manager's PIN sends a new payout (on its way to the phone). The merchant
// dashboard's Refunds page then lists both refunds with their status. End of day shows a payout
// reversed after the refund's Z report closed as a line of the next day's report.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { io } from 'socket.io-client';
import { SYNC_EVENTS, SYNC_NAMESPACE, type TillSaleDoc } from '@tapline/shared/sync-protocol';
import { type TestServer, databaseTargets, until, useTestServer } from '@tapline/sync-server/testing';
import { assertAccessible } from './axe.ts';
import { trackedPage } from './browser.ts';
import { DASHBOARD_DIR, DESKTOP, dashboardOwner, openPage as openDashboardPage, prepareDashboard, shoot as shootDashboard, signIn as signInDashboard } from './dashboard.ts';
import { ARTIFACTS, KIOSK, assertControlsOnScreen } from './kiosk.ts';
import { RENDERER, buildScreenHarness, useScreenHarness } from './screen-harness.ts';
import { shopWithTerminal } from './shop.ts';

const SIZES = [{ width: 800, height: 600 }, { width: 1024, height: 768 }] as const;

/** The Refund screen (or End of day, screen=report) alone on a page: the sale and the language from the query string. */
function buildHarness(): Promise<string> {
  return buildScreenHarness('refund', {
    body: '<main id="app" style="height:calc(100vh - 40px);box-sizing:border-box;padding:0.75rem"></main><div id="status-bar" style="position:fixed;left:0;right:0;bottom:0;height:40px;background:#1d2a44"></div>',
    main: `
import { mount } from 'svelte';
import Refund from ${JSON.stringify(join(RENDERER, 'screens/Refund.svelte'))};
import DayReport from ${JSON.stringify(join(RENDERER, 'screens/DayReport.svelte'))};
import { createApi } from ${JSON.stringify(join(RENDERER, 'lib/api.ts'))};
import { kioskLanguage } from ${JSON.stringify(join(RENDERER, 'lib/language.svelte.ts'))};
import ${JSON.stringify(join(RENDERER, 'styles.css'))};
const params = new URLSearchParams(location.search);
const lang = params.get('lang');
if (lang === 'en' || lang === 'fr' || lang === 'sw' || lang === 'pt') kioskLanguage.choose(lang);
const api = createApi(params.get('token') ?? '');
const w = window as unknown as { backs: number };
w.backs = 0;
const context = await api.context();
const onBack = () => { w.backs += 1; };
const target = document.getElementById('app')!;
if (params.get('screen') === 'report') mount(DayReport, { target, props: { api, context, config: null, hardware: null, sync: { queued: 0, online: true, lastSyncAt: null }, onBack } });
else mount(Refund, { target, props: { api, saleId: params.get('sale') ?? '', context, config: null, hardware: null, refunds: null, onBack } });
`,
  });
}

const harnessDir = await buildHarness();
await prepareDashboard();

type Refund = { id: string; status: string; failedAmount: number; tenders: { kind: string; amount: number; reference?: string; status?: string }[] };

for (const target of await databaseTargets()) {
  describe(`the Refund screen for a refund that did not reach the phone, in Chromium on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 20, env: { SANDBOX_STEP_MS: '400', COLLECTION_TIMEOUT_SECONDS: '120', DASHBOARD_DIR } });
    const kiosk = useScreenHarness(server, { rendererDir: harnessDir, previews: 'refund-failed' });

    /** A till sale of 500.00 (two Rice at 250.00): 200.00 cash and 300.00 by a completed mobile money collection. */
    async function splitSale(s: TestServer, shop: Awaited<ReturnType<typeof shopWithTerminal>>): Promise<string> {
      const term = { authorization: `Bearer term.${shop.terminalToken}` };
      const collection = await s.request<{ id: string }>('POST', '/api/pos/collections', { headers: term, body: { amountMinor: 30_000, currency: 'NGN', phone: '08031234567' } });
      assert.equal(collection.status, 201, JSON.stringify(collection.body));
      await until('the collection to complete', async () => ((await s.request<{ status: string }>('GET', `/api/pos/collections/${collection.body.id}`, { headers: term })).body.status === 'completed' ? true : undefined));
      const sale: TillSaleDoc = {
        id: randomUUID(), terminalId: shop.terminalId, amountMinor: 50_000, currency: 'NGN', capturedAt: new Date().toISOString(), status: 'queued', serverSeq: 0,
        items: [{ productId: null, name: 'Rice', quantity: 2, unitPrice: 25_000, discount: 0, taxRate: 0, taxInclusive: true }],
        tenders: [{ kind: 'cash', amountMinor: 20_000, tenderedMinor: 20_000, changeMinor: 0 }, { kind: 'mobile_money', amountMinor: 30_000, reference: collection.body.id }],
      };
      const socket = io(`${s.baseUrl}${SYNC_NAMESPACE}`, { auth: { token: `term.${shop.terminalToken}` }, transports: ['websocket'], reconnection: false, forceNew: true });
      try {
        await new Promise<void>((resolve, reject) => {
          socket.once(SYNC_EVENTS.hello, () => resolve());
          socket.once('connect_error', reject);
        });
        const answer = await socket.timeout(60_000).emitWithAck(SYNC_EVENTS.push, { collection: 'till_sales', rows: [{ assumedMasterState: null, newDocumentState: sale }] }) as { conflicts: TillSaleDoc[] };
        assert.deepEqual(answer.conflicts.map((doc) => doc.status), ['accepted']);
      } finally {
        socket.disconnect();
      }
      return sale.id;
    }

    async function screenshots(page: Page, name: string, root = '#refund'): Promise<void> {
      for (const size of SIZES) {
        await page.setViewportSize(size);
        await page.screenshot({ path: `${ARTIFACTS}refund-failed-${name}-${size.width}x${size.height}-${target.name}.png` });
        await assertControlsOnScreen(page, root, `${name} at ${size.width}x${size.height}`);
      }
      await page.setViewportSize(KIOSK.viewport);
    }

    it('says the phone part did not arrive, offers it again, and the PIN sends a new payout on its way to the phone', async () => {
      const s = server();
      const shop = await shopWithTerminal(s, { fund: 0 });
      const pin = await s.request('PUT', `/api/merchant/terminals/${shop.terminalId}/manager-pin`, { headers: shop.key, body: { pin: '2468' } });
      assert.equal(pin.status, 200);
      const saleId = await splitSale(s, shop);
      const first = await s.request<Refund>('POST', '/api/pos/refunds', { headers: { ...shop.key, 'idempotency-key': randomUUID() }, body: { saleId, reference: 'test_failure' } });
      assert.equal(first.status, 201, JSON.stringify(first.body));
      assert.deepEqual([first.body.status, first.body.failedAmount], ['failed', 300]);

      for (const [lang, failed, left] of [
        // French first: the English pass refunds the sale.
        ['fr', /^N'a pas atteint le téléphone : .*300,00.* — remboursez à nouveau$/, /^Encore remboursable : .*300,00/],
        ['en', /^Did not reach the phone: NGN\s?300\.00 — refund again$/, /^Still refundable: NGN\s?300\.00$/],
      ] as const) {
        const page = await trackedPage(kiosk.browser, KIOSK, kiosk.pageErrors);
        await page.goto(`${kiosk.host.url}/?${new URLSearchParams({ token: `term.${shop.terminalToken}`, sale: saleId, lang }).toString()}`);
        await page.locator('#refund[data-state="choose"]').waitFor();
        assert.match((await page.locator('#refund-failed').innerText()).trim(), failed);
        assert.match((await page.locator('#refund-left').innerText()).trim(), left);
        assert.equal(await page.locator('#refund-button').isDisabled(), false, 'the failed part is offered again, though every line is returned');
        await screenshots(page, `choose-${lang}`);
        if (lang === 'fr') {
          await page.context().close();
          continue;
        }
        assert.match((await page.locator('#refund-button').innerText()).trim(), /^Refund NGN\s?300\.00$/);
        await page.click('#refund-button');
        for (const digit of '2468') await page.click(`#pin-${digit}`);
        await page.click('#pin-ok');
        await page.locator('#refund[data-state="done"]').waitFor();
        assert.match((await page.locator('#refund-done h2').innerText()).trim(), /^Refunded NGN\s?300\.00$/);
        assert.match((await page.locator('#refund-done-pending').innerText()).trim(), /^On its way to the phone: NGN\s?300\.00$/);
        await screenshots(page, 'done-en');
        await page.context().close();
      }

      const sale = await s.request<{ refundable: number; refunds: Refund[] }>('GET', `/api/pos/sales/${saleId}`, { headers: shop.key });
      assert.equal(sale.body.refundable, 0);
      assert.deepEqual(sale.body.refunds.map((refund) => refund.status), ['failed', 'pending']);
      assert.notEqual(sale.body.refunds[1]!.tenders[0]!.reference, first.body.tenders[0]!.reference, 'a new payout');

      // The dashboard's Refunds page shows each refund's status.
      const email = await dashboardOwner(s, shop.merchant);
      const page = await trackedPage(kiosk.browser, { viewport: DESKTOP, locale: 'en-GB', timezoneId: 'Africa/Lagos' }, kiosk.pageErrors);
      await signInDashboard(page, s.baseUrl, email);
      await openDashboardPage(page, 'refunds');
      await page.locator('input[name=sale-id]').fill(saleId);
      await page.getByRole('button', { name: 'Find the sale' }).click();
      const found = page.locator(`[data-sale="${saleId}"]`);
      await found.waitFor();
      const rows = found.locator('tr[data-refund]');
      const statuses: [string | null, string][] = [];
      for (let index = 0; index < (await rows.count()); index += 1) {
        statuses.push([await rows.nth(index).getAttribute('data-refund-status'), (await rows.nth(index).locator('.badge').innerText()).replace(/\s/g, ' ')]);
      }
      assert.deepEqual(statuses, [['failed', 'Did not reach the phone: NGN 300.00'], ['pending', 'On its way to the phone']]);
      await assertAccessible(page, 'refunds with a failed refund');
      await shootDashboard(page, `refund-failed-${target.name}`, 'refunds', ['1024x768', '800x600']);
      await page.context().close();
    });

    it('End of day shows a refund whose payout was reversed after its Z report closed, and net adds it back', async () => {
      const s = server();
      const shop = await shopWithTerminal(s, { fund: 0 });
      const term = { authorization: `Bearer term.${shop.terminalToken}` };
      const pin = await s.request('PUT', `/api/merchant/terminals/${shop.terminalId}/manager-pin`, { headers: shop.key, body: { pin: '2468' } });
      assert.equal(pin.status, 200);
      const saleId = await splitSale(s, shop);
      const made = await s.request<Refund>('POST', '/api/pos/refunds', { headers: { ...shop.key, 'idempotency-key': randomUUID() }, body: { saleId, reference: 'test_reversal' } });
      assert.deepEqual([made.status, made.body.status], [201, 'succeeded']);
      const z = await s.request<{ refunds: { amount: number } }>('POST', '/api/pos/reports', { headers: { ...term, 'idempotency-key': randomUUID() }, body: { managerPin: '2468' } });
      assert.deepEqual([z.status, z.body.refunds.amount], [201, 500]);
      await until('the payout to be reversed', async () => {
        await s.context.payments.runOnce();
        const sale = await s.request<{ refunds: Refund[] }>('GET', `/api/pos/sales/${saleId}`, { headers: shop.key });
        return sale.body.refunds[0]!.status === 'failed' ? true : undefined;
      }, 60_000, 200);

      for (const lang of ['fr', 'en'] as const) {
        const page = await trackedPage(kiosk.browser, KIOSK, kiosk.pageErrors);
        await page.goto(`${kiosk.host.url}/?${new URLSearchParams({ token: `term.${shop.terminalToken}`, screen: 'report', lang }).toString()}`);
        const line = page.locator('#report-refund-failures');
        await line.waitFor();
        assert.deepEqual([await line.getAttribute('data-count'), await line.getAttribute('data-amount')], ['1', '30000']);
        assert.equal(await page.locator('#report-net').getAttribute('data-amount'), '30000', 'nothing sold today; the failed refund\'s money is back');
        assert.equal(await page.locator('#report-refunds').getAttribute('data-amount'), '0');
        assert.match(await line.innerText(), lang === 'en' ? /Refunds that did not reach the phone \(earlier days\)/ : /Remboursements non parvenus au téléphone \(jours précédents\)/);
        await screenshots(page, `report-${lang}`, '#day-report');
        await page.context().close();
      }
    });
  });
}
