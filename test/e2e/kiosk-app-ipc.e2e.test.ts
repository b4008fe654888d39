// The kiosk page as the Electron app shows it, in Chromium: the host serves the built renderer
// with no loopback bridge (hardwareBridge: 'ipc'), and the page gets window.taplineKiosk from the
// real preload code (terminal/src/preload/preload.ts, bundled for the page) over a stand-in
// ipcRenderer whose calls reach the real main-process handlers (registerHardwareIpc) in this
// process, with the simulated reader and a VirtualPrinter behind them. The renderer must choose
// IPC, show the reader and printer, receive taps and print through it, with the page's CSP on.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, trackedPage } from './browser.ts';
import { ARTIFACTS, KIOSK, builtRenderer } from './kiosk.ts';
import { connectPageIpc, sendToPage } from './kiosk-app.ts';
import { SAMPLE_MERCHANT, SAMPLE_RECEIPTS, SimulatedNfcReader, VirtualPrinter, sampleSettings } from '@tapline/hardware';
import { startHostServer, type TerminalHost } from '@tapline/terminal/host';
import type { WebContentsLike } from '../../terminal/src/main/electron-like.ts';
import { registerHardwareIpc } from '../../terminal/src/main/hardware-ipc.ts';
import { FakeIpcMain } from '../../terminal/src/main/testing/fake-electron.ts';

const rendererDir = await builtRenderer();

describe('kiosk page in the Electron app: hardware over the preload API (Chromium, stand-in IPC)', () => {
  let browser: Browser;
  let host: TerminalHost;
  let page: Page;
  let reader: SimulatedNfcReader;
  let printer: VirtualPrinter;
  let ipc: { dispose(): void };
  const pageErrors: string[] = [];
  const invoked: string[] = [];

  before(async () => {
    browser = await launchChromium();
    reader = new SimulatedNfcReader({ baseUrl: 'http://127.0.0.1:3000', debounceWindowMs: 0 });
    printer = new VirtualPrinter({ previewDirectory: `${ARTIFACTS}kiosk-app-ipc-receipts` });
    // No sync server is needed before sign-in: the proxy answers 502 to whatever asks.
    host = await startHostServer({ syncServerUrl: 'http://127.0.0.1:9', port: 0, staticDir: rendererDir, hardwareBridge: 'ipc', nfc: reader, printer, receipt: { paperWidth: 80, language: 'en', timeZone: 'Africa/Lagos' }, log: () => undefined });
    page = await trackedPage(browser, KIOSK, pageErrors);
    const ipcMain = new FakeIpcMain();
    // The window's webContents as the main process sees it: events are pushed into the page.
    const contents: WebContentsLike = {
      id: 1,
      isDestroyed: () => page.isClosed(),
      getURL: () => page.url(),
      send: (channel, payload) => sendToPage(page, channel, payload),
    } as WebContentsLike;
    ipc = registerHardwareIpc({
      ipcMain: ipcMain as never,
      nfc: host.nfc,
      printer: host.printer,
      simulator: host.simulator,
      contents: () => contents,
      origin: new URL(host.url).origin,
      appInfo: () => ({ name: 'Tapline Terminal', version: '0.1.0', electron: '40.8.5', chrome: '', platform: 'linux', arch: 'x64', kiosk: true, packaged: false, syncServerUrl: 'http://127.0.0.1:9', updateChannel: 'latest' }),
      terminalConfig: () => ({ receipt: host.receipt }),
      log: () => undefined,
    });
    await connectPageIpc(page, ipcMain, () => contents, invoked);
  });
  after(async () => {
    ipc?.dispose();
    await browser?.close();
    await host?.close();
  });

  it('the renderer takes the preload API, not a WebSocket: reader and printer ready on the status bar, with the CSP on', async () => {
    const sockets: string[] = [];
    page.on('websocket', (socket) => sockets.push(socket.url()));
    const response = await page.goto(host.url);
    assert.match(response!.headers()['content-security-policy'] ?? '', /script-src 'self'/);
    await page.locator('#status-bridge[data-state="connected"]').waitFor();
    await page.locator('#status-reader[data-state="ready"]').waitFor();
    await page.locator('#status-printer[data-state="idle"]').waitFor();
    assert.ok(invoked.includes('tapline:hardware hardware.status'), 'status asked over IPC');
    assert.deepEqual(sockets, [], 'no loopback bridge socket');
    assert.equal(await page.evaluate(() => (globalThis as unknown as { taplineKiosk: { version: number } }).taplineKiosk.version), 1);
    await page.screenshot({ path: `${ARTIFACTS}kiosk-app-ipc.png` });
  });

  it('the page receives taps, prints and is refused bad calls through the same contract', async () => {
    const tapped = page.evaluate(
      () =>
        new Promise<string>((resolve) => {
          const api = (globalThis as unknown as { taplineKiosk: { hardware: { on(event: string, listener: (data: { tagId: string }) => void): () => void } } }).taplineKiosk;
          const stop = api.hardware.on('nfc.tap', (event) => {
            stop();
            resolve(event.tagId);
          });
        }),
    );
    // Let the listener register before the tap.
    await page.waitForFunction(() => true);
    reader.tap('TG1A2B3C4D');
    assert.equal(await tapped, 'TG1A2B3C4D');

    const printed = await page.evaluate(
      ([merchant, settings, receipt]) => (globalThis as unknown as { taplineKiosk: { hardware: { printReceipt(...args: unknown[]): Promise<unknown> } } }).taplineKiosk.hardware.printReceipt(merchant, settings, receipt, 'pos-chromium-ipc'),
      [SAMPLE_MERCHANT, sampleSettings(80), SAMPLE_RECEIPTS['pos-payment']] as const,
    );
    assert.deepEqual(printed, { ok: true, result: { jobId: 'pos-chromium-ipc', state: 'printed' } });
    assert.equal(printer.jobs.at(-1)?.jobId, 'pos-chromium-ipc');

    const refused = await page.evaluate(() => (globalThis as unknown as { taplineKiosk: { hardware: { print(document: unknown): Promise<unknown> } } }).taplineKiosk.hardware.print({ paperWidth: 57 }));
    assert.deepEqual(refused, { ok: false, error: { code: 'bad_request', message: 'paperWidth must be 58 or 80' } });
    const info = await page.evaluate(() => (globalThis as unknown as { taplineKiosk: { app: { info(): Promise<{ name: string; kiosk: boolean }> } } }).taplineKiosk.app.info());
    assert.equal(info.name, 'Tapline Terminal');
    assert.equal(info.kiosk, true);
  });

  it('reader events reach the status bar over IPC', async () => {
    await reader.stop();
    await page.locator('#status-reader[data-state="stopped"]').waitFor();
    await reader.start();
    await page.locator('#status-reader[data-state="ready"]').waitFor();
    assert.deepEqual(pageErrors, []);
  });
});
