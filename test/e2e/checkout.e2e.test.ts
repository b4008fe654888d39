// The browser drop-in ({base_url}/sdk/service.js) embedded by a merchant's page on another origin,
// driven in Chromium by playwright-core against a real server on each database. Screenshots are
// kept under test-artifacts/ for people to look at.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { launchChromium, trackedPage, waitForExpression } from './browser.ts';
import { type TestServer, balanceMinor, databaseTargets, uniqueHandle, useTestServer } from '@tapline/sync-server/testing';

const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));
/** A customer in Lagos: the drop-in reads the country from the browser's language and time zone. */
const LAGOS = { viewport: { width: 1024, height: 800 }, locale: 'en-NG', timezoneId: 'Africa/Lagos' };

/** A merchant's shop page, as a merchant would write it: the drop-in's script tag and a Pay button (`extra`: more options, as source). */
function shopPage(baseUrl: string, publishableKey: string, extra = ''): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Ada Fabrics</title>
<style>/* Merchant CSS that would wreck a modal living in the page's DOM. */ * { font-family: serif !important; color: magenta !important; } button { display: none; } #buy { display: inline-block; }</style>
<script src="${baseUrl}/sdk/service.js"></script></head>
<body><h1>Blue ankara, 2 yards</h1><button id="buy">Buy for NGN 45.00</button><p id="outcome">not paid</p>
<script>
document.getElementById('buy').addEventListener('click', function () {
  Tapline.checkout({
    publishableKey: ${JSON.stringify(publishableKey)}, amount: 45, currency: 'NGN', reference: 'order-1042', description: 'Blue ankara, 2 yards',${extra}
    onSuccess: function (session) { document.getElementById('outcome').textContent = 'paid ' + session.id + ' ' + session.status; },
    onCancel: function () { document.getElementById('outcome').textContent = 'cancelled'; }
  });
});
</script></body></html>`;
}

for (const target of await databaseTargets()) {
  describe(`checkout drop-in in Chromium on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 10 });
    let browser: Browser;
    let shop: Server;
    let shopUrl: string;
    /** The page the shop server answers; each test sets it for its own merchant. */
    let shopHtml = '';
    const pageErrors: string[] = [];

    before(async () => {
      mkdirSync(ARTIFACTS, { recursive: true });
      browser = await launchChromium();
      shop = createServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(shopHtml);
      });
      await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
      // localhost, not 127.0.0.1: another origin than the server's, so every API call is cross-origin.
      shopUrl = `http://localhost:${(shop.address() as AddressInfo).port}/`;
    });
    after(async () => {
      await browser?.close();
      await new Promise((resolve) => shop?.close(resolve));
    });

    async function setup(s: TestServer, customer: { fund: number }) {
      const merchant = await s.createMerchant({ name: 'Ada Fabrics' });
      const key = await s.request<{ key: string }>('POST', '/api/merchant/publishable-keys', { headers: { 'x-merchant-api-key': merchant.testKey }, body: {} });
      assert.equal(key.status, 201);
      const payer = uniqueHandle('chidi');
      await s.createWallet({ handle: payer, fund: customer.fund, pin: '4829' });
      shopHtml = shopPage(s.baseUrl, key.body.key);
      return { merchant, payer, publishableKey: key.body.key, merchantBefore: await balanceMinor(s, merchant.handle, 'NGN') };
    }

    async function openCheckout(context: BrowserContextOptions = LAGOS): Promise<Page> {
      const page = await trackedPage(browser, context, pageErrors);
      await page.goto(shopUrl);
      await page.click('#buy');
      // Locators pierce the drop-in's open shadow root.
      await page.locator('[data-tab="wallet"]').waitFor({ state: 'visible' });
      return page;
    }

    it('opens the modal with the rails of Nigeria, pays from a wallet, shows success and calls onSuccess', async () => {
      const s = server();
      const { merchant, payer, merchantBefore } = await setup(s, { fund: 100 });
      const page = await openCheckout();
      assert.deepEqual(await page.locator('[role="tab"]').allInnerTexts(), ['Mobile money', 'Bank transfer', 'QR code', 'Tapline wallet']);
      assert.match(await page.locator('.merchant').innerText(), /Pay Ada Fabrics/);
      assert.match(await page.locator('#amount').innerText(), /NGN\s*45\.00/);
      const sessionId = await page.locator('[data-tapline-checkout]').getAttribute('data-session-id');
      assert.ok(sessionId);
      const created = await s.request<{ country: string; reference: string; status: string }>('GET', `/api/checkout/sessions/${sessionId}`, { headers: { 'x-merchant-api-key': merchant.testKey } });
      assert.deepEqual([created.body.country, created.body.reference, created.body.status], ['NG', 'order-1042', 'open']);
      // The merchant's CSS hides every button of its page; the modal's are untouched.
      assert.ok(await page.locator('#pay-mobile_money').isVisible());
      await page.screenshot({ path: `${ARTIFACTS}checkout-modal-${target.name}.png` });

      await page.click('[data-tab="wallet"]');
      await page.fill('#tp-handle', `@${payer}`);
      await page.fill('#tp-pin', '1111');
      await page.click('#pay-wallet');
      await page.locator('#error').filter({ hasText: 'Wrong PIN' }).waitFor();
      await page.fill('#tp-pin', '4829');
      await page.click('#pay-wallet');
      await page.locator('#result[data-status="paid"]').waitFor({ state: 'visible' });
      assert.equal(await page.locator('#result-title').innerText(), 'Payment received');
      assert.match(await page.locator('#result-message').innerText(), /NGN\s*45\.00 paid to Ada Fabrics for order-1042/);
      await page.screenshot({ path: `${ARTIFACTS}checkout-paid-${target.name}.png` });
      assert.equal(await page.locator('#outcome').innerText(), `paid ${sessionId} paid`);

      assert.equal(await balanceMinor(s, payer, 'NGN'), 10_000 - 4500);
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), merchantBefore + 4500);
      await page.click('#done');
      assert.equal(await page.locator('[data-tapline-checkout]').count(), 0);
      assert.equal(await page.locator('#outcome').innerText(), `paid ${sessionId} paid`, 'closing after success is not a cancel');
      assert.deepEqual(pageErrors, []);
      await page.context().close();
    });

    it('pays by sandbox mobile money, and a closed modal calls onCancel', async () => {
      const s = server();
      const { merchant, merchantBefore } = await setup(s, { fund: 0 });
      const page = await openCheckout();
      assert.equal(await page.locator('[data-tab="mobile_money"]').getAttribute('aria-selected'), 'true');
      await page.fill('#tp-phone', '12');
      await page.click('#pay-mobile_money');
      assert.match(await page.locator('#error').innerText(), /mobile money number/);
      await page.fill('#tp-phone', '+234 801 234 5678');
      await page.click('#pay-mobile_money');
      await page.locator('#result[data-status="paid"]').waitFor({ state: 'visible' });
      const sessionId = await page.locator('[data-tapline-checkout]').getAttribute('data-session-id');
      const paid = await s.request<{ status: string; paymentMethod: string }>('GET', `/api/checkout/sessions/${sessionId}`, { headers: { 'x-merchant-api-key': merchant.testKey } });
      assert.deepEqual([paid.body.status, paid.body.paymentMethod], ['paid', 'mobile_money']);
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), merchantBefore + 4500);
      await page.screenshot({ path: `${ARTIFACTS}checkout-mobile-money-${target.name}.png` });

      // A second checkout, closed with Escape before paying.
      await page.click('#done');
      await page.click('#buy');
      await page.locator('[data-tab="wallet"]').waitFor({ state: 'visible' });
      await page.keyboard.press('Escape');
      assert.equal(await page.locator('#outcome').innerText(), 'cancelled');
      assert.deepEqual(pageErrors, []);
      await page.context().close();
    });

    it('speaks the buyer\'s language: French from the browser, Portuguese from the locale option, English for a language not served', async () => {
      const s = server();
      const { payer, publishableKey } = await setup(s, { fund: 100 });
      const text = async (page: Page, selector: string) => (await page.locator(selector).innerText()).replace(/\s+/g, ' ').trim();

      // A French-speaking buyer in Nigeria (fr-NG): Nigeria's rails, the catalogues' French words, French money.
      const french = await openCheckout({ ...LAGOS, locale: 'fr-NG' });
      assert.deepEqual(await french.locator('[role="tab"]').allInnerTexts(), ['Monnaie mobile', 'Virement bancaire', 'Code QR', 'Portefeuille Tapline']);
      assert.equal(await french.locator('[role="dialog"]').getAttribute('lang'), 'fr');
      assert.equal(await french.locator('[role="dialog"]').getAttribute('aria-label'), 'Paiement Tapline');
      assert.equal(await french.locator('button.close').getAttribute('aria-label'), 'Fermer');
      assert.equal(await text(french, '.merchant'), 'Payer Ada Fabrics');
      assert.equal(await text(french, '#amount'), '45,00 NGN');
      assert.equal(await text(french, '.badge'), 'Mode test');
      assert.equal(await text(french, '#pay-mobile_money'), 'Payer 45,00 NGN');
      assert.equal(await french.locator('#tp-phone').getAttribute('placeholder'), '+234 801 234 5678');
      await french.click('#pay-mobile_money');
      assert.equal(await text(french, '#error'), 'Saisissez votre numéro de monnaie mobile, par exemple +2348012345678');
      await french.click('[data-tab="wallet"]');
      assert.equal(await text(french, 'label[for="tp-handle"]'), 'Votre @identifiant');
      assert.equal(await text(french, 'label[for="tp-pin"]'), 'Code PIN du portefeuille');
      assert.equal(await french.locator('#tp-pin').getAttribute('placeholder'), '4 à 8 chiffres');
      await french.click('#pay-wallet');
      assert.equal(await text(french, '#error'), 'Saisissez votre @identifiant.');
      await french.fill('#tp-handle', `@${payer}`);
      await french.fill('#tp-pin', '1111');
      await french.click('#pay-wallet');
      await french.locator('#error').filter({ hasText: 'Code PIN incorrect.' }).waitFor();
      for (const [size, viewport] of [['1366x768', { width: 1366, height: 768 }], ['390x844', { width: 390, height: 844 }]] as const) {
        await french.setViewportSize(viewport);
        await french.screenshot({ path: `${ARTIFACTS}checkout-fr-wallet-${size}-${target.name}.png` });
      }
      await french.fill('#tp-pin', '4829');
      await french.click('#pay-wallet');
      await french.locator('#result[data-status="paid"]').waitFor({ state: 'visible' });
      assert.equal(await text(french, '#result-title'), 'Paiement reçu');
      assert.equal(await text(french, '#result-message'), '45,00 NGN payé à Ada Fabrics pour order-1042.');
      assert.equal(await text(french, '#done'), 'Terminé');
      await french.screenshot({ path: `${ARTIFACTS}checkout-fr-paid-390x844-${target.name}.png` });
      await french.context().close();

      // The merchant's page says Portuguese: it wins over the browser's French.
      shopHtml = shopPage(s.baseUrl, publishableKey, " locale: 'pt-MZ',");
      const portuguese = await openCheckout({ ...LAGOS, locale: 'fr-NG' });
      assert.deepEqual(await portuguese.locator('[role="tab"]').allInnerTexts(), ['Dinheiro móvel', 'Transferência bancária', 'Código QR', 'Carteira Tapline']);
      assert.equal(await text(portuguese, '.merchant'), 'Pagar a Ada Fabrics');
      assert.equal(await portuguese.locator('[role="dialog"]').getAttribute('lang'), 'pt');
      await portuguese.click('[data-tab="qr"]');
      assert.equal(await portuguese.locator('#tp-qr').getAttribute('alt'), 'Código QR: leia-o com o telemóvel para pagar');
      await portuguese.setViewportSize({ width: 390, height: 844 });
      await portuguese.screenshot({ path: `${ARTIFACTS}checkout-pt-qr-390x844-${target.name}.png` });
      await portuguese.context().close();

      // A German browser and no option: English, as before.
      shopHtml = shopPage(s.baseUrl, publishableKey);
      const german = await openCheckout({ ...LAGOS, locale: 'de-DE' });
      assert.deepEqual(await german.locator('[role="tab"]').allInnerTexts(), ['Mobile money', 'Bank transfer', 'QR code', 'Tapline wallet']);
      assert.equal(await german.locator('[role="dialog"]').getAttribute('lang'), 'en');
      assert.equal(await text(german, '#pay-mobile_money'), 'Pay NGN 45.00');
      await german.context().close();
      assert.deepEqual(pageErrors, []);
    });

    it('on an origin its key does not allow, tells the buyer in their language and the developer in the console and onError', async () => {
      const s = server();
      const merchant = await s.createMerchant({ name: 'Ada Fabrics' });
      const key = await s.request<{ key: string }>('POST', '/api/merchant/publishable-keys', { headers: { 'x-merchant-api-key': merchant.testKey }, body: { allowedOrigins: ['https://shop.example'] } });
      assert.equal(key.status, 201);
      const onError = " onError: function (error) { document.getElementById('outcome').textContent = 'error ' + error.status + ' ' + error.code + ': ' + error.message; },";
      const seen: string[] = [];
      for (const [locale, sentence] of [
        ['en-NG', 'This shop\'s payments are not available here.'],
        ['fr-NG', 'Les paiements de cette boutique ne sont pas disponibles ici.'],
        ['sw-KE', 'Malipo ya duka hili hayapatikani hapa.'],
      ] as const) {
        shopHtml = shopPage(s.baseUrl, key.body.key, onError);
        const page = await trackedPage(browser, { ...LAGOS, locale }, seen);
        await page.goto(shopUrl);
        await page.click('#buy');
        await page.locator('#error').filter({ hasText: sentence }).waitFor();
        // The buyer reads the sentence alone: no code, no origin, no developer's words.
        assert.equal((await page.locator('#error').innerText()).trim(), sentence);
        assert.equal(await page.locator('[data-tab="wallet"]').count(), 0);
        await page.locator('#outcome').filter({ hasText: 'error 403 origin_not_allowed' }).waitFor();
        assert.match(await page.locator('#outcome').innerText(), /^error 403 origin_not_allowed: This publishable key may be used only from https:\/\/shop\.example$/);
        if (locale === 'en-NG') {
          for (const [size, viewport] of [['1366x768', { width: 1366, height: 768 }], ['390x844', { width: 390, height: 844 }]] as const) {
            await page.setViewportSize(viewport);
            await page.screenshot({ path: `${ARTIFACTS}checkout-origin-not-allowed-${size}-${target.name}.png` });
          }
        }
        await page.keyboard.press('Escape');
        assert.equal(await page.locator('#outcome').innerText(), 'cancelled');
        await page.context().close();
      }
      // The developer's detail went to the console, once per checkout (the browser's own notice of the 403 aside).
      const detail = 'Tapline.checkout: This publishable key may be used only from https://shop.example (origin_not_allowed, HTTP 403)';
      assert.deepEqual(seen, [detail, detail, detail]);

      // Without a key: the same plain sentence, the detail for the developer.
      const missing: string[] = [];
      shopHtml = shopPage(s.baseUrl, '', onError);
      const page = await trackedPage(browser, LAGOS, missing);
      await page.goto(shopUrl);
      await page.click('#buy');
      await page.locator('#error').filter({ hasText: 'This shop\'s payments are not available here.' }).waitFor();
      assert.equal(await page.locator('#outcome').innerText(), 'error 0 publishable_key_missing: Tapline.checkout needs a publishableKey');
      assert.deepEqual(missing, ['Tapline.checkout: Tapline.checkout needs a publishableKey (publishable_key_missing)']);
      await page.context().close();
      assert.deepEqual(pageErrors, []);
    });

    it('detects the country from the languages, then the time zone, and leaves the rest to the server', async () => {
      const s = server();
      const { merchant } = await setup(s, { fund: 0 });
      const cases: [string, string, string | null][] = [
        ['en-US', 'Africa/Nairobi', 'KE'], // the default en-US says little; the African time zone decides
        ['fr-SN', 'Europe/Paris', 'SN'], // an African language region wins over the time zone
        ['en-GB', 'Europe/London', 'GB'],
        ['de-DE', 'Europe/Berlin', null], // not served: the server decides (here the merchant's NG)
      ];
      for (const [locale, timezoneId, expected] of cases) {
        const page = await trackedPage(browser, { locale, timezoneId }, pageErrors);
        await page.goto(shopUrl);
        assert.equal(await page.evaluate('window.Tapline.detectCountry() || null'), expected, `${locale} ${timezoneId}`);
        assert.equal(await page.evaluate('window.Tapline.baseUrl'), s.baseUrl);
        if (expected === null) {
          await page.click('#buy');
          await page.locator('[data-tab="wallet"]').waitFor({ state: 'visible' });
          const sessionId = await page.locator('[data-tapline-checkout]').getAttribute('data-session-id');
          const created = await s.request<{ country: string }>('GET', `/api/checkout/sessions/${sessionId}`, { headers: { 'x-merchant-api-key': merchant.testKey } });
          assert.equal(created.body.country, 'NG');
        }
        await page.context().close();
      }
      assert.deepEqual(pageErrors, []);
    });

    it('shows the QR code, and polling shows success once the customer pays on the QR\'s page', async () => {
      const s = server();
      const { merchant, payer, merchantBefore } = await setup(s, { fund: 100 });
      const page = await openCheckout();
      await page.click('[data-tab="qr"]');
      await waitForExpression(page, "(() => { const host = document.querySelector('[data-tapline-checkout]'); const image = host && host.shadowRoot.getElementById('tp-qr'); return image !== null && image.complete && image.naturalWidth > 0; })()");
      const sessionId = await page.locator('[data-tapline-checkout]').getAttribute('data-session-id');
      await page.screenshot({ path: `${ARTIFACTS}checkout-qr-${target.name}.png` });

      // The customer's phone opens the QR code's link and pays there with @handle and PIN.
      const phone = await trackedPage(browser, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true }, pageErrors);
      await phone.goto(`${s.baseUrl}/pay/checkout/${sessionId}`);
      await phone.fill('#handle', payer);
      await phone.fill('#pin', '4829');
      await phone.click('#pay-button');
      await phone.locator('#pay-result[data-status="completed"]').waitFor({ state: 'visible' });
      assert.match(await phone.locator('#result-message').innerText(), /paid to Ada Fabrics by @/);
      await phone.screenshot({ path: `${ARTIFACTS}checkout-page-paid-${target.name}.png`, fullPage: true });

      await page.locator('#result[data-status="paid"]').waitFor({ state: 'visible', timeout: 60_000 });
      assert.equal(await page.locator('#outcome').innerText(), `paid ${sessionId} paid`);
      assert.equal(await balanceMinor(s, payer, 'NGN'), 10_000 - 4500);
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), merchantBefore + 4500);
      assert.deepEqual(pageErrors, []);
      await phone.context().close();
      await page.context().close();
    });
  });
}
