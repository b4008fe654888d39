// Gift cards sold at the kiosk in Chromium against the real sync server on each database, through
// the TCP relay the test cuts and restores: the terminal makes the code, prints it, keeps only its
// hash in the replica, and the card is issued from the merchant's wallet when the sale syncs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { GIFT_CARD_CODE, giftCardCodeHash } from '@tapline/shared/gift-card-code';
import { trackedPage } from './browser.ts';
import { ARTIFACTS, KIOSK, SYNC_WAIT, builtRenderer, signInKiosk, useKioskRig } from './kiosk.ts';
import { shopWithTerminal } from './shop.ts';
import { checkLedger } from '@tapline/sync-server/ledger/check';
import { type TestServer, balanceMinor, databaseTargets, useTestServer } from '@tapline/sync-server/testing';

const PIN = '4829';
const rendererDir = await builtRenderer();

/**
 * Everything the page keeps: every IndexedDB store's rows and localStorage, as text. A string
 * expression, since this file is type-checked without the DOM library.
 */
const DUMP_PAGE_STORAGE = `(async () => {
  const request = (r) => new Promise((resolve, reject) => { r.onsuccess = () => resolve(r.result); r.onerror = () => reject(r.error); });
  const dumps = [];
  for (const info of await indexedDB.databases()) {
    const db = await request(indexedDB.open(info.name));
    for (const store of db.objectStoreNames) dumps.push(JSON.stringify(await request(db.transaction(store).objectStore(store).getAll())));
    db.close();
  }
  return dumps.join('\\n') + '\\n' + JSON.stringify({ ...localStorage });
})()`;

async function walletToken(s: TestServer, handle: string): Promise<string> {
  const session = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle, pin: PIN } });
  assert.equal(session.status, 201);
  return `wallet.${session.body.token}`;
}

for (const target of await databaseTargets()) {
  describe(`gift cards sold at the kiosk in Chromium on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 10 });
    const kiosk = useKioskRig(server, { rendererDir, previews: `terminal-gift-cards-receipts-${target.name}` });

    /** From the Sale screen: the card's value typed on the keyboard, a design and a message, then Sell. */
    async function sellCard(page: Page, amount: string, fields: { theme?: string; message?: string } = {}): Promise<string> {
      await page.click('#sell-gift-card');
      await page.locator('#sell-gift-card-screen').waitFor();
      assert.match(await page.locator('#gift-card-cash-note').innerText(), /cash at the till/);
      assert.equal(await page.locator('#gift-card-currency-fixed').innerText(), 'NGN', 'a NGN merchant sells NGN cards');
      await page.keyboard.type(amount);
      assert.equal((await page.locator('#gift-card-amount').innerText()).replaceAll(',', ''), amount);
      if (fields.theme !== undefined) await page.selectOption('#gift-card-theme', fields.theme);
      if (fields.message !== undefined) await page.fill('#gift-card-message', fields.message);
      await page.click('#gift-card-sell');
      await page.locator('#gift-card-result').waitFor();
      const id = await page.locator('#gift-card-result').getAttribute('data-sale-id');
      assert.match(id ?? '', /^[0-9a-f-]{36}$/);
      return id!;
    }

    /** The printed card of a sale (its bytes as text): printed once, with the code as QR and as text. */
    async function printedCard(page: Page, saleId: string, code: string): Promise<string> {
      await page.locator('#gift-card-receipt-status').waitFor();
      assert.equal(await page.locator('#gift-card-receipt-status').innerText(), 'Gift card printed');
      const jobs = kiosk.printer.jobs.filter((job) => job.jobId === `giftcard-${saleId}`);
      assert.equal(jobs.length, 1, 'one print job per sale');
      const job = jobs[0]!;
      assert.deepEqual(job.document.blocks.filter((block) => block.kind === 'qr').map((block) => block.data), [code], 'the QR carries the code');
      const printed = Buffer.from(job.bytes).toString('latin1');
      // The text line wraps at the paper's width: the code reads whole once the line breaks go.
      assert.ok(printed.replace(/[\r\n]/g, '').includes(code), 'the code is printed');
      assert.ok(job.svg.replace(/<[^>]*>|\s/g, '').includes(code), 'the preview shows the code as text');
      return printed;
    }

    it('sells a card offline: printed with its code, only the hash stored, active once the till syncs; the code verifies and redeems, the merchant pays its value once', async () => {
      const { s, merchant, terminalToken, payer } = await shopWithTerminal(server(), { fund: 10, pin: PIN });
      const merchantStart = await balanceMinor(s, merchant.handle, 'NGN');
      const page = await trackedPage(kiosk.browser, KIOSK, kiosk.pageErrors);
      await signInKiosk(page, kiosk.host, terminalToken);

      kiosk.relay.cut();
      await page.locator('#status-sync[data-state="offline"]').waitFor(SYNC_WAIT);
      const saleId = await sellCard(page, '250', { theme: 'birthday', message: 'Happy birthday, Ada!' });
      await page.locator('#gift-card-result[data-status="queued"]').waitFor();
      assert.equal(await page.locator('#gift-card-result-title').innerText(), 'Activates when the till is online');
      assert.match(await page.locator('#gift-card-result-amount').innerText(), /NGN\s*250\.00/);
      const code = await page.locator('#gift-card-code').innerText();
      assert.match(code, GIFT_CARD_CODE);

      // The receipt: the code as text and in the QR's data, the value, the message, the activation note.
      const printed = await printedCard(page, saleId, code);
      assert.match(printed, /GIFT CARD/);
      assert.match(printed, /250\.00/);
      assert.match(printed, /Happy birthday, Ada!/);
      assert.match(printed, /activates when the till is online/);
      assert.match(printed, /Cash/);
      await page.screenshot({ path: `${ARTIFACTS}terminal-gift-card-queued-${target.name}.png` });

      // The replica holds the hash and the prefix, never the code (nor does localStorage).
      const stored = await page.evaluate<string>(DUMP_PAGE_STORAGE);
      assert.ok(stored.includes(await giftCardCodeHash(code)), 'the replica holds the code\'s hash');
      assert.ok(stored.includes(saleId));
      assert.ok(stored.includes(code.slice(0, 10)), 'and its prefix');
      assert.ok(!stored.includes(code.slice(10)), 'the code itself is stored nowhere in the page');
      assert.equal(await page.locator('#status-queued').getAttribute('data-count'), '1', 'the queued count includes the sale');

      // Nothing reached the server: the code does not verify, the merchant has paid nothing.
      assert.equal((await s.request('GET', `/api/gift-cards/verify?code=${code}`)).status, 404);
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), merchantStart);

      // The connection is back: the card is issued and the open screen says so.
      kiosk.relay.restore();
      await page.locator('#gift-card-result[data-status="accepted"]').waitFor(SYNC_WAIT);
      const title = await page.locator('#gift-card-result-title').innerText();
      assert.match(title, /^Active - card gcard_[\w-]+$/);
      const cardId = await page.locator('#gift-card-result-card').innerText();
      assert.equal(title, `Active - card ${cardId}`);
      assert.equal(await page.locator('#gift-card-code').innerText(), code, 'the code stays on screen until Done');
      await page.screenshot({ path: `${ARTIFACTS}terminal-gift-card-active-${target.name}.png` });
      await page.locator('#status-sync[data-state="online"][data-queued="0"]').waitFor(SYNC_WAIT);
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), merchantStart - 25_000, 'the merchant paid the card\'s value once');

      const verified = await s.request<{ valid: boolean; amount: number; currency: string; hasPin: boolean }>('GET', `/api/gift-cards/verify?code=${code}`);
      assert.equal(verified.status, 200, JSON.stringify(verified.body));
      assert.deepEqual([verified.body.valid, verified.body.amount, verified.body.currency, verified.body.hasPin], [true, 250, 'NGN', false]);
      const payerStart = await balanceMinor(s, payer, 'NGN');
      const redeemed = await s.request('POST', '/api/wallet/gift-cards/redeem', { headers: { authorization: `Bearer ${await walletToken(s, payer)}` }, body: { code, redeemAmount: 100 } });
      assert.equal(redeemed.status, 200, JSON.stringify(redeemed.body));
      assert.equal((await balanceMinor(s, payer, 'NGN')) - payerStart, 10_000);
      const after = await s.request<{ valid: boolean; amount: number }>('GET', `/api/gift-cards/verify?code=${code}`);
      assert.deepEqual([after.body.valid, after.body.amount], [true, 150]);

      // Done forgets the code; today's sales show the sale by its prefix, active, with no reprint (the code is gone).
      await page.click('#gift-card-done');
      assert.equal(await page.locator('#gift-card-code').count(), 0);
      await page.click('#history-button');
      await page.locator(`#history tr[data-id="${saleId}"][data-outcome="paid"]`).waitFor();
      const row = await page.locator(`#history tr[data-id="${saleId}"]`).innerText();
      assert.match(row, new RegExp(`NGN\u00a0250\\.00\\s+Gift card \\(cash\\)\\s+${code.slice(0, 10)}…\\s+Active`));
      assert.ok(!row.includes(code.slice(10)));
      assert.equal(await page.locator(`#history tr[data-id="${saleId}"] button.reprint`).count(), 0);
      await page.click('#history-back');

      // A reload online pushes nothing again: still exactly one card.
      await page.reload();
      await page.locator('#status-sync[data-state="online"][data-queued="0"]').waitFor(SYNC_WAIT);
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), merchantStart - 25_000);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
      await page.context().close();
      assert.deepEqual(kiosk.pageErrors, [], 'no script errors on the page');
    });

    it('shows a sale the merchant\'s wallet cannot fund as declined and tells the cashier to void the printed card', async () => {
      const { s, merchant, terminalToken } = await shopWithTerminal(server(), { fund: 10 });
      const merchantStart = await balanceMinor(s, merchant.handle, 'NGN');
      const page = await trackedPage(kiosk.browser, KIOSK, kiosk.pageErrors);
      await signInKiosk(page, kiosk.host, terminalToken);

      // One naira more than the merchant's wallet holds, sold online: declined within a moment.
      const tooMuch = String(merchantStart / 100 + 1);
      const saleId = await sellCard(page, tooMuch);
      const code = await page.locator('#gift-card-code').innerText();
      await printedCard(page, saleId, code);
      await page.locator('#gift-card-result[data-status="declined"]').waitFor(SYNC_WAIT);
      assert.equal(await page.locator('#gift-card-result').getAttribute('data-decline-code'), 'insufficient_funds');
      assert.equal(await page.locator('#gift-card-result-title').innerText(), 'Declined: There is not enough money in the wallet. (insufficient_funds)');
      assert.match(await page.locator('#gift-card-void').innerText(), /void the printed card/);
      await page.screenshot({ path: `${ARTIFACTS}terminal-gift-card-declined-${target.name}.png` });
      assert.equal((await s.request('GET', `/api/gift-cards/verify?code=${code}`)).status, 404, 'the printed code does not work');
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), merchantStart);

      await page.click('#gift-card-done');
      // The decline stays in front of the cashier until acknowledged.
      await page.locator(`#alert[data-kind="gift_card_sale_declined"][data-ref-id="${saleId}"]`).waitFor();
      assert.match(await page.locator('#alert').innerText(), /void it and give the customer their cash back/);
      await page.click('#alert-acknowledge');
      await page.locator('#alert').waitFor({ state: 'detached' });
      await page.click('#history-button');
      const row = page.locator(`#history tr[data-id="${saleId}"]`);
      await row.waitFor();
      assert.equal(await row.getAttribute('data-outcome'), 'declined');
      assert.equal(await row.getAttribute('data-code'), 'insufficient_funds');
      await page.screenshot({ path: `${ARTIFACTS}terminal-gift-card-list-${target.name}.png` });
      assert.deepEqual((await checkLedger(s.db)).violations, []);
      await page.context().close();
      assert.deepEqual(kiosk.pageErrors, [], 'no script errors on the page');
    });
  });
}
