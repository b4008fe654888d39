import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SimulatedNfcReader } from '@tapline/hardware/src/nfc/index.ts';
import { VirtualPrinter } from '@tapline/hardware/src/printer/index.ts';
import { startTerminalHost } from '../host/index.ts';
import { type ElectronLike, type KioskWindow, type KioskWindowOptions, runKiosk } from './kiosk.ts';

/** A stand-in for Electron's main-process API that records what the shell asks of it. */
function fakeElectron(options: { lock?: boolean } = {}) {
  const listeners = new Map<string, ((...args: never[]) => void)[]>();
  const windows: { options: KioskWindowOptions; loaded: string[]; openHandler?: (details: { url: string }) => { action: string }; navigate?: (event: { preventDefault(): void }, url: string) => void; focused: number }[] = [];
  let permissionHandler: ((webContents: unknown, permission: string, callback: (granted: boolean) => void) => void) | undefined;
  const state = { quits: 0, exited: false };
  const electron: ElectronLike = {
    app: {
      whenReady: async () => undefined,
      requestSingleInstanceLock: () => options.lock ?? true,
      on(event: string, listener: (...args: never[]) => void) {
        listeners.set(event, [...(listeners.get(event) ?? []), listener]);
        return this;
      },
      quit() {
        state.quits += 1;
        // Electron emits before-quit; a listener that prevents it keeps the app running.
        let prevented = false;
        for (const listener of listeners.get('before-quit') ?? []) (listener as (event: { preventDefault(): void }) => void)({ preventDefault: () => (prevented = true) });
        if (!prevented) state.exited = true;
      },
      exit() {
        state.exited = true;
      },
    },
    BrowserWindow: class {
      private readonly record: (typeof windows)[number];
      webContents: KioskWindow['webContents'];
      constructor(windowOptions: KioskWindowOptions) {
        const record: (typeof windows)[number] = { options: windowOptions, loaded: [], focused: 0 };
        this.record = record;
        windows.push(record);
        this.webContents = {
          setWindowOpenHandler: (handler) => void (record.openHandler = handler),
          on: (_event, listener) => void (record.navigate = listener),
        };
      }
      async loadURL(url: string) {
        this.record.loaded.push(url);
      }
      focus() {
        this.record.focused += 1;
      }
      isMinimized() {
        return false;
      }
      restore() {}
    },
    session: { defaultSession: { setPermissionRequestHandler: (handler) => void (permissionHandler = handler) } },
  };
  const emit = (event: string) => {
    for (const listener of listeners.get(event) ?? []) (listener as () => void)();
  };
  return { electron, windows, state, emit, askPermission: (permission: string) => new Promise<boolean>((resolve) => permissionHandler!(null, permission, resolve)) };
}

describe('kiosk shell (Electron main process, with a stand-in for Electron)', () => {
  let upstream: Server;
  let upstreamUrl: string;
  let staticDir: string;

  before(async () => {
    staticDir = mkdtempSync(join(tmpdir(), 'tapline-kiosk-'));
    writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Tapline Terminal</title><p>kiosk</p>');
    upstream = createServer((request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, path: request.url }));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise((resolve) => upstream.close(resolve));
    rmSync(staticDir, { recursive: true, force: true });
  });

  const hostOptions = () => ({
    port: 0,
    staticDir,
    nfc: new SimulatedNfcReader({ baseUrl: upstreamUrl, debounceWindowMs: 0 }),
    printer: new VirtualPrinter({}),
    log: () => undefined,
  });

  it('opens one locked-down full-screen window on the terminal host, which serves the page and forwards /api', async () => {
    const fake = fakeElectron();
    const kiosk = await runKiosk(fake.electron, { syncServerUrl: upstreamUrl, startHost: startTerminalHost, hostOptions: hostOptions(), log: () => undefined });
    assert.ok(kiosk);
    assert.equal(fake.windows.length, 1);
    const [window] = fake.windows;
    assert.deepEqual(window!.options.webPreferences, { contextIsolation: true, nodeIntegration: false, sandbox: true, webSecurity: true });
    assert.equal(window!.options.kiosk, true);
    assert.deepEqual(window!.loaded, [kiosk.host.url]);
    const page = await fetch(kiosk.host.url);
    assert.match(await page.text(), /Tapline Terminal/);
    const health = await fetch(`${kiosk.host.url}/api/health`);
    assert.deepEqual(await health.json(), { ok: true, path: '/api/health' });

    // The page stays on its own origin: no other sites, no pop-ups, no device permissions.
    let prevented = false;
    window!.navigate!({ preventDefault: () => (prevented = true) }, 'https://example.com/');
    assert.equal(prevented, true);
    prevented = false;
    window!.navigate!({ preventDefault: () => (prevented = true) }, `${kiosk.host.url}/#/sale`);
    assert.equal(prevented, false);
    assert.deepEqual(window!.openHandler!({ url: 'https://example.com/' }), { action: 'deny' });
    assert.equal(await fake.askPermission('media'), false);

    // A second launch focuses this window.
    fake.emit('second-instance');
    assert.equal(window!.focused, 1);

    // Quitting closes the host (page, bridge, reader) before the app exits.
    fake.emit('window-all-closed');
    assert.equal(fake.state.exited, false, 'held until the host has closed');
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(fake.state.exited, true);
    await assert.rejects(fetch(kiosk.host.url), 'the host no longer listens');
  });

  it('a second instance quits at once without starting a host', async () => {
    const fake = fakeElectron({ lock: false });
    let started = 0;
    const kiosk = await runKiosk(fake.electron, {
      syncServerUrl: upstreamUrl,
      startHost: async (options) => {
        started += 1;
        return startTerminalHost(options);
      },
      log: () => undefined,
    });
    assert.equal(kiosk, undefined);
    assert.equal(started, 0);
    assert.equal(fake.windows.length, 0);
    assert.equal(fake.state.exited, true);
  });
});
