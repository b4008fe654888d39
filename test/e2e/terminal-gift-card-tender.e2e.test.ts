// A gift card paying part of a sale at the kiosk, in Chromium against the real sync server on each
// database: the cashier opens the Split screen, scans the card's code (typed here, as a scanner
// types it), the customer types the card's PIN, the card pays what it holds, cash pays the rest, and
// the sale is recorded once with both tenders, printed, counted in the day report and refunded to
// each tender (the card gets its part back). A split sale cancelled after a card paid puts the card's
// part back on it. Bad codes and a wrong PIN are said in words. The gift card screen at 800x600 and
// 1024x768, in English and French.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { VirtualPrinter } from '@tapline/hardware';
import { checkLedger } from '@tapline/sync-server/ledger/check';
import { ADMIN, balanceMinor, databaseTargets, useTestServer } from '@tapline/sync-server/testing';
import type { TerminalHost } from '@tapline/terminal/host';
import { launchChromium, trackedPage } from './browser.ts';
import { ARTIFACTS, KIOSK, SYNC_WAIT, assertControlsOnScreen, builtRenderer, signInKiosk, startKiosk } from './kiosk.ts';
import { shopWithTerminal } from './shop.ts';

const rendererDir = await builtRenderer();
const SIZES = [{ width: 800, height: 600 }, KIOSK.viewport] as const;

for (const target of await databaseTargets()) {
  describe(`gift cards at the kiosk's till in Chromium on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 10 });
    let browser: Browser;
    let host: TerminalHost;
    let printer: VirtualPrinter;
    const pageErrors: string[] = [];

    before(async () => {
      browser = await launchChromium();
      ({ host, printer } = await startKiosk({ rendererDir, serverUrl: server().baseUrl, previews: `terminal-gift-card-receipts-${target.name}` }));
    });
    after(async () => {
      await browser?.close();
      await host?.close();
      assert.deepEqual(pageErrors.filter((error) => !error.includes('WebSocket is already in CLOSING or CLOSED state')), [], 'no script error on the page');
    });

    /** A shop selling Jollof rice (15.00) with a manager PIN, and a gift card of `amount` it issued (PIN 1357 when asked). */
    async function shop(amount: number, withPin: boolean) {
      const shopped = await shopWithTerminal(server(), { fund: 0 });
      const jollof = await shopped.s.request<{ id: string }>('POST', '/api/merchant/products', { headers: shopped.key, body: { name: 'Jollof rice', price: 15, category: 'Food' } });
      assert.equal(jollof.status, 201);
      assert.equal((await shopped.s.request('PUT', `/api/merchant/terminals/${shopped.terminalId}/manager-pin`, { headers: shopped.key, body: { pin: '2468' } })).status, 200);
      const card = await shopped.s.request<{ id: string; code: string }>('POST', '/api/merchant/gift-cards', { headers: shopped.key, body: { amount, currency: 'NGN', ...(withPin ? { pinCode: '1357' } : {}) } });
      assert.equal(card.status, 201, JSON.stringify(card.body));
      return { ...shopped, jollofId: jollof.body.id, card: card.body };
    }

    async function screenshots(page: Page, name: string, root: string): Promise<void> {
      for (const size of SIZES) {
        await page.setViewportSize(size);
        await page.screenshot({ path: `${ARTIFACTS}terminal-gift-card-${name}-${size.width}x${size.height}-${target.name}.png` });
        await assertControlsOnScreen(page, root, `${name} at ${size.width}x${size.height}`);
      }
      await page.setViewportSize(KIOSK.viewport);
    }

    async function openGiftCard(page: Page, productId: string): Promise<void> {
      await page.locator(`#items button[data-product="${productId}"]`).click();
      await page.locator(`#cart li[data-product="${productId}"]`).waitFor();
      await page.click('#split-button');
      await page.locator('#split[data-state="tenders"]').waitFor();
      await page.click('#split-gift');
      await page.locator('#gift-card-tender[data-view="scan"]').waitFor();
    }

    async function scan(page: Page, code: string): Promise<void> {
      await page.fill('#gift-code', code);
      await page.keyboard.press('Enter');
    }

    async function cardBalance(code: string): Promise<number> {
      const verified = await server().request<{ amountRemaining: number }>('GET', `/api/gift-cards/verify?code=${code}`);
      return verified.body.amountRemaining;
    }

    it('takes what a card holds with its PIN, the rest in cash, records and prints both, and refunds each to its tender', async () => {
      const { s, key, merchant, terminalToken, jollofId, card } = await shop(10, true);
      const merchantBefore = await balanceMinor(s, merchant.handle, 'NGN');
      const page = await trackedPage(browser, KIOSK, pageErrors);
      await signInKiosk(page, host, terminalToken);
      await page.locator('#sale[data-catalogue-size="1"]').waitFor(SYNC_WAIT);
      await openGiftCard(page, jollofId);
      assert.equal(await page.locator('#gift-due').innerText(), 'NGN\u00a015.00');
      await screenshots(page, 'scan-en', '#gift-card-tender');

      // Not a code, then a code no card has: both said in words, nothing taken.
      await scan(page, 'hello');
      assert.equal(await page.locator('#gift-error').getAttribute('data-code'), 'invalid_code');
      await scan(page, `gc_${'0'.repeat(64)}`);
      await page.locator('#gift-error[data-code="gift_card_not_found"]').waitFor();
      assert.match(await page.locator('#gift-error').innerText(), /No gift card has this code/);

      // The card: its PIN is asked, the balance shown; a wrong PIN is said and the PIN asked again.
      await scan(page, card.code.toUpperCase());
      await page.locator('#gift-card-tender[data-view="pin"]').waitFor();
      assert.equal(await page.locator('#gift-balance').innerText(), 'NGN\u00a010.00');
      assert.equal(await page.locator('#gift-part').innerText(), 'NGN\u00a010.00');
      assert.match(await page.locator('#gift-short').innerText(), /NGN\u00a05\.00 is left to pay another way/);
      await screenshots(page, 'pin-en', '#gift-card-tender');
      for (const digit of '9999') await page.click(`#pin-${digit}`);
      await page.click('#pin-ok');
      await page.locator('#gift-error[data-code="wrong_pin"]').waitFor();
      assert.equal(await page.locator('#gift-card-tender').getAttribute('data-view'), 'pin');
      assert.equal(await cardBalance(card.code), 10, 'a wrong PIN takes nothing');
      for (const digit of '1357') await page.click(`#pin-${digit}`);
      await page.click('#pin-ok');

      // Back on the Split screen: 10 paid by the card, 5 left; cash pays it.
      await page.locator('#split[data-state="tenders"][data-remaining="500"][data-tenders="1"]').waitFor(SYNC_WAIT);
      assert.deepEqual(await page.locator('#split-tenders li').allInnerTexts(), ['Gift card NGN\u00a010.00']);
      assert.equal(await cardBalance(card.code), 0);
      const pulsesBefore = printer.drawerPulses;
      await page.click('#split-cash');
      await page.locator('#cash-result').waitFor(SYNC_WAIT);
      const saleId = (await page.locator('#cash-result').getAttribute('data-sale-id'))!;
      assert.deepEqual(await page.locator('#cash-result-tenders li').allInnerTexts(), ['Gift card NGN\u00a010.00', 'Cash NGN\u00a05.00 (handed over NGN\u00a05.00, change NGN\u00a00.00)']);
      await page.locator('#cash-receipt-status[data-state="printed"]').waitFor();
      assert.equal(printer.drawerPulses - pulsesBefore, 1, 'the drawer opened for the cash part');
      const lines = printer.jobs.filter((job) => job.jobId === `till-${saleId}`).flatMap((job) => job.document.blocks.flatMap((block) => (block.kind === 'text' ? [block.text] : [])));
      for (const expected of [/TOTAL NGN 15\.00/, /^Gift card +10\.00$/, /^Cash +5\.00$/]) assert.ok(lines.some((line) => expected.test(line)), `${expected} on the receipt:\n${lines.join('\n')}`);
      await page.locator('#cash-sync-status[data-status="accepted"]').waitFor(SYNC_WAIT);
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), merchantBefore + 1000, 'the card\'s part reached the merchant\'s wallet');

      const report = await s.request<{ methods: Record<string, { count: number; amount: number }> }>('GET', '/api/pos/reports/current', { headers: { authorization: `Bearer term.${terminalToken}` } });
      assert.deepEqual([report.body.methods.giftCardTender, report.body.methods.cash], [{ count: 1, amount: 10 }, { count: 1, amount: 5 }]);
      const refund = await s.request<{ tenders: { kind: string; amount: number }[] }>('POST', '/api/pos/refunds', { headers: key, body: { saleId } });
      assert.equal(refund.status, 201, JSON.stringify(refund.body));
      assert.deepEqual(refund.body.tenders, [{ kind: 'gift_card', amount: 10 }, { kind: 'cash', amount: 5 }]);
      assert.equal(await cardBalance(card.code), 10, 'the refund put the card\'s part back on it');
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), merchantBefore);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
      await page.close();
    });

    it('puts the card\'s part back on it when the split sale is cancelled, in French', async () => {
      const { s, merchant, terminalToken, jollofId, card } = await shop(40, false);
      const merchantBefore = await balanceMinor(s, merchant.handle, 'NGN');
      const page = await trackedPage(browser, KIOSK, pageErrors);
      await signInKiosk(page, host, terminalToken);
      await page.locator('#sale[data-catalogue-size="1"]').waitFor(SYNC_WAIT);
      await page.selectOption('#language-switcher', 'fr');
      await openGiftCard(page, jollofId);
      await screenshots(page, 'scan-fr', '#gift-card-tender');
      await scan(page, card.code);
      // No PIN on this card: the till shows what it pays and asks to confirm.
      await page.locator('#gift-card-tender[data-view="confirm"]').waitFor();
      assert.equal(await page.locator('#gift-part').innerText(), '15,00\u00a0NGN');
      assert.equal(await page.locator('#gift-short').count(), 0, 'the card covers the sale');
      await screenshots(page, 'confirm-fr', '#gift-card-tender');
      assert.equal(await page.locator('#gift-take').innerText(), 'Prendre 15,00\u00a0NGN sur la carte');
      await page.click('#gift-take');
      // The card pays it all: the sale completes.
      await page.locator('#cash-result').waitFor(SYNC_WAIT);
      assert.equal(await cardBalance(card.code), 25);
      await page.click('#cash-new-sale');

      // A second sale: the card pays 5 of it, then the cashier cancels; the card gets its 5 back.
      await page.locator(`#items button[data-product="${jollofId}"]`).click();
      await page.click('#split-button');
      await page.locator('#split[data-state="tenders"]').waitFor();
      await page.click('#split-key-clear');
      await page.keyboard.type('5', { delay: 60 });
      await page.click('#split-gift');
      await scan(page, card.code);
      await page.locator('#gift-card-tender[data-view="confirm"]').waitFor();
      await page.click('#gift-take');
      await page.locator('#split[data-state="tenders"][data-remaining="1000"][data-tenders="1"]').waitFor(SYNC_WAIT);
      assert.equal(await cardBalance(card.code), 20);
      await page.click('#split-cancel-button');
      await page.locator('#split[data-state="cancelling"]').waitFor();
      assert.deepEqual(await page.locator('#split-cancel li').allInnerTexts(), ['Recréditer 5,00\u00a0NGN sur la carte cadeau']);
      await screenshots(page, 'cancel-fr', '#split');
      const pulsesBefore = printer.drawerPulses;
      await page.click('#split-confirm-cancel');
      await page.locator('#sale').waitFor(SYNC_WAIT);
      assert.equal(printer.drawerPulses - pulsesBefore, 0, 'no cash was taken: the drawer stays shut');
      assert.equal(await cardBalance(card.code), 25, 'the card has its 5 back');
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), merchantBefore + 1500, 'the merchant keeps only the first sale');
      assert.deepEqual((await checkLedger(s.db)).violations, []);
      await page.selectOption('#language-switcher', 'en');
      await page.close();
    });
    it('gives a card that ended meanwhile its part in cash from the drawer when the split sale is cancelled, and the shift expects that much less', async () => {
      const { s, key, terminalToken, jollofId, card } = await shop(20, false);
      const staff = await s.request<{ id: string }>('POST', '/api/merchant/staff', { headers: key, body: { name: 'Ada Obi', role: 'cashier', pin: '1357' } });
      assert.equal(staff.status, 201, JSON.stringify(staff.body));
      const page = await trackedPage(browser, KIOSK, pageErrors);
      await page.goto(host.url);
      await page.click('#show-advanced');
      await page.fill('#token', `term.${terminalToken}`);
      await page.click('#signin-button');
      await page.locator(`#till-sign-in button[data-staff-id="${staff.body.id}"]`).click(SYNC_WAIT);
      for (const digit of '1357') await page.click(`#pin-${digit}`);
      await page.click('#pin-ok');
      await page.locator('#float').waitFor();
      await page.click('#float-clear');
      await page.keyboard.type('100');
      await page.click('#float-confirm');
      await page.locator('#sale[data-catalogue-size="1"]').waitFor(SYNC_WAIT);

      // The card pays 5 of a 15 sale; before the cashier cancels, the shop cancels the card.
      await page.locator(`#items button[data-product="${jollofId}"]`).click();
      await page.click('#split-button');
      await page.locator('#split[data-state="tenders"]').waitFor();
      await page.click('#split-key-clear');
      await page.keyboard.type('5', { delay: 60 });
      await page.click('#split-gift');
      await scan(page, card.code);
      await page.locator('#gift-card-tender[data-view="confirm"]').waitFor();
      await page.click('#gift-take');
      await page.locator('#split[data-state="tenders"][data-remaining="1000"][data-tenders="1"]').waitFor(SYNC_WAIT);
      const ended = await s.request<{ status: string }>('PATCH', `/api/admin/gift-cards/${card.id}`, { headers: ADMIN, body: { action: 'cancel', reason: 'lost card' } });
      assert.deepEqual([ended.status, ended.body.status], [200, 'cancelled']);
      const pulsesBefore = printer.drawerPulses;
      await page.click('#split-cancel-button');
      await page.click('#split-confirm-cancel');
      await page.locator('#sale').waitFor(SYNC_WAIT);
      assert.equal(printer.drawerPulses - pulsesBefore, 1, 'the drawer opened to give the card\'s 5 in cash');

      // The blind count: the float of 100 less the 5 handed out is what the till expects.
      await page.click('#shift-button');
      await page.click('#shift-close');
      await page.locator('#close-count').waitFor();
      await page.click('#close-count-clear');
      await page.keyboard.type('95');
      await page.click('#close-count-confirm');
      await page.locator('#shift-closed').waitFor();
      assert.equal(await page.locator('#shift-expected').innerText(), 'NGN\u00a095.00');
      assert.equal(await page.locator('#shift-closed').getAttribute('data-variance'), '0', 'balanced: the 5 given for the ended card is accounted for');
      assert.deepEqual((await checkLedger(s.db)).violations, []);
      await page.close();
    });
  });
}
