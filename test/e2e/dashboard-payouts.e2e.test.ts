// The dashboard's Payouts page (merchant payouts to its bank or mobile money, docs/payouts.md) in
// Chromium against a real server on each database: the available balance and the hold of a recent
// offline sale, settlement accounts added (the sandbox resolves the bank account's holder), made
// the default and removed, "Pay out now" for an amount and for everything, a payout's statement,
// the list after the sandbox pays them, the CSV, the schedule, and a refusal in words. Screenshots
// at 1280x800 and 390x844 in English and French under test-artifacts/dashboard/.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { io } from 'socket.io-client';
import { type OfflinePaymentDoc, SYNC_EVENTS, SYNC_NAMESPACE } from '@tapline/shared/sync-protocol';
import { checkLedger } from '@tapline/sync-server/ledger/check';
import { type TestServer, databaseTargets, uniqueHandle, useTestServer } from '@tapline/sync-server/testing';
import { assertAccessible } from './axe.ts';
import { launchChromium, trackedPage, waitForExpression } from './browser.ts';
import { DASHBOARD_DIR, LAPTOP, dashboardOwner, openPage, prepareDashboard, shoot, signIn } from './dashboard.ts';

await prepareDashboard();

const STEP_MS = 200;

async function text(locator: Locator): Promise<string> {
  return (await locator.innerText()).replace(/\s+/g, ' ').trim();
}

/** A terminal's offline tap, pushed over its sync connection as the kiosk does when it reconnects. */
async function offlineTap(s: TestServer, key: Record<string, string>, amountMinor: number): Promise<void> {
  const terminal = await s.request<{ id: string; token: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Front counter' } });
  const customer = uniqueHandle('tapper');
  await s.createWallet({ handle: customer, fund: 1000 });
  const tag = await s.request<{ tagId: string }>('POST', '/api/wearables', { headers: key, body: { handle: customer, tagType: 'ring', displayName: 'Ring' } });
  const socket = io(`${s.baseUrl}${SYNC_NAMESPACE}`, { auth: { token: `term.${terminal.body.token}` }, transports: ['websocket'], reconnection: false, forceNew: true });
  try {
    await new Promise((resolve, reject) => {
      socket.once(SYNC_EVENTS.hello, resolve);
      socket.once('connect_error', reject);
    });
    const doc: OfflinePaymentDoc = { id: randomUUID(), terminalId: terminal.body.id, kind: 'tap', tagId: tag.body.tagId, amountMinor, currency: 'NGN', description: 'Suya', capturedAt: new Date().toISOString(), status: 'queued', serverSeq: 0 };
    const answer = (await socket.timeout(60_000).emitWithAck(SYNC_EVENTS.push, { collection: 'offline_payments', rows: [{ assumedMasterState: null, newDocumentState: doc }] })) as { conflicts?: OfflinePaymentDoc[] };
    assert.equal(answer.conflicts?.[0]?.status, 'accepted', JSON.stringify(answer));
  } finally {
    socket.disconnect();
  }
}

for (const target of await databaseTargets()) {
  describe(`dashboard payouts in Chromium on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 20, env: { DASHBOARD_DIR, SANDBOX_STEP_MS: String(STEP_MS), SANDBOX_FLOAT: '0', PAYOUT_JOB_INTERVAL_MS: '0' } });
    const pageErrors: string[] = [];
    let browser: Browser;
    let page: Page;
    let key: Record<string, string>;

    before(async () => {
      browser = await launchChromium();
    });
    after(async () => {
      await browser?.close();
    });

    const tiles = async () => ({
      available: await text(page.locator('[data-available]')),
      onHold: await text(page.locator('[data-on-hold]')),
      balance: await text(page.locator('[data-balance]')),
    });
    /** Each account: its lines (type and currency, where, holder) and its buttons. */
    const accountRows = () =>
      page.locator('ul[data-accounts] li').evaluateAll((items) =>
        items.map((item) => [...[...item.querySelectorAll('.account-text > *')].map((line) => line.textContent ?? ''), item.querySelector('.account-actions')?.textContent ?? ''].map((line) => line.replace(/\s+/g, ' ').trim())),
      );

    it('a merchant paid from the pay page and by an offline tap; its owner signs in', async () => {
      const s = server();
      const merchant = await s.createMerchant({ name: 'Mama Put Kitchen' });
      key = { 'x-merchant-api-key': merchant.testKey };
      const customer = uniqueHandle('ada');
      await s.createWallet({ handle: customer, fund: 500 });
      const session = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle: customer, pin: '1234' } });
      const paid = await s.request('POST', '/api/wallet/pay', { headers: { authorization: `Bearer wallet.${session.body.token}`, 'idempotency-key': randomUUID() }, body: { to: merchant.handle, amount: 120.5 } });
      assert.equal(paid.status, 201, JSON.stringify(paid.body));
      await offlineTap(s, key, 3000);
      const email = await dashboardOwner(s, merchant);
      page = await trackedPage(browser, { viewport: LAPTOP, locale: 'en-GB', timezoneId: 'Africa/Lagos', acceptDownloads: true }, pageErrors);
      await signIn(page, s.baseUrl, email);
    });

    it('shows what is available and on hold, and adds, defaults and removes settlement accounts', async () => {
      await openPage(page, 'settlements');
      assert.equal(await text(page.locator('main h1')), 'Payouts');
      assert.equal(await text(page.locator('nav a[href="#/payouts"]')), 'Transfers', 'the POST /api/pay payouts page is Transfers');
      await page.locator('[data-available]').waitFor();
      assert.deepEqual(await tiles(), { available: 'NGN 120.50', onHold: 'NGN 30.00', balance: 'NGN 150.50' });
      assert.match(await text(page.locator('section[aria-labelledby="payout-hold"] .muted')), /last 72 hours/);
      await page.getByText('No settlement account yet').waitFor();

      // A bank account: the sandbox resolves its holder's name.
      await page.locator('input[name=account-country]').fill('NG');
      await page.locator('input[name=account-bank-code]').fill('058');
      await page.locator('input[name=account-number]').fill('0123456789');
      await page.locator('[data-add-account]').click();
      await page.locator('ul[data-accounts] li').first().waitFor();
      assert.deepEqual(await accountRows(), [['Bank account · NGN', '058 · ••••••6789', 'Sandbox Account 6789 (sandbox)', 'Default Remove']]);
      // A mobile money number, made the default, then removed: the bank account is the default again.
      await page.locator('select[name=account-type]').selectOption('mobile_money');
      await page.locator('input[name=account-phone]').fill('0803 123 4567');
      await page.locator('input[name=account-operator]').fill('MTN');
      await page.locator('input[name=account-name]').fill('Mama Put');
      await page.locator('[data-add-account]').click();
      await page.locator('ul[data-accounts] li').nth(1).waitFor();
      assert.deepEqual((await accountRows())[1], ['Mobile money · NGN', 'MTN · +234•••••••567', 'Mama Put (as typed)', 'Make default Remove']);
      await page.locator('ul[data-accounts] li').nth(1).getByRole('button', { name: 'Make default' }).click();
      await page.locator('ul[data-accounts] li').first().locator('strong', { hasText: 'Mobile money' }).waitFor();
      assert.deepEqual((await accountRows()).map((row) => [row[0], row[3]]), [['Mobile money · NGN', 'Default Remove'], ['Bank account · NGN', 'Make default Remove']]);
      await page.locator('ul[data-accounts] li').first().getByRole('button', { name: 'Remove' }).click();
      await page.locator('ul[data-accounts] li').nth(1).waitFor({ state: 'detached' });
      assert.deepEqual((await accountRows()).map((row) => [row[0], row[3]]), [['Bank account · NGN', 'Default Remove']]);
      await assertAccessible(page, 'payouts page');
    });

    it('pays out an amount, then everything available: the statement adds up; the sandbox pays them; CSV; the schedule; nothing left is said in words', async () => {
      const s = server();
      await page.locator('input[name=payout-amount]').fill('20');
      await page.locator('[data-pay-now]').click();
      await page.getByText('Payout created: NGN 20.00.').waitFor();
      const detail = page.locator('[data-detail]');
      await detail.locator('table[data-statement]').waitFor();
      const statement = await detail.locator('table[data-statement] tr').evaluateAll((rows) => rows.map((row) => [row.getAttribute('data-line'), (row.querySelector('td')?.textContent ?? '').replace(/\s+/g, ' ').trim()]));
      assert.deepEqual(statement, [['openingBalance', 'NGN 0.00'], ['sales', 'NGN 150.50'], ['onHold', '-NGN 30.00'], ['retained', '-NGN 100.50'], ['amount', 'NGN 20.00']]);
      const lines = await detail.locator('table[data-statement-lines] tbody tr').evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].map((cell) => (cell.textContent ?? '').replace(/\s+/g, ' ').trim())));
      assert.deepEqual(lines, [['Sales · offline_tap', '1', 'NGN 30.00'], ['Sales · wallet_payment', '1', 'NGN 120.50']]);
      assert.deepEqual(await tiles(), { available: 'NGN 100.50', onHold: 'NGN 30.00', balance: 'NGN 130.50' });
      await assertAccessible(page, 'payout statement');

      await page.locator('[data-pay-now]').click();
      await page.getByText('Payout created: NGN 100.50.').waitFor();
      assert.equal(await text(page.locator('[data-available]')), 'NGN 0.00');
      // The sandbox pays them (two steps, each at least STEP_MS later: on a loaded machine a run may
      // find a step not yet due, so the scheduler runs until both are paid, within a minute).
      const merchantId = (await s.db.query<{ merchant_id: string }>('SELECT merchant_id FROM merchant_payouts ORDER BY created_at DESC LIMIT 1'))[0]!.merchant_id;
      const paidCount = async () => (await s.db.query<{ id: string }>(`SELECT mp.id FROM merchant_payouts mp JOIN payments p ON p.id = mp.payment_id WHERE mp.merchant_id = $1 AND p.status = 'completed'`, [merchantId])).length;
      for (const deadline = Date.now() + 60_000; (await paidCount()) < 2; ) {
        assert.ok(Date.now() < deadline, 'the sandbox paid both payouts within a minute');
        await new Promise((resolve) => setTimeout(resolve, STEP_MS + 50));
        await s.context.payments.runOnce();
      }
      // The list, filtered on paid, shows both (waiting for the filtered answer, not the list of
      // two pending payouts that was on the page before the filter).
      await page.locator('select[name=status]').selectOption('paid');
      await waitForExpression(page, `(() => {
        const cells = [...document.querySelectorAll('main table.list tbody tr[data-row] td:nth-child(2)')].map((td) => (td.textContent ?? '').trim());
        return cells.length === 2 && cells.every((cell) => cell === 'Paid');
      })()`);
      await page.locator('.pager span').filter({ hasText: '1–2 of 2' }).waitFor();
      const rows = await page.locator('main table.list tbody tr[data-row]').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 2).map((td) => (td.textContent ?? '').replace(/\s+/g, ' ').trim())));
      assert.deepEqual(rows, [['NGN 100.50', 'Paid'], ['NGN 20.00', 'Paid']]);
      await page.locator('main table.list tbody tr[data-row]').first().locator('button').click();
      await page.locator('[data-detail] h2').filter({ hasText: 'Payout · po_' }).waitFor();
      // The detail of the payout made first may still be open (pending, as it was made): wait for
      // the clicked row's own, read from the server, not for any detail.
      await waitForExpression(page, `(() => {
        const facts = Object.fromEntries([...document.querySelectorAll('[data-detail] dl.facts > div')].map((pair) => [pair.querySelector('dt')?.textContent, (pair.querySelector('dd')?.textContent ?? '').replace(/\\s+/g, ' ')]));
        return facts.Status === 'Paid' && facts.Amount === 'NGN 100.50';
      })()`);
      const facts = Object.fromEntries(await page.locator('[data-detail] dl.facts > div').evaluateAll((pairs) => pairs.map((pair) => [pair.querySelector('dt')?.textContent, pair.querySelector('dd')?.textContent?.replace(/\s+/g, ' ')])));
      assert.deepEqual([facts.Status, facts.Amount, facts.Account, facts.Made, facts.Provider], ['Paid', 'NGN 100.50', 'Sandbox Account 6789 · 058 · ••••••6789', 'On demand', 'sandbox']);

      const [csvFile] = await Promise.all([page.waitForEvent('download'), page.locator('[data-export]').click()]);
      assert.equal(csvFile.suggestedFilename(), 'payouts-paid.csv');
      const csv = readFileSync(await csvFile.path(), 'utf8').split('\r\n').filter(Boolean).map((line) => line.slice(1, -1).split('","'));
      assert.deepEqual(csv[0]!.slice(0, 9), ['id', 'createdAt', 'status', 'trigger', 'amount', 'currency', 'accountType', 'accountName', 'account']);
      assert.deepEqual(csv.slice(1).map((row) => [row[2], row[4], row[8], row[14], row[19], row[20]]), [['paid', '100.5', '••••••6789', '0', '-30', '0'], ['paid', '20', '••••••6789', '150.5', '-30', '-100.5']]);

      await page.locator('select[name=payout-schedule]').selectOption('weekly');
      await page.locator('input[name=payout-minimum]').fill('50');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Saved.').waitFor();
      const settings = await s.request<{ schedule: string; minimumAmount: number }>('GET', '/api/merchant/payout-settings', { headers: key });
      assert.deepEqual([settings.body.schedule, settings.body.minimumAmount], ['weekly', 50]);

      await page.locator('[data-pay-now]').click();
      assert.equal(await text(page.locator('main p.error[role=alert]')), 'Nothing is available to pay out now.');
      await page.locator('[data-detail] button', { hasText: 'Close' }).click();
      await page.locator('main table.list tbody tr[data-row]').first().locator('button').click();
      await page.locator('[data-detail] table[data-statement]').waitFor();
      await shoot(page, target.name, 'payouts-en', ['1280x800', '390x844']);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('speaks French', async () => {
      await page.locator('header select').selectOption('fr');
      await page.getByRole('heading', { name: 'Versements', level: 1 }).waitFor();
      assert.equal(await text(page.locator('[data-available]')), '0,00 NGN');
      assert.equal(await text(page.locator('#accounts-heading')), 'Comptes de versement');
      assert.equal(await text(page.locator('[data-detail] tr[data-line=amount] th')), 'Versé');
      await assertAccessible(page, 'payouts page in French');
      await shoot(page, target.name, 'payouts-fr', ['1280x800', '390x844']);
      await page.locator('header select').selectOption('en');
      assert.deepEqual(pageErrors, []);
    });
  });
}
