// The kiosk app from its first start to a printed receipt, with everything but Electron's binary
// real: the main process (runKiosk) runs in this process against the stand-in for Electron's
// modules, its printer in a utility process (printer-worker.ts in a Node child that looks like
// one), against the real sync server on each database. Chromium plays the app's window: it loads
// what the main process loads into it (the first-start page from a file, then the till from the
// host) and gets window.taplineKiosk from the real preload code, whose IPC reaches the main
// process's real handlers as coming from the page's own URL. First start: a bad address and a
// wrong pairing code refused in words, the right code pairs, kiosk-config.json saved; then the
// till signs in with the paired token, charges, a simulated tap pays, and the receipt printed.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, trackedPage, waitForExpression } from './browser.ts';
import { ARTIFACTS, KIOSK, builtRenderer } from './kiosk.ts';
import { connectPageIpc, mirrorWindow } from './kiosk-app.ts';
import { shopWithTerminal } from './shop.ts';
import { translator } from '@tapline/shared/i18n';
import { databaseTargets, useTestServer } from '@tapline/sync-server/testing';
import { startHostServer } from '@tapline/terminal/host';
import { buildProvisionPage } from '../../terminal/src/build/electron-build.ts';
import { KIOSK_CONFIG_FILE } from '../../terminal/src/main/kiosk-config.ts';
import { runKiosk } from '../../terminal/src/main/kiosk.ts';
import { fakeElectron } from '../../terminal/src/main/testing/fake-electron.ts';
import { nodeUtilityProcess, utilityChildren } from '../../terminal/src/main/testing/node-utility-process.ts';

const rendererDir = await builtRenderer();
const provisionDir = mkdtempSync(join(tmpdir(), 'tapline-provision-page-'));
await buildProvisionPage(provisionDir);
const PRINTER_WORKER = fileURLToPath(new URL('../../terminal/src/main/printer-worker.ts', import.meta.url));
const { t } = translator('en');

/** The shell's environment without the settings the kiosk must take from its config file here. */
const shellEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !['SYNC_SERVER_URL', 'NFC_READER', 'PRINTER', 'KIOSK', 'TERMINAL_PORT'].includes(key)));

for (const target of await databaseTargets()) {
  describe(`the kiosk app on ${target.name}: first start, then a sale over the preload API (Chromium, the main process with a stand-in for Electron)`, () => {
    const server = useTestServer(target, { rateLimitScale: 10 });
    let browser: Browser;
    let quit: (() => Promise<void>) | null = null;
    const dirs: string[] = [];
    const pageErrors: string[] = [];

    before(async () => {
      browser = await launchChromium();
    });
    after(async () => {
      await quit?.();
      await browser?.close();
      for (const child of utilityChildren) child.kill('SIGKILL');
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    });

    async function screenshots(page: Page, name: string): Promise<void> {
      for (const viewport of [{ width: 1024, height: 768 }, { width: 800, height: 600 }]) {
        await page.setViewportSize(viewport);
        await page.screenshot({ path: `${ARTIFACTS}kiosk-app-${name}-${viewport.width}x${viewport.height}-${target.name}.png` });
      }
      await page.setViewportSize(KIOSK.viewport);
    }

    async function submitProvisioning(page: Page, url: string, code: string): Promise<void> {
      await page.fill('#sync-server-url', url);
      await page.fill('#pairing-code', code);
      await page.click('#provision-submit');
      await waitForExpression(page, `document.getElementById('provision').dataset.state !== 'checking'`);
    }

    it('asks for the server and the pairing code, refuses a bad address and a wrong code, pairs, saves; the till then sells, a tap pays and the receipt prints', async () => {
      const { s, key, merchant, payer, tagId } = await shopWithTerminal(server(), { fund: 100, pin: '4829' });
      const till = await s.request<{ id: string; pairingCode: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Till 1' } });
      assert.equal(till.status, 201);
      const userDataDir = mkdtempSync(join(tmpdir(), 'tapline-kiosk-app-userdata-'));
      dirs.push(userDataDir);
      const previews = `${ARTIFACTS}kiosk-app-sale-receipts-${target.name}`;
      rmSync(previews, { recursive: true, force: true });
      const fake = fakeElectron({ userDataDir, fork: nodeUtilityProcess });
      quit = async () => {
        if (!fake.state.exited) fake.emit('window-all-closed');
        for (const deadline = Date.now() + 60_000; !fake.state.exited && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 20));
      };
      const logs: string[] = [];
      const running = runKiosk(fake.electron, {
        paths: { renderer: rendererDir, preload: '/stand-in/preload.cjs', provisionPage: join(provisionDir, 'index.html'), pcscWorker: '/not-started/pcsc-worker.js', printerWorker: PRINTER_WORKER },
        startHost: startHostServer,
        env: { ...shellEnv, TERMINAL_PORT: '0', NFC_READER: 'simulated', NFC_DEBOUNCE_MS: '0', PRINTER: 'virtual', PRINTER_PREVIEW_DIR: previews, PUBLIC_BASE_URL: server().baseUrl },
        argv: [],
        updater: null,
        // Long enough for the screenshots of "Paired as ..." before the till replaces it.
        provisionedPauseMs: 5000,
        log: (line) => logs.push(line),
      });
      for (const deadline = Date.now() + 60_000; fake.windows.length === 0 && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 10));
      const window = fake.windows[0]!;
      const page = await trackedPage(browser, KIOSK, pageErrors);
      const invoked: string[] = [];
      const sockets: string[] = [];
      page.on('websocket', (socket) => sockets.push(socket.url()));
      await connectPageIpc(page, fake.ipcMain, () => window.webContents, invoked);
      const mirror = mirrorWindow(page, window);

      // The first-start page, from the app's files, in the machine's language.
      await mirror.settled();
      assert.match(page.url(), /^file:\/\/.*\/index\.html$/);
      await page.locator('#provision[data-state="idle"]').waitFor();
      assert.equal(await page.locator('#title').innerText(), t('provisioning.title'));
      assert.equal(await page.locator('#code-label').innerText(), t('provisioning.codeLabel'));
      assert.equal(await page.evaluate<string | undefined>('document.activeElement?.id'), 'sync-server-url');
      await screenshots(page, 'provision');

      await submitProvisioning(page, 'sync.example.com', till.body.pairingCode);
      assert.equal(await page.locator('#provision').getAttribute('data-code'), 'invalid_url');
      assert.equal(await page.locator('#provision-message').innerText(), t('provisioning.errors.invalid_url'));

      // Nothing answers there: said so, with the way to keep the address for a server not up yet.
      await submitProvisioning(page, 'http://127.0.0.1:1', till.body.pairingCode);
      assert.equal(await page.locator('#provision').getAttribute('data-code'), 'unreachable');
      assert.equal(await page.locator('#provision-message').innerText(), t('provisioning.errors.unreachable'));
      assert.equal(await page.locator('#provision-anyway').isVisible(), true);
      await screenshots(page, 'provision-unreachable');

      await submitProvisioning(page, server().baseUrl, 'ABCD-EFG');
      assert.equal(await page.locator('#provision-anyway').isVisible(), false);
      assert.equal(await page.locator('#provision').getAttribute('data-code'), 'pairing_code_invalid');
      assert.equal(await page.locator('#provision-message').innerText(), t('kiosk.cashier.pairing_code_invalid'));

      await submitProvisioning(page, server().baseUrl, 'ZZZZ-ZZZZ');
      assert.equal(await page.locator('#provision').getAttribute('data-code'), 'pairing_code_not_found');
      assert.equal(await page.locator('#provision-message').innerText(), t('kiosk.cashier.pairing_code_not_found'));
      assert.equal(await page.evaluate<string | undefined>('document.activeElement?.id'), 'pairing-code', 'the code field is ready for another try');
      await screenshots(page, 'provision-wrong-code');
      assert.equal(existsSync(join(userDataDir, KIOSK_CONFIG_FILE)), false, 'nothing saved before a pairing');

      // The right code, typed as a person might (lower case, a space instead of the dash).
      await submitProvisioning(page, `${server().baseUrl}/`, till.body.pairingCode.toLowerCase().replace('-', ' '));
      assert.equal(await page.locator('#provision').getAttribute('data-state'), 'saved', await page.locator('#provision-message').innerText());
      assert.equal(await page.locator('#provision-message').innerText(), t('provisioning.paired', { terminal: 'Till 1', merchant: 'Mama Put Kitchen' }));
      const configText = readFileSync(join(userDataDir, KIOSK_CONFIG_FILE), 'utf8');
      assert.deepEqual(JSON.parse(configText), { syncServerUrl: server().baseUrl, terminal: { id: till.body.id, name: 'Till 1', merchant: 'Mama Put Kitchen' }, updateChannel: 'latest', updateUrl: null, env: {} });
      assert.doesNotMatch(configText, /term\.|pairingCode/i, 'neither the token nor the code in the file');
      await screenshots(page, 'provision-paired');

      // The till, signed in with the token the pairing gave (handed over once through the preload).
      const kiosk = await running;
      assert.ok(kiosk);
      await mirror.settled();
      assert.equal(page.url(), `${kiosk.host.url}/`);
      await page.locator('#sale').waitFor({ state: 'visible', timeout: 60_000 });
      assert.match(await page.locator('#who').innerText(), new RegExp(merchant.handle));
      assert.match(String(await page.evaluate<string | null>("localStorage.getItem('tapline.terminalToken')")), /^term\.[0-9a-f]{64}$/);
      await page.locator('#status-bridge[data-state="connected"]').waitFor();
      await page.locator('#status-reader[data-state="ready"]').waitFor();

      for (const button of ['#key-1', '#key-2', '#key-dot', '#key-5', '#key-0']) await page.click(button);
      await page.click('#charge-button');
      await page.locator('#waiting').waitFor({ state: 'visible' });
      const sessionId = await page.locator('#waiting').getAttribute('data-session-id');
      assert.ok(sessionId);
      // The simulated reader, tapped from the page through the preload (nfc.simulateTap over IPC).
      await page.fill('#simulated-tag', tagId);
      await page.click('#simulate-tap button[type="submit"]');
      await page.locator('#result[data-status="completed"]').waitFor({ state: 'visible', timeout: 60_000 });
      assert.equal(await page.locator('#result-title').innerText(), 'Paid');
      assert.match(await page.locator('#result-amount').innerText(), /NGN\s*12\.50/);
      assert.equal(await page.locator('#result-payer').innerText(), `@${payer}`);
      await page.locator('#receipt-status[data-state="printed"]').waitFor({ timeout: 60_000 });
      await screenshots(page, 'till-paid');

      const paid = await s.request<{ status: string; amount: number; payerHandle: string; terminalId?: string }>('GET', `/api/pos/sessions/${sessionId}`, { headers: key });
      assert.deepEqual([paid.body.status, paid.body.amount, paid.body.payerHandle], ['completed', 12.5, `@${payer}`]);
      // The receipt, printed by the printer's utility process (its virtual printer's preview files).
      const receiptFile = join(previews, `pos-payment-pos-${sessionId}.bin`);
      assert.ok(existsSync(receiptFile), `${receiptFile} printed`);
      const printed = readFileSync(receiptFile).toString('latin1');
      assert.match(printed, /12\.50/);
      assert.match(printed, new RegExp(`@${payer}`));
      assert.match(printed, /Mama Put Kitchen/);
      assert.deepEqual(fake.forks.map((forked) => forked.modulePath), [PRINTER_WORKER], 'the printer, and only it, in a utility process (the simulated reader needs none)');

      // Everything the page asked of the app went through the preload's IPC; the only sockets are socket.io's sync.
      for (const call of ['tapline:take-terminal-token', 'tapline:terminal-config', 'tapline:hardware hardware.status', 'tapline:hardware nfc.simulateTap', 'tapline:hardware printer.printReceipt']) assert.ok(invoked.includes(call), `${call} in ${invoked.join(', ')}`);
      assert.ok(sockets.length > 0 && sockets.every((url) => url.startsWith(`${kiosk.host.url.replace('http', 'ws')}/socket.io/`)), sockets.join(', '));
      assert.deepEqual(pageErrors, [], 'no script or CSP error on either page');

      await quit();
      assert.equal(fake.state.exited, true);
      for (const deadline = Date.now() + 60_000; utilityChildren.size > 0 && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(utilityChildren.size, 0, 'quitting ends the printer process');
      assert.ok(logs.some((line) => line.includes(`paired as terminal ${till.body.id}`)), logs.join('\n'));
      await page.context().close();
    });
  });
}
