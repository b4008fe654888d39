// The operator's page of bank transfers we could not match (#/operator/bank-transfers, the admin
// token), in Chromium against a real server on each database, live through the Paystack fake over
// real HTTP: a holder's dedicated virtual account is made at the fake, our row of it is lost, and a
// transfer into it arrives by its signed, verified webhook: no wallet's, so it is kept. The page
// lists it; the operator assigns it to another live wallet by its id (typed in the details), the
// wallet's balance goes up by what was sent less the fee, the list says Assigned and the actions
// are gone. A wrong wallet id is refused in words first, and a second transfer is recorded as sent
// back. Screenshots at 800x600 and 1024x768 in English and French (test-artifacts/dashboard/
// <database>-operator-bank-transfers-*.png), axe-core on the page.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { ADMIN, ManualClock, TEST_ADMIN_TOKEN, type TestServer, balanceMinor, databaseTargets, freePort, uniqueHandle, until, useTestServer } from '@tapline/sync-server/testing';
import { type PaystackFake, startPaystackFake } from '../fakes/paystack/index.ts';
import { assertAccessible } from './axe.ts';
import { launchChromium, trackedPage } from './browser.ts';
import { DASHBOARD_DIR, LAPTOP, prepareDashboard, shoot } from './dashboard.ts';

await prepareDashboard();

async function text(locator: Locator): Promise<string> {
  return (await locator.innerText()).replace(/\s+/g, ' ').trim();
}

for (const target of await databaseTargets()) {
  const port = await freePort();
  describe(`dashboard operator page of unmatched bank transfers in Chromium on ${target.name}`, () => {
    const publicBaseUrl = `http://127.0.0.1:${port}`;
    const env: Record<string, string> = {};
    let fake: PaystackFake;
    before(async () => {
      fake = await startPaystackFake({ callbackBase: `${publicBaseUrl}/api/rails/paystack/webhook`, delayScale: 0.05 });
      Object.assign(env, fake.env);
    });
    const clock = new ManualClock(Date.now());
    const server = useTestServer(target, {
      port,
      now: clock.now,
      rateLimitScale: 20,
      env: { DASHBOARD_DIR, PUBLIC_BASE_URL: publicBaseUrl, RAIL_TIMEOUT_MS: '2000', WALLET_BANK_TRANSFER_FEE_PCT: '1' },
      app: { providerEnv: env },
    });
    const pageErrors: string[] = [];
    let browser: Browser;
    let page: Page;
    const sent = { assigned: '', returned: '' };
    let walletId = '';
    let walletHandle = '';
    before(async () => {
      browser = await launchChromium();
    });
    after(async () => {
      await browser?.close();
      await fake?.stop();
    });

    const liveSession = async (s: TestServer, handle: string) => {
      await s.createWallet({ handle, pin: '2468', currency: 'NGN', country: 'NG', mode: 'live' });
      const session = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle, pin: '2468', mode: 'live' } });
      assert.equal(session.status, 201, JSON.stringify(session.body));
      return { authorization: `Bearer wallet.${session.body.token}` };
    };

    it('a transfer into an account that is no wallet\'s here arrives by its verified webhook and is kept', async () => {
      const s = server();
      const auth = await liveSession(s, uniqueHandle('bto'));
      const opened = await s.request<{ id: string; accountNumber: string }>('POST', '/api/wallet/virtual-account', { headers: auth, body: {} });
      assert.equal(opened.status, 201, JSON.stringify(opened.body));
      await s.db.query('DELETE FROM wallet_virtual_accounts WHERE id = $1', [opened.body.id]);
      sent.assigned = (await fake.sendBankTransfer(opened.body.accountNumber, 500_000, { senderName: 'ADA OBI' })).reference;
      clock.advance(60_000);
      sent.returned = (await fake.sendBankTransfer(opened.body.accountNumber, 120_000, { senderName: 'TUNDE BAKARE' })).reference;
      const kept = await s.request<{ data: { providerReference: string; status: string }[] }>('GET', '/api/admin/bank-transfers/unmatched?status=open', { headers: ADMIN });
      assert.deepEqual(kept.body.data.map((row) => [row.providerReference, row.status]), [[sent.returned, 'open'], [sent.assigned, 'open']]);
      walletHandle = uniqueHandle('btto');
      await liveSession(s, walletHandle);
      walletId = (await s.db.query<{ id: string }>('SELECT id FROM wallets WHERE handle = $1 AND mode = $2', [walletHandle, 'live']))[0]!.id;
    });

    it('the operator sees both listed, newest first, and assigns one to a wallet by its id: the balance goes up, the list says Assigned', async () => {
      const s = server();
      page = await trackedPage(browser, { viewport: LAPTOP, locale: 'en-GB', timezoneId: 'Africa/Lagos' }, pageErrors);
      await page.goto(`${s.baseUrl}/dashboard/#/operator`);
      await page.locator('input[name=adminToken]').fill(`admin.${TEST_ADMIN_TOKEN}`);
      await page.getByRole('button', { name: 'Sign in as operator' }).click();
      await page.locator('nav a[href="#/operator/attention"][aria-current="page"]').waitFor();
      await page.locator('nav a[href="#/operator/bank-transfers"]').click();
      await page.locator('nav a[href="#/operator/bank-transfers"][aria-current="page"]').waitFor();
      assert.equal(await text(page.locator('main h1')), 'Bank transfers we could not match');
      const rows = page.locator('table[data-list="bank-transfers"] tbody tr[data-row]');
      await until('both rows', async () => ((await rows.count()) === 2 ? true : undefined));
      const cells = await rows.evaluateAll((trs) => trs.map((tr) => ['amount', 'sender', 'status'].map((name) => (tr.querySelector(`td[data-cell="${name}"]`)?.textContent ?? '').replace(/\s+/g, ' ').trim())));
      assert.deepEqual(cells, [['NGN 1,200.00', 'TUNDE BAKARE · First City Monument Bank', 'To resolve'], ['NGN 5,000.00', 'ADA OBI · First City Monument Bank', 'To resolve']]);
      await assertAccessible(page, 'operator bank transfers');
      await shoot(page, target.name, 'operator-bank-transfers', ['800x600', '1024x768']);

      await rows.nth(1).locator('td[data-cell="received"] button').click();
      const detail = page.locator('[data-detail]');
      await detail.waitFor();
      assert.equal(await text(detail.locator('h2')), 'Unmatched bank transfer · NGN 5,000.00');
      assert.match(await text(detail.locator('dl.facts')), new RegExp(`Why No wallet has this account.*Provider paystack.*Provider reference ${sent.assigned}`));
      // A wallet id nobody has: refused in words, nothing credited.
      await detail.locator('input[name=walletId]').fill('wal_nobody_here');
      await detail.getByRole('button', { name: 'Assign to wallet' }).click();
      await until('the refusal', async () => ((await detail.locator('[role=alert]').count()) > 0 ? true : undefined));
      assert.equal(await text(detail.locator('[role=alert]')), 'No wallet has this id.');
      await detail.locator('input[name=walletId]').fill(walletId);
      assert.equal(await detail.locator('[role=alert]').count(), 0, 'the refusal goes once the id is typed again');
      // The whole id is read in the field before it is sent.
      assert.equal(await detail.locator('input[name=walletId]').evaluate((input) => input.scrollWidth <= input.clientWidth), true);
      await shoot(page, target.name, 'operator-bank-transfers-detail', ['800x600', '1024x768']);
      await detail.getByRole('button', { name: 'Assign to wallet' }).click();
      await until('assigned', async () => ((await detail.locator('[data-done]').count()) > 0 ? true : undefined));
      assert.equal(await text(detail.locator('[data-done]')), `Assigned to wallet ${walletId}: credited once, fee kept.`);
      assert.equal(await detail.locator('input[name=walletId]').count(), 0, 'no action left on a resolved transfer');
      assert.equal(await balanceMinor(s, walletHandle, 'NGN', 'live'), 495_000, 'NGN 5,000 less the 1% fee');
      await until('the list says assigned', async () => ((await text(rows.nth(1).locator('td[data-cell="status"]'))) === 'Assigned' ? true : undefined));
      assert.equal(await text(rows.nth(0).locator('td[data-cell="status"]')), 'To resolve');
      const api = await s.request<{ data: { providerReference: string; status: string; walletId: string | null }[] }>('GET', '/api/admin/bank-transfers/unmatched?status=assigned', { headers: ADMIN });
      assert.deepEqual(api.body.data.map((row) => [row.providerReference, row.status, row.walletId]), [[sent.assigned, 'assigned', walletId]]);
    });

    it('the other is recorded as sent back at the provider; both in French, filtered by status', async () => {
      const s = server();
      const rows = page.locator('table[data-list="bank-transfers"] tbody tr[data-row]');
      await rows.nth(0).locator('td[data-cell="received"] button').click();
      const detail = page.locator('[data-detail]');
      await detail.locator('input[name=returnReference]').waitFor();
      await detail.locator('input[name=returnReference]').fill('RFD-7731');
      await detail.getByRole('button', { name: 'Mark returned' }).click();
      await until('returned', async () => ((await detail.locator('[data-done]').count()) > 0 ? true : undefined));
      assert.equal(await text(detail.locator('[data-done]')), 'Recorded as returned (RFD-7731).');
      await until('the list says returned', async () => ((await text(rows.nth(0).locator('td[data-cell="status"]'))) === 'Returned' ? true : undefined));
      assert.equal(await balanceMinor(s, walletHandle, 'NGN', 'live'), 495_000, 'nothing more credited');

      await page.locator('.top select').selectOption('fr');
      await until('the French heading', async () => ((await text(page.locator('main h1'))) === 'Virements bancaires non rapprochés' ? true : undefined));
      assert.deepEqual(await rows.evaluateAll((trs) => trs.map((tr) => (tr.querySelector('td[data-cell="status"]')?.textContent ?? '').trim())), ['Renvoyé', 'Attribué']);
      // What was just done is said again in French, with the details.
      assert.equal(await text(detail.locator('[data-done]')), 'Enregistré comme renvoyé (RFD-7731).');
      await shoot(page, target.name, 'operator-bank-transfers-fr', ['800x600', '1024x768']);
      await page.locator('select[name=status]').selectOption('assigned');
      await until('the filtered list', async () => ((await rows.count()) === 1 ? true : undefined));
      assert.equal(await text(rows.first().locator('td[data-cell="status"]')), 'Attribué');
      await page.locator('select[name=status]').selectOption('open');
      const empty = page.locator('table[data-list="bank-transfers"] tbody tr td.muted');
      await empty.waitFor();
      assert.equal(await text(empty), 'Aucun virement bancaire avec ce statut.');
      await assertAccessible(page, 'operator bank transfers in French');
      assert.deepEqual(pageErrors, []);
    });
  });
}
