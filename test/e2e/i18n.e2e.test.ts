// Languages in Chromium against the real server on each database: a terminal the merchant set
// to French (screens, money format, the printed receipt), the cashier switching on screen and
// the merchant's later change winning; and a customer paying a POS session and making an
// offline QR code on pages their browser asked for in French. Screenshots test-artifacts/i18n-*.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, trackedPage } from './browser.ts';
import { ARTIFACTS, KIOSK, SYNC_WAIT, builtRenderer, startKiosk } from './kiosk.ts';
import { shopWithTerminal } from './shop.ts';
import type { SimulatedNfcReader, VirtualPrinter } from '@tapline/hardware';
import { balanceMinor, databaseTargets, useTestServer } from '@tapline/sync-server/testing';
import type { TerminalHost } from '@tapline/terminal/host';

const rendererDir = await builtRenderer();
const NBSP = '\u00a0';
const NNBSP = '\u202f';
const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

for (const target of await databaseTargets()) {
  describe(`languages in Chromium on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 10 });
    let browser: Browser;
    let host: TerminalHost;
    let reader: SimulatedNfcReader;
    let printer: VirtualPrinter;
    const pageErrors: string[] = [];

    before(async () => {
      browser = await launchChromium();
      ({ host, reader, printer } = await startKiosk({ rendererDir, serverUrl: server().baseUrl, previews: `i18n-receipts-${target.name}` }));
    });
    after(async () => {
      await browser?.close();
      await host?.close();
    });

    const language = (page: Page) => page.evaluate<string>('document.documentElement.lang');

    it('runs a French terminal: French screens and money, a French receipt; the cashier switches on screen until the merchant changes the terminal', async () => {
      const { s, key, terminalId, terminalToken, payer, tagId } = await shopWithTerminal(server(), { fund: 100, pin: '4829' });
      const set = await s.request<{ language: string }>('PATCH', `/api/merchant/terminals/${terminalId}`, { headers: key, body: { language: 'fr' } });
      assert.equal(set.body.language, 'fr');

      const page = await trackedPage(browser, KIOSK, pageErrors);
      await page.goto(host.url);
      // Pairing is the default sign-in; support's token form is one tap away.
      await page.click('#show-advanced');
      await page.fill('#token', `term.${terminalToken}`);
      await page.click('#signin-button');
      await page.locator('#sale').waitFor({ state: 'visible' });
      await page.locator('#status-reader[data-state="ready"]').waitFor();
      await page.locator('#status-sync[data-state="online"]').waitFor(SYNC_WAIT);
      // The hello brought the terminal's language.
      await page.locator('html[lang="fr"]').waitFor({ state: 'attached', ...SYNC_WAIT });
      assert.equal(await page.title(), 'Terminal Tapline');
      assert.equal(await page.locator('#sign-out').innerText(), 'Se déconnecter');
      assert.equal(await page.locator('#sell-gift-card').innerText(), 'Vendre une carte cadeau');
      // A replication cycle may show "syncing" for a moment: wait until it reads online, in French.
      await page.locator('#status-sync[data-state="online"]').filter({ hasText: /^En ligne$/ }).waitFor(SYNC_WAIT);
      assert.equal(await page.locator('#language-switcher').inputValue(), 'fr');
      for (const button of ['#key-1', '#key-2', '#key-dot', '#key-5', '#key-0']) await page.click(button);
      assert.equal(await page.locator('#charge-button').innerText(), `Encaisser 12,50${NBSP}NGN`);
      await page.screenshot({ path: `${ARTIFACTS}i18n-kiosk-fr-sale-${target.name}.png` });

      await page.click('#charge-button');
      await page.locator('#waiting').waitFor({ state: 'visible' });
      assert.equal(await page.locator('#waiting h1').innerText(), 'En attente du paiement');
      assert.equal(await page.locator('#waiting-amount').innerText(), `12,50${NBSP}NGN`);
      assert.match(await page.locator('#countdown').locator('..').innerText(), /^Expire dans \d+ s$/);
      await page.screenshot({ path: `${ARTIFACTS}i18n-kiosk-fr-waiting-${target.name}.png` });

      const before = await balanceMinor(s, payer, 'NGN');
      reader.tap(tagId);
      await page.locator('#result[data-status="completed"]').waitFor({ state: 'visible', timeout: 60_000 });
      assert.equal(await page.locator('#result-title').innerText(), 'Payé');
      assert.equal(await page.locator('#result-amount').innerText(), `12,50${NBSP}NGN`);
      await page.locator('#receipt-status[data-state="printed"]').waitFor({ timeout: 60_000 });
      assert.equal(await page.locator('#receipt-status').innerText(), 'Reçu imprimé');
      assert.equal(before - (await balanceMinor(s, payer, 'NGN')), 1250, 'charged exactly 12.50 once');
      await page.screenshot({ path: `${ARTIFACTS}i18n-kiosk-fr-paid-${target.name}.png` });

      // The receipt speaks French too, with the printer's plain spaces.
      const job = printer.jobs.at(-1)!;
      assert.equal(job.label, 'pos-payment');
      assert.equal(job.document.codepage, 'cp858');
      const lines = job.document.blocks.flatMap((block) => (block.kind === 'text' ? [block.text] : []));
      assert.ok(lines.some((line) => line.includes('REÇU DE PAIEMENT')), lines.join('\n'));
      assert.ok(lines.some((line) => line.includes('PAYÉ 12,50 NGN')), lines.join('\n'));
      assert.ok(lines.some((line) => line.trim() === 'Merci !'), lines.join('\n'));
      assert.ok(lines.every((line) => !line.includes(NNBSP) && !line.includes(NBSP)));

      // Back on the sale screen the cashier switches to English: everything follows at once, and
      // stays over a reload.
      await page.click('#new-sale');
      await page.locator('#sale').waitFor({ state: 'visible' });
      await page.selectOption('#language-switcher', 'en');
      await page.locator('html[lang="en"]').waitFor({ state: 'attached' });
      assert.equal(await page.locator('#sign-out').innerText(), 'Sign out');
      assert.equal(await page.locator('#charge-button').innerText(), `Charge NGN${NBSP}0.00`);
      assert.equal(await page.title(), 'Tapline terminal');
      assert.deepEqual(JSON.parse((await page.evaluate<string | null>("localStorage.getItem('tapline.language')")) ?? 'null'), { language: 'en', over: 'fr' });
      await page.reload();
      await page.locator('#sale').waitFor({ state: 'visible' });
      await page.locator('#status-sync[data-state="online"]').waitFor(SYNC_WAIT);
      assert.equal(await language(page), 'en');
      assert.equal(await page.locator('#sign-out').innerText(), 'Sign out');

      // The merchant gives the terminal another language: the connected kiosk follows it.
      const changed = await s.request('PATCH', `/api/merchant/terminals/${terminalId}`, { headers: key, body: { language: 'pt' } });
      assert.equal(changed.status, 200);
      await page.locator('html[lang="pt"]').waitFor({ state: 'attached', ...SYNC_WAIT });
      assert.equal(await page.locator('#sign-out').innerText(), 'Terminar sessão');
      assert.equal(await page.evaluate<string | null>("localStorage.getItem('tapline.language')"), null, 'the old choice is dropped');
      await page.screenshot({ path: `${ARTIFACTS}i18n-kiosk-pt-sale-${target.name}.png` });
      assert.deepEqual(pageErrors, []);
      await page.context().close();
    });

    it('shows a customer their payment page and the offline QR page in French, as their browser asks, with a switcher back to English', async () => {
      const { s, key, payer } = await shopWithTerminal(server(), { fund: 2000, pin: '4829' });
      const created = await s.request<{ tapUrl: string }>('POST', '/api/pos/sessions', { headers: key, body: { amount: 1250.5, currency: 'NGN', description: 'Thiéboudienne' } });
      assert.equal(created.status, 201);
      const phone = await trackedPage(browser, { ...PHONE, locale: 'fr-SN' }, pageErrors);
      // The session page as the QR code links to it, on this test server.
      await phone.goto(`${s.baseUrl}${new URL(created.body.tapUrl).pathname}`);
      assert.equal(await language(phone), 'fr');
      assert.equal(await phone.title(), `Payer 1${NNBSP}250,50${NBSP}NGN · Tapline`);
      assert.equal(await phone.locator('.amount-display').innerText(), `1${NNBSP}250,50${NBSP}NGN`);
      assert.equal(await phone.locator('label[for="pin"]').innerText(), 'Code PIN du portefeuille');
      assert.equal(await phone.locator('nav.languages a[aria-current="true"]').innerText(), 'Français');
      await phone.fill('#handle', `@${payer}`);
      await phone.fill('#pin', '0000');
      await phone.click('#pay-button');
      await phone.locator('#pay-error', { hasText: 'Code PIN incorrect.' }).waitFor();
      await phone.fill('#pin', '4829');
      await phone.click('#pay-button');
      await phone.locator('#pay-result[data-status="completed"]').waitFor({ state: 'visible' });
      assert.equal(await phone.locator('#result-title').innerText(), 'Payé');
      assert.match(await phone.locator('#result-message').innerText(), new RegExp(`^1${NNBSP}250,50${NBSP}NGN payé par @${payer}\\. Référence wtx_`));
      assert.equal(await balanceMinor(s, payer, 'NGN'), 200_000 - 125_050, 'paid exactly 1 250,50 once');
      await phone.screenshot({ path: `${ARTIFACTS}i18n-pay-fr-${target.name}.png`, fullPage: true });

      // The offline QR page in French: the balance and the voucher in the French money format.
      await phone.goto(`${s.baseUrl}/wallet/offline-qr`);
      assert.equal(await phone.locator('#signin-card h1').innerText(), 'Payer là où il n\'y a pas de réseau');
      await phone.fill('#handle', payer);
      await phone.fill('#pin', '4829');
      await phone.click('#signin-button');
      await phone.locator('#voucher-card').waitFor({ state: 'visible' });
      assert.equal(await phone.locator('#signed-in-as').innerText(), `@${payer} · 749,50${NBSP}NGN disponibles`);
      await phone.fill('#amount', '40,5');
      await phone.click('#voucher-button');
      await phone.locator('#voucher-result').waitFor({ state: 'visible' });
      assert.equal(await phone.locator('#voucher-amount').innerText(), `40,50${NBSP}NGN`);
      assert.match(await phone.locator('#voucher-expiry').innerText(), /^Valable jusqu'au .+\. Présentez-le à la caisse ; il ne paie qu'une fois\.$/);
      await phone.screenshot({ path: `${ARTIFACTS}i18n-offline-qr-fr-${target.name}.png`, fullPage: true });

      // The switcher: the same page in English.
      await phone.click('nav.languages a[hreflang="en"]');
      await phone.waitForURL(/[?&]lang=en$/);
      assert.equal(await language(phone), 'en');
      assert.equal(await phone.locator('#signin-card h1').innerText(), 'Pay where there is no signal');
      assert.deepEqual(pageErrors, []);
      await phone.context().close();
    });
  });
}
