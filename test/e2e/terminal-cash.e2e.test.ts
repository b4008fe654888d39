// Cash at the kiosk in Chromium against the real sync server on each database, through the TCP
// relay the test cuts and restores: a cart sold for cash with change (the Cash screen and its
// outcome at 800x600 and 1024x768, in English and French), the drawer opened once through the
// receipt printer (a VirtualPrinter) and the receipt printed with what was handed over and the
// change; the same sale offline, kept over a reload, and recorded by the server exactly once when
// the connection is back, with its lines and stock and no wallet money moved.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { type Cart, cartTotals } from '@tapline/shared/cart';
import { toMinor } from '@tapline/shared/money';
import type { VirtualPrinter } from '@tapline/hardware';
import { checkLedger } from '@tapline/sync-server/ledger/check';
import { type TestServer, balanceMinor, databaseTargets, useTestServer } from '@tapline/sync-server/testing';
import { assertAccessible } from './axe.ts';
import { trackedPage } from './browser.ts';
import { ARTIFACTS, KIOSK, SYNC_WAIT, assertControlsOnScreen, builtRenderer, signInKiosk, createMerchantProduct, useKioskRig } from './kiosk.ts';
import { shopWithTerminal } from './shop.ts';

const rendererDir = await builtRenderer();
const SIZES = [{ width: 800, height: 600 }, KIOSK.viewport] as const;

interface Product {
  id: string;
  stock: number | null;
}

interface SaleRecord {
  saleId: string;
  kind: string;
  status: string;
  amount: number;
  currency: string;
  walletRef: string | null;
  tenders: { kind: string; amount: number; tendered?: number; change?: number }[];
  change: number;
  items: { name: string; quantity: number }[] | null;
}

/** The printed lines of the receipt printed under `jobId` (once, or the test fails). */
function receiptLines(printer: VirtualPrinter, jobId: string): string[] {
  const jobs = printer.jobs.filter((job) => job.jobId === jobId);
  assert.equal(jobs.length, 1, `one receipt printed under ${jobId}`);
  return jobs[0]!.document.blocks.flatMap((block) => (block.kind === 'text' ? [block.text] : []));
}

/** How many rows the server holds for a till sale id (the settler's table). */
async function tillSaleRows(s: TestServer, id: string): Promise<number> {
  const [row] = await s.db.query<{ n: number }>('SELECT count(*)::int AS n FROM till_sales WHERE id = $1::uuid', [id]);
  return Number(row?.n ?? 0);
}

for (const target of await databaseTargets()) {
  describe(`cash at the kiosk in Chromium on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 10 });
    const kiosk = useKioskRig(server, { rendererDir, previews: `terminal-cash-receipts-${target.name}`, noPageErrors: true });

    /** A shop with Jollof (15.00, 7.5 % included) and Malt (5.00, 7.5 % added, 5 in stock). */
    async function shop() {
      const shopped = await shopWithTerminal(server(), { fund: 100 });
      const jollof = await createMerchantProduct<Product>(shopped.s, shopped.key, { name: 'Jollof rice', price: 15, category: 'Food', taxRate: 7.5, taxInclusive: true });
      const malt = await createMerchantProduct<Product>(shopped.s, shopped.key, { name: 'Malt', price: 5, category: 'Drinks', taxRate: 7.5, taxInclusive: false, trackStock: true, stock: 5 });
      return { ...shopped, jollof, malt };
    }

    async function ringUp(page: Page, productIds: string[]): Promise<void> {
      for (const id of productIds) {
        await page.locator(`#items button[data-product="${id}"]`).click();
        await page.locator(`#cart li[data-product="${id}"]`).waitFor();
      }
    }

    /** Tendered typed on the keyboard, as a cashier with a keyboard would (the keypad's keys are the same). */
    async function typeTendered(page: Page, amount: string): Promise<void> {
      await page.click('#cash-key-clear');
      await page.keyboard.type(amount, { delay: 60 });
      assert.equal((await page.locator('#cash-tendered-display').innerText()).replace(/[,\s\u202f]/g, ''), amount.replace('.', (await page.evaluate<string>('document.documentElement.lang')) === 'fr' ? ',' : '.'));
    }

    async function screenshots(page: Page, name: string, root: string): Promise<void> {
      for (const size of SIZES) {
        await page.setViewportSize(size);
        await page.screenshot({ path: `${ARTIFACTS}terminal-cash-${name}-${size.width}x${size.height}-${target.name}.png` });
        await assertControlsOnScreen(page, root, `${name} at ${size.width}x${size.height}`);
      }
      await page.setViewportSize(KIOSK.viewport);
    }

    it('sells a cart for cash with change in English and French: the Cash screen, the drawer opened once, the receipt with tendered and change, recorded once by the server with its lines and stock, no wallet money moved', async () => {
      const { s, key, merchant, terminalToken, jollof, malt } = await shop();
      const merchantBefore = await balanceMinor(s, merchant.handle, 'NGN');
      const page = await trackedPage(kiosk.browser, KIOSK, kiosk.pageErrors);
      await signInKiosk(page, kiosk.host, terminalToken);
      await page.locator('#sale[data-catalogue-size="2"][data-mode="items"]').waitFor(SYNC_WAIT);

      // No sale yet: Cash waits for one, like Charge.
      assert.equal(await page.locator('#cash-button').isDisabled(), true);
      await ringUp(page, [jollof.id, malt.id]);
      const cart: Cart = {
        lines: [
          { productId: jollof.id, name: 'Jollof rice', quantity: 1, unitPrice: 1_500, discount: 0, taxRate: 750, taxInclusive: true },
          { productId: malt.id, name: 'Malt', quantity: 1, unitPrice: 500, discount: 0, taxRate: 750, taxInclusive: false },
        ],
        discount: 0,
      };
      const total = cartTotals(cart).total;
      assert.equal(total, 2_038);
      assert.equal(await page.locator('#cash-button').innerText(), 'Cash');
      await screenshots(page, 'sale-en', '#sale .actions');
      await page.click('#cash-button');
      await page.locator('#cash-tender').waitFor();
      assert.equal(await page.locator('#cash-due').innerText(), 'NGN\u00a020.38');
      // Exact amount, then the notes that cover it (NGN 500 and 1,000).
      assert.deepEqual(await page.locator('#cash-quick button').evaluateAll((buttons) => buttons.map((button) => [button.id || button.textContent?.trim(), button.getAttribute('data-amount')])), [
        ['cash-exact', '2038'],
        ['500', '50000'],
        ['1,000', '100000'],
      ]);
      assert.equal(await page.locator('#cash-confirm').isDisabled(), true, 'nothing tendered yet');
      assert.equal(await page.locator('#cash-blocked').innerText(), 'Type the cash the customer handed over, or press one of the amounts.');
      // Short: Confirm stays disabled and says by how much.
      await typeTendered(page, '20');
      assert.equal(await page.locator('#cash-confirm').isDisabled(), true);
      assert.equal(await page.locator('#cash-blocked').innerText(), 'NGN\u00a00.38 short: the customer must hand over at least the amount due.');
      assert.equal(await page.locator('#cash-confirm').getAttribute('aria-describedby'), 'cash-blocked');
      await screenshots(page, 'tender-short-en', '#cash-tender');
      // A quick amount, then what was typed: the change follows live.
      await page.click('#cash-quick button[data-amount="50000"]');
      assert.equal(await page.locator('#cash-change').innerText(), 'NGN\u00a0479.62');
      await typeTendered(page, '50');
      assert.equal(await page.locator('#cash-change').innerText(), 'NGN\u00a029.62');
      assert.equal(await page.locator('#cash-tender').getAttribute('data-change'), '2962');
      assert.equal(await page.locator('#cash-confirm').isEnabled(), true);
      assert.equal(await page.locator('#cash-blocked').count(), 0);
      await screenshots(page, 'tender-en', '#cash-tender');
      await assertAccessible(page, 'the Cash screen');

      // Back to the sale: the cart is as it was; nothing was stored.
      await page.click('#cash-back');
      await page.locator('#sale').waitFor();
      assert.deepEqual(await page.locator('#cart li').evaluateAll((items) => items.map((item) => item.getAttribute('data-product'))), [jollof.id, malt.id]);
      assert.equal(await page.locator('#status-queued').getAttribute('data-count'), '0');

      // Again, and Confirm: the sale is stored, the drawer opens once, the receipt prints.
      const pulsesBefore = kiosk.printer.drawerPulses;
      await page.click('#cash-button');
      await typeTendered(page, '50');
      await page.click('#cash-confirm');
      await page.locator('#cash-result').waitFor();
      const saleId = (await page.locator('#cash-result').getAttribute('data-sale-id'))!;
      assert.match(saleId, /^[0-9a-f-]{36}$/);
      assert.equal(await page.locator('#cash-result-change').innerText(), 'Change: NGN\u00a029.62');
      assert.equal(await page.locator('#cash-result-paid').innerText(), 'Paid NGN\u00a020.38 · handed over NGN\u00a050.00');
      await page.locator('#cash-drawer-status[data-state="opened"]').waitFor();
      assert.equal(await page.locator('#cash-drawer-status').innerText(), 'Drawer opened');
      await page.locator('#cash-receipt-status[data-state="printed"]').waitFor();
      assert.equal(kiosk.printer.drawerPulses - pulsesBefore, 1, 'the drawer opened once: the receipt does not kick it again');
      assert.equal(kiosk.printer.lastDrawerReason, 'cash_sale');
      const lines = receiptLines(kiosk.printer, `till-${saleId}`);
      for (const expected of [/^SALE$/, /^Jollof rice$/, /^Malt$/, /^Tax 7\.5 % \(added\) +0\.38$/, /TOTAL NGN 20\.38/, /^Cash +20\.38$/, /^Cash tendered +50\.00$/, /^Change +29\.62$/]) {
        assert.ok(lines.some((line) => expected.test(line)), `${expected} on the receipt:\n${lines.join('\n')}`);
      }
      // Online, the verdict comes straight back.
      await page.locator('#cash-sync-status[data-status="accepted"]').waitFor(SYNC_WAIT);
      assert.equal(await page.locator('#cash-sync-status').innerText(), 'Recorded by the server.');
      await screenshots(page, 'outcome-en', '#cash-result');
      await assertAccessible(page, 'the cash outcome');

      const record = await s.request<SaleRecord>('GET', `/api/pos/sales/${saleId}`, { headers: key });
      assert.equal(record.status, 200, JSON.stringify(record.body));
      assert.deepEqual(
        [record.body.kind, record.body.status, toMinor(String(record.body.amount), 'NGN'), record.body.walletRef, record.body.tenders, record.body.change],
        ['till_sale', 'accepted', total, null, [{ kind: 'cash', amount: 20.38, tendered: 50, change: 29.62 }], 29.62],
      );
      assert.deepEqual(record.body.items?.map((item) => [item.name, item.quantity]), [['Jollof rice', 1], ['Malt', 1]]);
      assert.equal(await tillSaleRows(s, saleId), 1);
      assert.equal((await s.request<Product>('GET', `/api/merchant/products/${malt.id}`, { headers: key })).body.stock, 4, 'the stock moved');
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), merchantBefore, 'cash moves no wallet money');

      // New sale: the cart was sold.
      await page.click('#cash-new-sale');
      await page.locator('#sale').waitFor();
      assert.equal(await page.locator('#cart').count(), 0, 'the cart is empty');

      // In French: the same sale, its screens and its outcome.
      await page.selectOption('#language-switcher', 'fr');
      await ringUp(page, [jollof.id]);
      assert.equal(await page.locator('#cash-button').innerText(), 'Espèces');
      await screenshots(page, 'sale-fr', '#sale .actions');
      await page.click('#cash-button');
      await page.locator('#cash-tender').waitFor();
      assert.equal(await page.locator('#cash-due').innerText(), '15,00\u00a0NGN');
      await typeTendered(page, '10');
      assert.equal(await page.locator('#cash-blocked').innerText(), 'Il manque 5,00\u00a0NGN : le client doit remettre au moins le montant dû.');
      await page.click('#cash-quick button[data-amount="50000"]');
      assert.equal(await page.locator('#cash-change').innerText(), '485,00\u00a0NGN');
      assert.equal(await page.locator('#cash-exact').innerText(), 'Montant exact');
      await screenshots(page, 'tender-fr', '#cash-tender');
      await page.click('#cash-confirm');
      await page.locator('#cash-receipt-status[data-state="printed"]').waitFor();
      const frenchId = (await page.locator('#cash-result').getAttribute('data-sale-id'))!;
      assert.equal(await page.locator('#cash-result-title').innerText(), 'Payé en espèces');
      assert.equal(await page.locator('#cash-result-change').innerText(), 'Rendu : 485,00\u00a0NGN');
      await page.locator('#cash-sync-status[data-status="accepted"]').waitFor(SYNC_WAIT);
      await screenshots(page, 'outcome-fr', '#cash-result');
      const french = receiptLines(kiosk.printer, `till-${frenchId}`);
      for (const expected of [/^VENTE$/, /^Espèces +15,00$/, /^Espèces reçues +500,00$/, /^Rendu +485,00$/]) {
        assert.ok(french.some((line) => expected.test(line)), `${expected} on the French receipt:\n${french.join('\n')}`);
      }
      await page.click('#cash-new-sale');

      // Sales today: both cash sales paid.
      await page.click('#history-button');
      await page.locator(`#history tr[data-id="${frenchId}"]`).waitFor();
      assert.deepEqual(await page.locator('#history tr[data-kind="cash"]').evaluateAll((rows) => rows.map((row) => [row.getAttribute('data-id'), row.getAttribute('data-outcome')])), [[frenchId, 'paid'], [saleId, 'paid']]);
      assert.match(await page.locator(`#history tr[data-id="${saleId}"]`).innerText(), /20,38\u00a0NGN\s+Espèces\s+—\s+Payé/);
      const totals = page.locator('#history-totals .total');
      assert.equal(await totals.getAttribute('data-paid'), String(total + 1_500));
      await page.setViewportSize({ width: 800, height: 600 });
      await page.screenshot({ path: `${ARTIFACTS}terminal-cash-history-fr-800x600-${target.name}.png` });
      await page.setViewportSize(KIOSK.viewport);

      // End of day: the X report counts the cash sales, on screen and printed, and its gross is the server's.
      await page.click('#history-back');
      await page.selectOption('#language-switcher', 'en');
      await page.click('#day-report-button');
      await page.locator('#day-report[data-kind="X"]').waitFor();
      assert.deepEqual([await page.locator('#report-cash').getAttribute('data-count'), await page.locator('#report-cash').getAttribute('data-amount')], ['2', String(total + 1_500)]);
      assert.equal(await page.locator('#report-gross').getAttribute('data-amount'), String(total + 1_500));
      await page.setViewportSize({ width: 800, height: 600 });
      await page.screenshot({ path: `${ARTIFACTS}terminal-cash-x-report-800x600-${target.name}.png` });
      await page.setViewportSize(KIOSK.viewport);
      const jobsBefore = kiosk.printer.jobs.length;
      await page.click('#report-print');
      await page.locator('#report-receipt-status').waitFor();
      assert.equal(kiosk.printer.jobs.length, jobsBefore + 1);
      const report = kiosk.printer.jobs.at(-1)!.document.blocks.flatMap((block) => (block.kind === 'text' ? [block.text] : []));
      for (const expected of [/^Cash \(2\) +35\.38$/, /^Gross \(2\) +35\.38$/]) {
        assert.ok(report.some((line) => expected.test(line)), `${expected} on the X report:\n${report.join('\n')}`);
      }
      assert.deepEqual((await checkLedger(s.db)).violations, []);
      await page.close();
    });

    it('takes cash offline exactly as online, keeps the sale and its change over a reload, and the server records it exactly once when the connection is back', async () => {
      const { s, key, merchant, terminalToken } = await shopWithTerminal(server(), { fund: 1 });
      const merchantBefore = await balanceMinor(s, merchant.handle, 'NGN');
      const page = await trackedPage(kiosk.browser, KIOSK, kiosk.pageErrors);
      await signInKiosk(page, kiosk.host, terminalToken);
      kiosk.relay.cut();
      await page.locator('#status-sync[data-state="offline"]').waitFor(SYNC_WAIT);

      // A keypad amount; Charge goes offline, Cash stays cash.
      await page.keyboard.type('12.50');
      assert.match(await page.locator('#charge-button').innerText(), /^Take offline NGN/);
      await page.click('#cash-button');
      await page.locator('#cash-tender').waitFor();
      assert.equal(await page.locator('#cash-offline').innerText(), 'Cash works offline too: the sale syncs when the till is back online.');
      await page.click('#cash-quick button[data-amount="50000"]');
      const pulsesBefore = kiosk.printer.drawerPulses;
      await page.click('#cash-confirm');
      await page.locator('#cash-result[data-status="queued"]').waitFor();
      const saleId = (await page.locator('#cash-result').getAttribute('data-sale-id'))!;
      assert.equal(await page.locator('#cash-result-change').innerText(), 'Change: NGN\u00a0487.50');
      await page.locator('#cash-receipt-status[data-state="printed"]').waitFor();
      assert.equal(await page.locator('#cash-drawer-status').getAttribute('data-state'), 'opened');
      assert.equal(await page.locator('#cash-sync-status').innerText(), 'Recorded on this till: it syncs when the till is online.');
      await page.locator('#status-queued[data-count="1"]').waitFor();
      for (const size of SIZES) {
        await page.setViewportSize(size);
        await page.screenshot({ path: `${ARTIFACTS}terminal-cash-outcome-offline-${size.width}x${size.height}-${target.name}.png` });
      }
      await page.setViewportSize(KIOSK.viewport);

      // A reload (a crash) after the sale was written: its change is back on screen, the drawer
      // and the receipt do not happen again.
      await page.reload();
      await page.locator(`#cash-result[data-sale-id="${saleId}"]`).waitFor();
      assert.equal(await page.locator('#cash-result-change').innerText(), 'Change: NGN\u00a0487.50');
      await page.locator('#cash-receipt-status[data-state="printed"]').waitFor();
      assert.equal(kiosk.printer.drawerPulses - pulsesBefore, 1, 'the drawer opened once');
      receiptLines(kiosk.printer, `till-${saleId}`);
      await page.locator('#status-queued[data-count="1"]').waitFor();
      // Nothing reached the server while it was cut off.
      assert.equal(await tillSaleRows(s, saleId), 0);
      assert.equal((await s.request('GET', `/api/pos/sales/${saleId}`, { headers: key })).status, 404);

      // The connection is back: recorded once, and the verdict replicates to the open screen.
      kiosk.relay.restore();
      await page.locator('#cash-sync-status[data-status="accepted"]').waitFor(SYNC_WAIT);
      await page.locator('#status-sync[data-state="online"][data-queued="0"]').waitFor(SYNC_WAIT);
      assert.equal(await tillSaleRows(s, saleId), 1);
      const record = await s.request<SaleRecord>('GET', `/api/pos/sales/${saleId}`, { headers: key });
      assert.deepEqual([record.body.kind, record.body.status, record.body.amount, record.body.tenders], ['till_sale', 'accepted', 12.5, [{ kind: 'cash', amount: 12.5, tendered: 500, change: 487.5 }]]);
      await page.click('#cash-new-sale');
      await page.locator('#sale').waitFor();
      // Another reload and a fresh replication: still one record.
      await page.reload();
      await page.locator('#sale').waitFor();
      await page.locator('#status-sync[data-state="online"][data-queued="0"]').waitFor(SYNC_WAIT);
      await page.click('#history-button');
      await page.locator(`#history tr[data-id="${saleId}"][data-outcome="paid"]`).waitFor();
      assert.match(await page.locator(`#history tr[data-id="${saleId}"]`).innerText(), /NGN\u00a012\.50\s+Cash\s+—\s+Paid/);
      assert.equal(await tillSaleRows(s, saleId), 1, 'recorded exactly once');
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), merchantBefore, 'cash moves no wallet money');
      await page.close();
    });
  });
}
