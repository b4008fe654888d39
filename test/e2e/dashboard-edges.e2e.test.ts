// Rough edges of the dashboard a new user met, in Chromium against a real server on each
// database: a gift card issued once for a double click, tag types in words, who is online and a
// used pairing code taken off the screen, the phone's Menu button, how to make a first payroll
// run, bill payment or subscription, a discounted sale's lines; results read back through the
// API, axe-core and screenshots under test-artifacts/dashboard/.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { io } from 'socket.io-client';
import { SYNC_EVENTS, SYNC_NAMESPACE } from '@tapline/shared/sync-protocol';
import { databaseTargets, uniqueHandle, useTestServer } from '@tapline/sync-server/testing';
import { assertAccessible } from './axe.ts';
import { launchChromium, trackedPage } from './browser.ts';
import { DASHBOARD_DIR, DESKTOP, PHONE, type ShotSize, dashboardOwner, openPage, prepareDashboard, shoot as shootDashboard, signIn } from './dashboard.ts';

await prepareDashboard();

for (const target of await databaseTargets()) {
  describe(`dashboard rough edges in Chromium on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 10, env: { DASHBOARD_DIR } });
    let browser: Browser;
    let page: Page;
    const pageErrors: string[] = [];
    let merchant: { id: string; handle: string; testKey: string };
    let key: Record<string, string>;

    before(async () => {
      browser = await launchChromium();
      const s = server();
      merchant = await s.createMerchant({ name: 'Mama Put Kitchen' });
      key = { 'x-merchant-api-key': merchant.testKey };
      const email = await dashboardOwner(s, merchant);
      page = await trackedPage(browser, { viewport: DESKTOP, locale: 'en-GB', timezoneId: 'Africa/Lagos' }, pageErrors);
      await signIn(page, s.baseUrl, email);
    });
    after(async () => {
      assert.deepEqual(pageErrors, []);
      await browser?.close();
    });

    const shoot = (name: string, sizes?: readonly ShotSize[]) => shootDashboard(page, target.name, name, sizes);
    const cardCount = async () => (await server().request<{ total: number }>('GET', '/api/merchant/gift-cards', { headers: key })).body.total;

    it('issues one gift card for a double click, with an Idempotency-Key, and empties the form', async () => {
      await openPage(page, 'giftCards');
      const keys: string[] = [];
      page.on('request', (request) => {
        if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/merchant/gift-cards') keys.push(request.headers()['idempotency-key'] ?? '');
      });
      const form = page.locator('form[data-issue-form]');
      await form.locator('input[name=card-amount]').fill('5');
      await form.locator('input[name=card-message]').fill('Thank you');
      await form.getByRole('button', { name: 'Issue a card' }).dblclick();
      await page.locator('[data-card-code]').waitFor();
      await page.locator('tr[data-card]').first().waitFor();
      assert.equal(await cardCount(), 1, 'one card for two clicks');
      assert.equal(keys.length, 1, JSON.stringify(keys));
      assert.match(keys[0]!, /^[0-9a-f-]{36}$/);
      assert.equal(await form.locator('input[name=card-amount]').inputValue(), '', 'the amount is emptied');
      assert.equal(await form.locator('input[name=card-message]').inputValue(), '');
      assert.equal(await form.locator('input[name=card-count]').inputValue(), '1');
      // A click on the emptied form sends nothing (the amount is required).
      await form.getByRole('button', { name: 'Issue a card' }).click();
      assert.equal(await cardCount(), 1);
      await shoot('gift-cards-issued');

      // The next card is a new submission: a new key.
      await form.locator('input[name=card-amount]').fill('7');
      await form.getByRole('button', { name: 'Issue a card' }).click();
      await page.locator('tr[data-card]').nth(1).waitFor();
      assert.equal(await cardCount(), 2);
      assert.equal(keys.length, 2);
      assert.notEqual(keys[1], keys[0]);
    });

    it('names the wearables\' tag types in the page\'s language', async () => {
      const s = server();
      const holder = uniqueHandle('ada');
      await s.createWallet({ handle: holder, fund: 100 });
      for (const tagType of ['ring', 'band', 'sticker', 'keychain']) {
        const tag = await s.request('POST', '/api/wearables', { headers: key, body: { handle: holder, tagType, displayName: `Ada ${tagType}` } });
        assert.equal(tag.status, 201, JSON.stringify(tag.body));
      }
      await openPage(page, 'wearables');
      await page.locator('tr[data-wearable]').nth(3).waitFor();
      const types = async () => Object.fromEntries(await page.locator('[data-tag-type]').evaluateAll((spans) => spans.map((span) => [span.getAttribute('data-tag-type'), span.textContent?.replace(/^·\s*/, '')])));
      assert.deepEqual(await types(), { ring: 'Ring', band: 'Band', sticker: 'Sticker', keychain: 'Key ring' });
      await page.getByRole('combobox', { name: 'Language' }).selectOption('fr');
      await page.getByRole('heading', { name: 'Bracelets et bagues' }).waitFor();
      assert.deepEqual(await types(), { ring: 'Bague', band: 'Bracelet', sticker: 'Autocollant', keychain: 'Porte-clés' });
      await assertAccessible(page, 'wearables in French');
      await shoot('wearables-fr');
      await page.getByRole('combobox', { name: 'Langue' }).selectOption('en');
      await page.getByRole('heading', { name: 'Wearables' }).waitFor();
    });

    it('shows which terminals are online now, and takes a pairing code off the screen once it has paired its kiosk', async () => {
      await openPage(page, 'terminals');
      await page.locator('input[name=terminal-name]').fill('Front counter');
      await page.getByRole('button', { name: 'Add a terminal' }).click();
      const code = await page.locator('[data-pairing-code]').innerText();
      const row = page.locator('tr[data-terminal]').first();
      await row.waitFor();
      assert.equal(await row.locator('[data-connected]').getAttribute('data-connected'), 'false');
      assert.equal((await row.locator('[data-connected]').innerText()).trim(), 'Not connected');

      const paired = await server().request<{ token: string }>('POST', '/api/terminals/pair', { body: { code } });
      assert.equal(paired.status, 200);
      // The page reads the list every 5 seconds: the used code leaves the screen for a note.
      await page.locator('[data-pairing-gone]').waitFor();
      assert.equal(await page.locator('[data-pairing-code]').count(), 0);
      assert.equal(await page.locator('[data-pairing-gone]').innerText(), `The pairing code ${code} of Front counter has been used or has expired: ask for a new one if the kiosk is not paired.`);

      const socket = io(`${server().baseUrl}${SYNC_NAMESPACE}`, { auth: { token: `term.${paired.body.token}` }, transports: ['websocket'], reconnection: false, forceNew: true });
      try {
          await new Promise<void>((resolve, reject) => {
            socket.once(SYNC_EVENTS.hello, () => resolve());
            socket.once('connect_error', reject);
          });
          await row.locator('[data-connected="true"]').waitFor();
          assert.equal((await row.locator('[data-connected]').innerText()).trim(), 'Online now');
          await assertAccessible(page, 'terminals with one online');
          await shoot('terminals-online', ['1366x768', '390x844']);
      } finally {
        socket.disconnect();
      }
      await row.locator('[data-connected="false"]').waitFor();
    });

    it('puts the menu behind a Menu button on a phone, and leaves it open on a desktop', async () => {
      await openPage(page, 'overview');
      const toggle = page.locator('nav.menu button.menu-toggle');
      const payments = page.locator('nav a[href="#/payments"]');
      assert.equal(await toggle.isVisible(), false, 'no Menu button on a desktop');
      assert.equal(await payments.isVisible(), true);

      try {
        await page.setViewportSize(PHONE);
        await toggle.waitFor();
        assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
        assert.equal(await toggle.getAttribute('aria-controls'), 'menu-links');
        assert.equal(await payments.isVisible(), false, 'the links are hidden');
        const mainTop = await page.locator('main h1').evaluate((heading) => heading.getBoundingClientRect().top);
        assert.ok(mainTop < 260, `the page starts ${mainTop} px down`);
        await shoot('menu-closed', ['390x844']);
        await page.setViewportSize(PHONE);
        await page.getByRole('button', { name: 'Menu' }).click();
        assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
        await payments.waitFor();
        assert.equal(await page.locator('nav a').count(), 22, 'every page, Payouts and Transfers included');
        await shoot('menu-open', ['390x844']);
        await page.setViewportSize(PHONE);
        await payments.click();
        await page.locator('nav a[href="#/payments"][aria-current="page"]').waitFor({ state: 'attached' });
        await page.getByRole('heading', { name: 'Payments', level: 1 }).waitFor();
        assert.equal(await toggle.getAttribute('aria-expanded'), 'false', 'following a link closes the menu');
        assert.equal(await payments.isVisible(), false);
        assert.equal((await toggle.textContent())?.replace(/\s+/g, ' ').trim(), '☰ Menu · Payments', 'the button names the page shown');
      } finally {
        await page.setViewportSize(DESKTOP);
      }
      await payments.waitFor();
      assert.equal(await toggle.isVisible(), false);
    });

    it('says how to make the first payroll run, bill payment and subscription, in the page\'s language', async () => {
      const hints = {
        payroll: ['Pay your staff with POST /api/payroll', 'Payez votre personnel avec POST /api/payroll', 'Pague o seu pessoal com POST /api/payroll', 'Lipa wafanyakazi wako kwa POST /api/payroll'],
        bills: ['Pay a bill from your wallet with POST /api/bills/pay', 'Payez une facture depuis votre portefeuille avec POST /api/bills/pay', 'Pague uma conta a partir da sua carteira com POST /api/bills/pay', 'Lipa bili kutoka kwenye pochi yako kwa POST /api/bills/pay'],
        subscriptions: ['Create a plan with POST /api/merchant/subscription-plans', 'Créez une offre avec POST /api/merchant/subscription-plans', 'Crie um plano com POST /api/merchant/subscription-plans', 'Unda mpango kwa POST /api/merchant/subscription-plans'],
      } as const;
      const languages = ['en', 'fr', 'pt', 'sw'] as const;
      for (const [index, language] of languages.entries()) {
        await page.locator('header select').selectOption(language);
        for (const [route, texts] of Object.entries(hints)) {
          await openPage(page, route);
          const hint = page.locator('[data-empty-hint]');
          await hint.waitFor();
          assert.ok((await hint.innerText()).startsWith(texts[index]!), `${route} in ${language}: ${await hint.innerText()}`);
          if (language === 'en') {
            await assertAccessible(page, `${route} empty`);
            await shoot(`${route}-empty`, ['1366x768', '390x844']);
          }
        }
      }
      await page.locator('header select').selectOption('en');
      // A filter that matches nothing gets no hint: making a record is not what is missing.
      await openPage(page, 'payroll');
      await page.locator('select[name=status]').selectOption('failed');
      await page.locator('[data-empty-hint]').waitFor({ state: 'detached' });
    });

    it('shows a discounted line\'s net amount beside its discount, as the kiosk\'s receipt does, in a sale\'s details and on the refunds page', async () => {
      const s = server();
      const payer = uniqueHandle('bisi');
      await s.createWallet({ handle: payer, fund: 10_000 });
      const tag = await s.request<{ tagId: string }>('POST', '/api/wearables', { headers: key, body: { handle: payer, tagType: 'band', displayName: 'Band' } });
      // Jollof: 2 x 1,500 = 3,000, 300 off the line and 168.75 of the cart's 200 off: 2,531.25 (7.5 % tax included). Zobo: 500 - 31.25.
      const sale = await s.request<{ sessionId: string }>('POST', '/api/pos/sessions', {
        headers: key,
        body: { amount: 3000, currency: 'NGN', description: 'Lunch', discount: 200, items: [{ name: 'Jollof rice', quantity: 2, unitPrice: 1500, discount: 300, taxRate: 7.5 }, { name: 'Zobo', quantity: 1, unitPrice: 500 }] },
      });
      assert.equal(sale.status, 201, JSON.stringify(sale.body));
      const paid = await s.request('POST', `/api/pos/sessions/${sale.body.sessionId}/tap`, { headers: key, body: { tagId: tag.body.tagId } });
      assert.equal(paid.body.status, 'completed', JSON.stringify(paid.body));
      await openPage(page, 'posSessions');
      await page.locator(`tr[data-row="${sale.body.sessionId}"] button`).click();
      const lines = page.locator('table[data-items]');
      await lines.waitFor();
      const cells = async (selector: string) => (await page.locator(selector).evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('th, td')].map((cell) => cell.textContent?.replace(/\s+/g, ' ').trim())))) as string[][];
      // Each line: its discount taken off, its tax said included, what was paid for it; the sums add up as printed.
      assert.deepEqual(await cells('table[data-items] tr'), [
        ['Item', 'Quantity', 'Unit price', 'Discount', 'Tax', 'Total'],
        ['Jollof rice', '2', 'NGN 1,500.00', '−NGN 468.75', 'NGN 176.60 included', 'NGN 2,531.25'],
        ['Zobo', '1', 'NGN 500.00', '−NGN 31.25', 'NGN 0.00', 'NGN 468.75'],
        ['Subtotal', 'NGN 3,500.00'],
        ['Discount', '−NGN 500.00'],
        ['Total', 'NGN 3,000.00'],
        ['Tax (included)', 'NGN 176.60'],
      ]);
      await assertAccessible(page, 'a discounted sale');
      await shoot('sale-discounted-lines');

      await openPage(page, 'refunds');
      await page.locator('input[name=sale-id]').fill(sale.body.sessionId);
      await page.getByRole('button', { name: 'Find the sale' }).click();
      const found = page.locator(`[data-sale="${sale.body.sessionId}"]`);
      await found.waitFor();
      assert.deepEqual(await cells(`[data-sale="${sale.body.sessionId}"] tbody tr`), [
        ['Jollof rice', '2', '−NGN 468.75', 'NGN 2,531.25', '2', ''],
        ['Zobo', '1', '−NGN 31.25', 'NGN 468.75', '1', ''],
      ]);
      await shoot('refunds-discounted-lines');
    });
  });
}
