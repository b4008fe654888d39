// The kiosk is never stuck offline: the real sync server process (not a relay) on each database
// is stopped and started three times (Ctrl-C's SIGINT and a service manager's SIGTERM, after
// which socket.io-client does not reconnect by itself), and the kiosk's host is restarted; the
// page is never reloaded. Each time a payment taken offline meanwhile settles once the server
// listens again, exactly once (how soon after is printed, not judged: CI runs on a loaded machine).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, trackedPage } from './browser.ts';
import { ARTIFACTS, KIOSK, SYNC_WAIT, builtRenderer, signInKiosk, startKiosk, type Kiosk } from './kiosk.ts';
import { type ServerProcess, serverProcess } from './server-process.ts';
import { shopWithTerminal } from './shop.ts';
import { checkLedger } from '@tapline/sync-server/ledger/check';
import { databaseTargets } from '@tapline/sync-server/testing';

const rendererDir = await builtRenderer();
/** A generous ceiling for a queued payment to settle after the server listens again (about 1 s on an idle machine). */
const SETTLED_WAIT = { timeout: 60_000 };

for (const target of await databaseTargets()) {
  describe(`kiosk reconnection in Chromium against the server process on ${target.name}`, () => {
    let server: ServerProcess;
    let browser: Browser;
    let kiosk: Kiosk;
    const pageErrors: string[] = [];

    before(async () => {
      server = await serverProcess(target);
      await server.start();
      browser = await launchChromium();
      kiosk = await startKiosk({ rendererDir, serverUrl: server.baseUrl, previews: `terminal-reconnect-receipts-${target.name}` });
    });
    after(async () => {
      await browser?.close();
      await kiosk?.host.close();
      await server?.dispose();
    });

    async function merchantBalanceMinor(key: Record<string, string>): Promise<number> {
      const balance = await server.request<{ balances: { currency: string; available: number }[] }>('GET', '/api/merchant/balance', { headers: key });
      assert.equal(balance.status, 200);
      return Math.round((balance.body.balances.find((entry) => entry.currency === 'NGN')?.available ?? 0) * 100);
    }

    /** The server is away: Charge takes the payment offline and the ring's tap is queued. */
    async function offlineTap(page: Page, amount: string, tagId: string): Promise<string> {
      await page.click('#key-clear');
      await page.keyboard.type(amount);
      await page.locator('#charge-button.offline').waitFor();
      await page.click('#charge-button');
      await page.locator('#offline-pay[data-accept-taps="true"]').waitFor();
      assert.ok(kiosk.reader.tap(tagId), 'the reader read the ring');
      await page.locator('#offline-result[data-status="queued"]').waitFor();
      const id = await page.locator('#offline-result').getAttribute('data-payment-id');
      assert.ok(id);
      return id;
    }

    it('reconnects by itself after the server is stopped and started three times, and settles what was queued each time, without a reload', async () => {
      const shop = await shopWithTerminal(server, { fund: 100, pin: '4829' });
      const limits = await server.request('PATCH', `/api/merchant/terminals/${shop.terminalId}`, { headers: shop.key, body: { offlineLimits: { perPayment: 30, total: 50, maxAgeHours: 24 } } });
      assert.equal(limits.status, 200);
      const page = await trackedPage(browser, KIOSK, pageErrors);
      await signInKiosk(page, kiosk.host, shop.terminalToken);
      // A reload would lose this: the page must reconnect by itself.
      await page.evaluate('window.__noReload = true');
      const merchantStart = await merchantBalanceMinor(shop.key);
      const taken: string[] = [];
      const settleTimes: number[] = [];
      let startedAt = 0;

      for (const [cycle, signal] of (['SIGINT', 'SIGTERM', 'SIGINT'] as const).entries()) {
        assert.equal(await server.stop(signal), 0, `the server exits cleanly on ${signal}`);
        await page.locator('#status-sync[data-state="offline"]').waitFor(SYNC_WAIT);
        const id = await offlineTap(page, `${cycle + 1}`, shop.tagId);
        taken.push(id);
        assert.equal(await page.locator('#status-queued').getAttribute('data-count'), '1');
        await page.screenshot({ path: `${ARTIFACTS}terminal-reconnect-offline-${cycle + 1}-${target.name}.png` });

        startedAt = Date.now();
        const listeningAt = await server.start();
        await page.locator('#offline-result[data-status="accepted"]').waitFor(SETTLED_WAIT);
        const settledAfter = Date.now() - listeningAt;
        settleTimes.push(settledAfter);
        assert.equal(await page.locator('#offline-result-payer').innerText(), `@${shop.payer}`);
        await page.locator('#status-sync[data-state="online"][data-queued="0"]').waitFor(SYNC_WAIT);
        await page.click('#offline-new-sale');
      }
      console.log(`${target.name}: queued payments settled ${settleTimes.join(' ms, ')} ms after the server listened (figures only)`);
      assert.equal(await page.evaluate<boolean>('window.__noReload === true'), true, 'the page was never reloaded');
      // The status bar's last sync is the one after the last restart.
      const lastSync = await page.locator('#status-queued').getAttribute('data-last-sync');
      assert.ok(lastSync !== null && Date.parse(lastSync) >= startedAt, `last sync ${lastSync}, the server started at ${new Date(startedAt).toISOString()}`);

      // Each payment exactly once: 1 + 2 + 3 naira.
      assert.equal((await merchantBalanceMinor(shop.key)) - merchantStart, 600);
      const settled = await server.request<{ total: number; data: { id: string; status: string }[] }>('GET', '/api/offline/payments?limit=100', { headers: shop.key });
      assert.equal(settled.body.total, 3);
      assert.deepEqual(settled.body.data.map((payment) => `${payment.id}=${payment.status}`).sort(), taken.map((id) => `${id}=accepted`).sort());
      await page.context().close();
      assert.deepEqual(pageErrors, [], 'no script errors on the page');
    });

    it('reconnects the sync and the hardware after the kiosk host itself restarts (new bridge secret), and a sale completes on a tap without a reload', async () => {
      const shop = await shopWithTerminal(server, { fund: 100, pin: '4829' });
      const page = await trackedPage(browser, KIOSK, pageErrors);
      await signInKiosk(page, kiosk.host, shop.terminalToken);
      await page.evaluate('window.__noReload = true');
      const port = Number(new URL(kiosk.host.url).port);
      await kiosk.host.close();
      await page.locator('#status-sync[data-state="offline"]').waitFor(SYNC_WAIT);
      await page.locator('#status-bridge[data-state="disconnected"]').waitFor(SYNC_WAIT);
      kiosk = await startKiosk({ rendererDir, serverUrl: server.baseUrl, previews: `terminal-reconnect-receipts-${target.name}`, port });
      await page.locator('#status-sync[data-state="online"]').waitFor(SYNC_WAIT);
      await page.locator('#status-bridge[data-state="connected"]').waitFor(SYNC_WAIT);
      await page.locator('#status-reader[data-state="ready"]').waitFor(SYNC_WAIT);
      await page.keyboard.type('4');
      await page.click('#charge-button');
      await page.locator('#waiting #qr svg').waitFor();
      assert.ok(kiosk.reader.tap(shop.tagId));
      await page.locator('#result[data-status="completed"]').waitFor(SYNC_WAIT);
      await page.locator('#receipt-status[data-state="printed"]').waitFor(SYNC_WAIT);
      assert.equal(kiosk.printer.jobs.filter((job) => job.label === 'pos-payment').length, 1, 'the new host printed the receipt');
      assert.equal(await page.evaluate<boolean>('window.__noReload === true'), true, 'the page was never reloaded');
      await page.context().close();
      assert.deepEqual(pageErrors, [], 'no script errors on the page');
    });

    it('keeps the ledger balanced across the restarts', async () => {
      await server.stop('SIGTERM');
      const db = await server.openDatabase();
      try {
        assert.deepEqual((await checkLedger(db)).violations, []);
      } finally {
        await db.close();
      }
    });
  });
}
