// The customer display following the kiosk in Chromium against the real sync server on each
// database: two pages of ONE browser context (as two windows of one Electron session), the kiosk
// at / and the display at /display (800x600, then 1024x768). The display welcomes with the merchant's name, follows the cart
// as it is rung up (lines, quantities, totals), shows the wallet sale's QR code while it waits (the
// kiosk's own code) and its outcome (paid, declined, cancelled), asks for cash and shows the change,
// shows the current state at once when reloaded, and speaks the customer's language when they tap
// it (the kiosk stays in its own). Each screen at 800x600 and 1024x768 (and a portrait tablet) in
// English and French, nothing cut or overflowing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { type Cart, cartTotals } from '@tapline/shared/cart';
import { databaseTargets, uniqueHandle, useTestServer } from '@tapline/sync-server/testing';
import type { SimulatedNfcReader } from '@tapline/hardware';
import type { TerminalHost } from '@tapline/terminal/host';
import { assertAccessible } from './axe.ts';
import { launchChromium, trackedPage } from './browser.ts';
import { ARTIFACTS, KIOSK, SYNC_WAIT, builtRenderer, signInKiosk, startKiosk, createMerchantProduct } from './kiosk.ts';
import { shopWithTerminal } from './shop.ts';

const rendererDir = await builtRenderer();
const SIZES = [{ width: 800, height: 600 }, { width: 1024, height: 768 }] as const;
const PORTRAIT = { width: 768, height: 1024 };
const NBSP = '\u00a0';

interface Product {
  id: string;
}

for (const target of await databaseTargets()) {
  describe(`the customer display follows the kiosk in Chromium on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 10 });
    let browser: Browser;
    let host: TerminalHost;
    let reader: SimulatedNfcReader;
    const pageErrors: string[] = [];

    before(async () => {
      browser = await launchChromium();
      ({ host, reader } = await startKiosk({ rendererDir, serverUrl: server().baseUrl, previews: `terminal-display-receipts-${target.name}` }));
    });
    after(async () => {
      await browser?.close();
      await host?.close();
      assert.deepEqual(pageErrors.filter((error) => !error.includes('WebSocket is already in CLOSING or CLOSED state')), [], 'no script error on either page');
    });

    /** The display: a second page of the kiosk's context (same origin, same session). */
    async function openDisplay(kiosk: Page): Promise<Page> {
      const display = await kiosk.context().newPage();
      display.on('pageerror', (error) => pageErrors.push(`display: ${error.message}`));
      display.on('console', (message) => {
        if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) pageErrors.push(`display: ${message.text()}`);
      });
      // A small customer screen first; the test moves it to 1024x768 halfway, so the display follows the cart at both.
      await display.setViewportSize(SIZES[0]);
      await display.goto(`${host.url}/display`);
      await display.locator('#customer-display').waitFor();
      return display;
    }

    /** The lines the display shows: [name, quantity, line total]. */
    async function displayedLines(display: Page): Promise<[string, number, number][]> {
      return display.locator('#display-lines li').evaluateAll((items) =>
        items.map((item) => [item.querySelector('.name')!.childNodes[0]!.textContent!.trim(), Number(item.getAttribute('data-quantity')), Number(item.getAttribute('data-total'))] as [string, number, number]),
      );
    }

    async function waitForDisplay(display: Page, selector: string): Promise<void> {
      await display.locator(selector).waitFor({ timeout: 60_000 });
    }

    /** Nothing cut, wrapped out of its box or overlapping: the page does not scroll, every part of it is inside the viewport, the panel's content fits it. */
    async function assertFits(display: Page, label: string): Promise<void> {
      // A string: the test runner's transpiler would wrap named functions in a helper the page does not have.
      const problems = await display.evaluate<string[]>(`(() => {
        const found = [];
        const root = document.documentElement;
        if (root.scrollWidth > window.innerWidth + 1 || root.scrollHeight > window.innerHeight + 1) found.push(\`page scrolls: \${root.scrollWidth}x\${root.scrollHeight}\`);
        const inside = (element, name) => {
          const box = element.getBoundingClientRect();
          if (box.width === 0 && box.height === 0) return;
          if (box.left < -1 || box.top < -1 || box.right > window.innerWidth + 1 || box.bottom > window.innerHeight + 1) found.push(\`\${name} outside the screen: \${JSON.stringify(box)}\`);
        };
        for (const element of document.querySelectorAll('#customer-display header, #customer-display header button, #display-panel, #display-panel > *, #display-panel .outcome > *, .totals, #display-welcome h1')) inside(element, element.id || element.className || element.tagName);
        const panel = document.querySelector('#display-panel');
        if (panel !== null && panel.scrollHeight > panel.clientHeight + 1) found.push(\`the panel's content is cut: \${panel.scrollHeight} > \${panel.clientHeight}\`);
        // Big amounts stay on one line: a wrapped amount would read as two numbers.
        for (const amount of document.querySelectorAll('.big, #display-total')) {
          const lineHeight = parseFloat(getComputedStyle(amount).lineHeight) || parseFloat(getComputedStyle(amount).fontSize) * 1.2;
          if (amount.getBoundingClientRect().height > lineHeight * 1.6) found.push(\`\${amount.id} wraps: \${amount.getBoundingClientRect().height}px for a \${lineHeight}px line\`);
        }
        // The header's parts side by side, not on top of each other.
        const merchant = document.querySelector('#display-merchant').getBoundingClientRect();
        const languages = document.querySelector('#customer-display .languages').getBoundingClientRect();
        if (merchant.width > 0 && merchant.right > languages.left + 1 && merchant.bottom > languages.top + 1 && languages.bottom > merchant.top + 1) found.push('the merchant name runs under the language buttons');
        return found;
      })()`);
      assert.deepEqual(problems, [], label);
    }

    /** The display's screen in English and French at each size (and a portrait tablet), each checked to fit. Ends in English, at the size it had. */
    async function screenshots(display: Page, name: string): Promise<void> {
      const before = display.viewportSize()!;
      for (const language of ['en', 'fr'] as const) {
        await display.click(`#customer-display .languages button[data-language="${language}"]`);
        await display.locator(`#customer-display[data-language="${language}"]`).waitFor();
        for (const size of [...SIZES, PORTRAIT]) {
          await display.setViewportSize(size);
          await display.screenshot({ path: `${ARTIFACTS}terminal-display-${name}-${language}-${size.width}x${size.height}-${target.name}.png` });
          await assertFits(display, `${name} in ${language} at ${size.width}x${size.height}`);
        }
      }
      await display.click('#customer-display .languages button[data-language="en"]');
      await display.setViewportSize(before);
    }

    it('follows the cart, shows the QR code while a wallet sale waits and its outcome, the change of a cash sale, in the customer\'s language', async () => {
      const { s, key, terminalToken, tagId } = await shopWithTerminal(server(), { fund: 100 });
      const jollof = await createMerchantProduct<Product>(s, key, { name: 'Jollof rice', price: 15, category: 'Food', taxRate: 7.5, taxInclusive: true });
      const malt = await createMerchantProduct<Product>(s, key, { name: 'Malt', price: 5, category: 'Drinks', taxRate: 7.5, taxInclusive: false });
      const kiosk = await trackedPage(browser, KIOSK, pageErrors);
      // Opened before the kiosk signs in: a welcome without a name, then the shop's.
      const display = await openDisplay(kiosk);
      assert.equal(await display.locator('#display-welcome h1').innerText(), 'Welcome');
      await signInKiosk(kiosk, host, terminalToken);
      await kiosk.locator('#sale[data-catalogue-size="2"][data-mode="items"]').waitFor(SYNC_WAIT);
      await waitForDisplay(display, '#display-welcome h1:has-text("Welcome to Mama Put Kitchen")');
      assert.equal(await display.locator('#display-merchant').innerText(), 'Mama Put Kitchen');
      await screenshots(display, 'welcome');
      await assertAccessible(display, 'the customer display\'s welcome');

      // Rung up: the display follows each line and quantity.
      await kiosk.locator(`#items button[data-product="${jollof.id}"]`).click();
      await waitForDisplay(display, '#display-lines li[data-quantity="1"]');
      assert.deepEqual(await displayedLines(display), [['Jollof rice', 1, 1_500]]);
      await kiosk.locator(`#items button[data-product="${jollof.id}"]`).click();
      await waitForDisplay(display, '#display-lines li[data-line="0"][data-quantity="2"]');
      await kiosk.locator(`#items button[data-product="${malt.id}"]`).click();
      await waitForDisplay(display, '#display-lines li[data-line="1"]');
      const cart: Cart = {
        lines: [
          { productId: jollof.id, name: 'Jollof rice', quantity: 2, unitPrice: 1_500, discount: 0, taxRate: 750, taxInclusive: true },
          { productId: malt.id, name: 'Malt', quantity: 1, unitPrice: 500, discount: 0, taxRate: 750, taxInclusive: false },
        ],
        discount: 0,
      };
      const totals = cartTotals(cart);
      assert.equal(totals.total, 3_538);
      assert.deepEqual(await displayedLines(display), [['Jollof rice', 2, 3_000], ['Malt', 1, 500]]);
      assert.equal(await display.locator('#display-subtotal').getAttribute('data-amount'), String(totals.subtotal));
      assert.equal(await display.locator('#display-total').getAttribute('data-amount'), String(totals.total));
      assert.equal(await display.locator('#display-total').innerText(), `NGN${NBSP}35.38`);
      assert.equal(await display.locator('#display-due').innerText(), `NGN${NBSP}35.38`);
      assert.equal(await display.locator('.tax[data-included="false"] dt').innerText(), 'Tax 7.5 % (added)');
      assert.equal(await display.locator('#display-total').innerText(), await kiosk.locator('#cart-total').innerText(), 'the display and the kiosk say the same total');
      // One less Jollof on the kiosk: the display follows that too.
      await kiosk.locator(`#cart li[data-product="${jollof.id}"] .step`).first().click();
      await waitForDisplay(display, '#display-lines li[data-line="0"][data-quantity="1"]');
      await kiosk.locator(`#items button[data-product="${jollof.id}"]`).click();
      await waitForDisplay(display, '#display-lines li[data-line="0"][data-quantity="2"]');

      // Reloaded (or opened late, here on a larger screen), the display shows the cart at once.
      await display.setViewportSize(SIZES[1]);
      await display.reload();
      await waitForDisplay(display, '#customer-display[data-phase="cart"]');
      assert.deepEqual(await displayedLines(display), [['Jollof rice', 2, 3_000], ['Malt', 1, 500]]);
      await screenshots(display, 'cart');

      // The customer taps French: the display speaks it, the kiosk stays in English.
      await display.click('#customer-display .languages button[data-language="fr"]');
      await display.locator('#customer-display[data-language="fr"]').waitFor();
      assert.equal(await display.locator('#display-total').innerText(), '35,38\u00a0NGN');
      assert.equal(await display.locator('.grand dt').innerText(), 'Total');
      assert.equal(await display.locator('#customer-display h2').innerText(), 'VOS ARTICLES');
      assert.equal(await kiosk.evaluate<string>('document.documentElement.lang'), 'en');
      assert.equal(await display.evaluate<string>('document.documentElement.lang'), 'fr');

      // Charge: the display shows the kiosk's own QR code and what to pay, still in French.
      await kiosk.click('#charge-button');
      await kiosk.locator('#waiting #qr').waitFor();
      const payload = (await kiosk.locator('#waiting #qr').getAttribute('data-payload'))!;
      await waitForDisplay(display, '#display-panel #qr');
      assert.equal(await display.locator('#display-panel #qr').getAttribute('data-payload'), payload);
      assert.ok((await display.locator('#display-panel #qr svg').count()) === 1, 'the code is drawn');
      assert.equal(await display.locator('#display-due').getAttribute('data-amount'), String(totals.total));
      assert.match(await display.locator('#display-how').innerText(), /^Scannez le code avec votre téléphone pour payer/);
      await screenshots(display, 'qr');
      await assertAccessible(display, 'the customer display with the QR code');

      // Paid by a tap: the outcome.
      assert.ok(reader.tap(tagId));
      await kiosk.locator('#result[data-status="completed"]').waitFor({ timeout: 60_000 });
      await waitForDisplay(display, '#display-outcome[data-result="paid"]');
      assert.equal(await display.locator('#display-outcome h1').innerText(), 'Paid. Thank you!');
      await screenshots(display, 'paid');

      // New sale: back to the welcome, in the kiosk's language for the next customer.
      await display.click('#customer-display .languages button[data-language="fr"]');
      await kiosk.click('#new-sale');
      await waitForDisplay(display, '#customer-display[data-phase="idle"][data-language="en"]');

      // Cash: what to pay, then what was handed over and the change.
      await kiosk.locator(`#items button[data-product="${malt.id}"]`).click();
      await waitForDisplay(display, '#display-lines li[data-line="0"]');
      await kiosk.click('#cash-button');
      await kiosk.locator('#cash-tender').waitFor();
      await waitForDisplay(display, '#display-how[data-method="cash"]');
      assert.equal(await display.locator('#display-due').innerText(), `NGN${NBSP}5.38`);
      assert.equal(await display.locator('#display-panel #qr').count(), 0);
      await screenshots(display, 'cash');
      await kiosk.click('#cash-key-clear');
      await kiosk.keyboard.type('20', { delay: 60 });
      await kiosk.click('#cash-confirm');
      await kiosk.locator('#cash-result').waitFor();
      await waitForDisplay(display, '#display-outcome[data-result="paid"] #display-change');
      assert.equal(await display.locator('#display-change').getAttribute('data-amount'), '1462');
      assert.equal(await display.locator('#display-change').innerText(), `NGN${NBSP}14.62`);
      assert.equal(await display.locator('#display-given').innerText(), `You gave NGN${NBSP}20.00`);
      await screenshots(display, 'change');
      await kiosk.click('#cash-new-sale');
      await waitForDisplay(display, '#customer-display[data-phase="idle"]');

      // A sale the cashier cancels, and one a wallet declines.
      await kiosk.locator(`#items button[data-product="${malt.id}"]`).click();
      await kiosk.click('#charge-button');
      await waitForDisplay(display, '#display-panel #qr');
      await kiosk.click('#cancel');
      await waitForDisplay(display, '#display-outcome[data-result="cancelled"]');
      assert.equal(await display.locator('#display-outcome h1').innerText(), 'Sale cancelled');
      await screenshots(display, 'cancelled');
      await kiosk.click('#new-sale');
      // The cart stays after a sale that was not paid: the display shows it again.
      await waitForDisplay(display, '#customer-display[data-phase="cart"]');

      const poor = uniqueHandle('poor');
      await s.createWallet({ handle: poor, fund: 1 });
      const poorTag = await s.request<{ tagId: string }>('POST', '/api/wearables', { headers: key, body: { handle: poor, tagType: 'ring', displayName: 'Ring' } });
      assert.equal(poorTag.status, 201);
      await kiosk.locator(`#items button[data-product="${jollof.id}"]`).click();
      await kiosk.click('#charge-button');
      await waitForDisplay(display, '#display-panel #qr');
      assert.ok(reader.tap(poorTag.body.tagId));
      await kiosk.locator('#result[data-status="failed"]').waitFor({ timeout: 60_000 });
      await waitForDisplay(display, '#display-outcome[data-result="declined"]');
      assert.equal(await display.locator('#display-outcome h1').innerText(), 'Payment declined');
      await screenshots(display, 'declined');
      await kiosk.click('#new-sale');
      await kiosk.context().close();
    });

    it('lays out a long cart (the newest line in sight) and a split sale (tenders paid, what is left) under a long shop name, in English and French', async () => {
      const kiosk = await trackedPage(browser, KIOSK, pageErrors);
      await kiosk.goto(`${host.url}/display`);
      const display = await openDisplay(kiosk);
      // The state as the till publishes it (lib/customer-display.ts), posted from the other page of the context.
      const names = ['Jollof rice with fried plantain and grilled chicken thigh (large)', 'Malt', 'Zobo', 'Puff-puff', 'Suya', 'Moi moi', 'Chapman', 'Egusi soup', 'Pounded yam', 'Fried rice', 'Pepper soup', 'Bottled water'];
      const lines = names.map((name, index) => ({ name, quantity: index + 1, unitPriceMinor: 1_000, discountMinor: index === 0 ? 100 : 0, totalMinor: (index + 1) * 1_000 - (index === 0 ? 100 : 0) }));
      const total = lines.reduce((sum, line) => sum + line.totalMinor, 0);
      const state = {
        version: 1,
        merchantName: 'Chez Mama Put, Kitchen and Grill of Victoria Island',
        language: 'en',
        currency: 'NGN',
        lines,
        totals: { subtotalMinor: total + 100, discountMinor: 100, taxes: [{ rateBps: 750, included: true, taxMinor: 5_442 }], totalMinor: total },
        amountDueMinor: total,
        paidTenders: [{ kind: 'gift_card', amountMinor: 20_000 }, { kind: 'cash', amountMinor: 15_000 }],
        remainingMinor: total - 35_000,
        phase: { kind: 'pay', method: 'cash', qrPayload: null, opening: false },
      };
      await kiosk.evaluate<void>(`new BroadcastChannel('tapline.customer-display').postMessage(${JSON.stringify(JSON.stringify(state))})`);
      await waitForDisplay(display, '#display-lines li[data-line="11"]');
      assert.equal(await display.locator('#display-tenders div[data-kind]').count(), 2);
      assert.equal(await display.locator('#display-due').getAttribute('data-amount'), String(total - 35_000), 'what is left to pay is what is asked');
      assert.equal(await display.locator('#display-tenders div[data-kind="gift_card"] dt').innerText(), 'Gift card');
      assert.equal(await display.locator('#display-panel .paid .label').innerText(), 'Already paid');
      assert.equal(await display.locator('#display-panel .due .label').innerText(), 'Left to pay');
      for (const size of [...SIZES, PORTRAIT]) {
        await display.setViewportSize(size);
        // The newest line is in sight at the bottom of the list (it scrolls to it).
        await display.evaluate<void>("document.querySelector('#display-lines').scrollTop = 1e6");
        const [list, last] = [await display.locator('#display-lines').boundingBox(), await display.locator('#display-lines li[data-line="11"]').boundingBox()];
        assert.ok(list !== null && last !== null && last.y >= list.y - 1 && last.y + last.height <= list.y + list.height + 1, `the last line in sight at ${size.width}x${size.height}`);
      }
      await display.setViewportSize(SIZES[0]);
      await screenshots(display, 'split-long');
      await kiosk.context().close();
    });
  });
}
