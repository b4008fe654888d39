// The dashboard's money lists in Chromium against a real server on each database: POS sessions,
// offline payments (accepted and declined, pushed by a terminal over socket.io), payment links,
// bills, payroll runs and subscriptions, each made through the API, then read in the pages: the
// values, a filter, the server's paging (more rows than a page), a detail with its timeline;
// axe-core on each page; screenshots at 1366x768 and 1024x768 under test-artifacts/dashboard/.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { type Socket, io } from 'socket.io-client';
import { SYNC_EVENTS, SYNC_NAMESPACE } from '@tapline/shared/sync-protocol';
import { databaseTargets, uniqueHandle, useTestServer } from '@tapline/sync-server/testing';
import { assertAccessible } from './axe.ts';
import { launchChromium, trackedPage } from './browser.ts';
import { DASHBOARD_DIR, DESKTOP, dashboardUser, openPage, prepareDashboard, shoot, signIn } from './dashboard.ts';

await prepareDashboard();

/** More than the pages' 20 rows: every list has a second page. */
const MANY = 21;
/** More than a link's detail shows at once (10): its payments have a second page. */
const LINK_PAYMENTS = 11;

/** An element's text with its white space (money's no-break spaces, line breaks) made plain. */
async function text(locator: Locator): Promise<string> {
  return (await locator.innerText()).replace(/\s+/g, ' ').trim();
}

for (const target of await databaseTargets()) {
  describe(`dashboard money lists in Chromium on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 20, env: { DASHBOARD_DIR } });
    const pageErrors: string[] = [];
    const sockets: Socket[] = [];
    let browser: Browser;
    let page: Page;
    let merchant: { id: string; handle: string; testKey: string };
    let key: Record<string, string>;
    const made = { declinedIds: [] as string[], saleId: '', acceptedId: '', electricityId: '', failedBillId: '', runId: '', proSubscriptionId: '', paidLinkId: '', linkPaymentIds: [] as string[], frontCounter: '', ada: '', bisi: '' };

    before(async () => {
      browser = await launchChromium();
    });
    after(async () => {
      for (const socket of sockets) socket.disconnect();
      await browser?.close();
    });

    async function rows(): Promise<number> {
      return page.locator('main > .table-scroll > table.list > tbody > tr[data-row]').count();
    }

    /** The list after a change: waits until the pager says `expected` ("1–20 of 22"). */
    async function pagerSays(expected: string, within: Locator | Page = page): Promise<void> {
      const pager = within.locator('.pager span').first();
      await pager.filter({ hasText: expected }).waitFor();
      assert.equal(await text(pager), expected);
    }

    async function terminal(name: string): Promise<{ id: string; token: string }> {
      const created = await server().request<{ id: string; token: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      return created.body;
    }

    async function customer(fund: number): Promise<{ handle: string; tagId: string; wallet: Record<string, string> }> {
      const handle = uniqueHandle('cust');
      await server().createWallet({ handle, fund });
      const tag = await server().request<{ tagId: string }>('POST', '/api/wearables', { headers: key, body: { handle, tagType: 'ring', displayName: 'Ring' } });
      assert.equal(tag.status, 201, JSON.stringify(tag.body));
      const session = await server().request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle, pin: '1234' } });
      assert.equal(session.status, 201, JSON.stringify(session.body));
      return { handle, tagId: tag.body.tagId, wallet: { authorization: `Bearer wallet.${session.body.token}` } };
    }

    it('makes the records through the API and signs the owner in', async () => {
      const s = server();
      merchant = await s.createMerchant({ name: 'Mama Put Kitchen' });
      key = { 'x-merchant-api-key': merchant.testKey };
      const front = await terminal('Front counter');
      await terminal('Back bar');
      made.frontCounter = front.id;
      const ada = await customer(20_000);
      const bisi = await customer(100);
      made.ada = `@${ada.handle}`;
      made.bisi = `@${bisi.handle}`;
      const till = { authorization: `Bearer term.${front.token}` };

      // A sale with its lines, opened by the front counter, paid by Ada's ring; then plain requests.
      const sale = await s.request<{ sessionId: string }>('POST', '/api/pos/sessions', {
        headers: till,
        body: { amount: 3500, currency: 'NGN', description: 'Lunch', items: [{ name: 'Jollof rice', quantity: 2, unitPrice: 1500 }, { name: 'Zobo', quantity: 1, unitPrice: 500 }] },
      });
      assert.equal(sale.status, 201, JSON.stringify(sale.body));
      const tapped = await s.request('POST', `/api/pos/sessions/${sale.body.sessionId}/tap`, { headers: till, body: { tagId: ada.tagId } });
      assert.equal(tapped.body.status, 'completed', JSON.stringify(tapped.body));
      made.saleId = sale.body.sessionId;
      for (let index = 0; index < MANY; index++) {
        const opened = await s.request('POST', '/api/pos/sessions', { headers: key, body: { amount: 100 + index, currency: 'NGN', description: `Request ${index}` } });
        assert.equal(opened.status, 201);
      }

      // Offline: the front counter pushes Bisi's taps; her 100 NGN pay the first, the others are declined.
      const socket = io(`${s.baseUrl}${SYNC_NAMESPACE}`, { auth: { token: `term.${front.token}` }, transports: ['websocket'], reconnection: false, forceNew: true });
      sockets.push(socket);
      await new Promise<void>((resolve, reject) => {
        socket.once(SYNC_EVENTS.hello, () => resolve());
        socket.once('connect_error', reject);
      });
      const captured = Date.now() - 60_000;
      const docs = Array.from({ length: MANY + 1 }, (_, index) => ({
        id: randomUUID(), terminalId: front.id, kind: 'tap', tagId: bisi.tagId, amountMinor: 6_000, currency: 'NGN', description: `Suya ${index}`,
        capturedAt: new Date(captured + index * 1000).toISOString(), status: 'queued', serverSeq: 0,
      }));
      const pushed = await socket.timeout(60_000).emitWithAck(SYNC_EVENTS.push, { collection: 'offline_payments', rows: docs.map((doc) => ({ assumedMasterState: null, newDocumentState: doc })) }) as { conflicts: { status: string; declineCode?: string }[] };
      assert.deepEqual(pushed.conflicts.map((doc) => doc.status), ['accepted', ...Array<string>(MANY).fill('declined')]);
      assert.equal(pushed.conflicts[1]?.declineCode, 'insufficient_funds');
      made.acceptedId = docs[0]!.id;
      made.declinedIds = docs.slice(1).map((doc) => doc.id);

      // Payment links: one paid by Ada, more times than its detail shows at once.
      for (let index = 0; index < MANY; index++) {
        const link = await s.request<{ id: string }>('POST', '/api/payment-links', { headers: key, body: { amount: 1000 + index, currency: 'NGN', description: `Link ${index}` } });
        assert.equal(link.status, 201);
        if (index === 0) made.paidLinkId = link.body.id;
      }
      for (let index = 0; index < LINK_PAYMENTS; index++) {
        const linkPaid = await s.request<{ paymentId: string }>('POST', `/api/payment-links/${made.paidLinkId}/pay`, { body: { handle: ada.handle, pin: '1234' } });
        assert.equal(linkPaid.status, 200, JSON.stringify(linkPaid.body));
        made.linkPaymentIds.unshift(linkPaid.body.paymentId);
      }

      // Bills: airtime, one refused by the biller, prepaid electricity with its token.
      for (let index = 0; index < MANY; index++) {
        const bill = await s.request('POST', '/api/bills/pay', { headers: key, body: { billType: 'airtime', billerId: 'mtn-ng-airtime', accountRef: '08031234567', amount: 100 + index } });
        assert.equal(bill.status, 201);
      }
      const failedBill = await s.request<{ id: string }>('POST', '/api/bills/pay', { headers: key, body: { billType: 'airtime', billerId: 'mtn-ng-airtime', accountRef: '08031234567', amount: 999, reference: 'test_failure' } });
      made.failedBillId = failedBill.body.id;
      const power = await s.request<{ id: string; token: string }>('POST', '/api/bills/pay', { headers: key, body: { billType: 'electricity', billerId: 'ikedc-prepaid', accountRef: '45012345678', amount: 5000 } });
      assert.equal(power.status, 201);
      made.electricityId = power.body.id;

      // Payroll: a run that pays Ada and fails a bank payout; then drafts.
      const run = await s.request<{ id: string }>('POST', '/api/payroll/runs', {
        headers: key,
        body: {
          currency: 'NGN', description: 'November wages',
          items: [
            { handle: ada.handle, amount: 100 },
            { rail: 'bank_transfer', receiver: { accountNumber: '0123456789', bankCode: '058' }, receiverName: 'Chidi Okafor', toCode: 'NG', amount: 500, reference: 'test_failure' },
          ],
        },
      });
      assert.equal(run.status, 201, JSON.stringify(run.body));
      const submitted = await s.request('POST', `/api/payroll/runs/${run.body.id}/submit`, { headers: key });
      assert.equal(submitted.body.status, 'partially_failed', JSON.stringify(submitted.body));
      made.runId = run.body.id;
      for (let index = 1; index < MANY; index++) {
        assert.equal((await s.request('POST', '/api/payroll/runs', { headers: key, body: { currency: 'NGN', description: `Draft ${index}` } })).status, 201);
      }

      // Subscriptions: Ada on Pro; Chioma subscribes to Basic and cancels, twenty times.
      const pro = await s.request<{ id: string }>('POST', '/api/merchant/subscription-plans', { headers: key, body: { name: 'Pro', price: 1500, currency: 'NGN' } });
      const basic = await s.request<{ id: string }>('POST', '/api/merchant/subscription-plans', { headers: key, body: { name: 'Basic', price: 200, currency: 'NGN' } });
      const subscription = await s.request<{ id: string }>('POST', '/api/subscriptions', { headers: ada.wallet, body: { planId: pro.body.id } });
      assert.equal(subscription.status, 201, JSON.stringify(subscription.body));
      made.proSubscriptionId = subscription.body.id;
      const chioma = await customer(10_000);
      for (let index = 1; index < MANY; index++) {
        const basicOne = await s.request<{ id: string }>('POST', '/api/subscriptions', { headers: chioma.wallet, body: { planId: basic.body.id } });
        assert.equal(basicOne.status, 201, JSON.stringify(basicOne.body));
        const cancelled = await s.request('POST', `/api/subscriptions/${basicOne.body.id}/cancel`, { headers: key, body: { atPeriodEnd: false } });
        assert.equal(cancelled.body.status, 'cancelled');
      }

      const email = `owner.${uniqueHandle('o')}@example.com`;
      await dashboardUser(s, merchant, email);
      page = await trackedPage(browser, { viewport: DESKTOP, locale: 'en-GB', timezoneId: 'Africa/Lagos' }, pageErrors);
      await signIn(page, s.baseUrl, email);
    });

    it('POS sessions: status and terminal filters, paging, a sale\'s items and timeline', async () => {
      await openPage(page, 'posSessions');
      await pagerSays('1–20 of 22');
      assert.equal(await rows(), 20);
      await page.getByRole('button', { name: 'Next' }).click();
      await pagerSays('21–22 of 22');
      assert.equal(await rows(), 2);

      await page.locator('select[name=terminal]').selectOption({ label: 'Front counter' });
      await pagerSays('1–1 of 1');
      const sale = page.locator(`tr[data-row="${made.saleId}"]`);
      assert.equal(await text(sale.locator('td').nth(1)), 'Completed');
      assert.equal(await text(sale.locator('td').nth(2)), 'NGN 3,500.00');
      assert.equal(await text(sale.locator('td').nth(4)), 'Front counter');
      assert.equal(await text(sale.locator('td').nth(5)), made.ada);
      await page.locator('select[name=terminal]').selectOption('');
      await page.locator('select[name=status]').selectOption('completed');
      await pagerSays('1–1 of 1');
      await page.locator('select[name=status]').selectOption('pending');
      await pagerSays('1–20 of 21');

      await page.locator('select[name=status]').selectOption('completed');
      await pagerSays('1–1 of 1');
      await sale.getByRole('button').click();
      const detail = page.locator('[data-detail]');
      await detail.waitFor();
      assert.deepEqual(await detail.locator('[data-items] tbody tr td:first-child').allInnerTexts(), ['Jollof rice', 'Zobo']);
      assert.equal(await text(detail.locator('[data-items] [data-total]')), 'NGN 3,500.00');
      const timeline = await detail.locator('[data-timeline] li strong').allInnerTexts();
      assert.deepEqual(timeline, ['Opened', 'Completed']);
      assert.equal(await page.evaluate('document.activeElement?.tagName'), 'H2', 'focus moves to the opened record');
      await assertAccessible(page, 'POS sessions');
      await shoot(page, target.name, 'pos-sessions', ['1366x768', '1024x768', '390x844']);
    });

    it('offline payments: the verdict and the decline reason in words, filters, paging, a payment\'s timeline', async () => {
      await openPage(page, 'offlinePayments');
      await pagerSays('1–20 of 22');
      await page.locator('select[name=verdict]').selectOption('declined');
      await pagerSays('1–20 of 21');
      const reasons = await page.locator('[data-reason]').allInnerTexts();
      assert.equal(reasons.length, 20);
      assert.ok(reasons.every((reason) => reason === 'There is not enough money in the wallet.'), reasons.join('|'));
      const order = await page.locator('main > .table-scroll > table.list > tbody > tr[data-row]').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-row')));
      assert.deepEqual(order, made.declinedIds.toReversed().slice(0, 20), 'one push: the last taken first');
      await page.getByRole('button', { name: 'Next' }).click();
      await pagerSays('21–21 of 21');
      await page.locator('select[name=verdict]').selectOption('accepted');
      await pagerSays('1–1 of 1');
      const accepted = page.locator(`tr[data-row="${made.acceptedId}"]`);
      assert.equal(await text(accepted.locator('td').nth(1)), 'Accepted');
      assert.equal(await text(accepted.locator('td').nth(2)), 'NGN 60.00');
      assert.equal(await text(accepted.locator('td').nth(3)), 'Front counter');
      assert.equal(await text(accepted.locator('td').nth(4)), made.bisi);
      assert.equal(await accepted.locator('[data-reason]').count(), 0, 'an accepted payment has no reason');
      await page.locator('select[name=terminal]').selectOption({ label: 'Back bar' });
      await pagerSays('0–0 of 0');
      await page.locator('select[name=terminal]').selectOption({ label: 'Front counter' });
      await pagerSays('1–1 of 1');
      await accepted.getByRole('button').click();
      const detail = page.locator('[data-detail]');
      await detail.waitFor();
      assert.deepEqual(await detail.locator('[data-timeline] li strong').allInnerTexts(), ['Taken', 'Received by the server', 'Accepted']);

      await page.locator('select[name=verdict]').selectOption('declined');
      await pagerSays('1–20 of 21');
      await page.locator('main > .table-scroll > table.list tbody tr[data-row] button').first().click();
      await detail.locator('[data-timeline] li.declined').waitFor();
      assert.match(await text(detail.locator('[data-timeline] li.declined')), /^Declined · .+ · There is not enough money in the wallet\.$/);
      await assertAccessible(page, 'offline payments');
      await shoot(page, target.name, 'offline-payments');

      // In French: the verdict and its reason in the catalogue's words, the longer words still fit.
      await page.locator('header select').selectOption('fr');
      await page.locator('main h1').filter({ hasText: 'Paiements hors ligne' }).waitFor();
      assert.match(await text(detail.locator('[data-timeline] li.declined')), /^Refusé · .+ · Le portefeuille n'a pas assez d'argent\.$/);
      assert.equal(await text(page.locator('main > .table-scroll > table.list > tbody > tr[data-row] [data-reason]').first()), 'Le portefeuille n\'a pas assez d\'argent.');
      await shoot(page, target.name, 'offline-payments-fr');
      await page.locator('header select').selectOption('en');
      await page.locator('main h1').filter({ hasText: 'Offline payments' }).waitFor();
    });

    it('payment links: creates one in the page, deactivates it, filters, pages, a link\'s timeline and its payments, paged', async () => {
      await openPage(page, 'paymentLinks');
      await pagerSays('1–20 of 21');
      await page.locator('input[name=link-description]').fill('Birthday cake');
      await page.locator('input[name=link-single-use]').check();
      await page.getByRole('button', { name: 'Create a link' }).click();
      await page.locator('[data-created-link] a').waitFor();
      const url = await page.locator('[data-created-link] a').innerText();
      assert.match(url, /\/pay\/link\/plink_/);
      await pagerSays('1–20 of 22');
      const cake = page.locator('main > .table-scroll > table.list tbody tr[data-row]').first();
      assert.equal(await text(cake.locator('td').first()), 'Birthday cake');
      assert.equal(await text(cake.locator('td').nth(2)), 'The payer chooses');
      const id = String(await cake.getAttribute('data-row'));
      const created = await server().request<{ singleUse: boolean; amount: number | null; url: string }>('GET', `/api/payment-links/${id}`, { headers: key });
      assert.deepEqual([created.body.singleUse, created.body.amount, created.body.url], [true, null, url]);

      await cake.getByRole('button', { name: 'Birthday cake' }).click();
      const linkPayments = page.locator('[data-detail] table[data-list="link-payments"]');
      await linkPayments.locator('tbody td.muted').waitFor();
      assert.equal(await text(linkPayments.locator('tbody')), 'No payment through this link yet.');
      await page.locator('[data-detail]').getByRole('button', { name: 'Deactivate' }).click();
      await page.locator(`tr[data-row="${id}"] [data-status=inactive]`).waitFor();
      assert.equal(await page.locator('[data-detail]').getByRole('button', { name: 'Deactivate' }).count(), 0, 'nothing left to deactivate');
      assert.equal((await server().request('GET', `/api/payment-links/${id}`, { headers: key })).body.active, false);
      await page.locator('select[name=active]').selectOption('false');
      await pagerSays('1–1 of 1');
      await page.locator('select[name=active]').selectOption('true');
      await pagerSays('1–20 of 21');
      // Two pagers on the page, told apart by their names: the links' and the open link's payments'.
      const pagers = await page.getByRole('navigation').filter({ has: page.getByRole('button', { name: 'Next' }) }).evaluateAll((navs) => navs.map((nav) => nav.getAttribute('aria-label')));
      assert.deepEqual(pagers, ['Pages: Payment links', 'Pages: Payments received']);
      await page.getByRole('navigation', { name: 'Pages: Payment links' }).getByRole('button', { name: 'Next' }).click();
      await pagerSays('21–21 of 21');
      const paid = page.locator(`tr[data-row="${made.paidLinkId}"]`);
      assert.equal(await text(paid.locator('td').nth(3)), String(LINK_PAYMENTS));
      assert.equal(await text(paid.locator('td').nth(4)), 'NGN 11,000.00');
      await paid.getByRole('button', { name: 'Link 0' }).click();
      await page.locator('[data-detail] h2').filter({ hasText: 'Link 0' }).waitFor();
      const detail = page.locator('[data-detail]');
      await detail.waitFor();
      assert.match(await detail.locator('[data-link-url]').innerText(), new RegExp(`/pay/link/${made.paidLinkId}$`));
      assert.deepEqual(await detail.locator('[data-timeline] li strong').allInnerTexts(), ['Created']);

      // The link's payments (GET /api/payments?paymentLinkId=), newest first, ten to a page.
      await pagerSays('1–10 of 11', detail);
      const paymentRows = linkPayments.locator('tbody tr[data-row]');
      assert.deepEqual(await paymentRows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-row'))), made.linkPaymentIds.slice(0, 10));
      assert.deepEqual(await linkPayments.locator('thead th').allInnerTexts(), ['Paid on', 'Paid by', 'Amount', 'Fee', 'After fees']);
      const cells = (await paymentRows.first().locator('td').allInnerTexts()).map((cell) => cell.replace(/\s+/g, ' ').trim());
      assert.deepEqual(cells.slice(1), [made.ada.slice(1), 'NGN 1,000.00', 'NGN 15.00', 'NGN 985.00']);
      assert.match(cells[0]!, /\d{4}|\d{2}:\d{2}/, 'when it was paid');
      await assertAccessible(page, 'payment links');
      await shoot(page, target.name, 'payment-links', ['1366x768', '1024x768', '390x844']);
      await detail.getByRole('button', { name: 'Next' }).click();
      await pagerSays('11–11 of 11', detail);
      assert.deepEqual(await paymentRows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-row'))), made.linkPaymentIds.slice(10));
      await pagerSays('21–21 of 21');

      // The link's payments as a CSV file: all eleven, not the page on screen.
      const [csvFile] = await Promise.all([page.waitForEvent('download'), detail.getByRole('button', { name: 'Export to CSV' }).click()]);
      assert.equal(csvFile.suggestedFilename(), `payment-link-${made.paidLinkId}-payments.csv`);
      const csv = readFileSync(await csvFile.path(), 'utf8').split('\r\n').filter(Boolean).map((line) => line.slice(1, -1).split('","'));
      assert.deepEqual(csv[0], ['id', 'status', 'amount', 'currency', 'fee', 'rail', 'receiver', 'payer', 'paymentLinkId', 'reference', 'createdAt']);
      assert.deepEqual(csv.slice(1).map((row) => row[0]), made.linkPaymentIds);
      assert.deepEqual([...new Set(csv.slice(1).map((row) => [row[1], row[2], row[3], row[4], row[8]].join(' ')))], [`completed 1000 NGN 15 ${made.paidLinkId}`]);
    });

    it('bills: status and type filters, paging, a prepaid token and a refusal in the details', async () => {
      await openPage(page, 'bills');
      await pagerSays('1–20 of 23');
      await page.getByRole('button', { name: 'Next' }).click();
      await pagerSays('21–23 of 23');
      await page.locator('select[name=status]').selectOption('failed');
      await pagerSays('1–1 of 1');
      const failed = page.locator(`tr[data-row="${made.failedBillId}"]`);
      assert.equal(await text(failed.locator('td').nth(3)), 'NGN 999.00');
      await failed.getByRole('button').click();
      const detail = page.locator('[data-detail]');
      await detail.locator('[data-timeline] li.failed').waitFor();
      assert.match(await text(detail.locator('[data-timeline] li.failed')), /^Failed · .+ · The biller refused the payment/);

      await page.locator('select[name=status]').selectOption('');
      await page.locator('select[name=bill-type]').selectOption('electricity');
      await pagerSays('1–1 of 1');
      await page.locator(`tr[data-row="${made.electricityId}"]`).getByRole('button').click();
      await detail.getByText('Units (kWh)').waitFor();
      const facts = await text(detail.locator('dl.facts'));
      assert.match(facts, /Token \d{4}-\d{4}-\d{4}-\d{4}-\d{4}/);
      assert.match(facts, /Amount NGN 5,000\.00/);
      await assertAccessible(page, 'bills');
      await shoot(page, target.name, 'bills');
    });

    it('payroll runs: a status filter, paging, a run with its items\' statuses and its timeline', async () => {
      await openPage(page, 'payroll');
      await pagerSays('1–20 of 21');
      await page.getByRole('button', { name: 'Next' }).click();
      await pagerSays('21–21 of 21');
      await page.locator('select[name=status]').selectOption('draft');
      await pagerSays('1–20 of 20');
      await page.locator('select[name=status]').selectOption('partially_failed');
      await pagerSays('1–1 of 1');
      const run = page.locator(`tr[data-row="${made.runId}"]`);
      assert.equal(await text(run.locator('td').nth(1)), 'Partly failed');
      assert.equal(await text(run.locator('td').nth(2)), '2');
      assert.equal(await text(run.locator('td').nth(3)), 'NGN 600.00');
      assert.equal(await text(run.locator('td').nth(4)), 'NGN 100.00');
      await run.getByRole('button', { name: 'November wages' }).click();
      const detail = page.locator('[data-detail]');
      await detail.locator('[data-list=items] tbody tr[data-row]').nth(1).waitFor();
      const items = await detail.locator('[data-list=items] tbody tr[data-row]').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 3).map((td) => td.textContent?.trim())));
      assert.deepEqual(items, [[made.ada, 'Tapline wallet', 'Paid'], ['Chidi Okafor', 'Bank transfer', 'Failed']]);
      assert.deepEqual(await detail.locator('[data-timeline] li strong').allInnerTexts(), ['Created', 'Submitted', 'Partly failed']);
      await detail.locator('select[name=item-status]').selectOption('failed');
      await pagerSays('1–1 of 1', detail);
      await assertAccessible(page, 'payroll');
      await shoot(page, target.name, 'payroll');
    });

    it('subscriptions: status and plan filters, paging, the charges\' timeline', async () => {
      await openPage(page, 'subscriptions');
      await pagerSays('1–20 of 21');
      await page.getByRole('button', { name: 'Next' }).click();
      await pagerSays('21–21 of 21');
      await page.locator('select[name=status]').selectOption('cancelled');
      await pagerSays('1–20 of 20');
      await page.locator('select[name=status]').selectOption('');
      await page.locator('select[name=plan]').selectOption({ label: 'Pro' });
      await pagerSays('1–1 of 1');
      const pro = page.locator(`tr[data-row="${made.proSubscriptionId}"]`);
      assert.equal(await text(pro.locator('td').nth(1)), 'Pro');
      assert.equal(await text(pro.locator('td').nth(2)), 'Active');
      assert.equal(await text(pro.locator('td').nth(3)), 'NGN 1,500.00');
      await pro.getByRole('button', { name: made.ada }).click();
      const detail = page.locator('[data-detail]');
      await detail.locator('[data-timeline] li').nth(1).waitFor();
      const charges = await detail.locator('[data-timeline] li strong').allInnerTexts();
      assert.deepEqual(charges.map((line) => line.replace(/\s+/g, ' ')), ['Subscribed', 'Period 1: NGN 1,500.00 · Paid']);

      await page.locator('select[name=plan]').selectOption({ label: 'Basic' });
      await pagerSays('1–20 of 20');
      await page.locator('main > .table-scroll > table.list tbody tr[data-row] button').first().click();
      await detail.locator('[data-timeline] li.cancelled').waitFor();
      assert.match(await text(detail.locator('[data-timeline] li.cancelled')), /^Cancelled · .+ · Cancelled on request$/);
      await assertAccessible(page, 'subscriptions');
      await shoot(page, target.name, 'subscriptions');
    });

    it('a viewer reads the lists but gets no payment-link form nor deactivate button', async () => {
      const email = `viewer.${uniqueHandle('v')}@example.com`;
      await dashboardUser(server(), merchant, email, 'viewer');
      const viewer = await trackedPage(browser, { viewport: DESKTOP, locale: 'en-GB' }, pageErrors);
      await signIn(viewer, server().baseUrl, email);
      await openPage(viewer, 'paymentLinks');
      await viewer.locator('.pager span').filter({ hasText: '1–20 of 22' }).waitFor();
      assert.equal(await viewer.locator('input[name=link-amount]').count(), 0);
      await viewer.getByRole('button', { name: 'Link 20' }).click();
      await viewer.locator('[data-detail] [data-status], [data-detail] dl.facts').first().waitFor();
      assert.match(await text(viewer.locator('[data-detail] dl.facts')), /^Status Active/, 'an active link: the owner would see Deactivate');
      assert.equal(await viewer.getByRole('button', { name: 'Deactivate' }).count(), 0);
      await viewer.context().close();
      assert.deepEqual(pageErrors, []);
    });
  });
}
