// The merchant dashboard (/dashboard) in Chromium against a real server on each database: the
// owner's set-up link, sign-in, the overview's chart, a terminal with its pairing code, a key
// rotated, a webhook redelivered, the team; the session rules (cookie flags, a cross-site POST
// refused, sign-out, expiry, role limits); axe-core on every page; screenshots at 1366x768 and
// 1024x768 under test-artifacts/dashboard/ for people to look at.
import assert from 'node:assert/strict';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ADMIN, WebhookReceiver, databaseTargets, uniqueHandle, useTestServer } from '@tapline/sync-server/testing';
import { assertAccessible } from './axe.ts';
import { launchChromium, trackedPage, waitForExpression } from './browser.ts';
import { DASHBOARD_DIR, DESKTOP, PASSWORD, type ShotSize, openPage, prepareDashboard, shoot as shootAt, signIn as signInAt } from './dashboard.ts';

await prepareDashboard();

type DashboardPage = 'overview' | 'payments' | 'payouts' | 'terminals' | 'giftCards' | 'developers' | 'team' | 'account';

for (const target of await databaseTargets()) {
  describe(`merchant dashboard in Chromium on ${target.name}`, () => {
    // The modules' clock: real time plus an offset the expiry test moves (never a real wait).
    let offsetMs = 0;
    const server = useTestServer(target, { now: () => new Date(Date.now() + offsetMs), rateLimitScale: 10, env: { DASHBOARD_DIR } });
    let browser: Browser;
    let receiver: WebhookReceiver;
    let evilSite: Server;
    let evilUrl = '';
    const pageErrors: string[] = [];
    let owner: { page: Page; context: BrowserContext; email: string; merchant: { id: string; handle: string; testKey: string } };

    before(async () => {
      browser = await launchChromium();
      receiver = await WebhookReceiver.start();
      evilSite = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>elsewhere</title><p>elsewhere</p>'));
      await new Promise<void>((resolve) => evilSite.listen(0, '127.0.0.1', resolve));
      // localhost, not 127.0.0.1: another site than the server's.
      evilUrl = `http://localhost:${(evilSite.address() as AddressInfo).port}/`;
    });
    after(async () => {
      await browser?.close();
      await receiver?.close();
      await new Promise((resolve) => evilSite?.close(resolve));
    });

    const shoot = (page: Page, name: string, sizes?: readonly ShotSize[]) => shootAt(page, target.name, name, sizes);
    const signIn = (page: Page, email: string) => signInAt(page, server().baseUrl, email);
    const open = (page: Page, name: DashboardPage) => openPage(page, name);

    it('sets the owner\'s password through the set-up link and signs in from /login', async () => {
      const s = server();
      const merchant = await s.createMerchant({ name: 'Mama Put Kitchen', webhookUrl: receiver.url });
      const email = `owner.${uniqueHandle('x')}@example.com`;
      const setup = await s.request('POST', `/api/admin/merchants/${merchant.id}/owner`, { headers: ADMIN, body: { email } });
      assert.equal(setup.status, 201);
      const fragment = String(setup.body.setupUrl).split('/dashboard/')[1]!;
      const context = await browser.newContext({ viewport: DESKTOP, locale: 'en-GB', timezoneId: 'Africa/Lagos' });
      const page = await context.newPage();
      page.on('pageerror', (error) => pageErrors.push(error.message));
      await page.goto(`${s.baseUrl}/dashboard/${fragment}`);
      await page.locator('input[name=password]').waitFor();
      await assertAccessible(page, 'set-up');
      await shoot(page, 'setup');
      await page.locator('input[name=password]').fill(PASSWORD);
      await page.locator('input[name=confirm]').fill(PASSWORD);
      await page.getByRole('button', { name: 'Save the password' }).click();
      await page.getByText('Your password is saved').waitFor();

      await page.goto(`${s.baseUrl}/login`);
      assert.equal(new URL(page.url()).pathname, '/dashboard/');
      await page.locator('input[name=email]').waitFor();
      await assertAccessible(page, 'sign-in');
      await shoot(page, 'sign-in', ['1366x768', '1024x768', '390x844']);
      await page.locator('input[name=email]').fill(email);
      await page.locator('input[name=password]').fill('wrong password!');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').getByText('Wrong e-mail address or password.').waitFor();
      await signIn(page, email);
      owner = { page, context, email, merchant };

      const [cookie] = await context.cookies(s.baseUrl);
      assert.equal(cookie?.name, 'tapline_session');
      assert.equal(cookie?.httpOnly, true);
      assert.equal(cookie?.sameSite, 'Strict');
      assert.equal(cookie?.secure, false, 'served over plain HTTP here');
      assert.equal(await page.evaluate('document.cookie'), '', 'the page cannot read its session');
    });

    it('charts the last 30 days\' sales and shows the balance', async () => {
      const s = server();
      const key = { 'x-merchant-api-key': owner.merchant.testKey };
      const payer = uniqueHandle('ada');
      await s.createWallet({ handle: payer, fund: 1000 });
      const tag = await s.request<{ tagId: string }>('POST', '/api/wearables', { headers: key, body: { handle: payer, tagType: 'ring', displayName: 'Ring' } });
      for (const amount of [12.5, 30]) {
        const sale = await s.request<{ sessionId: string }>('POST', '/api/pos/sessions', { headers: key, body: { amount, currency: 'NGN' } });
        const paid = await s.request('POST', `/api/pos/sessions/${sale.body.sessionId}/tap`, { headers: key, body: { tagId: tag.body.tagId } });
        assert.equal(paid.body.status, 'completed');
      }
      // Each kiosk sale reaches the merchant's webhook URL (no callbackUrl needed).
      const delivered = receiver.received.length;
      assert.equal(await s.context.events.runOnce(), 2);
      assert.deepEqual(receiver.bodies().slice(delivered).map((body) => [body.event, body.amount]).sort(), [['pos.session.completed', 12.5], ['pos.session.completed', 30]]);
      const page = owner.page;
      await page.reload();
      await page.locator('table[data-chart-currency="NGN"]').waitFor({ state: 'attached' });
      const rows = await page.$$eval('table[data-chart-currency="NGN"] tr', (trs) => trs.map((tr) => [tr.getAttribute('data-date'), Number(tr.getAttribute('data-amount')), Number(tr.getAttribute('data-count'))] as const));
      assert.equal(rows.length, 30);
      assert.deepEqual(rows.at(-1), [s.context.now().toISOString().slice(0, 10), 42.5, 2]);
      assert.equal(rows.slice(0, 29).reduce((sum, row) => sum + row[1], 0), 0);
      // The chart library drew into the canvas (its backing store has the box's size).
      const canvas = await page.evaluate<{ width: number; height: number }>(`(() => { const c = document.querySelector('figure.chart canvas'); return { width: c.width, height: c.height }; })()`);
      assert.ok(canvas.width > 300 && canvas.height > 100, JSON.stringify(canvas));
      assert.equal((await page.locator('[data-balance="NGN"]').innerText()).replace(/\s/g, ' '), 'NGN 1,000,042.50');
      await assertAccessible(page, 'overview');
      await shoot(page, 'overview', ['1366x768', '1024x768', '390x844']);
    });

    it('creates a terminal and shows its pairing code and QR code', async () => {
      const page = owner.page;
      await open(page, 'terminals');
      await page.locator('input[name=terminal-name]').fill('Front counter');
      await page.getByRole('button', { name: 'Add a terminal' }).click();
      const code = await page.locator('[data-pairing-code]').innerText();
      assert.match(code, /^[2-9A-Z]{4}-[2-9A-Z]{4}$/);
      assert.match(String(await page.locator('.pairing img').getAttribute('src')), /^data:image\/png;base64,/);
      await page.locator('tr[data-terminal]').first().waitFor();
      const listed = await server().request<{ data: { name: string }[] }>('GET', '/api/merchant/terminals', { headers: { 'x-merchant-api-key': owner.merchant.testKey } });
      assert.deepEqual(listed.body.data.map((terminal) => terminal.name), ['Front counter']);
      const paired = await server().request('POST', '/api/terminals/pair', { body: { code } });
      assert.equal(paired.status, 200, 'the code shown pairs a kiosk');
      await assertAccessible(page, 'terminals');
      await shoot(page, 'terminals', ['1366x768', '1024x768', '390x844']);
    });

    it('imports gift cards from a CSV file: good rows issued with their codes, a bad row reported', async () => {
      const page = owner.page;
      await open(page, 'giftCards');
      const csv = 'amount,currency,message\r\n25,NGN,"Happy birthday, Ada"\r\n10.50,NGN,\r\n1.234,NGN,too many decimals\r\n';
      await page.locator('input[name=cards-csv]').setInputFiles({ name: 'cards.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
      await page.getByRole('button', { name: 'Import' }).click();
      await page.locator('[data-imported]').waitFor();
      assert.equal(await page.locator('[data-imported]').innerText(), '2 issued, 1 refused.');
      assert.equal(await page.locator('tr[data-failed-row]').count(), 1);
      assert.equal(await page.locator('tr[data-failed-row]').getAttribute('data-failed-row'), '3');
      const codes = await page.locator('[data-card-code]').allInnerTexts();
      assert.equal(codes.length, 2);
      await page.locator('tr[data-card]').nth(1).waitFor();
      assert.deepEqual(await page.locator('tr[data-card] [data-status]').allInnerTexts(), ['Active', 'Active'], 'statuses in words');
      const cards = await server().request<{ data: { amount: number; message: string | null }[]; total: number }>('GET', '/api/merchant/gift-cards', { headers: { 'x-merchant-api-key': owner.merchant.testKey } });
      assert.equal(cards.body.total, 2);
      assert.deepEqual(cards.body.data.map((card) => card.amount).sort((a, b) => a - b), [10.5, 25]);
      assert.ok(cards.body.data.some((card) => card.message === 'Happy birthday, Ada'), 'a quoted field with a comma stays one field');
      const verified = await server().request('GET', `/api/gift-cards/verify?code=${encodeURIComponent(codes[0]!)}`);
      assert.equal(verified.status, 200, 'the code shown is the card\'s');
      await assertAccessible(page, 'gift cards');
      await shoot(page, 'gift-cards', ['1366x768', '1024x768', '390x844']);
    });

    it('reads a spreadsheet\'s Windows-1252 CSV with its accents, and refuses a file over 1 MB without sending it', async () => {
      const page = owner.page;
      const key = { 'x-merchant-api-key': owner.merchant.testKey };
      const total = async () => (await server().request<{ total: number }>('GET', '/api/merchant/gift-cards', { headers: key })).body.total;
      const before = await total();
      // é is one byte (0xE9) in Windows-1252 and not UTF-8 on its own: read as UTF-8 it would become U+FFFD.
      await page.locator('input[name=cards-csv]').setInputFiles({ name: 'excel.csv', mimeType: 'text/csv', buffer: Buffer.from('amount,currency,message\r\n5,NGN,Bonne fête Adé\r\n', 'latin1') });
      await page.getByRole('button', { name: 'Import' }).click();
      await page.getByText('1 issued, 0 refused.').waitFor();
      const cards = await server().request<{ data: { message: string | null }[] }>('GET', '/api/merchant/gift-cards', { headers: key });
      assert.ok(cards.body.data.some((card) => card.message === 'Bonne fête Adé'), JSON.stringify(cards.body.data.map((card) => card.message)));
      assert.equal(await total(), before + 1);

      const huge = Buffer.alloc(1_000_001, 'a');
      await page.locator('input[name=cards-csv]').setInputFiles({ name: 'huge.csv', mimeType: 'text/csv', buffer: huge });
      await page.getByRole('button', { name: 'Import' }).click();
      await page.getByRole('alert').filter({ hasText: 'larger than 1 MB' }).waitFor();
      assert.equal(await total(), before + 1, 'nothing was issued');
      await shoot(page, 'gift-cards-file-too-large');
    });

    it('rotates a key with a grace period and shows the new key once', async () => {
      const page = owner.page;
      await open(page, 'developers');
      await page.locator('tr[data-key] button').click();
      // A question first, saying when the old key stops; Cancel leaves the key alone.
      const question = page.getByRole('alertdialog');
      assert.equal(await question.locator('p').innerText(), `Rotate the key ${owner.merchant.testKey.slice(0, 12)}…? The old key stops working in 24 hours: your integrations need the new key by then.`);
      assert.equal(await page.evaluate('document.activeElement?.textContent'), 'Yes, rotate');
      await assertAccessible(page, 'developers, rotation question');
      await shoot(page, 'developers-rotate-question');
      await question.getByRole('button', { name: 'Cancel' }).click();
      await question.waitFor({ state: 'detached' });
      assert.equal(await page.locator('[data-secret]').count(), 0, 'nothing rotated');
      assert.equal((await server().request('GET', '/api/merchant/balance', { headers: { 'x-merchant-api-key': owner.merchant.testKey } })).status, 200);
      await page.locator('tr[data-key] button').click();
      await page.getByRole('alertdialog').getByRole('button', { name: 'Yes, rotate' }).click();
      const newKey = await page.locator('[data-secret]').innerText();
      assert.match(newKey, /^mk_test_[0-9a-f]{64}$/);
      for (const apiKey of [owner.merchant.testKey, newKey]) {
        const balance = await server().request('GET', '/api/merchant/balance', { headers: { 'x-merchant-api-key': apiKey } });
        assert.equal(balance.status, 200, 'both keys work during the grace period');
      }
      await page.locator('tr[data-key]').nth(1).waitFor();
      assert.equal(await page.locator('tr[data-key] button').count(), 1, 'only the new key can be rotated again');
      owner.merchant.testKey = newKey;
    });

    it('sends a test event, shows the failed attempt and redelivers it', async () => {
      const page = owner.page;
      const before = receiver.received.length;
      receiver.respond((count) => (count === before + 1 ? 503 : 200));
      await page.getByRole('button', { name: 'Send a test event' }).click();
      await page.getByText('Test event sent').waitFor();
      assert.equal(await server().context.events.runOnce(), 1);
      assert.equal(receiver.received.length, before + 1);
      // No reload: the page reads the deliveries again until the test event's is there.
      await waitForExpression(page, `document.querySelector('tr[data-delivery] [data-attempts]')?.textContent === '1'`, 30_000);
      assert.equal(await page.locator('tr[data-delivery] [data-attempts]').first().innerText(), '1');
      assert.equal(await page.locator('tr[data-delivery] .attempt').first().innerText(), '503');
      await page.locator('tr[data-delivery]').first().getByRole('button', { name: 'Redeliver' }).click();
      await waitForExpression(page, `document.querySelector('tr[data-delivery] [data-attempts]')?.textContent === '2'`);
      assert.equal(await page.locator('tr[data-delivery] .badge').first().innerText(), 'Delivered');
      assert.equal(receiver.received.length, before + 2);
      await assertAccessible(page, 'developers');
      await shoot(page, 'developers');
    });

    it('lists payouts, shows the team and the account page', async () => {
      const page = owner.page;
      const paid = await server().request('POST', '/api/pay', {
        headers: { 'x-merchant-api-key': owner.merchant.testKey, 'idempotency-key': uniqueHandle('pay') },
        body: { fromCode: 'NG', toCode: 'KE', rail: 'mobile_money', amount: 25, currency: 'NGN', receiver: '+254712345678', receiverName: 'Wanjiru Kamau', reference: 'test_success' },
      });
      assert.equal(paid.status, 201, JSON.stringify(paid.body));
      await open(page, 'payouts');
      assert.equal(await page.locator('main h1').innerText(), 'Transfers');
      await page.locator('table.list tbody tr button').first().waitFor();
      assert.equal(await page.locator('table.list tbody tr').count(), 1);
      assert.equal(await page.locator('table.list tbody tr [data-status]').first().innerText(), 'Completed');
      await page.locator('table.list tbody tr button').first().click();
      await page.locator('.timeline li').first().waitFor();
      // The details in the shared shape: facts in words, the timeline's statuses in words.
      const detail = page.locator('[data-detail]');
      assert.match(await detail.locator('h2').innerText(), new RegExp(`^Payment details · ${String(paid.body.paymentId)}$`));
      assert.deepEqual(await detail.locator('[data-timeline] li strong').allInnerTexts(), ['Pending', 'Completed']);
      const facts = Object.fromEntries(await detail.locator('dl.facts > div').evaluateAll((pairs) => pairs.map((pair) => [pair.querySelector('dt')?.textContent, pair.querySelector('dd')?.textContent?.replace(/\s+/g, ' ')])));
      assert.deepEqual([facts.Status, facts.Amount, facts.Rail, facts.Receiver, facts.Reference], ['Completed', 'NGN 25.00', 'Mobile money', 'Wanjiru Kamau · +254712345678', 'test_success']);
      assert.match(String(facts['Recipient gets']), /^KES \d/);
      await assertAccessible(page, 'payouts');
      await shoot(page, 'payouts', ['1366x768', '1024x768', '390x844']);

      await open(page, 'team');
      await page.locator('input[name=invite-email]').fill(`viewer.${uniqueHandle('v')}@example.com`);
      await page.locator('select[name=invite-role]').selectOption('viewer');
      await page.getByRole('button', { name: 'Invite' }).click();
      assert.match(await page.locator('[data-invite-url]').innerText(), /\/dashboard\/#\/setup\/[0-9a-f]{64}$/);
      await page.locator('tr[data-member]').nth(1).waitFor();
      // The only owner cannot become a viewer: the select goes back to Owner and says why.
      const self = page.locator(`tr[data-member="${owner.email}"]`);
      await self.locator('select').selectOption('viewer');
      await self.locator('[data-role-refused]').waitFor();
      assert.equal(await self.locator('[data-role-refused]').innerText(), 'The team keeps at least one owner.');
      assert.equal(await self.locator('select').inputValue(), 'owner');
      assert.equal(await self.locator('select').getAttribute('aria-describedby'), await self.locator('[data-role-refused]').getAttribute('id'));
      const members = await server().request<{ data: { email: string; role: string }[] }>('GET', '/api/merchant/users', { headers: { 'x-merchant-api-key': owner.merchant.testKey } });
      assert.equal(members.body.data.find((member) => member.email === owner.email)?.role, 'owner');
      await assertAccessible(page, 'team');
      await shoot(page, 'team');

      await open(page, 'account');
      await assertAccessible(page, 'account');
      await shoot(page, 'account');
    });

    it('refuses a cross-site POST and a call without the CSRF token', async () => {
      const page = owner.page;
      const noToken = await page.evaluate(`fetch('/api/merchant/terminals', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'no token' }) }).then(async (r) => [r.status, (await r.json()).code])`);
      assert.deepEqual(noToken, [403, 'csrf_failed']);
      const elsewhere = await owner.context.newPage();
      await elsewhere.goto(evilUrl);
      // A form-like cross-site request with the browser's cookies: SameSite=Strict keeps the cookie home, and no CSRF token could be sent.
      await elsewhere.evaluate(`fetch(${JSON.stringify(`${server().baseUrl}/api/merchant/terminals`)}, { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: '{"name":"cross-site"}' }).catch(() => null)`);
      await elsewhere.close();
      const listed = await server().request<{ data: { name: string }[] }>('GET', '/api/merchant/terminals', { headers: { 'x-merchant-api-key': owner.merchant.testKey } });
      assert.deepEqual(listed.body.data.map((terminal) => terminal.name), ['Front counter']);
    });

    it('limits a viewer to reading, in the page and on the server', async () => {
      const email = `viewer2.${uniqueHandle('v')}@example.com`;
      const invite = await server().request('POST', '/api/merchant/users', { headers: { 'x-merchant-api-key': owner.merchant.testKey }, body: { email, role: 'viewer' } });
      const token = String(invite.body.inviteUrl).split('/setup/')[1]!;
      assert.equal((await server().request('POST', '/api/dashboard/links/accept', { body: { token, password: PASSWORD } })).status, 200);
      const page = await trackedPage(browser, { viewport: DESKTOP, locale: 'en-GB' }, pageErrors);
      await signIn(page, email);
      await open(page, 'terminals');
      await page.locator('tr[data-terminal]').first().waitFor();
      assert.equal(await page.locator('input[name=terminal-name]').count(), 0, 'no create form for a viewer');
      assert.equal(await page.locator('tr[data-terminal] button').count(), 0);
      const refused = await page.evaluate(`fetch('/api/dashboard/session').then((r) => r.json()).then((s) => fetch('/api/merchant/terminals', { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': s.csrfToken }, body: JSON.stringify({ name: 'viewer' }) })).then(async (r) => [r.status, (await r.json()).code])`);
      assert.deepEqual(refused, [403, 'role_forbidden']);
      await open(page, 'developers');
      await page.getByText('Only an owner sees and rotates keys.').waitFor();
      await page.context().close();
    });

    it('signs out, and ends an idle session', async () => {
      const page = owner.page;
      const [cookie] = await owner.context.cookies(server().baseUrl);
      await page.getByRole('button', { name: 'Sign out', exact: true }).click();
      await page.locator('input[name=email]').waitFor();
      assert.deepEqual(await owner.context.cookies(server().baseUrl), []);
      const replay = await server().request('GET', '/api/merchant/balance', { headers: { cookie: `tapline_session=${cookie!.value}` } });
      assert.equal(replay.status, 401);
      assert.equal(replay.body.code, 'invalid_session');

      await signIn(page, owner.email);
      offsetMs += 31 * 60_000;
      await page.reload();
      await page.locator('input[name=email]').waitFor();
      const expired = await page.evaluate(`fetch('/api/merchant/balance').then(async (r) => [r.status, (await r.json()).code])`);
      assert.deepEqual(expired, [401, 'dashboard_session_expired']);
      assert.deepEqual(pageErrors, []);
      await owner.context.close();
    });
  });
}
