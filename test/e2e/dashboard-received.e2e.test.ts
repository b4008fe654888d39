// Every way a merchant is paid, in the dashboard, in Chromium against a real server on each
// database: a kiosk sale (a POS session a terminal opened, paid by a ring's tap), a website
// checkout (the drop-in's calls with a publishable key, paid from a wallet) and a /pay/<handle>
// payment (the pay page's call), made through the API, then read on the overview ("Sales today")
// and the Payments page (the channel column and filter, a payment's details, the CSV export);
// axe-core and screenshots at 1280x800 and 390x844 under test-artifacts/dashboard/.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { databaseTargets, uniqueHandle, useTestServer } from '@tapline/sync-server/testing';
import { assertAccessible } from './axe.ts';
import { launchChromium, trackedPage } from './browser.ts';
import { DASHBOARD_DIR, LAPTOP, dashboardUser, openPage, prepareDashboard, shoot, signIn } from './dashboard.ts';

await prepareDashboard();

async function text(locator: Locator): Promise<string> {
  return (await locator.innerText()).replace(/\s+/g, ' ').trim();
}

for (const target of await databaseTargets()) {
  describe(`dashboard payments received in Chromium on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 20, env: { DASHBOARD_DIR, SANDBOX_STEP_MS: '200' } });
    const pageErrors: string[] = [];
    let browser: Browser;
    let page: Page;
    const made = { payer: '', saleId: '', checkoutId: '', payPageId: '', collectionId: '' };

    before(async () => {
      browser = await launchChromium();
    });
    after(async () => {
      await browser?.close();
    });

    it('takes a kiosk sale, a website checkout, a /pay/<handle> payment and mobile money at the till, and signs the owner in', async () => {
      const s = server();
      const merchant = await s.createMerchant({ name: 'Mama Put Kitchen' });
      const key = { 'x-merchant-api-key': merchant.testKey };
      const handle = uniqueHandle('ada');
      made.payer = `@${handle}`;
      await s.createWallet({ handle, fund: 1000 });
      const tag = await s.request<{ tagId: string }>('POST', '/api/wearables', { headers: key, body: { handle, tagType: 'ring', displayName: 'Ring' } });
      assert.equal(tag.status, 201, JSON.stringify(tag.body));

      // The kiosk: a terminal opens the sale, the customer's ring pays it.
      const terminal = await s.request<{ token: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Front counter' } });
      const till = { authorization: `Bearer term.${terminal.body.token}` };
      const sale = await s.request<{ sessionId: string }>('POST', '/api/pos/sessions', { headers: till, body: { amount: 10, currency: 'NGN', description: 'Jollof rice' } });
      assert.equal(sale.status, 201, JSON.stringify(sale.body));
      const tapped = await s.request<{ status: string }>('POST', `/api/pos/sessions/${sale.body.sessionId}/tap`, { headers: till, body: { tagId: tag.body.tagId } });
      assert.equal(tapped.body.status, 'completed', JSON.stringify(tapped.body));
      made.saleId = sale.body.sessionId;

      // The drop-in: a publishable key opens the checkout session, the customer pays from their wallet.
      const publishable = await s.request<{ key: string }>('POST', '/api/merchant/publishable-keys', { headers: key, body: {} });
      assert.equal(publishable.status, 201, JSON.stringify(publishable.body));
      const checkout = await s.request<{ id: string }>('POST', '/api/checkout/sessions', { headers: { authorization: `Bearer ${publishable.body.key}` }, body: { amount: 25.5, currency: 'NGN', reference: 'order-1042', description: 'Blue ankara' } });
      assert.equal(checkout.status, 201, JSON.stringify(checkout.body));
      const paid = await s.request<{ status: string }>('POST', `/api/checkout/sessions/${checkout.body.id}/pay`, { body: { method: 'wallet', handle, pin: '1234' } });
      assert.equal(paid.body.status, 'paid', JSON.stringify(paid.body));
      made.checkoutId = checkout.body.id;

      // The pay page: the customer, signed in to their wallet, pays the merchant's @handle.
      const session = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle, pin: '1234' } });
      const payPage = await s.request<{ transferId: string }>('POST', '/api/wallet/pay', {
        headers: { authorization: `Bearer wallet.${session.body.token}`, 'idempotency-key': uniqueHandle('pay') },
        body: { to: merchant.handle, amount: 7.25, note: 'Table 4' },
      });
      assert.equal(payPage.status, 201, JSON.stringify(payPage.body));
      made.payPageId = payPage.body.transferId;

      // Mobile money at the till: the customer approves on her phone (the sandbox answers).
      const collection = await s.request<{ id: string }>('POST', '/api/pos/collections', { headers: { ...till, 'idempotency-key': uniqueHandle('momo') }, body: { amountMinor: 500, currency: 'NGN', phone: '08031234567', description: 'Zobo' } });
      assert.equal(collection.status, 201, JSON.stringify(collection.body));
      for (const deadline = Date.now() + 60_000; ; ) {
        const state = await s.request<{ status: string }>('GET', `/api/pos/collections/${collection.body.id}`, { headers: till });
        if (state.body.status === 'completed') break;
        assert.ok(Date.now() < deadline && state.body.status === 'pending', `collection ${state.body.status}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      made.collectionId = collection.body.id;

      const email = `owner.${uniqueHandle('o')}@example.com`;
      await dashboardUser(s, merchant, email);
      page = await trackedPage(browser, { viewport: LAPTOP, locale: 'en-GB', timezoneId: 'Africa/Lagos', acceptDownloads: true }, pageErrors);
      await signIn(page, s.baseUrl, email);
    });

    it('the overview counts the four in today\'s sales', async () => {
      await openPage(page, 'overview');
      const today = page.locator('[data-today="NGN"]');
      await today.waitFor();
      assert.equal(await text(today), 'NGN 47.75');
      assert.equal(await text(page.locator('section[aria-labelledby="today-heading"] .muted')), '4 sales');
      await assertAccessible(page, 'overview');
      await shoot(page, target.name, 'received-overview', ['1280x800', '390x844']);
    });

    it('the Payments page lists them with their channel, filters by channel, details one and exports them', async () => {
      // Today's sales lead to the payments that make them.
      await page.locator('[data-today="NGN"] a').click();
      await page.locator('nav a[href="#/payments"][aria-current="page"]').waitFor();
      const rows = page.locator('main table.list tbody tr[data-row]');
      await rows.nth(3).waitFor();
      assert.equal(await text(page.locator('main h1')), 'Payments');
      assert.deepEqual(await page.locator('main table.list thead th').allInnerTexts(), ['Amount', 'Channel', 'Payer', 'Reference', 'Received']);
      // Newest first: mobile money, the pay page, the checkout, the kiosk sale (the time, last, is the server's).
      const cells = await rows.evaluateAll((trs) => trs.map((tr) => [tr.getAttribute('data-row'), ...[...tr.querySelectorAll('td')].slice(0, 4).map((td) => (td.textContent ?? '').replace(/\s+/g, ' ').trim())]));
      assert.deepEqual(cells, [
        [`mobile_money:${made.collectionId}`, 'NGN 5.00', 'Mobile money at the till', 'Mobile money', 'Zobo'],
        [`pay_page:${made.payPageId}`, 'NGN 7.25', 'Pay page', made.payer, 'Table 4'],
        [`checkout:${made.checkoutId}`, 'NGN 25.50', 'Website checkout', made.payer, 'order-1042'],
        [`pos:${made.saleId}`, 'NGN 10.00', 'Kiosk sale', made.payer, 'Jollof rice'],
      ]);
      await page.locator('.pager span').filter({ hasText: '1–4 of 4' }).waitFor();
      await assertAccessible(page, 'payments received');
      await shoot(page, target.name, 'received-payments', ['1280x800', '390x844']);

      await page.locator('select[name=channel]').selectOption({ label: 'Website checkout' });
      await page.locator('.pager span').filter({ hasText: '1–1 of 1' }).waitFor();
      assert.deepEqual(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-row'))), [`checkout:${made.checkoutId}`]);
      await page.locator('select[name=channel]').selectOption({ label: 'Kiosk sale' });
      await page.locator('.pager span').filter({ hasText: '1–1 of 1' }).waitFor();
      await page.locator(`tr[data-row="pos:${made.saleId}"]`).waitFor();
      await page.locator('select[name=channel]').selectOption('');
      await page.locator('.pager span').filter({ hasText: '1–4 of 4' }).waitFor();

      // A payment's details.
      await page.locator(`tr[data-row="pay_page:${made.payPageId}"] button`).click();
      const detail = page.locator('[data-detail]');
      await detail.locator('dl.facts').waitFor();
      assert.equal(await text(detail.locator('h2')), 'Payment received · Pay page');
      const facts = Object.fromEntries(await detail.locator('dl.facts > div').evaluateAll((pairs) => pairs.map((pair) => [pair.querySelector('dt')?.textContent, pair.querySelector('dd')?.textContent?.replace(/\s+/g, ' ')])));
      assert.deepEqual([facts.Channel, facts.Method, facts.Amount, facts.Fee, facts.Net, facts.Payer, facts.Reference, facts.Payment], ['Pay page', 'Tapline wallet', 'NGN 7.25', 'NGN 0.00', 'NGN 7.25', made.payer, 'Table 4', made.payPageId]);
      assert.equal(facts['Ledger transfer'], undefined, 'the transfer is the payment itself: said once');
      await assertAccessible(page, 'payment received details');
      await shoot(page, target.name, 'received-detail', ['1280x800', '390x844']);

      // Every payment of the filter as a CSV file.
      const [csvFile] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export to CSV' }).click()]);
      assert.equal(csvFile.suggestedFilename(), 'payments-received.csv');
      const csv = readFileSync(await csvFile.path(), 'utf8').split('\r\n').filter(Boolean).map((line) => line.slice(1, -1).split('","'));
      assert.deepEqual(csv[0], ['receivedAt', 'channel', 'method', 'id', 'amount', 'fee', 'net', 'currency', 'payer', 'reference', 'terminalId', 'transferId']);
      assert.deepEqual(csv.slice(1).map((row) => [row[1], row[2], row[3], row[4], row[7], row[8]]), [
        ['mobile_money', 'mobile_money', made.collectionId, '5', 'NGN', ''],
        ['pay_page', 'wallet', made.payPageId, '7.25', 'NGN', made.payer],
        ['checkout', 'wallet', made.checkoutId, '25.5', 'NGN', made.payer],
        ['pos', 'tap', made.saleId, '10', 'NGN', made.payer],
      ]);
      assert.match(csv[4]![10]!, /^[\w-]+$/, 'the kiosk sale names its terminal');
      assert.deepEqual(pageErrors, []);
    });
  });
}
