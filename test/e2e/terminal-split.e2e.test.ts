// Split tender and tips at the kiosk in Chromium against the real sync server on each database:
// a cart paid part in cash and part by a ring tap (the remaining amount on screen throughout, the
// drawer opened for the cash part, the receipt listing both tenders), recorded once as one till
// sale and refunded to both tenders (the tap to the wallet, the rest from the drawer); a split sale
// cancelled with every tender given back (the tap returned to its wallet without a manager PIN);
// part paid by mobile money through the sandbox (completing, and timing out with another tender
// offered); a split sale part paid by mobile money cancelled, the phone paid back once (the server
// away and the shop's wallet short said in words first); the sale screen's Gift card and Mobile money
// buttons opening the split screen on that tender for the whole sale (a card paying it all, the
// sandbox paying it all, a card holding less and cash finishing it); and a till that asks for a tip before payment, the tip in the Z report. The split and tip
// screens at 800x600 and 1024x768, in English and French.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { SimulatedNfcReader, VirtualPrinter } from '@tapline/hardware';
import { checkLedger } from '@tapline/sync-server/ledger/check';
import { balanceMinor, databaseTargets, until, useTestServer } from '@tapline/sync-server/testing';
import type { TerminalHost } from '@tapline/terminal/host';
import { launchChromium, trackedPage } from './browser.ts';
import { ARTIFACTS, KIOSK, SYNC_WAIT, assertControlsOnScreen, builtRenderer, signInKiosk, startKiosk } from './kiosk.ts';
import { shopWithTerminal } from './shop.ts';

const rendererDir = await builtRenderer();
const SIZES = [{ width: 800, height: 600 }, KIOSK.viewport] as const;

interface SaleRecord {
  kind: string;
  status: string;
  amount: number;
  tip: number;
  tenders: { kind: string; amount: number; tendered?: number; change?: number }[];
}

function printedLines(printer: VirtualPrinter, jobId: string): string[] {
  const jobs = printer.jobs.filter((job) => job.jobId === jobId);
  assert.equal(jobs.length, 1, `one receipt printed under ${jobId}`);
  return jobs[0]!.document.blocks.flatMap((block) => (block.kind === 'text' ? [block.text] : []));
}

for (const target of await databaseTargets()) {
  describe(`split tender and tips at the kiosk in Chromium on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 10, env: { SANDBOX_STEP_MS: '400', COLLECTION_TIMEOUT_SECONDS: '10' } });
    let browser: Browser;
    let host: TerminalHost;
    let printer: VirtualPrinter;
    let reader: SimulatedNfcReader;
    const pageErrors: string[] = [];

    before(async () => {
      browser = await launchChromium();
      ({ host, printer, reader } = await startKiosk({ rendererDir, serverUrl: server().baseUrl, previews: `terminal-split-receipts-${target.name}` }));
    });
    after(async () => {
      await browser?.close();
      await host?.close();
      assert.deepEqual(pageErrors.filter((error) => !error.includes('WebSocket is already in CLOSING or CLOSED state')), [], 'no script error on the page');
    });

    /** A shop with Jollof rice (15.00) and a customer's ring funded with 100.00; the terminal's manager PIN is 2468. */
    async function shop() {
      const shopped = await shopWithTerminal(server(), { fund: 100 });
      const jollof = await shopped.s.request<{ id: string }>('POST', '/api/merchant/products', { headers: shopped.key, body: { name: 'Jollof rice', price: 15, category: 'Food' } });
      assert.equal(jollof.status, 201);
      const pin = await shopped.s.request('PUT', `/api/merchant/terminals/${shopped.terminalId}/manager-pin`, { headers: shopped.key, body: { pin: '2468' } });
      assert.equal(pin.status, 200);
      return { ...shopped, jollofId: jollof.body.id };
    }

    async function screenshots(page: Page, name: string, root: string): Promise<void> {
      for (const size of SIZES) {
        await page.setViewportSize(size);
        await page.screenshot({ path: `${ARTIFACTS}terminal-split-${name}-${size.width}x${size.height}-${target.name}.png` });
        await assertControlsOnScreen(page, root, `${name} at ${size.width}x${size.height}`);
      }
      await page.setViewportSize(KIOSK.viewport);
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

    it('takes part in cash and part by a tap, records one till sale with both tenders, prints both, and refunds each to its tender', async () => {
      const { s, key, merchant, terminalToken, payer, tagId, jollofId } = await shop();
      const payerBefore = await balanceMinor(s, payer, 'NGN');
      const merchantBefore = await balanceMinor(s, merchant.handle, 'NGN');
      const page = await trackedPage(browser, KIOSK, pageErrors);
      await signInKiosk(page, host, terminalToken);
      await page.locator('#sale[data-catalogue-size="1"]').waitFor(SYNC_WAIT);
      await splitCart(page, jollofId);
      assert.equal(await page.locator('#split-remaining').innerText(), 'NGN\u00a015.00');
      assert.equal(await page.locator('#split-part-display').innerText(), '15', 'nothing typed: the next tender pays everything left');
      await screenshots(page, 'start-en', '#split');

      // NGN 6 in cash: 9 left, no change.
      const pulsesBefore = printer.drawerPulses;
      await typePart(page, '6');
      await page.click('#split-cash');
      await page.locator('#split[data-remaining="900"]').waitFor();
      assert.equal(await page.locator('#split-paid').innerText(), 'NGN\u00a06.00');
      assert.deepEqual(await page.locator('#split-tenders li').allInnerTexts(), ['Cash NGN\u00a06.00 (handed over NGN\u00a06.00, change NGN\u00a00.00)']);
      // More than is left is refused for a tap, with the amount left.
      await typePart(page, '10');
      await page.click('#split-tap');
      assert.equal(await page.locator('#split-message').innerText(), 'More than is left to pay (NGN\u00a09.00).');
      await screenshots(page, 'part-paid-en', '#split');

      // The rest by a tap: the waiting screen for NGN 9, then the sale completes by itself.
      await page.click('#split-key-clear');
      await page.click('#split-tap');
      await page.locator('#waiting').waitFor();
      assert.equal(await page.locator('#waiting-amount').innerText(), 'NGN\u00a09.00');
      await page.locator('#waiting[data-session-id]').waitFor();
      assert.ok(reader.tap(tagId));
      await page.locator('#cash-result').waitFor(SYNC_WAIT);
      const saleId = (await page.locator('#cash-result').getAttribute('data-sale-id'))!;
      assert.equal(await page.locator('#cash-result-title').innerText(), 'Split payment');
      assert.deepEqual(await page.locator('#cash-result-tenders li').allInnerTexts(), ['Cash NGN\u00a06.00 (handed over NGN\u00a06.00, change NGN\u00a00.00)', 'Wallet tap NGN\u00a09.00']);
      await page.locator('#cash-receipt-status[data-state="printed"]').waitFor();
      assert.equal(printer.drawerPulses - pulsesBefore, 1, 'the drawer opened once, for the cash part');
      const lines = printedLines(printer, `till-${saleId}`);
      for (const expected of [/TOTAL NGN 15\.00/, /^Cash +6\.00$/, /^Wallet +9\.00$/]) assert.ok(lines.some((line) => expected.test(line)), `${expected} on the receipt:\n${lines.join('\n')}`);
      await page.locator('#cash-sync-status[data-status="accepted"]').waitFor(SYNC_WAIT);
      await screenshots(page, 'outcome-en', '#cash-result');
      assert.equal(await balanceMinor(s, payer, 'NGN'), payerBefore - 900);

      const record = await s.request<SaleRecord>('GET', `/api/pos/sales/${saleId}`, { headers: key });
      assert.deepEqual([record.body.kind, record.body.status, record.body.amount], ['till_sale', 'accepted', 15]);
      assert.deepEqual(record.body.tenders.map((tender) => [tender.kind, tender.amount]), [['cash', 6], ['wallet', 9]]);
      // Sales today lists the sale once (its tap is a tender of it, not a sale of its own).
      await page.click('#cash-new-sale');
      await page.click('#history-button');
      await page.locator(`#history tr[data-id="${saleId}"]`).waitFor();
      assert.equal(await page.locator('#history tbody tr').count(), 1);

      // The refund at the till goes back to both tenders: the tap to the wallet first, the rest
      // from the drawer, which opens once for it; the receipt says where each part went.
      await page.locator(`#history tr[data-id="${saleId}"] .refund`).click();
      await page.locator('#refund[data-state="choose"]').waitFor();
      await page.click('#refund-button');
      const drawerBefore = printer.drawerPulses;
      const jobsBefore = printer.jobs.length;
      for (const digit of '2468') await page.click(`#pin-${digit}`);
      await page.click('#pin-ok');
      await page.locator('#refund[data-state="done"]').waitFor(SYNC_WAIT);
      await page.locator('#refund-receipt-status').waitFor();
      assert.equal(await page.locator('#refund-drawer-status').getAttribute('data-state'), 'opened');
      assert.equal(printer.drawerPulses - drawerBefore, 1, 'the drawer opened once for the cash given back');
      assert.equal(printer.lastDrawerReason, 'cash_refund');
      const refundLines = printer.jobs.slice(jobsBefore).flatMap((job) => job.document.blocks.flatMap((block) => (block.kind === 'text' ? [block.text] : [])));
      for (const expected of [/^Wallet +9\.00$/, /^Cash +6\.00$/]) assert.ok(refundLines.some((line) => expected.test(line)), `${expected} on the refund receipt:\n${refundLines.join('\n')}`);
      const refunded = await s.request<{ refunds: { tenders: { kind: string; amount: number }[] }[] }>('GET', `/api/pos/sales/${saleId}`, { headers: key });
      assert.deepEqual(refunded.body.refunds.map((made) => made.tenders), [[{ kind: 'wallet', amount: 9 }, { kind: 'cash', amount: 6 }]]);
      assert.equal(await balanceMinor(s, payer, 'NGN'), payerBefore);
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), merchantBefore);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
      await page.close();
    });

    it('cancels a split sale with every tender given back (the tap to its wallet, no manager PIN; the cash from the drawer), and keeps a split sale over a reload', async () => {
      const { s, payer, tagId, terminalToken, jollofId } = await shop();
      const payerBefore = await balanceMinor(s, payer, 'NGN');
      const page = await trackedPage(browser, KIOSK, pageErrors);
      await signInKiosk(page, host, terminalToken);
      await page.locator('#sale[data-catalogue-size="1"]').waitFor(SYNC_WAIT);
      await page.selectOption('#language-switcher', 'fr');
      await splitCart(page, jollofId);
      await screenshots(page, 'start-fr', '#split');
      await typePart(page, '5');
      await page.click('#split-tap');
      await page.locator('#waiting[data-session-id]').waitFor();
      assert.ok(reader.tap(tagId));
      await page.locator('#split[data-remaining="1000"]').waitFor(SYNC_WAIT);
      await typePart(page, '4');
      await page.click('#split-cash');
      await page.locator('#split[data-remaining="600"]').waitFor();
      assert.equal(await balanceMinor(s, payer, 'NGN'), payerBefore - 500);

      // A reload: the split sale comes back with both tenders.
      await page.reload();
      await page.locator('#split[data-remaining="600"][data-tenders="2"]').waitFor(SYNC_WAIT);
      await screenshots(page, 'part-paid-fr', '#split');

      const pulsesBefore = printer.drawerPulses;
      await page.click('#split-cancel-button');
      await page.locator('#split[data-state="cancelling"]').waitFor();
      assert.deepEqual(await page.locator('#split-cancel li').allInnerTexts(), ['Rendre 4,00\u00a0NGN en espèces depuis le tiroir', 'Rendre 5,00\u00a0NGN au portefeuille qui a payé']);
      await screenshots(page, 'cancel-fr', '#split');
      await page.click('#split-confirm-cancel');
      await page.locator('#sale').waitFor(SYNC_WAIT);
      assert.equal(await page.locator(`#cart li[data-product="${jollofId}"]`).count(), 1, 'the cart is as it was');
      assert.equal(printer.drawerPulses - pulsesBefore, 1, 'the drawer opened to give the cash back');
      assert.equal(printer.lastDrawerReason, 'cash_refund');
      assert.equal(await balanceMinor(s, payer, 'NGN'), payerBefore, 'the tap went back to the wallet');
      const [rows] = await s.db.query<{ n: number }>('SELECT count(*)::int AS n FROM till_sales WHERE terminal_id = (SELECT id FROM terminals WHERE name = $1 ORDER BY created_at DESC LIMIT 1)', ['Front counter']);
      assert.equal(Number(rows?.n), 0, 'no till sale was recorded');
      // After a reload the till is back on the Sale screen: the cancelled split sale is forgotten.
      await page.reload();
      await page.locator('#sale').waitFor(SYNC_WAIT);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
      await page.close();
    });

    it('takes part by mobile money through the sandbox: one number times out and another tender is offered, the next completes the sale', async () => {
      const { s, key, terminalToken, jollofId } = await shop();
      const page = await trackedPage(browser, KIOSK, pageErrors);
      await signInKiosk(page, host, terminalToken);
      await page.locator('#sale[data-catalogue-size="1"]').waitFor(SYNC_WAIT);
      await splitCart(page, jollofId);
      await typePart(page, '5');
      await page.click('#split-cash');
      await page.locator('#split[data-remaining="1000"]').waitFor();

      const phone = async (digits: string) => {
        await page.click('#momo-key-clear');
        for (const digit of digits) await page.click(`#momo-key-${digit}`);
        await page.click('#momo-send');
      };
      // The sandbox's "no answer" number: the wait ends when the collection expires, in words, with another tender offered.
      await page.click('#split-mobile');
      await page.locator('#mobile-money-tender').waitFor();
      assert.equal(await page.locator('#momo-due').innerText(), 'NGN\u00a010.00');
      await phone('08031230004');
      await page.locator('#momo-waiting').waitFor();
      await screenshots(page, 'mobile-waiting-en', '#mobile-money-tender');
      await page.locator('#momo-failed[data-code="no_answer"]').waitFor(SYNC_WAIT);
      await screenshots(page, 'mobile-timeout-en', '#mobile-money-tender');
      await page.click('#momo-other');
      await page.locator('#split[data-state="tenders"][data-remaining="1000"][data-tenders="1"]').waitFor();

      // Another number: the customer approves on the phone, the sale completes with both tenders.
      await page.click('#split-mobile');
      await phone('08031230001');
      await page.locator('#cash-result').waitFor(SYNC_WAIT);
      const saleId = (await page.locator('#cash-result').getAttribute('data-sale-id'))!;
      assert.deepEqual(await page.locator('#cash-result-tenders li').allInnerTexts(), ['Cash NGN\u00a05.00 (handed over NGN\u00a05.00, change NGN\u00a00.00)', 'Mobile money NGN\u00a010.00']);
      await page.locator('#cash-sync-status[data-status="accepted"]').waitFor(SYNC_WAIT);
      const record = await s.request<SaleRecord>('GET', `/api/pos/sales/${saleId}`, { headers: key });
      assert.deepEqual(record.body.tenders.map((tender) => [tender.kind, tender.amount]), [['cash', 5], ['mobile_money', 10]]);
      // The X report counts the mobile money part apart from the cash.
      const x = await s.request<{ gross: number; methods: { cash: { count: number; amount: number }; mobileMoney?: { count: number; amount: number } } }>('GET', '/api/pos/reports/current', { headers: { authorization: `Bearer term.${terminalToken}` } });
      assert.deepEqual([x.body.methods.cash, x.body.methods.mobileMoney, x.body.gross], [{ count: 1, amount: 5 }, { count: 1, amount: 10 }, 15]);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
      await page.close();
    });

    it('cancels a split sale part paid by mobile money: the phone is paid back once (a sandbox payout), failures are said in words and the cancel tried again pays nothing twice', async () => {
      const { s, key, merchant, terminalToken, jollofId } = await shop();
      const page = await trackedPage(browser, KIOSK, pageErrors);
      await signInKiosk(page, host, terminalToken);
      await page.locator('#sale[data-catalogue-size="1"]').waitFor(SYNC_WAIT);
      await splitCart(page, jollofId);
      await typePart(page, '5');
      await page.click('#split-cash');
      await page.locator('#split[data-remaining="1000"]').waitFor();
      await typePart(page, '6');
      await page.click('#split-mobile');
      await page.locator('#mobile-money-tender').waitFor();
      await page.click('#momo-key-clear');
      for (const digit of '08031230001') await page.click(`#momo-key-${digit}`);
      await page.click('#momo-send');
      await page.locator('#split[data-state="tenders"][data-remaining="400"][data-tenders="2"]').waitFor(SYNC_WAIT);
      const collectionId = (await s.db.query<{ id: string }>('SELECT id FROM pos_collections WHERE merchant_id = $1', [merchant.id]))[0]!.id;
      const collected = await s.request<{ status: string; claimedBy: string | null; returnedAt: string | null }>('GET', `/api/pos/collections/${collectionId}`, { headers: key });
      assert.deepEqual([collected.body.status, collected.body.claimedBy, collected.body.returnedAt], ['completed', null, null]);

      // The cancel panel says where each part goes: the phone (masked), then the drawer.
      await page.click('#split-cancel-button');
      await page.locator('#split[data-state="cancelling"]').waitFor();
      assert.deepEqual(await page.locator('#split-cancel li').allInnerTexts(), ['Mobile money NGN\u00a06.00 goes back to +234•••••••001', 'Give back NGN\u00a05.00 in cash from the drawer']);
      assert.equal(await page.locator('#split-confirm-cancel').isDisabled(), false, 'mobile money no longer blocks the cancel');
      await screenshots(page, 'cancel-mobile-en', '#split');
      await page.selectOption('#language-switcher', 'fr');
      await page.locator('#split-cancel li.give-mobile', { hasText: 'Monnaie mobile' }).waitFor();
      assert.deepEqual(await page.locator('#split-cancel li').allInnerTexts(), ['Monnaie mobile : 6,00\u00a0NGN renvoyés au numéro +234•••••••001', 'Rendre 5,00\u00a0NGN en espèces depuis le tiroir']);
      await screenshots(page, 'cancel-mobile-fr', '#split');
      await page.selectOption('#language-switcher', 'en');
      await page.locator('#split-cancel li.give-mobile', { hasText: 'goes back to' }).waitFor();

      // The server cannot be reached: said in words, the sale stays open, nothing is paid.
      const returnPath = `**/api/pos/collections/${collectionId}/return`;
      await page.route(returnPath, (route) => route.abort('internetdisconnected'));
      await page.click('#split-confirm-cancel');
      await page.locator('#split-message').waitFor();
      assert.equal(await page.locator('#split-message').innerText().then((text) => text.split('\n')[0]), 'Could not send mobile money NGN\u00a06.00 back yet (the till is offline: mobile money goes back to the phone only through the server): the sale stays open. Try again: the customer is never paid twice.');
      await page.unroute(returnPath);
      assert.equal((await s.db.query('SELECT id FROM payments WHERE merchant_id = $1', [merchant.id])).length, 0, 'nothing paid while the till could not reach the server');

      // The shop's wallet cannot pay the phone and the payout fee: said in words, nothing moved.
      const balance = await balanceMinor(s, merchant.handle, 'NGN');
      // A payout of (almost) everything it holds, 1.5 % fee on top, leaves about NGN 5.00.
      const drain = Math.floor((balance - 500) / 1.015);
      const drained = await s.request<{ id: string }>('POST', '/api/pay', { headers: { ...key, 'idempotency-key': randomUUID() }, body: { fromCode: 'NG', toCode: 'NG', rail: 'mobile_money', amount: drain / 100, currency: 'NGN', receiver: '+2348031238888' } });
      assert.equal(drained.status, 201, JSON.stringify(drained.body));
      const low = await balanceMinor(s, merchant.handle, 'NGN');
      assert.ok(low < 600 + 9, `the wallet holds ${low}: less than the part and its fee`);
      await page.click('#split-confirm-cancel');
      await page.locator('#split-message[data-code="insufficient_funds"], #split-message:has-text("does not hold")').first().waitFor(SYNC_WAIT);
      assert.match(await page.locator('#split-message').innerText(), /^The shop's Tapline wallet does not hold NGN\u00a06\.00 plus the mobile money fee: nothing was sent\. Top the wallet up or ask the manager, then try again\./);
      await screenshots(page, 'cancel-mobile-funds-en', '#split');
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), low, 'nothing moved');
      assert.equal((await s.db.query('SELECT id FROM payments WHERE merchant_id = $1 AND id <> $2', [merchant.id, drained.body.id])).length, 0, 'no payout to the phone');

      // Topped up (another mobile money payment to the shop), the same cancel goes through: the phone is paid back once.
      const topUp = await s.request<{ id: string }>('POST', '/api/pos/collections', { headers: key, body: { amountMinor: 2000, currency: 'NGN', phone: '08031239999' } });
      assert.equal(topUp.status, 201, JSON.stringify(topUp.body));
      await until('the top-up collection', async () => ((await s.request<{ status: string }>('GET', `/api/pos/collections/${topUp.body.id}`, { headers: key })).body.status === 'completed' ? true : undefined));
      const before = await balanceMinor(s, merchant.handle, 'NGN');
      const pulsesBefore = printer.drawerPulses;
      await page.click('#split-confirm-cancel');
      await page.locator('#sale').waitFor(SYNC_WAIT);
      assert.equal(await page.locator(`#cart li[data-product="${jollofId}"]`).count(), 1, 'the cart is as it was');
      assert.equal(printer.drawerPulses - pulsesBefore, 1, 'the drawer opened to give the cash back');
      const returned = await s.request<{ returnedAt: string | null; returnPaymentId: string | null; claimedBy: string | null }>('GET', `/api/pos/collections/${collectionId}`, { headers: key });
      assert.ok(returned.body.returnedAt);
      assert.equal(returned.body.claimedBy, null);
      const payout = await s.request<{ id: string; rail: string; amount: number; fee: number; currency: string; status: string }>('GET', `/api/payments/${returned.body.returnPaymentId}`, { headers: key });
      assert.equal(payout.status, 200, JSON.stringify(payout.body));
      assert.deepEqual([payout.body.rail, payout.body.amount, payout.body.currency], ['mobile_money', 6, 'NGN']);
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), before - 600 - Math.round(payout.body.fee * 100), 'the merchant paid the phone back and the fee');
      const payouts = await s.db.query<{ id: string }>('SELECT id FROM payments WHERE merchant_id = $1 AND id <> $2', [merchant.id, drained.body.id]);
      assert.deepEqual(payouts.map((row) => row.id), [returned.body.returnPaymentId], 'one payout to the phone');
      const [rows] = await s.db.query<{ n: number }>('SELECT count(*)::int AS n FROM till_sales WHERE merchant_id = $1', [merchant.id]);
      assert.equal(Number(rows?.n), 0, 'no till sale was recorded');
      assert.deepEqual((await checkLedger(s.db)).violations, []);
      await page.close();
    });

    /** A gift card of `amount` NGN the shop issued (no PIN), and what it holds, as the server says. */
    async function giftCard(shopped: Awaited<ReturnType<typeof shop>>, amount: number): Promise<{ code: string }> {
      const card = await shopped.s.request<{ code: string }>('POST', '/api/merchant/gift-cards', { headers: shopped.key, body: { amount, currency: 'NGN' } });
      assert.equal(card.status, 201, JSON.stringify(card.body));
      return card.body;
    }
    async function cardBalance(code: string): Promise<number> {
      return (await server().request<{ amountRemaining: number }>('GET', `/api/gift-cards/verify?code=${code}`)).body.amountRemaining;
    }
    async function tillSaleCount(shopped: Awaited<ReturnType<typeof shop>>): Promise<number> {
      const [rows] = await shopped.s.db.query<{ n: number }>('SELECT count(*)::int AS n FROM till_sales WHERE merchant_id = $1', [shopped.merchant.id]);
      return Number(rows?.n);
    }
    async function scanCard(page: Page, code: string): Promise<void> {
      await page.fill('#gift-code', code);
      await page.keyboard.press('Enter');
      await page.locator('#gift-card-tender[data-view="confirm"]').waitFor();
    }
    /** The sale screen's Gift card button with one Jollof rice in the cart: the split screen opens on the card's panel for everything due. */
    async function giftFromSale(page: Page, productId: string): Promise<void> {
      await page.locator(`#items button[data-product="${productId}"]`).click();
      await page.locator(`#cart li[data-product="${productId}"]`).waitFor();
      await page.click('#gift-card-button');
      await page.locator('#gift-card-tender[data-view="scan"]').waitFor();
    }

    it('takes a gift card for the whole sale from the sale screen\'s Gift card button: one gift_card tender, recorded once; Back with nothing taken returns to the sale', async () => {
      const shopped = await shop();
      const { s, key, merchant, terminalToken, jollofId } = shopped;
      const card = await giftCard(shopped, 40);
      const merchantBefore = await balanceMinor(s, merchant.handle, 'NGN');
      const page = await trackedPage(browser, KIOSK, pageErrors);
      await signInKiosk(page, host, terminalToken);
      await page.locator('#sale[data-catalogue-size="1"]').waitFor(SYNC_WAIT);
      await page.locator(`#items button[data-product="${jollofId}"]`).click();
      await page.locator(`#cart li[data-product="${jollofId}"]`).waitFor();
      assert.deepEqual([await page.locator('#gift-card-button').innerText(), await page.locator('#mobile-money-button').innerText()], ['Gift card', 'Mobile money']);
      await screenshots(page, 'sale-buttons-en', '#sale .actions');
      await page.selectOption('#language-switcher', 'fr');
      assert.deepEqual([await page.locator('#gift-card-button').innerText(), await page.locator('#mobile-money-button').innerText()], ['Carte cadeau', 'Monnaie mobile']);
      await screenshots(page, 'sale-buttons-fr', '#sale .actions');
      await page.click('#gift-card-button');
      await page.locator('#gift-card-tender[data-view="scan"]').waitFor();
      await screenshots(page, 'sale-gift-fr', '#gift-card-tender');

      // Back before any card paid: the sale screen again, the cart as it was, nothing kept.
      await page.click('#gift-back');
      await page.locator(`#sale #cart li[data-product="${jollofId}"]`).waitFor();
      await page.selectOption('#language-switcher', 'en');
      assert.equal(await page.evaluate<number>("Object.keys(localStorage).filter((name) => name.startsWith('tapline.splitSale.')).length"), 0, 'no split sale is kept');

      await page.click('#gift-card-button');
      await page.locator('#gift-card-tender[data-view="scan"]').waitFor();
      assert.equal(await page.locator('#gift-due').innerText(), 'NGN\u00a015.00', 'the card is asked for everything due');
      await screenshots(page, 'sale-gift-en', '#gift-card-tender');
      await scanCard(page, card.code);
      assert.equal(await page.locator('#gift-part').innerText(), 'NGN\u00a015.00');
      const pulsesBefore = printer.drawerPulses;
      await page.click('#gift-take');
      await page.locator('#cash-result').waitFor(SYNC_WAIT);
      const saleId = (await page.locator('#cash-result').getAttribute('data-sale-id'))!;
      assert.deepEqual(await page.locator('#cash-result-tenders li').allInnerTexts(), ['Gift card NGN\u00a015.00']);
      await page.locator('#cash-receipt-status[data-state="printed"]').waitFor();
      assert.equal(printer.drawerPulses - pulsesBefore, 0, 'no cash: the drawer stays shut');
      const lines = printedLines(printer, `till-${saleId}`);
      for (const expected of [/TOTAL NGN 15\.00/, /^Gift card +15\.00$/]) assert.ok(lines.some((line) => expected.test(line)), `${expected} on the receipt:\n${lines.join('\n')}`);
      await page.locator('#cash-sync-status[data-status="accepted"]').waitFor(SYNC_WAIT);
      const record = await s.request<SaleRecord>('GET', `/api/pos/sales/${saleId}`, { headers: key });
      assert.equal(record.status, 200, JSON.stringify(record.body));
      assert.deepEqual([record.body.amount, record.body.tenders.map((tender) => [tender.kind, tender.amount])], [15, [['gift_card', 15]]]);
      assert.equal(await tillSaleCount(shopped), 1, 'recorded once');
      assert.equal(await cardBalance(card.code), 25);
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), merchantBefore + 1500, 'the card paid the merchant');
      // Today's sales on the till list it once, paid by the card.
      await page.click('#cash-new-sale');
      await page.click('#history-button');
      await page.locator(`#history tr[data-id="${saleId}"][data-outcome="paid"]`).waitFor(SYNC_WAIT);
      assert.equal(await page.locator('#history tbody tr').count(), 1, 'one sale today, listed once');
      assert.deepEqual((await checkLedger(s.db)).violations, []);
      await page.close();
    });

    it('takes mobile money for the whole sale from the sale screen\'s Mobile money button: the sandbox completes it, one mobile_money tender', async () => {
      const shopped = await shop();
      const { s, key, terminalToken, jollofId } = shopped;
      const page = await trackedPage(browser, KIOSK, pageErrors);
      await signInKiosk(page, host, terminalToken);
      await page.locator('#sale[data-catalogue-size="1"]').waitFor(SYNC_WAIT);
      await page.locator(`#items button[data-product="${jollofId}"]`).click();
      await page.locator(`#cart li[data-product="${jollofId}"]`).waitFor();
      // In French first (the mobile money screen has no language switcher: the sale screen's is used), then Back to the sale.
      await page.selectOption('#language-switcher', 'fr');
      await page.click('#mobile-money-button');
      await page.locator('#mobile-money-tender[data-view="entry"]').waitFor();
      await screenshots(page, 'sale-mobile-fr', '#mobile-money-tender');
      await page.click('#momo-back');
      await page.locator(`#sale #cart li[data-product="${jollofId}"]`).waitFor();
      await page.selectOption('#language-switcher', 'en');
      await page.click('#mobile-money-button');
      await page.locator('#mobile-money-tender').waitFor();
      assert.equal(await page.locator('#momo-due').innerText(), 'NGN\u00a015.00', 'the phone is asked for everything due');
      await screenshots(page, 'sale-mobile-en', '#mobile-money-tender');
      for (const digit of '08031230001') await page.click(`#momo-key-${digit}`);
      await page.click('#momo-send');
      await page.locator('#cash-result').waitFor(SYNC_WAIT);
      const saleId = (await page.locator('#cash-result').getAttribute('data-sale-id'))!;
      assert.deepEqual(await page.locator('#cash-result-tenders li').allInnerTexts(), ['Mobile money NGN\u00a015.00']);
      await page.locator('#cash-sync-status[data-status="accepted"]').waitFor(SYNC_WAIT);
      const record = await s.request<SaleRecord>('GET', `/api/pos/sales/${saleId}`, { headers: key });
      assert.deepEqual([record.body.amount, record.body.tenders.map((tender) => [tender.kind, tender.amount])], [15, [['mobile_money', 15]]]);
      assert.equal(await tillSaleCount(shopped), 1, 'recorded once');
      const x = await s.request<{ methods: { cash: { count: number; amount: number }; mobileMoney?: { count: number; amount: number } } }>('GET', '/api/pos/reports/current', { headers: { authorization: `Bearer term.${terminalToken}` } });
      assert.deepEqual([x.body.methods.mobileMoney, x.body.methods.cash], [{ count: 1, amount: 15 }, { count: 0, amount: 0 }]);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
      await page.close();
    });

    it('shows what is left when a card from the sale screen\'s Gift card button holds less than the sale, and cash finishes it', async () => {
      const shopped = await shop();
      const { s, key, terminalToken, jollofId } = shopped;
      const card = await giftCard(shopped, 10);
      const page = await trackedPage(browser, KIOSK, pageErrors);
      await signInKiosk(page, host, terminalToken);
      await page.locator('#sale[data-catalogue-size="1"]').waitFor(SYNC_WAIT);
      await giftFromSale(page, jollofId);
      await scanCard(page, card.code);
      assert.match(await page.locator('#gift-short').innerText(), /NGN\u00a05\.00 is left to pay another way/);
      await page.click('#gift-take');
      // The split screen with the card's part and what is left; the cashier adds cash.
      await page.locator('#split[data-state="tenders"][data-remaining="500"][data-tenders="1"]').waitFor(SYNC_WAIT);
      assert.equal(await page.locator('#split-remaining').innerText(), 'NGN\u00a05.00');
      assert.deepEqual(await page.locator('#split-tenders li').allInnerTexts(), ['Gift card NGN\u00a010.00']);
      await screenshots(page, 'sale-gift-short-en', '#split');
      await page.click('#split-cash');
      await page.locator('#cash-result').waitFor(SYNC_WAIT);
      const saleId = (await page.locator('#cash-result').getAttribute('data-sale-id'))!;
      assert.deepEqual(await page.locator('#cash-result-tenders li').allInnerTexts(), ['Gift card NGN\u00a010.00', 'Cash NGN\u00a05.00 (handed over NGN\u00a05.00, change NGN\u00a00.00)']);
      await page.locator('#cash-sync-status[data-status="accepted"]').waitFor(SYNC_WAIT);
      const record = await s.request<SaleRecord>('GET', `/api/pos/sales/${saleId}`, { headers: key });
      assert.deepEqual(record.body.tenders.map((tender) => [tender.kind, tender.amount]), [['gift_card', 10], ['cash', 5]]);
      assert.equal(await tillSaleCount(shopped), 1, 'recorded once');
      assert.equal(await cardBalance(card.code), 0);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
      await page.close();
    });

    it('asks for a tip before payment when the terminal is set to, and the tip is in the Z report apart from the sales', async () => {
      const { s, key, terminalId, terminalToken, jollofId } = await shop();
      const set = await s.request('PATCH', `/api/merchant/terminals/${terminalId}`, { headers: key, body: { tipping: { mode: 'before', percentages: [10, 15] } } });
      assert.equal(set.status, 200, JSON.stringify(set.body));
      const page = await trackedPage(browser, KIOSK, pageErrors);
      await signInKiosk(page, host, terminalToken);
      await page.locator('#sale[data-catalogue-size="1"]').waitFor(SYNC_WAIT);
      await page.locator(`#items button[data-product="${jollofId}"]`).click();
      // With tipping on, Cash goes to the tender screen, which asks first.
      await page.click('#cash-button');
      await page.locator('#split[data-state="tip"]').waitFor();
      assert.deepEqual(await page.locator('#tip-prompt .tip-choice').allInnerTexts(), ['10% · NGN\u00a01.50', '15% · NGN\u00a02.25']);
      await screenshots(page, 'tip-en', '#split');
      await page.selectOption('#language-switcher', 'fr');
      assert.equal(await page.locator('#tip-prompt h2').innerText(), 'Ajouter un pourboire ?');
      await screenshots(page, 'tip-fr', '#split');
      await page.selectOption('#language-switcher', 'en');
      await page.click('#tip-prompt .tip-choice[data-percent="10"]');
      await page.locator('#split[data-state="tenders"][data-tip="150"][data-remaining="1650"]').waitFor();
      await typePart(page, '20');
      await page.click('#split-cash');
      await page.locator('#cash-result').waitFor();
      const saleId = (await page.locator('#cash-result').getAttribute('data-sale-id'))!;
      assert.equal(await page.locator('#cash-result-change').innerText(), 'Change: NGN\u00a03.50');
      assert.equal(await page.locator('#cash-result-tip').innerText(), 'Tip NGN\u00a01.50');
      await page.locator('#cash-receipt-status[data-state="printed"]').waitFor();
      const lines = printedLines(printer, `till-${saleId}`);
      for (const expected of [/TOTAL NGN 15\.00/, /^Tip +1\.50$/, /^Total paid +16\.50$/, /^Change +3\.50$/]) assert.ok(lines.some((line) => expected.test(line)), `${expected} on the receipt:\n${lines.join('\n')}`);
      await page.locator('#cash-sync-status[data-status="accepted"]').waitFor(SYNC_WAIT);
      await screenshots(page, 'tip-outcome-en', '#cash-result');

      const z = await s.request<{ gross: number; tips: { count: number; amount: number }; cash: { collected: number } }>('POST', '/api/pos/reports', {
        headers: { authorization: `Bearer term.${terminalToken}`, 'idempotency-key': randomUUID() },
        body: { managerPin: '2468' },
      });
      assert.equal(z.status, 201, JSON.stringify(z.body));
      assert.deepEqual([z.body.gross, z.body.tips], [15, { count: 1, amount: 1.5 }], 'the tip is apart from the sales');
      await page.close();
    });
  });
}

