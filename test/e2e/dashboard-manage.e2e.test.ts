// The dashboard's management pages in Chromium against a real server on each database: a
// terminal renamed with its offline limits and manager PIN, a wearable disabled and re-enabled,
// a gift-card program and a reward rule, the gift-card analytics chart, a product added, edited
// and archived, a unit of a sale refunded, a Z report's totals and its CSV file, a publishable key
// with an allowed origin.
// Every result is read back through the API; axe-core on every page; screenshots at 1366x768
// and 1024x768 under test-artifacts/dashboard/.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { databaseTargets, uniqueHandle, useTestServer } from '@tapline/sync-server/testing';
import { assertAccessible } from './axe.ts';
import { launchChromium, trackedPage, waitForExpression } from './browser.ts';
import { DASHBOARD_DIR, DESKTOP, dashboardOwner, openPage as openDashboardPage, prepareDashboard, shoot as shootDashboard, signIn as signInDashboard } from './dashboard.ts';

await prepareDashboard();

interface Tally {
  count: number;
  amount: number;
}

for (const target of await databaseTargets()) {
  describe(`dashboard management pages in Chromium on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 10, env: { DASHBOARD_DIR } });
    let browser: Browser;
    let page: Page;
    const pageErrors: string[] = [];
    let key: Record<string, string>;
    let terminal: { id: string; token: string };
    let tagId: string;

    before(async () => {
      browser = await launchChromium();
      const s = server();
      const merchant = await s.createMerchant({ name: 'Mama Put Kitchen' });
      key = { 'x-merchant-api-key': merchant.testKey };
      const email = await dashboardOwner(s, merchant);
      const created = await s.request<{ id: string; token: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Till 1' } });
      assert.equal(created.status, 201);
      terminal = created.body;
      const payer = uniqueHandle('ada');
      await s.createWallet({ handle: payer, fund: 10_000 });
      const tag = await s.request<{ tagId: string }>('POST', '/api/wearables', { headers: key, body: { handle: payer, tagType: 'ring', displayName: 'Ada\'s ring' } });
      assert.equal(tag.status, 201, JSON.stringify(tag.body));
      tagId = tag.body.tagId;
      page = await trackedPage(browser, { viewport: DESKTOP, locale: 'en-GB', timezoneId: 'Africa/Lagos', acceptDownloads: true }, pageErrors);
      await signInDashboard(page, s.baseUrl, email);
    });
    after(async () => {
      await browser?.close();
    });

    const shoot = (name: string, sizes?: Parameters<typeof shootDashboard>[3]) => shootDashboard(page, target.name, name, sizes);

    it('renames a terminal, sets its offline limits and its manager PIN', async () => {
      await openDashboardPage(page, 'terminals');
      await page.locator(`tr[data-terminal="${terminal.id}"]`).getByRole('button', { name: 'Settings' }).click();
      const settings = page.locator(`[data-settings="${terminal.id}"]`);
      await settings.locator('input[name=limit-per-payment]').waitFor();
      await settings.locator('input[name=settings-name]').fill('  Back bar ');
      await settings.locator('input[name=limit-per-payment]').fill('15.5');
      await settings.locator('input[name=limit-total]').fill('150');
      await settings.locator('input[name=limit-max-age]').fill('48');
      await settings.getByRole('button', { name: 'Save' }).click();
      await settings.getByText('Saved.').waitFor();
      await settings.locator('input[name=manager-pin]').fill('4321');
      await settings.getByRole('button', { name: 'Set the PIN' }).click();
      await settings.getByText('The manager PIN is set.').waitFor();
      await page.locator(`tr[data-terminal="${terminal.id}"] td`).first().getByText('Back bar').waitFor();

      const limits = await server().request('GET', `/api/merchant/terminals/${terminal.id}/offline-limits`, { headers: key });
      assert.deepEqual(limits.body, { terminalId: terminal.id, currency: 'NGN', perPayment: 15.5, total: 150, maxAgeHours: 48 });
      const listed = await server().request<{ data: { id: string; name: string }[] }>('GET', '/api/merchant/terminals', { headers: key });
      assert.deepEqual(listed.body.data.map((row) => [row.id, row.name]), [[terminal.id, 'Back bar']]);
      await assertAccessible(page, 'terminal settings');
      await shoot('terminal-settings');
    });

    it('disables a wearable after a confirmation, then re-enables it', async () => {
      const s = server();
      await openDashboardPage(page, 'wearables');
      const row = page.locator(`tr[data-wearable="${tagId}"]`);
      await row.getByRole('button', { name: 'Disable' }).click();
      const question = page.getByRole('alertdialog');
      assert.match(await question.innerText(), new RegExp(`Disable ${tagId} \\(Ada's ring\\)\\? It stops paying at once\\.`));
      await assertAccessible(page, 'wearables, confirmation');
      await shoot('wearables-confirm');
      assert.equal((await s.request<{ status: string }>('GET', `/api/wearables/${tagId}`, { headers: key })).body.status, 'active', 'nothing changes before the confirmation');
      await question.getByRole('button', { name: 'Yes, do it' }).click();
      await page.locator(`tr[data-wearable="${tagId}"][data-status="disabled"]`).waitFor();
      const disabled = await s.request<{ status: string; disabledBy: string }>('GET', `/api/wearables/${tagId}`, { headers: key });
      assert.deepEqual([disabled.body.status, disabled.body.disabledBy], ['disabled', 'merchant']);
      assert.equal((await s.request('GET', `/api/tap/${tagId}`)).status, 403, 'a disabled tag does not resolve');

      await page.locator('select[name=wearable-status]').selectOption('disabled');
      await waitForExpression(page, `document.querySelectorAll('tr[data-wearable]').length === 1`);
      await row.getByRole('button', { name: 'Re-enable' }).click();
      await page.getByRole('alertdialog').getByRole('button', { name: 'Yes, do it' }).click();
      await waitForExpression(page, `document.querySelectorAll('tr[data-wearable]').length === 0`);
      assert.equal((await s.request<{ status: string }>('GET', `/api/wearables/${tagId}`, { headers: key })).body.status, 'active');
      await page.locator('select[name=wearable-status]').selectOption('');
      await page.locator(`tr[data-wearable="${tagId}"][data-status="active"]`).waitFor();
      await assertAccessible(page, 'wearables');
      await shoot('wearables');
    });

    it('creates a gift-card program, issues cards from it with a CSV file, and creates a reward rule', async () => {
      await openDashboardPage(page, 'rewards');
      await page.locator('input[name=program-name]').fill('Staff Christmas');
      await page.locator('input[name=program-description]').fill('Cards for the kitchen team');
      await page.getByRole('button', { name: 'Create the program' }).click();
      await page.locator('tr[data-program]').first().waitFor();
      await page.locator('input[name=rule-name]').fill('Five percent back');
      await page.locator('input[name=rule-min-spend]').fill('1000');
      await page.locator('input[name=rule-percent]').fill('5');
      await page.locator('input[name=rule-max-reward]').fill('250');
      await page.getByRole('button', { name: 'Create the rule' }).click();
      await page.locator('tr[data-rule]').first().waitFor();

      const programs = await server().request<{ data: { name: string; description: string; status: string }[] }>('GET', '/api/merchant/gift-card-programs', { headers: key });
      assert.deepEqual(programs.body.data.map((p) => [p.name, p.description, p.status]), [['Staff Christmas', 'Cards for the kitchen team', 'active']]);
      const rules = await server().request<{ data: { name: string; minSpend: number; percent: number; maxReward: number; currency: string }[] }>('GET', '/api/merchant/reward-rules', { headers: key });
      assert.deepEqual(rules.body.data.map((r) => [r.name, r.minSpend, r.percent, r.maxReward, r.currency]), [['Five percent back', 1000, 5, 250, 'NGN']]);
      assert.equal(await page.locator('tr[data-rule] [data-percent]').innerText(), '5');

      // Cards for two employees from the program: one row refused (an amount with three decimals), nothing charged for it.
      const employee = uniqueHandle('staff');
      await server().createWallet({ handle: employee });
      const programId = (await server().request<{ data: { id: string }[] }>('GET', '/api/merchant/gift-card-programs', { headers: key })).body.data[0]!.id;
      await page.locator(`tr[data-program="${programId}"]`).getByRole('button', { name: 'Issue cards' }).click();
      const csv = `handle,amount,currency,externalRef\r\n@${employee},15,NGN,emp-1\r\n@${employee},1.234,NGN,emp-2\r\n`;
      await page.locator('input[name=program-csv]').setInputFiles({ name: 'staff.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
      await page.locator('[data-program-issue]').getByRole('button', { name: 'Issue', exact: true }).click();
      await page.locator('[data-program-issued]').waitFor();
      assert.equal(await page.locator('[data-program-issued]').innerText(), '1 issued, 1 refused, 0 skipped.');
      assert.equal(await page.locator('[data-program-issue] tr[data-failed-row]').getAttribute('data-failed-row'), '2', 'the second card row');
      const detail = await server().request<{ analytics: { issuedCount: number; issuedValue: number } }>('GET', `/api/merchant/gift-card-programs/${programId}`, { headers: key });
      assert.deepEqual([detail.body.analytics.issuedCount, detail.body.analytics.issuedValue], [1, 15]);
      await assertAccessible(page, 'programs and rewards');
      await shoot('rewards', ['1366x768', '1024x768', '390x844']);
    });

    it('issues three cards in one batch and charts the analytics with their numbers in a table', async () => {
      type Figures = Record<'issuedCount' | 'activeCount' | 'partialCount' | 'redeemedCount' | 'issuedValue' | 'outstandingValue', number>;
      // The program's card of the test before counts too.
      const before = (await server().request<Figures>('GET', '/api/merchant/gift-cards/analytics', { headers: key })).body;
      await openDashboardPage(page, 'giftCards');
      await page.locator('input[name=card-amount]').fill('20');
      await page.locator('input[name=card-count]').fill('3');
      await page.getByRole('button', { name: 'Issue a card' }).last().click();
      await waitForExpression(page, `document.querySelectorAll('[data-card-code]').length === 3`);
      await waitForExpression(page, `document.querySelector('table[data-chart="gift-cards"] tr[data-key="issuedCount"]')?.getAttribute('data-value') === '${before.issuedCount + 3}'`);
      const bars = await page.$$eval('table[data-chart="gift-cards"] tr', (rows) => rows.map((row) => [row.getAttribute('data-key'), Number(row.getAttribute('data-value'))] as const));
      const analytics = (await server().request<Figures>('GET', '/api/merchant/gift-cards/analytics', { headers: key })).body;
      assert.deepEqual(bars, [['issuedCount', before.issuedCount + 3], ['activeCount', before.activeCount + 3], ['partialCount', before.partialCount], ['redeemedCount', before.redeemedCount]]);
      assert.deepEqual(bars.map(([name]) => [name, analytics[name as keyof Figures]]), bars, 'the chart shows the API\'s figures');
      assert.equal(analytics.issuedValue, before.issuedValue + 60);
      const money = (major: number) => `NGN ${major.toFixed(2)}`;
      assert.equal((await page.locator('[data-figure="issuedValue"]').innerText()).replace(/\s/g, ' '), money(analytics.issuedValue));
      assert.equal((await page.locator('[data-figure="outstandingValue"]').innerText()).replace(/\s/g, ' '), money(analytics.outstandingValue));
      const canvas = await page.evaluate<{ width: number; height: number }>(`(() => { const c = document.querySelector('[data-analytics] canvas'); return { width: c.width, height: c.height }; })()`);
      assert.ok(canvas.width > 300 && canvas.height > 100, JSON.stringify(canvas));
      const cards = await server().request<{ data: { amount: number }[] }>('GET', '/api/merchant/gift-cards', { headers: key });
      assert.equal(cards.body.data.filter((card) => card.amount === 20).length, 3, 'three cards of 20 in one batch');
      await assertAccessible(page, 'gift cards with analytics');
      await shoot('gift-card-analytics');
    });

    it('adds a product, edits it, finds it by search and category, archives it', async () => {
      const s = server();
      await openDashboardPage(page, 'catalogue');
      await page.getByRole('button', { name: 'Add a product' }).click();
      const form = page.locator('[data-product-form]');
      await form.locator('input[name=product-name]').fill('Malt drink');
      await form.locator('input[name=product-price]').fill('500');
      await form.locator('input[name=product-tax]').fill('7.5');
      await form.locator('input[name=product-sku]').fill('MALT-33');
      await form.locator('input[name=product-category-field]').fill('Drinks');
      await form.locator('input[name=product-track-stock]').check();
      await form.locator('input[name=product-stock]').fill('24');
      await assertAccessible(page, 'catalogue, product form');
      await shoot('catalogue-form');
      await form.getByRole('button', { name: 'Save' }).click();
      await page.locator('tr[data-product]').first().waitFor();
      const listed = await s.request<{ data: { id: string; name: string; price: number; taxRate: number; sku: string; category: string; stock: number; trackStock: boolean }[] }>('GET', '/api/merchant/products', { headers: key });
      assert.equal(listed.body.data.length, 1);
      const product = listed.body.data[0]!;
      assert.deepEqual([product.name, product.price, product.taxRate, product.sku, product.category, product.trackStock, product.stock], ['Malt drink', 500, 7.5, 'MALT-33', 'Drinks', true, 24]);
      await s.request('POST', '/api/merchant/products', { headers: key, body: { name: 'Puff-puff', price: 100, category: 'Snacks' } });

      await page.locator(`tr[data-product="${product.id}"]`).getByRole('button', { name: 'Edit' }).click();
      await form.locator('input[name=product-price]').fill('550');
      await form.getByRole('button', { name: 'Save' }).click();
      await waitForExpression(page, `!document.querySelector('[data-product-form]')`);
      assert.equal((await s.request<{ price: number }>('GET', `/api/merchant/products/${product.id}`, { headers: key })).body.price, 550);

      await page.locator('input[name=product-search]').fill('malt');
      await page.getByRole('button', { name: 'Show' }).click();
      await waitForExpression(page, `document.querySelectorAll('tr[data-product]').length === 1`);
      await page.locator('input[name=product-search]').fill('');
      await page.locator('input[name=product-category]').fill('Snacks');
      await page.getByRole('button', { name: 'Show' }).click();
      await waitForExpression(page, `document.querySelectorAll('tr[data-product]').length === 1 && !document.querySelector('tr[data-product="${product.id}"]')`);
      await page.locator('input[name=product-category]').fill('');
      await page.getByRole('button', { name: 'Show' }).click();
      await waitForExpression(page, `document.querySelectorAll('tr[data-product]').length === 2`);
      await assertAccessible(page, 'catalogue');
      await shoot('catalogue', ['1366x768', '1024x768', '390x844']);

      await page.locator(`tr[data-product="${product.id}"]`).getByRole('button', { name: 'Archive' }).click();
      await waitForExpression(page, `document.querySelectorAll('tr[data-product]').length === 1`);
      const archived = await s.request<{ archivedAt: string | null }>('GET', `/api/merchant/products/${product.id}`, { headers: key });
      assert.match(String(archived.body.archivedAt), /^\d{4}-\d{2}-\d{2}T/);
      await page.locator('input[name=product-archived]').check();
      await page.getByRole('button', { name: 'Show' }).click();
      await page.locator(`tr[data-product="${product.id}"]`).getByRole('button', { name: 'Restore' }).waitFor();
    });

    it('refunds a unit of a sale after a confirmation, then shows the Z report\'s totals and exports it as a CSV file', async () => {
      const s = server();
      const term = { authorization: `Bearer term.${terminal.token}` };
      const sale = await s.request<{ sessionId: string }>('POST', '/api/pos/sessions', {
        headers: term,
        body: { amount: 1100, currency: 'NGN', items: [{ name: 'Malt drink', quantity: 2, unitPrice: 500, taxRate: 7.5 }, { name: 'Bag', quantity: 1, unitPrice: 100 }] },
      });
      assert.equal(sale.status, 201, JSON.stringify(sale.body));
      const paid = await s.request<{ status: string }>('POST', `/api/pos/sessions/${sale.body.sessionId}/tap`, { headers: term, body: { tagId } });
      assert.equal(paid.body.status, 'completed', JSON.stringify(paid.body));

      // The bag goes back from the refunds page, after a confirmation.
      await openDashboardPage(page, 'refunds');
      await page.locator('input[name=sale-id]').fill(sale.body.sessionId);
      await page.getByRole('button', { name: 'Find the sale' }).click();
      const found = page.locator(`[data-sale="${sale.body.sessionId}"]`);
      await found.waitFor();
      assert.equal((await found.locator('[data-sale-refundable]').innerText()).replace(/\s/g, ' '), 'NGN 1,100.00');
      await found.locator('tr[data-line="1"] input').fill('1');
      await found.getByRole('button', { name: 'Refund the chosen units' }).click();
      await found.getByRole('alertdialog').waitFor();
      await assertAccessible(page, 'refunds, confirmation');
      await shoot('refunds-confirm');
      await found.getByRole('alertdialog').getByRole('button', { name: 'Yes, refund' }).click();
      await page.locator('[data-refunded]').waitFor();
      assert.equal((await page.locator('[data-refunded]').innerText()).replace(/\s/g, ' '), 'NGN 100.00 refunded.');
      await waitForExpression(page, `document.querySelectorAll('tr[data-refund]').length === 1`);
      assert.equal((await found.locator('[data-sale-refundable]').innerText()).replace(/\s/g, ' '), 'NGN 1,000.00');
      const after = await s.request<{ refunded: number; refundable: number; refunds: { amount: number; lines: { line: number; quantity: number }[]; terminalId: string | null }[] }>('GET', `/api/pos/sales/${sale.body.sessionId}`, { headers: key });
      assert.deepEqual([after.body.refunded, after.body.refundable], [100, 1000]);
      assert.deepEqual(after.body.refunds.map((r) => [r.amount, r.lines.map((l) => [l.line, l.quantity]), r.terminalId]), [[100, [[1, 1]], null]]);
      await assertAccessible(page, 'refunds');
      await shoot('refunds');

      // The PIN the terminals page set closes the day.
      const z = await s.request<{ id: string; number: number; gross: number; net: number; online: Tally; refunds: Tally; taxes: { rate: number; taxable: number; tax: number }[] }>('POST', '/api/pos/reports', { headers: term, body: { managerPin: '4321' } });
      assert.equal(z.status, 201, JSON.stringify(z.body));
      assert.deepEqual([z.body.number, z.body.gross, z.body.net, z.body.online, z.body.refunds], [1, 1100, 1000, { count: 1, amount: 1100 }, { count: 1, amount: 100 }]);

      await openDashboardPage(page, 'reports');
      const row = page.locator('tr[data-report-row="1"]');
      await row.waitFor();
      assert.equal((await row.locator('[data-gross]').innerText()).replace(/\s/g, ' '), 'NGN 1,100.00');
      assert.equal((await row.locator('[data-net]').innerText()).replace(/\s/g, ' '), 'NGN 1,000.00');
      await row.getByRole('button', { name: 'Details' }).click();
      const detail = page.locator(`[data-report="${z.body.id}"]`);
      await detail.waitFor();
      const line = async (name: string) => (await detail.locator(`tr[data-line="${name}"]`).innerText()).replace(/\s+/g, ' ').trim();
      assert.equal(await line('method.walletTap'), 'Wallet taps 1 NGN 1,100.00');
      assert.equal(await line('online'), 'Online 1 NGN 1,100.00');
      assert.equal(await line('refunds'), 'Refunds 1 NGN 100.00');
      assert.equal(await line('refundFailures'), 'Refunds that did not reach the phone (earlier days) 0 NGN 0.00');
      assert.equal(await line('net'), 'Net NGN 1,000.00');
      assert.equal(await line('gross'), 'Gross NGN 1,100.00');
      await assertAccessible(page, 'day reports');
      await shoot('reports', ['1366x768', '1024x768', '800x600', '390x844']);

      const [download] = await Promise.all([page.waitForEvent('download'), detail.getByRole('button', { name: 'Export to CSV' }).click()]);
      assert.equal(download.suggestedFilename(), `z-report-1-${terminal.id}.csv`);
      const csv = readFileSync(await download.path(), 'utf8').split('\r\n');
      const tax = z.body.taxes.find((entry) => entry.rate === 7.5)!;
      assert.deepEqual(csv.slice(0, 3), ['"line","value","count","amount"', '"report","Z1","",""', `"terminal","${terminal.id}","",""`]);
      for (const expected of [
        '"currency","NGN","",""',
        '"method.walletTap","","1","1100"',
        '"method.offlineTap","","0","0"',
        '"online","","1","1100"',
        '"refunds","","1","100"',
        '"refundFailures","","0","0"',
        `"tax.7.5.tax","","","${tax.tax}"`,
        '"gross","","","1100"',
        '"net","","","1000"',
      ]) assert.ok(csv.includes(expected), `${expected} in\n${csv.join('\n')}`);
      assert.equal(csv.at(-1), '', 'the file ends with a line break');
    });

    it('creates a publishable key for one origin, shows it once, and revokes it', async () => {
      const s = server();
      await openDashboardPage(page, 'developers');
      await page.locator('textarea[name=publishable-origins]').fill('https://shop.example.com/\n');
      await page.getByRole('button', { name: 'Create a publishable key' }).click();
      const shown = await page.locator('[data-secret]').innerText();
      assert.match(shown, /^pk_test_[0-9a-f]{32}$/);
      await page.locator('tr[data-publishable]').first().waitFor();
      const keys = await s.request<{ data: { id: string; keyHint: string; allowedOrigins: string[]; revokedAt: string | null }[] }>('GET', '/api/merchant/publishable-keys', { headers: key });
      assert.equal(keys.body.data.length, 1);
      const created = keys.body.data[0]!;
      assert.deepEqual(created.allowedOrigins, ['https://shop.example.com']);
      assert.equal(created.keyHint, `pk_test_…${shown.slice(-4)}`);
      assert.equal(await page.locator(`tr[data-publishable="${created.id}"] [data-origins]`).innerText(), 'https://shop.example.com');
      await assertAccessible(page, 'developers with publishable keys');
      await shoot('developers-publishable');

      await page.locator(`tr[data-publishable="${created.id}"]`).getByRole('button', { name: 'Revoke' }).click();
      await page.locator(`tr[data-publishable="${created.id}"] .badge`).waitFor();
      const revoked = await s.request<{ data: { revokedAt: string | null }[] }>('GET', '/api/merchant/publishable-keys', { headers: key });
      assert.notEqual(revoked.body.data[0]?.revokedAt, null);
    });

    it('keeps a viewer to reading: no forms, no buttons that change things', async () => {
      const s = server();
      const email = `viewer.${uniqueHandle('v')}@example.com`;
      const invite = await s.request('POST', '/api/merchant/users', { headers: key, body: { email, role: 'viewer' } });
      const token = String(invite.body.inviteUrl).split('/setup/')[1]!;
      assert.equal((await s.request('POST', '/api/dashboard/links/accept', { body: { token, password: 'a long enough password' } })).status, 200);
      const viewer = await trackedPage(browser, { viewport: DESKTOP, locale: 'en-GB' }, pageErrors);
      await signInDashboard(viewer, s.baseUrl, email);
      await openDashboardPage(viewer, 'wearables');
      await viewer.locator(`tr[data-wearable="${tagId}"]`).waitFor();
      assert.equal(await viewer.locator('main table button').count(), 0);
      await openDashboardPage(viewer, 'catalogue');
      await viewer.locator('tr[data-product]').first().waitFor();
      assert.equal(await viewer.getByRole('button', { name: 'Add a product' }).count(), 0);
      assert.equal(await viewer.locator('main table button').count(), 0);
      await openDashboardPage(viewer, 'rewards');
      await viewer.locator('tr[data-rule]').first().waitFor();
      assert.equal(await viewer.locator('main form').count(), 0);
      await openDashboardPage(viewer, 'developers');
      await viewer.getByText('Only an owner sees and creates publishable keys.').waitFor();
      assert.equal(await viewer.locator('textarea[name=publishable-origins]').count(), 0, 'publishable keys are the owner\'s');
      await viewer.context().close();
      assert.deepEqual(pageErrors, []);
    });
  });
}
