// The kiosk terminal's renderer in Chromium, served by the terminal host against a real sync
// server on each database, with the simulated NFC reader and a VirtualPrinter: sign in, charge,
// a ring tap from the reader, the outcome on screen, the ledger and the printed receipt.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, trackedPage } from './browser.ts';
import { ARTIFACTS, KIOSK, builtRenderer, startKiosk } from './kiosk.ts';
import { shopWithTerminal } from './shop.ts';
import type { SimulatedNfcReader } from '@tapline/hardware/src/nfc/index.ts';
import type { VirtualPrinter } from '@tapline/hardware/src/printer/index.ts';
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

      await page.locator('#result[data-status="completed"]').waitFor({ state: 'visible', timeout: 15_000 });
      assert.equal(await page.locator('#result-title').innerText(), 'Paid');
      assert.match(await page.locator('#result-amount').innerText(), /NGN\s*12\.50/);
      assert.equal(await page.locator('#result-payer').innerText(), `@${payer}`);
      const walletRef = await page.locator('#result-wallet-ref').innerText();
      assert.match(walletRef, /^wtx_pos_/);
      await page.locator('#receipt-status[data-state="printed"]').waitFor({ timeout: 15_000 });
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
      await page.locator('#result[data-status="failed"]').waitFor({ state: 'visible', timeout: 15_000 });
      assert.equal(await page.locator('#result-title').innerText(), 'Payment failed');
      assert.match(await page.locator('#result-reason').innerText(), /insufficient funds/i);
      assert.equal(await page.locator('#receipt-status').count(), 0, 'no receipt for a failed payment');
      await page.screenshot({ path: `${ARTIFACTS}terminal-failed-${target.name}.png` });
      const failed = await s.request<{ status: string }>('GET', `/api/pos/sessions/${tooDear}`, { headers: key });
      assert.equal(failed.body.status, 'failed');

      await page.click('#new-sale');
      await page.keyboard.type('3');
      const cancelled = await charge(page);
      await page.click('#cancel');
      await page.locator('#result[data-status="cancelled"]').waitFor({ state: 'visible', timeout: 15_000 });
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

    it('refuses a wrong token, forwards the API to the sync server, and gives the bridge secret only under its own host name', async () => {
      const page = await kioskPage();
      await page.goto(host.url);
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
