// The kiosk terminal's renderer in Chromium, served by the terminal host against a real sync
// server on each database, with the simulated NFC reader and a VirtualPrinter: sign in, charge,
// a ring tap from the reader, the outcome on screen, the ledger and the printed receipt.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { assertAccessible } from './axe.ts';
import { launchChromium, trackedPage } from './browser.ts';
import { ARTIFACTS, KIOSK, builtRenderer, startKiosk } from './kiosk.ts';
import { shopWithTerminal } from './shop.ts';
import type { SimulatedNfcReader, VirtualPrinter } from '@tapline/hardware';
import { toMinor } from '@tapline/shared/money';
import { databaseTargets, useTestServer } from '@tapline/sync-server/testing';
import type { TerminalHost } from '@tapline/terminal/host';

// One build of the renderer for the whole file.
const rendererDir = await builtRenderer();

/** GET with a chosen Host header (fetch will not let one set it). */
function getWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers: { host } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

for (const target of await databaseTargets()) {
  describe(`kiosk terminal in Chromium on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 10 });
    let browser: Browser;
    let host: TerminalHost;
    let reader: SimulatedNfcReader;
    let printer: VirtualPrinter;
    const pageErrors: string[] = [];

    before(async () => {
      browser = await launchChromium();
      ({ host, reader, printer } = await startKiosk({ rendererDir, serverUrl: server().baseUrl, previews: `terminal-receipts-${target.name}` }));
    });
    after(async () => {
      await browser?.close();
      await host?.close();
    });

    const kioskPage = (): Promise<Page> => trackedPage(browser, KIOSK, pageErrors);

    const setup = (fund: number) => shopWithTerminal(server(), { fund, pin: '4829' });

    async function balanceMinor(handle: string): Promise<number> {
      const s = server();
      const session = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle, pin: '4829' } });
      assert.equal(session.status, 201);
      const balance = await s.request<{ balances: { currency: string; available: number }[] }>('GET', '/api/wallet/balance', { headers: { authorization: `Bearer wallet.${session.body.token}` } });
      const available = balance.body.balances.find((entry) => entry.currency === 'NGN')?.available;
      assert.equal(typeof available, 'number');
      return toMinor(String(available), 'NGN');
    }

    async function signIn(page: Page, terminalToken: string, screenshot = false): Promise<void> {
      await page.goto(host.url);
      await page.locator('#signin').waitFor({ state: 'visible' });
      await page.click('#show-advanced');
      await page.fill('#token', `term.${terminalToken}`);
      if (screenshot) await page.screenshot({ path: `${ARTIFACTS}terminal-signin-${target.name}.png` });
      await page.click('#signin-button');
      await page.locator('#sale').waitFor({ state: 'visible' });
      // Taps reach the page only once the bridge has accepted its secret.
      await page.locator('#status-bridge[data-state="connected"]').waitFor();
      await page.locator('#status-reader[data-state="ready"]').waitFor();
    }

    async function charge(page: Page): Promise<string> {
      await page.click('#charge-button');
      await page.locator('#waiting').waitFor({ state: 'visible' });
      await page.locator('#qr svg').waitFor();
      const sessionId = await page.locator('#waiting').getAttribute('data-session-id');
      assert.ok(sessionId, 'the waiting screen names its session');
      return sessionId;
    }

    it('signs in, charges 12.50 from the keypad, and completes on a ring tap at the reader: balance, screen and printed receipt agree', async () => {
      const { s, key, merchant, terminalToken, payer, tagId } = await setup(100);
      const page = await kioskPage();
      await signIn(page, terminalToken, true);
      assert.match(await page.locator('#who').innerText(), new RegExp(merchant.handle));
      assert.equal(await page.locator('#currency').inputValue(), 'NGN');
      for (const button of ['#key-1', '#key-2', '#key-dot', '#key-5', '#key-0']) await page.click(button);
      assert.equal(await page.locator('#amount-display').innerText(), '12.50');
      // The keypad offers no third decimal for NGN.
      await page.click('#key-7');
      assert.equal(await page.locator('#amount-display').innerText(), '12.50');
      await page.fill('#description', 'Jollof rice');
      await page.screenshot({ path: `${ARTIFACTS}terminal-sale-${target.name}.png` });

      const sessionId = await charge(page);
      assert.match(await page.locator('#waiting-amount').innerText(), /NGN\s*12\.50/);
      const countdown = Number(await page.locator('#countdown').innerText());
      assert.ok(countdown > 80 && countdown <= 90, `countdown ${countdown}`);
      const created = await s.request<{ status: string; amount: number; currency: string; description: string; qrPayload: string }>('GET', `/api/pos/sessions/${sessionId}`, { headers: key });
      assert.deepEqual([created.body.status, created.body.amount, created.body.currency, created.body.description], ['pending', 12.5, 'NGN', 'Jollof rice']);
      assert.equal(await page.locator('#qr').getAttribute('data-payload'), created.body.qrPayload);
      await page.screenshot({ path: `${ARTIFACTS}terminal-waiting-${target.name}.png` });

      const before = await balanceMinor(payer);
      const jobsBefore = printer.jobs.length;
      const event = reader.tap(tagId);
      assert.equal(event && 'tagId' in event ? event.tagId : null, tagId, 'the simulated reader read the ring');

      await page.locator('#result[data-status="completed"]').waitFor({ state: 'visible', timeout: 60_000 });
      assert.equal(await page.locator('#result-title').innerText(), 'Paid');
      assert.match(await page.locator('#result-amount').innerText(), /NGN\s*12\.50/);
      assert.equal(await page.locator('#result-payer').innerText(), `@${payer}`);
      const walletRef = await page.locator('#result-wallet-ref').innerText();
      assert.match(walletRef, /^wtx_pos_/);
      await page.locator('#receipt-status[data-state="printed"]').waitFor({ timeout: 60_000 });
      await page.screenshot({ path: `${ARTIFACTS}terminal-completed-${target.name}.png` });

      const paid = await s.request<{ status: string; payerHandle: string; walletRef: string }>('GET', `/api/pos/sessions/${sessionId}`, { headers: key });
      assert.deepEqual([paid.body.status, paid.body.payerHandle, paid.body.walletRef], ['completed', `@${payer}`, walletRef]);
      assert.equal(before - (await balanceMinor(payer)), 1250, 'the customer paid exactly 12.50');

      assert.equal(printer.jobs.length, jobsBefore + 1, 'one receipt printed');
      const job = printer.jobs.at(-1)!;
      assert.equal(job.jobId, `pos-${sessionId}`);
      assert.equal(job.label, 'pos-payment');
      const printed = Buffer.from(job.bytes).toString('latin1');
      assert.match(printed, /12\.50/);
      assert.match(printed, new RegExp(`@${payer}`));
      assert.match(printed, /Mama Put Kitchen/);
      assert.match(job.svg, /12\.50/);

      // The next sale starts from a clear keypad.
      await page.click('#new-sale');
      assert.equal(await page.locator('#amount-display').innerText(), '0');
      await page.context().close();
      assert.deepEqual(pageErrors, [], 'no script errors on the page');
    });

    it('shows a failed tap with its reason (insufficient funds) and a cancelled sale; neither charges nor prints', async () => {
      const { s, key, terminalToken, payer, tagId } = await setup(10);
      const page = await kioskPage();
      await signIn(page, terminalToken);
      const jobsBefore = printer.jobs.length;
      const before = await balanceMinor(payer);
      // The physical keyboard types into the amount as well.
      await page.keyboard.type('500');
      assert.equal(await page.locator('#amount-display').innerText(), '500');
      const tooDear = await charge(page);
      assert.ok(reader.tap(tagId));
      await page.locator('#result[data-status="failed"]').waitFor({ state: 'visible', timeout: 60_000 });
      assert.equal(await page.locator('#result-title').innerText(), 'Payment failed');
      assert.match(await page.locator('#result-reason').innerText(), /insufficient funds/i);
      assert.equal(await page.locator('#receipt-status').count(), 0, 'no receipt for a failed payment');
      await page.screenshot({ path: `${ARTIFACTS}terminal-failed-${target.name}.png` });
      const failed = await s.request<{ status: string }>('GET', `/api/pos/sessions/${tooDear}`, { headers: key });
      assert.equal(failed.body.status, 'failed');

      await page.click('#new-sale');
      await page.locator('#sale').waitFor();
      await page.keyboard.type('3');
      const cancelled = await charge(page);
      await page.click('#cancel');
      await page.locator('#result[data-status="cancelled"]').waitFor({ state: 'visible', timeout: 60_000 });
      assert.equal(await page.locator('#result-title').innerText(), 'Cancelled');
      assert.match(await page.locator('#result-amount').innerText(), /NGN\s*3\.00/);
      await page.screenshot({ path: `${ARTIFACTS}terminal-cancelled-${target.name}.png` });
      const ended = await s.request<{ status: string }>('GET', `/api/pos/sessions/${cancelled}`, { headers: key });
      assert.equal(ended.body.status, 'cancelled');

      assert.equal(await balanceMinor(payer), before, 'nothing was charged');
      assert.equal(printer.jobs.length, jobsBefore, 'nothing was printed');
      await page.context().close();
      assert.deepEqual(pageErrors, [], 'no script errors on the page');
    });

    it('asks for the customer\'s PIN on screen when the server answers pin_required, says a wrong PIN and a lock-out in words, and completes the tap with the right PIN (the real server\'s no-PIN limit)', async () => {
      const { s, key, terminalToken, payer, tagId } = await setup(100);
      // The holder lowers the ring's no-PIN limit to NGN 5 a tap: a tap above it needs the PIN.
      const session = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle: payer, pin: '4829' } });
      assert.equal(session.status, 201);
      const holder = { authorization: `Bearer wallet.${session.body.token}` };
      const lowered = await s.request<{ noPinLimits: { perTap: number } }>('PATCH', `/api/wallet/wearables/${tagId}`, { headers: holder, body: { noPinLimits: { perTap: 5, perDay: 10 } } });
      assert.equal(lowered.status, 200, JSON.stringify(lowered.body));
      assert.equal(lowered.body.noPinLimits.perTap, 5);

      const page = await kioskPage();
      await signIn(page, terminalToken);
      const sent: { pin?: string; status: number }[] = [];
      page.on('response', (response) => {
        if (!/\/api\/pos\/sessions\/[^/]+\/tap$/.test(new URL(response.url()).pathname)) return;
        const body = JSON.parse(response.request().postData() ?? '{}') as { pin?: string };
        sent.push({ ...(body.pin === undefined ? {} : { pin: body.pin }), status: response.status() });
      });
      const before = await balanceMinor(payer);
      await page.keyboard.type('9');
      const sessionId = await charge(page);
      assert.ok(reader.tap(tagId));
      await page.locator('#pin-pad').waitFor();
      assert.match(await page.locator('#pin-pad').innerText(), /Ask the customer to type their PIN/);
      await page.screenshot({ path: `${ARTIFACTS}terminal-pin-${target.name}.png` });
      await assertAccessible(page, 'PIN prompt');
      for (const digit of '1111') await page.click(`#pin-${digit}`);
      assert.equal(await page.locator('#pin-display').getAttribute('data-length'), '4');
      assert.doesNotMatch(await page.locator('#pin-display').innerText(), /1/, 'the PIN shows as dots');
      await page.click('#pin-ok');
      await page.locator('#waiting-message[data-code="wrong_pin"]').waitFor();
      assert.equal(await page.locator('#waiting-message .text').innerText(), 'Wrong PIN. Ask the customer to try again.');
      assert.equal(await page.locator('#waiting-message .detail').innerText(), 'Code for support: wrong_pin');
      for (const digit of '4829') await page.click(`#pin-${digit}`);
      await page.click('#pin-ok');
      await page.locator('#result[data-status="completed"]').waitFor({ timeout: 60_000 });
      assert.equal(await page.locator('#result-payer').innerText(), `@${payer}`);
      assert.deepEqual(sent, [{ status: 403 }, { pin: '1111', status: 403 }, { pin: '4829', status: 200 }]);
      const paid = await s.request<{ status: string }>('GET', `/api/pos/sessions/${sessionId}`, { headers: key });
      assert.equal(paid.body.status, 'completed');
      assert.equal(before - (await balanceMinor(payer)), 900, 'charged NGN 9.00 once');

      // Five wrong PINs lock the wallet: 429 pin_attempts_exceeded, the pad closes, nothing is charged.
      await page.click('#new-sale');
      await page.locator('#sale').waitFor();
      await page.keyboard.type('8');
      const locked = await charge(page);
      assert.ok(reader.tap(tagId));
      await page.locator('#pin-pad').waitFor();
      for (let attempt = 0; attempt < 6 && (await page.locator('#pin-pad').count()) > 0; attempt += 1) {
        const answered = sent.length;
        for (const digit of '0000') await page.click(`#pin-${digit}`);
        await page.click('#pin-ok');
        // The next try only once the server answered this one (and the kiosk showed it).
        for (const deadline = Date.now() + 60_000; sent.length === answered && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 50));
        await page.locator('#waiting-message[data-code="wrong_pin"], #waiting-message[data-code="pin_attempts_exceeded"]').waitFor();
      }
      await page.locator('#waiting-message[data-code="pin_attempts_exceeded"]').waitFor();
      assert.equal(await page.locator('#pin-pad').count(), 0, 'the PIN pad closes after the lock-out');
      assert.match(await page.locator('#waiting-message .text').innerText(), /^Too many wrong PINs: this wallet is locked for a while\./);
      assert.ok(sent.some((request) => request.status === 429), 'the server answered 429');
      const still = await s.request<{ status: string }>('GET', `/api/pos/sessions/${locked}`, { headers: key });
      assert.equal(still.body.status, 'pending', 'the sale stays open for another way to pay');
      await page.click('#cancel');
      await page.locator('#result[data-status="cancelled"]').waitFor({ timeout: 60_000 });
      await page.context().close();
      assert.deepEqual(pageErrors, [], 'no script errors on the page');
    });

    it('pairs the kiosk with the code the merchant got: typed or scanned, exchanged for a token nobody sees; a used or wrong code reads as a sentence', async () => {
      const s = server();
      const merchant = await s.createMerchant({ name: 'Mama Put Kitchen' });
      const key = { 'x-merchant-api-key': merchant.testKey };
      const created = await s.request<{ id: string; token: string; pairingCode: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Till 2' } });
      assert.equal(created.status, 201);
      const page = await kioskPage();
      await page.goto(host.url);
      await page.locator('#pairing-code').waitFor();
      assert.equal(await page.evaluate<string | undefined>('document.activeElement?.id'), 'pairing-code', 'a scanner types into the code field at once');
      assert.doesNotMatch(await page.locator('#signin').innerText(), /POST|\/api\/|term\./);
      await page.screenshot({ path: `${ARTIFACTS}terminal-pairing-${target.name}.png` });
      await assertAccessible(page, 'pairing');
      // A wrong code first: a sentence, the code for support apart.
      await page.keyboard.type('2222-2222');
      await page.keyboard.press('Enter');
      await page.locator('#signin-error[data-code="pairing_code_not_found"]').waitFor();
      assert.equal(await page.locator('#signin-error .text').innerText(), 'That pairing code is not right. Check it, or ask the manager for a new one.');
      // As a barcode scanner (or a cashier in lower case, without the dash) types it, then Enter.
      await page.fill('#pairing-code', '');
      await page.keyboard.type(created.body.pairingCode.toLowerCase().replace('-', ''));
      await page.keyboard.press('Enter');
      await page.locator('#sale').waitFor();
      assert.match(await page.locator('p.muted', { hasText: 'Till 2' }).innerText(), /Till 2 · test mode/);
      const saved = await page.evaluate<string | null>("localStorage.getItem('tapline.terminalToken')");
      assert.match(saved ?? '', /^term\.[0-9a-f]{64}$/);
      assert.ok(!(await page.locator('body').innerText()).includes(saved!.slice(5)), 'the token is never on screen');
      assert.equal((await s.request('GET', '/api/pos/context', { headers: { authorization: `Bearer term.${created.body.token}` } })).status, 401, 'the token shown at creation no longer works');
      assert.equal((await s.request('GET', '/api/pos/context', { headers: { authorization: `Bearer ${saved}` } })).status, 200);
      await page.locator('#status-sync[data-state="online"]').waitFor({ timeout: 60_000 });

      // Signed out, the same code does not pair again.
      await page.click('#sign-out');
      // No manager PIN on this terminal: signing out (unpairing) is confirmed once.
      await page.click('#sign-out-confirm');
      await page.locator('#pairing-code').waitFor();
      await page.fill('#pairing-code', created.body.pairingCode);
      await page.click('#pair-button');
      await page.locator('#signin-error[data-code="pairing_code_used"]').waitFor();
      assert.equal(await page.locator('#signin-error .text').innerText(), 'That pairing code was already used. Ask the manager for a new one.');
      await page.context().close();
      assert.deepEqual(pageErrors, [], 'no script errors on the page');
    });

    it('refuses a wrong token, forwards the API to the sync server, and gives the bridge secret only under its own host name', async () => {
      const page = await kioskPage();
      await page.goto(host.url);
      await page.click('#show-advanced');
      await page.fill('#token', 'term.not-a-real-terminal-token');
      await page.click('#signin-button');
      await page.locator('#signin-error').waitFor();
      assert.ok((await page.locator('#signin-error').innerText()).length > 0);
      assert.equal(await page.locator('#sale').count(), 0);
      await page.context().close();

      const health = await fetch(`${host.url}/api/health`);
      assert.equal(health.status, 200);
      const direct = await fetch(`${server().baseUrl}/api/health`);
      assert.deepEqual(Object.keys((await health.json()) as object).sort(), Object.keys((await direct.json()) as object).sort());
      const refused = await fetch(`${host.url}/api/pos/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ amount: 1, currency: 'NGN' }) });
      assert.equal(refused.status, 401);
      assert.equal(typeof ((await refused.json()) as { error?: unknown }).error, 'string');

      const config = await fetch(`${host.url}/terminal-config.json`);
      assert.equal(config.status, 200);
      const body = (await config.json()) as { bridgeUrl: string; bridgeSecret: string };
      assert.match(body.bridgeUrl, /^ws:\/\/127\.0\.0\.1:\d+\/$/);
      assert.match(body.bridgeSecret, /^[0-9a-f]{64}$/);
      assert.equal(await getWithHost(`${host.url}/terminal-config.json`, 'attacker.example'), 403);
    });
  });
}
