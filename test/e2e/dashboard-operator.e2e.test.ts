// The operator's pages of the dashboard (#/operator/...: whoever holds the admin token), in Chromium
// against a real server on each database, with live payouts made through the Paystack fake over
// real HTTP: a day's payouts reconciled from the page with a mismatch of each kind the provider's
// list shows (the provider paid one we show failed, we show one paid the provider never saw, an
// amount that differs), a clean day, and a payout whose callback was lost, still processing 30
// hours later (the server's clock is injected), listed for attention with its timeline. A merchant
// signed in to the dashboard reaches neither: the pages ask for the admin token and the API refuses
// the session (401) and the merchant's key (403). The token is kept in sessionStorage only.
// Screenshots at 1280x800 and 390x844 in English and French (test-artifacts/dashboard/
// <database>-operator-*.png), axe-core on each page.
//
// The fake dates its transfers by the real clock, the server by the injected one: skipped within
// 15 minutes of midnight UTC, as test/rails/reconciliation.test.ts.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import type { BuildAppOptions } from '@tapline/sync-server/app';
import { ADMIN, ManualClock, TEST_ADMIN_TOKEN, type TestServer, databaseTargets, freePort, until, useTestServer } from '@tapline/sync-server/testing';
import { PROVIDERS, type RunningFake, type ScenarioName } from '../rails/providers.ts';
import { assertAccessible } from './axe.ts';
import { launchChromium, trackedPage } from './browser.ts';
import { DASHBOARD_DIR, LAPTOP, dashboardOwner, prepareDashboard, shoot, signIn } from './dashboard.ts';

await prepareDashboard();

const DAY_MS = 24 * 3_600_000;
const HOUR_MS = 3_600_000;
const untilMidnight = DAY_MS - (Date.now() % DAY_MS);
const skip = untilMidnight < 15 * 60_000 ? 'within 15 minutes of midnight UTC: the fake and the server could date the payouts on different days' : false;
const paystack = PROVIDERS.find((provider) => provider.name === 'paystack')!;
type BillerProvider = NonNullable<BuildAppOptions['billerProviders']>[number];

async function text(locator: Locator): Promise<string> {
  return (await locator.innerText()).replace(/\s+/g, ' ').trim();
}

for (const target of await databaseTargets()) {
  const port = await freePort();
  describe(`dashboard operator pages in Chromium on ${target.name}`, { skip }, () => {
    const publicBaseUrl = `http://127.0.0.1:${port}`;
    const started = Date.now();
    const clock = new ManualClock(started);
    const day = new Date(started).toISOString().slice(0, 10);
    const dayEnd = Date.parse(`${day}T00:00:00.000Z`) + DAY_MS;
    const dayBefore = new Date(dayEnd - 2 * DAY_MS).toISOString().slice(0, 10);
    let fake: RunningFake;
    const env: Record<string, string> = {};
    before(async () => {
      fake = await paystack.start(publicBaseUrl, 0.05);
      Object.assign(env, fake.env);
    });
    // A live bill payer under Paystack's name (the Paystack fake pays no bills): it pays every
    // Nigerian bill at once and answers the reconciliation from what it paid, so a bill we mark
    // failed is a bill mismatch on Paystack's day (the real Flutterwave path: test/rails/reconciliation-bills.test.ts).
    const billsPaid = new Map<string, { amount: number; currency: string }>();
    const biller: BillerProvider = {
      name: 'paystack',
      supports: (candidate) => candidate.country === 'NG',
      async pay(request) {
        billsPaid.set(request.billId, { amount: request.amount, currency: request.biller.currency });
        return { status: 'completed', providerReference: `BPAY-${billsPaid.size}` };
      },
      async billRecord(question) {
        const paid = billsPaid.get(question.billId);
        return paid ? { status: 'completed', providerReference: 'BPAY-1', paid } : undefined;
      },
    };
    const server = useTestServer(target, {
      port,
      now: clock.now,
      rateLimitScale: 20,
      env: { DASHBOARD_DIR, PUBLIC_BASE_URL: publicBaseUrl, RAIL_ROUTES: 'bank_transfer:NG=paystack', RAIL_TIMEOUT_MS: '500' },
      app: { providerEnv: env, billerProviders: [biller] },
    });
    const pageErrors: string[] = [];
    let browser: Browser;
    let page: Page;
    let merchant: Awaited<ReturnType<TestServer['createMerchant']>>;
    const ids = { paid: '', amount: '', markedFailed: '', ghost: '', stuck: '', bill: '' };

    before(async () => {
      browser = await launchChromium();
    });
    after(async () => {
      await browser?.close();
      await fake?.stop();
    });

    const pay = async (scenario: ScenarioName): Promise<string> => {
      const { rail, toCode, receiver } = paystack.scenarios[scenario];
      const created = await server().request<{ paymentId: string }>('POST', '/api/pay', {
        headers: { 'x-merchant-api-key': merchant.liveKey, 'idempotency-key': randomUUID() },
        body: { fromCode: 'NG', toCode, rail, amount: 5000, currency: 'NGN', receiver, receiverName: 'Ada Obi', senderName: 'Mama Put Kitchen' },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      return created.body.paymentId;
    };
    const status = async (id: string) => (await server().request<{ status: string }>('GET', `/api/payments/${id}`, { headers: { 'x-merchant-api-key': merchant.liveKey } })).body.status;
    const settle = (id: string) =>
      until(`${id} completed`, async () => {
        if ((await status(id)) === 'completed') return true;
        clock.advance(5 * 60_000);
        await server().context.payments.runOnce();
        return undefined;
      });

    it("pays a day's payouts through the Paystack fake, then makes our side disagree with it three ways", async () => {
      const s = server();
      merchant = await s.createMerchant({ name: 'Mama Put Kitchen' });
      const credited = await s.request('POST', `/api/admin/wallets/${merchant.handle.slice(1)}/credit`, { headers: ADMIN, body: { amount: 1_000_000, currency: 'NGN', mode: 'live' } });
      assert.equal(credited.status, 200);
      ids.paid = await pay('success');
      ids.amount = await pay('success');
      ids.markedFailed = await pay('success');
      for (const id of [ids.paid, ids.amount, ids.markedFailed]) await settle(id);
      // provider_only: the provider paid it, we show it failed; amount_differs: we show 1.00 more;
      // ours_only: a completed payout of ours the provider never saw.
      await s.db.query(`UPDATE payments SET status = 'failed' WHERE id = $1`, [ids.markedFailed]);
      await s.db.query('UPDATE payments SET destination_amount = destination_amount + 100 WHERE id = $1', [ids.amount]);
      ids.ghost = `pay_ghost${randomBytes(10).toString('hex')}`;
      await s.db.query(
        `INSERT INTO payments SELECT (jsonb_populate_record(p, jsonb_build_object('id', $2::text, 'provider_reference', null, 'next_step_at', null))).* FROM payments p WHERE p.id = $1`,
        [ids.paid, ids.ghost],
      );
      // A live bill the payer paid that we mark failed: provider_only, direction bill.
      const bill = await s.request<{ id: string; status: string }>('POST', '/api/bills/pay', {
        headers: { 'x-merchant-api-key': merchant.liveKey, 'idempotency-key': randomUUID() },
        body: { billType: 'airtime', billerId: 'mtn-ng-airtime', accountRef: '08031234567', amount: 500 },
      });
      assert.deepEqual([bill.status, bill.body.status], [201, 'completed'], JSON.stringify(bill.body));
      ids.bill = bill.body.id;
      await s.db.query(`UPDATE bill_payments SET status = 'failed' WHERE id = $1`, [ids.bill]);
      // The next morning, after RECONCILE_AFTER_HOURS.
      clock.set(dayEnd + 3 * HOUR_MS);
    });

    it('a merchant signed in to the dashboard reaches neither page: the admin token is asked for, and the API refuses the session and the key', async () => {
      const s = server();
      const email = await dashboardOwner(s, merchant);
      const merchantPage = await trackedPage(browser, { viewport: LAPTOP, locale: 'en-GB', timezoneId: 'Africa/Lagos' }, pageErrors);
      await signIn(merchantPage, s.baseUrl, email);
      assert.equal(await merchantPage.locator('a[href^="#/operator"]').count(), 0, 'no operator link in the merchant menu');
      for (const route of ['attention', 'reconciliations']) {
        await merchantPage.goto(`${s.baseUrl}/dashboard/#/operator/${route}`);
        await merchantPage.reload();
        await merchantPage.locator('main h1').waitFor();
        assert.equal(await text(merchantPage.locator('main h1')), 'Operator sign-in');
        assert.equal(await merchantPage.locator('table.list').count(), 0, `no ${route} list without the admin token`);
      }
      // The session cookie opens no admin route (401), the merchant's own key neither (403).
      const answers = await merchantPage.evaluate(async () =>
        Promise.all(['/api/admin/payments/attention', '/api/admin/rails/reconciliations'].map(async (path) => {
          const response = await fetch(path, { credentials: 'same-origin' });
          return [response.status, ((await response.json()) as { code: string }).code];
        })),
      );
      assert.deepEqual(answers, [[401, 'authentication_required'], [401, 'authentication_required']]);
      for (const path of ['/api/admin/payments/attention', '/api/admin/rails/reconciliations']) {
        const refused = await s.request<{ code: string }>('GET', path, { headers: { 'x-merchant-api-key': merchant.liveKey } });
        assert.deepEqual([refused.status, refused.body.code], [403, 'credential_not_allowed'], path);
      }
      const ran = await s.request<{ code: string }>('POST', '/api/admin/rails/reconciliations', { headers: { 'x-merchant-api-key': merchant.liveKey }, body: { provider: 'paystack', day } });
      assert.equal(ran.status, 403);
      // A wrong token is refused in words and kept nowhere.
      await merchantPage.locator('input[name=adminToken]').fill('not-the-admin-token-at-all');
      await merchantPage.getByRole('button', { name: 'Sign in as operator' }).click();
      assert.equal(await text(merchantPage.locator('main [role=alert]')), 'This is not the admin token.');
      assert.deepEqual(await merchantPage.evaluate<[string | null, boolean]>("[sessionStorage.getItem('tapline.operator.token'), JSON.stringify(localStorage).includes('admin-token')]"), [null, false]);
      await merchantPage.context().close();
    });

    it('the operator signs in with the admin token, kept in sessionStorage only; both pages say what an empty list means', async () => {
      const s = server();
      page = await trackedPage(browser, { viewport: LAPTOP, locale: 'en-GB', timezoneId: 'Africa/Lagos' }, pageErrors);
      await page.goto(`${s.baseUrl}/dashboard/#/operator`);
      await page.locator('input[name=adminToken]').fill(`admin.${TEST_ADMIN_TOKEN}`);
      await shoot(page, target.name, 'operator-signin', ['1280x800', '390x844']);
      await page.getByRole('button', { name: 'Sign in as operator' }).click();
      await page.locator('nav a[href="#/operator/attention"][aria-current="page"]').waitFor();
      // Kept for this tab only: never in localStorage nor a cookie.
      assert.equal(await page.evaluate<string | null>("sessionStorage.getItem('tapline.operator.token')"), TEST_ADMIN_TOKEN);
      assert.equal(await page.evaluate<boolean>(`JSON.stringify(localStorage).includes(${JSON.stringify(TEST_ADMIN_TOKEN)}) || document.cookie.includes(${JSON.stringify(TEST_ADMIN_TOKEN)})`), false);
      // The empty list's sentence names the hours once the page has read them: empty until then.
      const empty = page.locator('table[data-list="attention"] tbody tr td.muted').filter({ hasText: /\S/ });
      await empty.waitFor();
      assert.equal(await text(empty), 'No payout has been processing longer than 24 hours.');
      await page.locator('nav a[href="#/operator/reconciliations"]').click();
      const none = page.locator('table[data-list="reconciliations"] tbody tr td.muted').filter({ hasText: /\S/ });
      await none.waitFor();
      assert.equal(await text(none), 'No day has been reconciled yet.');
      await assertAccessible(page, 'operator reconciliations, empty');
    });

    it("reconciles the day from the page: each kind of mismatch with its amount, the provider's clearing at zero; a clean day says so", async () => {
      await page.locator('nav a[href="#/operator/reconciliations"]').click();
      await page.locator('form select[name=runProvider]').selectOption('paystack');
      await page.locator('form input[name=runDay]').fill(day);
      await page.getByRole('button', { name: 'Reconcile', exact: true }).click();
      const ran = page.locator('[data-ran]');
      await ran.waitFor();
      assert.equal(await text(ran), `paystack on ${day}: Mismatches.`);
      const row = page.locator('table[data-list="reconciliations"] tbody tr[data-row]');
      await row.first().waitFor();
      const cell = (name: string) => text(row.first().locator(`td[data-cell="${name}"]`));
      assert.deepEqual(
        { day: await cell('day'), provider: await cell('provider'), status: await cell('status'), matched: await cell('matched'), mismatched: await cell('mismatched'), ours: await cell('ourTotals'), theirs: await cell('providerTotals'), clearing: await cell('clearing') },
        // Ours completed: paid, amount (1.00 more), the ghost. The provider's: paid, amount, the one we show failed.
        { day, provider: 'paystack', status: 'Mismatches', matched: '1', mismatched: '4', ours: 'NGN 15,001.00', theirs: 'NGN 15,000.00', clearing: 'NGN 0.00 · nets to zero' },
      );
      const detail = page.locator('[data-detail]');
      await detail.waitFor();
      const kinds = await detail.locator('table[data-list="kinds"] tbody tr').evaluateAll((trs) => trs.map((tr) => [tr.getAttribute('data-kind'), ...[...tr.querySelectorAll('td')].map((td) => (td.textContent ?? '').replace(/\s+/g, ' ').trim())]));
      assert.deepEqual(kinds, [
        ['provider_only', 'The provider paid, we do not show it paid', '2', 'NGN 5,500.00'],
        ['ours_only', 'We show it paid, the provider never paid', '1', 'NGN 5,000.00'],
        ['amount_differs', 'Amounts differ', '1', 'NGN 1.00'],
      ]);
      const mismatch = (kind: string, direction = 'payout') => detail.locator(`table[data-list="mismatches"] tr[data-mismatch="${kind}"][data-direction="${direction}"]`);
      assert.deepEqual([await text(mismatch('provider_only').locator('td[data-side="ours"]')), await text(mismatch('provider_only').locator('td[data-side="theirs"]'))], ['Failed · NGN 5,000.00', 'Completed · NGN 5,000.00']);
      assert.deepEqual([await text(mismatch('ours_only').locator('td code').first()), await text(mismatch('ours_only').locator('td[data-side="theirs"]'))], [ids.ghost, 'Nothing']);
      assert.deepEqual([await text(mismatch('amount_differs').locator('td[data-side="ours"]')), await text(mismatch('amount_differs').locator('td[data-side="theirs"]'))], ['Completed · NGN 5,001.00', 'Completed · NGN 5,000.00']);
      // Each mismatch says its direction: three payouts, then the bill (collections are judged too, marked Collection).
      const directions = await detail.locator('table[data-list="mismatches"] tr[data-mismatch]').evaluateAll((trs) => trs.map((tr) => [tr.getAttribute('data-direction'), (tr.querySelector('td[data-cell="direction"]')?.textContent ?? '').trim()]));
      assert.deepEqual(directions, [['payout', 'Payout'], ['payout', 'Payout'], ['payout', 'Payout'], ['bill', 'Bill payment']]);
      assert.deepEqual(
        [await text(mismatch('provider_only', 'bill').locator('td code').first()), await text(mismatch('provider_only', 'bill').locator('td[data-side="ours"]')), await text(mismatch('provider_only', 'bill').locator('td[data-side="theirs"]'))],
        [ids.bill, 'Failed · NGN 500.00', 'Completed · NGN 500.00'],
      );
      const facts = await text(detail.locator('dl.facts'));
      assert.match(facts, /paystack's clearing for the day NGN 0\.00 · nets to zero/);
      assert.match(facts, /Collections we show completed Nothing/);
      assert.match(facts, /Bill payments we show completed Nothing Bill payments the provider confirms paid NGN 500\.00/);
      await assertAccessible(page, 'operator reconciliation with mismatches');
      await shoot(page, target.name, 'operator-reconciliations', ['1280x800', '1024x768', '800x600', '390x844']);

      // Run again from the detail: the same record, runs counted.
      await detail.getByRole('button', { name: 'Reconcile this day again' }).click();
      await until('the second run', async () => ((await text(detail.locator('dl.facts'))).includes('Runs 2') ? true : undefined));

      // The day before had no payout: a clean day, said in words.
      await page.locator('form input[name=runDay]').fill(dayBefore);
      await page.getByRole('button', { name: 'Reconcile', exact: true }).click();
      await until('the clean day', async () => ((await page.locator('[data-clean]').count()) > 0 ? true : undefined));
      assert.equal(await text(page.locator('[data-clean]')), `A clean day: every payout of paystack on ${dayBefore} agrees with the provider, and paystack's clearing for the day nets to zero.`);
      // The list is read again after the run's answer is shown: waited for, not read at once.
      await until('both days listed', async () => ((await page.locator('table[data-list="reconciliations"] tbody tr[data-row]').count()) === 2 ? true : undefined));
      assert.equal(await page.locator('table[data-list="reconciliations"] tbody tr[data-row]').count(), 2);
      // A day not over yet is refused in words.
      await page.locator('form input[name=runDay]').fill(new Date(clock.now().getTime()).toISOString().slice(0, 10));
      await page.getByRole('button', { name: 'Reconcile', exact: true }).click();
      await until('the refusal', async () => ((await page.locator('form [role=alert]').count()) > 0 ? true : undefined));
      assert.equal(await text(page.locator('form [role=alert]')), 'That day (UTC) is not over yet: a day is reconciled once it has ended.');
    });

    it('lists a payout still processing 30 hours on: merchant, rail, provider, reference, amount, age, last step, and its timeline; then both pages in French', async () => {
      const s = server();
      // The provider took it, but its callback was lost and nobody polled: processing, 30 hours on.
      ids.stuck = await pay('callback_lost');
      await until('the stuck payout processing', async () => ((await status(ids.stuck)) === 'processing' ? true : undefined));
      clock.advance(30 * HOUR_MS);
      const api = await s.request<{ data: { id: string; providerReference: string; timeline: { status: string; at: string }[] }[]; attentionHours: number }>('GET', '/api/admin/payments/attention', { headers: ADMIN });
      assert.deepEqual(api.body.data.map((payout) => payout.id), [ids.stuck]);
      const reference = api.body.data[0]!.providerReference;
      assert.ok(reference, 'the provider gave it a reference');

      await page.locator('nav a[href="#/operator/attention"]').click();
      const row = page.locator(`table[data-list="attention"] tr[data-row="${ids.stuck}"]`);
      await row.waitFor();
      const cell = (name: string) => text(row.locator(`td[data-cell="${name}"]`));
      assert.deepEqual(
        {
          id: await cell('id'), merchant: await cell('merchant'), rail: await cell('rail'), provider: await cell('provider'), providerReference: await cell('providerReference'),
          amount: await cell('amount'), age: await cell('age'), lastStep: (await cell('lastStep')).split(' ')[0],
        },
        { id: ids.stuck, merchant: 'Mama Put Kitchen', rail: 'Bank transfer', provider: 'paystack', providerReference: reference, amount: 'NGN 5,000.00', age: '1 d 6 h', lastStep: 'Processing' },
      );
      // The eight columns fit a laptop's width: nothing hidden behind a sideways scroll.
      assert.equal(await page.evaluate<number>("(() => { const box = document.querySelector('table[data-list=attention]').parentElement; return box.scrollWidth - box.clientWidth; })()"), 0);
      assert.equal(await text(page.locator('main h1 + p.muted')), 'Live payouts still open at their provider after 24 hours (RAIL_ATTENTION_HOURS). A payout is never sent twice, so it waits for the provider to say final: ask the provider what became of it.');
      await row.locator('td[data-cell="id"] button').click();
      const detail = page.locator('[data-detail]');
      await detail.waitFor();
      assert.equal(await text(detail.locator('h2')), `Payout needing attention · ${ids.stuck}`);
      const steps = await detail.locator('[data-timeline] li strong').allInnerTexts();
      assert.deepEqual(steps, api.body.data[0]!.timeline.map((entry) => (entry.status === 'pending' ? 'Pending' : entry.status === 'processing' ? 'Processing' : entry.status)));
      assert.equal(steps.at(-1), 'Processing');
      assert.match(await text(detail.locator('dl.facts')), new RegExp(`Merchant Mama Put Kitchen · ${merchant.id}.*Provider reference ${reference}`));
      await assertAccessible(page, 'operator attention');
      await shoot(page, target.name, 'operator-attention', ['1280x800', '1024x768', '800x600', '390x844']);

      // In French: the list and a mismatched day's details.
      await page.locator('.top select').selectOption('fr');
      await page.locator('nav a[href="#/operator/reconciliations"]').click();
      await page.locator('table[data-list="reconciliations"] td[data-cell="day"] button', { hasText: day }).click();
      await page.locator('[data-detail] table[data-list="kinds"]').waitFor();
      assert.equal(await text(page.locator('main h1')), 'Rapprochements');
      assert.equal(await text(page.locator('[data-detail] tr[data-kind="ours_only"] td').first()), "Nous l'affichons payé, le prestataire n'a jamais payé");
      assert.equal(await text(page.locator('[data-detail] tr[data-mismatch="ours_only"] td[data-cell="direction"]')), 'Virement');
      assert.equal(await text(page.locator('[data-detail] tr[data-mismatch="provider_only"][data-direction="bill"] td[data-cell="direction"]')), 'Paiement de facture');
      await shoot(page, target.name, 'operator-reconciliations-fr', ['1280x800', '1024x768', '800x600', '390x844']);
      await page.locator('nav a[href="#/operator/attention"]').click();
      await page.locator(`table[data-list="attention"] tr[data-row="${ids.stuck}"]`).waitFor();
      assert.equal(await text(page.locator(`tr[data-row="${ids.stuck}"] td[data-cell="age"]`)), '1 j 6 h');
      await page.locator(`tr[data-row="${ids.stuck}"] td[data-cell="id"] button`).click();
      await page.locator('[data-detail]').waitFor();
      await shoot(page, target.name, 'operator-attention-fr', ['1280x800', '390x844']);

      // Signing out forgets the token.
      await page.getByRole('button', { name: 'Se déconnecter' }).click();
      await page.locator('input[name=adminToken]').waitFor();
      assert.equal(await page.evaluate<string | null>("sessionStorage.getItem('tapline.operator.token')"), null);
      assert.deepEqual(pageErrors, []);
    });
  });
}
