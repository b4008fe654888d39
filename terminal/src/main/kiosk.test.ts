import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { type TagEvent, SAMPLE_MERCHANT, SAMPLE_RECEIPTS, SimulatedNfcReader, VirtualPrinter, sampleSettings } from '@tapline/hardware';
import { ManualClock } from '@tapline/hardware/testing';
import { CONTENT_SECURITY_POLICY_HEADER } from '../host/csp.ts';
import { startHostServer } from '../host/server.ts';
import type { DisplayListen } from '../host/config.ts';
import { IPC } from '../preload/api.ts';
import { createKioskApi } from '../preload/preload.ts';
import { KIOSK_CONFIG_FILE } from './kiosk-config.ts';
import { type KioskOptions, runKiosk } from './kiosk.ts';
import { type FakeWindow, PRIMARY_DISPLAY, fakeElectron, preventable } from './testing/fake-electron.ts';

const PAIRED_TOKEN = `term.${'ab'.repeat(32)}`;

/** Until `condition` holds (a generous ceiling: a loaded CI machine). */
async function waitFor(condition: () => boolean, timeoutMs = 30_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !condition(); ) {
    if (Date.now() > deadline) throw new Error(`not true within ${timeoutMs} ms: ${condition.toString()}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('kiosk app main process (with a stand-in for Electron)', () => {
  let upstream: Server;
  let upstreamUrl: string;
  let distDir: string;
  const cleanup: string[] = [];

  before(async () => {
    // What the build ships: the renderer and the first-start page (their contents do not matter here).
    distDir = mkdtempSync(join(tmpdir(), 'tapline-kiosk-dist-'));
    mkdirSync(join(distDir, 'renderer'));
    mkdirSync(join(distDir, 'provision'));
    writeFileSync(join(distDir, 'renderer', 'index.html'), '<!doctype html><title>Tapline Terminal</title><p>kiosk</p>');
    writeFileSync(join(distDir, 'provision', 'index.html'), '<!doctype html><title>First start</title>');
    // The sync server: its health as the real one answers, and an echo of anything else.
    upstream = createServer((request, response) => {
      if (request.url === '/api/terminals/pair') {
        let text = '';
        request.on('data', (chunk: Buffer) => (text += chunk.toString()));
        request.on('end', () => {
          const { code } = JSON.parse(text) as { code: string };
          if (code === 'ABCDEFGH') response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ token: PAIRED_TOKEN.slice('term.'.length), terminal: { id: 'term_1', name: 'Till 1', mode: 'test', merchant: { name: 'Mama Put', handle: '@mamaput' } } }));
          else response.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'No terminal is waiting for this pairing code', code: 'pairing_code_not_found' }));
        });
        return;
      }
      const body = request.url === '/api/health' ? { ok: true, uptime: 12.5, dbLatency: 0.4 } : { ok: true, path: request.url };
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise((resolve) => upstream.close(resolve));
    rmSync(distDir, { recursive: true, force: true });
    for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
  });

  const paths = () => ({
    renderer: join(distDir, 'renderer'),
    preload: join(distDir, 'preload', 'index.cjs'),
    provisionPage: join(distDir, 'provision', 'index.html'),
    pcscWorker: join(distDir, 'main', 'pcsc-worker.js'),
    printerWorker: join(distDir, 'main', 'printer-worker.js'),
  });

  function provisioned(syncServerUrl: string | null, extra: Record<string, unknown> = {}): string {
    const dir = mkdtempSync(join(tmpdir(), 'tapline-kiosk-userdata-'));
    cleanup.push(dir);
    if (syncServerUrl !== null) writeFileSync(join(dir, KIOSK_CONFIG_FILE), JSON.stringify({ syncServerUrl, ...extra }));
    return dir;
  }

  function start(fake: ReturnType<typeof fakeElectron>, options: Partial<KioskOptions> = {}) {
    const nfc = new SimulatedNfcReader({ baseUrl: upstreamUrl, debounceWindowMs: 0 });
    const printer = new VirtualPrinter({});
    const logs: string[] = [];
    const running = runKiosk(fake.electron, {
      paths: paths(),
      startHost: startHostServer,
      env: { TERMINAL_PORT: '0' },
      argv: [],
      nfc,
      printer,
      updater: null,
      provisionedPauseMs: 0,
      log: (line) => logs.push(line),
      ...options,
    });
    return { running, nfc, printer, logs };
  }

  async function quit(fake: ReturnType<typeof fakeElectron>): Promise<void> {
    fake.emit('window-all-closed');
    for (const deadline = Date.now() + 60_000; !fake.state.exited && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(fake.state.exited, true);
  }

  it('opens one locked-down kiosk window on the host, which serves the page with its CSP and forwards /api', async () => {
    const fake = fakeElectron({ userDataDir: provisioned(upstreamUrl) });
    const { running, logs } = start(fake);
    const kiosk = await running;
    assert.ok(kiosk);
    assert.equal(kiosk.syncServerUrl, upstreamUrl);
    assert.equal(fake.windows.length, 1);
    const window = fake.windows[0]!;
    assert.deepEqual(window.options.webPreferences, {
      preload: paths().preload,
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      sandbox: true,
      webSecurity: true,
      webviewTag: false,
      devTools: false,
      spellcheck: false,
      navigateOnDragDrop: false,
      safeDialogs: true,
    });
    assert.equal(window.options.kiosk, true);
    assert.equal(window.options.fullscreen, true);
    assert.deepEqual(window.loaded, [kiosk.host.url]);
    assert.equal(window.shown, 1);
    assert.equal(fake.state.menu, null, 'no application menu');
    assert.equal(window.menu, null, 'no window menu');
    assert.deepEqual(fake.state.crashReporter, { uploadToServer: false, compress: true });
    assert.equal(fake.state.blockers.size, 1, 'the display is kept awake');
    assert.deepEqual(window.webContents.zoomLimits, [[1, 1]]);

    const page = await fetch(kiosk.host.url);
    assert.match(await page.text(), /Tapline Terminal/);
    assert.equal(page.headers.get('content-security-policy'), CONTENT_SECURITY_POLICY_HEADER);
    assert.deepEqual(await (await fetch(`${kiosk.host.url}/api/health`)).json(), { ok: true, uptime: 12.5, dbLatency: 0.4 });
    // IPC carries the hardware: the page is given no loopback bridge to connect to.
    const configAnswer = await fetch(`${kiosk.host.url}/terminal-config.json`);
    assert.equal(configAnswer.status, 404, 'no configuration (and no bridge) on loopback HTTP');
    assert.deepEqual(await configAnswer.json(), { error: 'The kiosk app gives the page its configuration over IPC', code: 'not_found' });
    const config = await createKioskApi(fake.ipcRendererFor(window)).app.terminalConfig();
    assert.equal(config.receipt.paperWidth, 80);
    assert.deepEqual(Object.keys(config), ['receipt']);

    // The page stays on its own origin: no other sites or redirects, no pop-ups, webviews, downloads or device permissions.
    assert.equal(window.webContents.navigate('https://example.com/'), false);
    assert.equal(window.webContents.navigate(`${kiosk.host.url}/#/sale`), true);
    assert.equal(window.webContents.navigate('https://evil.example/', 'will-redirect'), false);
    assert.equal(window.webContents.navigate('file:///etc/passwd'), false);
    assert.deepEqual(window.webContents.windowOpenHandler!({ url: `${kiosk.host.url}/` }), { action: 'deny' });
    const webview = preventable();
    window.webContents.emit('will-attach-webview', webview);
    assert.equal(webview.prevented, true);
    for (const permission of ['media', 'geolocation', 'notifications', 'hid', 'serial', 'clipboard-read']) assert.equal(await fake.session.askPermission(permission), false, permission);
    assert.equal(fake.session.permissionCheck!(null, 'media'), false);
    assert.equal(fake.session.devicePermission!({}), false);
    const download = preventable();
    fake.session.emit('will-download', download);
    assert.equal(download.prevented, true);
    assert.ok(logs.some((line) => line.includes('refused navigation to https://example.com/')));

    // Reload, DevTools, zoom and quitting shortcuts do nothing; the till's own keys reach the page.
    for (const blocked of [{ key: 'F5' }, { key: 'r', control: true }, { key: 'R', control: true, shift: true }, { key: 'F12' }, { key: 'I', control: true, shift: true }, { key: 'j', meta: true, shift: true }, { key: 'w', control: true }, { key: '=', control: true }, { key: '0', control: true }, { key: 'ArrowLeft', alt: true }]) {
      assert.equal(window.webContents.press(blocked), false, JSON.stringify(blocked));
    }
    for (const allowed of [{ key: '7' }, { key: 'Enter' }, { key: 'Backspace' }, { key: 'Escape' }, { key: '.' }, { key: 'v', control: true }, { key: 'a', control: true }, { key: 'F5', type: 'keyUp' }]) {
      assert.equal(window.webContents.press(allowed), true, JSON.stringify(allowed));
    }

    // A second launch focuses this window.
    fake.emit('second-instance');
    assert.equal(window.focused, 1);

    // Quitting closes the host (page, reader, printer) and lets the display sleep before the app exits.
    await quit(fake);
    assert.equal(fake.state.blockers.size, 0);
    await assert.rejects(fetch(kiosk.host.url), 'the host no longer listens');
    assert.equal(fake.ipcMain.handlers.size, 0, 'IPC handlers removed');
  });

  it('carries the hardware over IPC through the preload API, and refuses calls it should not answer', async () => {
    const fake = fakeElectron({ userDataDir: provisioned(upstreamUrl, { updateChannel: 'beta' }) });
    const { running, nfc, printer } = start(fake);
    const kiosk = await running;
    assert.ok(kiosk);
    const window = fake.windows[0]!;
    // The real preload code, given the page's ipcRenderer.
    const api = createKioskApi(fake.ipcRendererFor(window));

    const status = await api.hardware.status();
    assert.ok(status.ok);
    assert.equal(status.result.nfc.driver, 'simulated');
    assert.equal(status.result.nfc.state, 'ready');
    assert.equal(status.result.printer.printer, 'virtual');

    const taps: TagEvent[] = [];
    const stop = api.hardware.on('nfc.tap', (event) => taps.push(event));
    assert.deepEqual(await api.hardware.simulateTap('TG1A2B3C4D'), { ok: true, result: { accepted: true } });
    nfc.tap('TG00C0FFEE');
    assert.deepEqual(
      taps.map((tap) => tap.tagId),
      ['TG1A2B3C4D', 'TG00C0FFEE'],
    );
    stop();
    nfc.tap('TG0000BEEF');
    assert.equal(taps.length, 2, 'no events after unsubscribing');

    const printed = await api.hardware.printReceipt(SAMPLE_MERCHANT, sampleSettings(80), SAMPLE_RECEIPTS['pos-payment'], 'pos-ipc-1');
    assert.deepEqual(printed, { ok: true, result: { jobId: 'pos-ipc-1', state: 'printed' } });
    assert.equal(printer.jobs.at(-1)?.jobId, 'pos-ipc-1');
    assert.equal(printer.jobs.at(-1)?.document.paperWidth, 80);
    // Printing the same job id again prints once.
    await api.hardware.printReceipt(SAMPLE_MERCHANT, sampleSettings(80), SAMPLE_RECEIPTS['pos-payment'], 'pos-ipc-1');
    assert.equal(printer.jobs.filter((job) => job.jobId === 'pos-ipc-1').length, 1);

    // The cash drawer, once per job id; its state comes back as printer status.
    const drawerStatuses: (string | null)[] = [];
    const stopStatus = api.hardware.on('printer.status', (status) => drawerStatuses.push(status.drawer));
    assert.deepEqual(await api.hardware.openDrawer({ reason: 'cash_sale', jobId: 'sale-ipc-1' }), { ok: true, result: { jobId: 'sale-ipc-1', opened: true, drawer: 'open' } });
    assert.deepEqual(await api.hardware.openDrawer({ reason: 'cash_sale', jobId: 'sale-ipc-1' }), { ok: true, result: { jobId: 'sale-ipc-1', opened: true, drawer: 'open' } });
    assert.equal(printer.drawerPulses, 1);
    assert.equal(printer.lastDrawerReason, 'cash_sale');
    assert.deepEqual(drawerStatuses, ['open']);
    stopStatus();
    assert.deepEqual(await api.hardware.openDrawer({ reason: 'gift', jobId: 'x' } as never), { ok: false, error: { code: 'bad_request', message: 'reason must be one of cash_sale, cash_refund, no_sale, paid_in, paid_out, float' } });

    // The parameters are the bridge's to check: a bad document is a bad_request, not a crash.
    const bad = await api.hardware.print({ paperWidth: 57 } as never);
    assert.deepEqual(bad, { ok: false, error: { code: 'bad_request', message: 'paperWidth must be 58 or 80' } });

    const invoke = (channel: string, ...args: unknown[]) => fake.ipcMain.invoke({ sender: window.webContents, senderFrame: window.webContents.mainFrame() }, channel, ...args);
    assert.deepEqual(await invoke(IPC.hardware, 'hello', { secret: 'x' }), { ok: false, error: { code: 'bad_request', message: 'unknown method "hello"' } });
    assert.deepEqual(await invoke(IPC.hardware, 'printer.print', ['not', 'an', 'object']), { ok: false, error: { code: 'bad_request', message: 'params must be an object' } });
    assert.deepEqual(await invoke(IPC.hardware, 'printer.print', new Map()), { ok: false, error: { code: 'bad_request', message: 'params must be an object' } });
    const huge = await invoke(IPC.hardware, 'printer.print', { document: { blocks: [{ kind: 'text', text: 'x'.repeat(1024 * 1024) }] } });
    assert.deepEqual(huge, { ok: false, error: { code: 'bad_request', message: 'params larger than 1048576 bytes' } });
    assert.deepEqual(await invoke(IPC.hardware, 'nfc.simulateTap', { tagIdOrUri: 42 }), { ok: false, error: { code: 'bad_request', message: 'tagIdOrUri must be a string' } });

    // Only the till's page, in the kiosk window's main frame, is answered.
    const fromOtherOrigin = createKioskApi(fake.ipcRendererFor(window, () => ({ url: 'https://evil.example/', parent: null })));
    assert.deepEqual(await fromOtherOrigin.hardware.status(), { ok: false, error: { code: 'unauthorized', message: 'hardware calls are answered for the till page only' } });
    const fromSubframe = createKioskApi(fake.ipcRendererFor(window, () => ({ url: `${kiosk.host.url}/`, parent: {} })));
    assert.equal((await fromSubframe.hardware.openDrawer({ reason: 'no_sale', jobId: 'nosale-subframe' })).ok, false);
    assert.equal(printer.drawerPulses, 1, 'a refused caller kicks nothing');
    await assert.rejects(fromOtherOrigin.app.info(), /till page only/);
    const otherWindow = new fake.electron.BrowserWindow(window.options) as FakeWindow;
    otherWindow.webContents.url = kiosk.host.url;
    assert.equal((await createKioskApi(fake.ipcRendererFor(otherWindow)).hardware.status()).ok, false);

    const info = await api.app.info();
    assert.equal(info.name, 'Tapline Terminal');
    assert.equal(info.kiosk, true);
    assert.equal(info.packaged, false);
    assert.equal(info.syncServerUrl, upstreamUrl);
    assert.equal(info.updateChannel, 'beta');
    // The first-start handlers exist only during the first start.
    await assert.rejects(api.provisioning.save('http://127.0.0.1:1'), /No handler registered/);

    await quit(fake);
  });

  it('loads the page again when its process crashes, hangs or it fails to load, with back-off', async () => {
    const clock = new ManualClock();
    const fake = fakeElectron({ userDataDir: provisioned(upstreamUrl) });
    const { running } = start(fake, { clock });
    const kiosk = await running;
    assert.ok(kiosk);
    const window = fake.windows[0]!;
    const contents = window.webContents;
    assert.equal(window.loaded.length, 1);

    contents.emit('render-process-gone', {}, { reason: 'crashed', exitCode: 139 });
    clock.advance(999);
    assert.equal(window.loaded.length, 1, 'waits 1 s');
    clock.advance(1);
    assert.deepEqual(window.loaded.slice(1), [kiosk.host.url]);

    // Hung for 15 s: its process is crashed on purpose, then the page loads again.
    window.emit('unresponsive');
    clock.advance(14_000);
    assert.equal(contents.crashes, 0);
    clock.advance(1000);
    assert.equal(contents.crashes, 1);
    clock.advance(1000);
    assert.equal(window.loaded.length, 3);
    // Unresponsive for a moment only: left alone.
    window.emit('unresponsive');
    clock.advance(5000);
    window.emit('responsive');
    clock.advance(60_000);
    assert.equal(contents.crashes, 1);

    // The host unreachable: each failed load waits twice as long (1 s, 2 s, 4 s), a success resets it.
    window.failLoads = true;
    contents.emit('did-fail-load', {}, -102, 'ERR_CONNECTION_REFUSED', kiosk.host.url, true);
    clock.advance(1000);
    assert.equal(window.loaded.length, 4);
    await new Promise((resolve) => setImmediate(resolve));
    clock.advance(1999);
    assert.equal(window.loaded.length, 4);
    clock.advance(1);
    assert.equal(window.loaded.length, 5);
    await new Promise((resolve) => setImmediate(resolve));
    window.failLoads = false;
    clock.advance(4000);
    assert.equal(window.loaded.length, 6);
    contents.emit('render-process-gone', {}, { reason: 'oom', exitCode: 1 });
    clock.advance(1000);
    assert.equal(window.loaded.length, 7, 'back to 1 s after a good load');
    // A subframe's failure or an aborted load is not the page failing.
    contents.emit('did-fail-load', {}, -102, 'ERR_CONNECTION_REFUSED', 'http://127.0.0.1:1/', false);
    contents.emit('did-fail-load', {}, -3, 'ERR_ABORTED', kiosk.host.url, true);
    clock.advance(60_000);
    assert.equal(window.loaded.length, 7);

    await quit(fake);
  });

  it('first start: asks for the sync server and the pairing code, checks both, saves the address and the terminal, then shows the till with the token', async () => {
    const userDataDir = provisioned(null);
    const fake = fakeElectron({ userDataDir });
    const { running } = start(fake);
    for (const deadline = Date.now() + 60_000; fake.windows[0]?.loaded.length !== 1 && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 10));
    const window = fake.windows[0]!;
    const pageUrl = pathToFileURL(paths().provisionPage).href;
    assert.deepEqual(window.loaded, [pageUrl]);
    assert.equal(window.webContents.navigate(pageUrl), true, 'the first-start page is allowed');
    assert.equal(window.webContents.navigate('https://example.com/'), false);
    const api = createKioskApi(fake.ipcRendererFor(window));
    assert.deepEqual(await api.provisioning.state(), { syncServerUrl: null, terminal: null });

    const code = (answer: { ok: boolean; code?: string }) => (answer.ok ? 'ok' : answer.code);
    assert.equal(code(await api.provisioning.save('ftp://server.example', { pairingCode: 'ABCDEFGH' })), 'invalid_url');
    assert.deepEqual(await api.provisioning.save('http://user:secret@server.example'), { ok: false, code: 'invalid_url', message: 'the address must be http:// or https:// with a host, without a user, query or fragment' });
    assert.equal(code(await api.provisioning.save(upstreamUrl)), 'pairing_code_missing');
    assert.equal(code(await api.provisioning.save(upstreamUrl, { pairingCode: 'ABCD-EFG0' })), 'pairing_code_invalid', '0 is not in the alphabet');
    // Nothing listens on port 1: unreachable unless the page says to keep it anyway.
    assert.equal(code(await api.provisioning.save('http://127.0.0.1:1', { pairingCode: 'ABCDEFGH' })), 'unreachable');
    // The server does not know the code.
    assert.deepEqual(await api.provisioning.save(upstreamUrl, { pairingCode: 'ZZZZ-ZZZZ' }), { ok: false, code: 'pairing_code_not_found', message: 'No terminal is waiting for this pairing code' });
    assert.throws(() => statSync(join(userDataDir, KIOSK_CONFIG_FILE)), /ENOENT/, 'nothing saved yet');
    // Another frame or page may not provision, nor take the token.
    const elsewhere = createKioskApi(fake.ipcRendererFor(window, () => ({ url: 'https://evil.example/', parent: null })));
    assert.deepEqual(await elsewhere.provisioning.save(upstreamUrl, { pairingCode: 'ABCDEFGH' }), { ok: false, code: 'forbidden', message: 'provisioning is answered for the first-start page only' });

    assert.deepEqual(await api.provisioning.save(` ${upstreamUrl}/ `, { pairingCode: 'abcd efgh' }), { ok: true, syncServerUrl: upstreamUrl, terminal: { id: 'term_1', name: 'Till 1', merchant: 'Mama Put' } });
    const kiosk = await running;
    assert.ok(kiosk);
    assert.equal(kiosk.syncServerUrl, upstreamUrl);
    const file = join(userDataDir, KIOSK_CONFIG_FILE);
    // The address and which terminal this is; never the single-use code nor the token.
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), { syncServerUrl: upstreamUrl, terminal: { id: 'term_1', name: 'Till 1', merchant: 'Mama Put' }, updateChannel: 'latest', updateUrl: null, env: {} });
    assert.doesNotMatch(readFileSync(file, 'utf8'), /term\.|ABCDEFGH/);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    // The till page (on the host's origin) takes the token once; nobody else gets it.
    await assert.rejects(elsewhere.app.takeTerminalToken(), /till page only/);
    assert.equal(await api.app.takeTerminalToken(), PAIRED_TOKEN);
    assert.equal(await api.app.takeTerminalToken(), null);
    assert.deepEqual(window.loaded, [pageUrl, kiosk.host.url]);
    assert.deepEqual(await (await fetch(`${kiosk.host.url}/api/pos/context`)).json(), { ok: true, path: '/api/pos/context' });
    assert.equal(fake.ipcMain.handlers.has(IPC.provisioningSave), false, 'provisioning is over');
    await quit(fake);
  });

  it('--provision asks again with the saved address; SYNC_SERVER_URL wins over the file', async () => {
    const userDataDir = provisioned('http://old-server.example:3000');
    const fake = fakeElectron({ userDataDir });
    const { running } = start(fake, { argv: ['electron', '.', '--provision'], checkServer: async () => ({ ok: true }) });
    for (const deadline = Date.now() + 60_000; fake.windows[0]?.loaded.length !== 1 && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 10));
    const api = createKioskApi(fake.ipcRendererFor(fake.windows[0]!));
    assert.deepEqual(await api.provisioning.state(), { syncServerUrl: 'http://old-server.example:3000', terminal: null });
    assert.equal((await api.provisioning.save(upstreamUrl, { pairingCode: 'ABCDEFGH' })).ok, true);
    assert.equal((await running)?.syncServerUrl, upstreamUrl);
    await quit(fake);

    // A server that is not up yet may be kept anyway: saved without pairing (the till's own
    // pairing screen asks for the code later), and no token for the page.
    const notUp = fakeElectron({ userDataDir: provisioned(null) });
    const pending = start(notUp).running;
    for (const deadline = Date.now() + 60_000; notUp.windows[0]?.loaded.length !== 1 && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 10));
    const notUpApi = createKioskApi(notUp.ipcRendererFor(notUp.windows[0]!));
    assert.deepEqual(await notUpApi.provisioning.save('http://127.0.0.1:1', { force: true }), { ok: true, syncServerUrl: 'http://127.0.0.1:1', terminal: null });
    assert.equal((await pending)?.syncServerUrl, 'http://127.0.0.1:1');
    assert.equal(await notUpApi.app.takeTerminalToken(), null);
    await quit(notUp);

    const overridden = fakeElectron({ userDataDir: provisioned('http://old-server.example:3000') });
    const started = start(overridden, { env: { TERMINAL_PORT: '0', SYNC_SERVER_URL: upstreamUrl } });
    assert.equal((await started.running)?.syncServerUrl, upstreamUrl);
    await quit(overridden);
  });

  it('a development window (KIOSK=0) keeps DevTools and the keyboard; a second instance quits without a host', async () => {
    const fake = fakeElectron({ userDataDir: provisioned(upstreamUrl) });
    const kiosk = await start(fake, { kiosk: false }).running;
    assert.ok(kiosk);
    const window = fake.windows[0]!;
    assert.equal(window.options.kiosk, false);
    assert.equal(window.options.webPreferences.devTools, true);
    assert.equal(window.webContents.press({ key: 'F5' }), true);
    assert.equal(window.webContents.navigate('https://example.com/'), false, 'navigation stays locked');
    await quit(fake);

    const second = fakeElectron({ lock: false, userDataDir: provisioned(upstreamUrl) });
    let started = 0;
    const none = await start(second, {
      startHost: async (options) => {
        started += 1;
        return startHostServer(options);
      },
    }).running;
    assert.equal(none, undefined);
    assert.equal(started, 0);
    assert.equal(second.windows.length, 0);
    assert.equal(second.state.exited, true);
  });

  it('opens the customer display on a second screen (the host serves /display), follows screens coming and going, and closes it on quit', async () => {
    const second = { id: 7, bounds: { x: 1024, y: 0, width: 800, height: 600 } };
    const fake = fakeElectron({ userDataDir: provisioned(upstreamUrl), displays: [PRIMARY_DISPLAY, second] });
    const { running, logs } = start(fake);
    const kiosk = await running;
    assert.ok(kiosk);
    assert.equal(fake.windows.length, 2, 'the till and the customer display');
    const [till, display] = fake.windows as [FakeWindow, FakeWindow];
    assert.deepEqual(till.loaded, [kiosk.host.url]);
    assert.deepEqual(display.loaded, [`${kiosk.host.url}/display`]);
    assert.deepEqual([display.options.x, display.options.y, display.options.width, display.options.height, display.options.frame, display.options.focusable, display.options.fullscreen], [1024, 0, 800, 600, false, false, true]);
    assert.equal(display.options.webPreferences.preload, undefined, 'no preload: the display needs no IPC');
    assert.equal(display.menu, null, 'locked down like the till');
    assert.equal(display.webContents.navigate('https://example.com/'), false);
    await waitFor(() => display.shown === 1);
    assert.equal(kiosk.customerDisplay.current()?.displayId, 7);
    const page = await fetch(`${kiosk.host.url}/display`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /Tapline Terminal/, 'the same build\'s page');
    assert.ok(logs.some((line) => line.includes('customer display on screen 7')), logs.join('\n'));

    fake.screens.remove(7);
    assert.equal(display.destroyed, true);
    assert.equal(kiosk.customerDisplay.current(), null);
    fake.screens.add({ ...second, id: 8 });
    assert.equal(fake.windows.length, 3);
    assert.equal(kiosk.customerDisplay.current()?.displayId, 8);
    await quit(fake);
    assert.equal(fake.windows[2]!.destroyed, true, 'closed with the app');
  });

  it('KIOSK_CUSTOMER_DISPLAY=off (in kiosk-config.json) keeps a second screen empty; a value it does not know (in the environment) is logged and does the same', async () => {
    for (const value of ['off', 'sideways']) {
      const userDataDir = value === 'off' ? provisioned(upstreamUrl, { env: { KIOSK_CUSTOMER_DISPLAY: 'off' } }) : provisioned(upstreamUrl);
      const fake = fakeElectron({ userDataDir, displays: [PRIMARY_DISPLAY, { id: 2, bounds: { x: 1024, y: 0, width: 800, height: 600 } }] });
      const { running, logs } = start(fake, { env: value === 'off' ? { TERMINAL_PORT: '0' } : { TERMINAL_PORT: '0', KIOSK_CUSTOMER_DISPLAY: value } });
      const kiosk = await running;
      assert.ok(kiosk);
      assert.equal(fake.windows.length, 1, value);
      if (value === 'sideways') assert.ok(logs.some((line) => line.includes('KIOSK_CUSTOMER_DISPLAY=sideways is not auto, off or a screen id')), logs.join('\n'));
      await quit(fake);
    }
  });

  it('KIOSK_DISPLAY_LISTEN it cannot read (environment or kiosk-config.json) is logged and starts no LAN listener; the till still starts', async () => {
    for (const [where, value] of [['environment', 'shop-wifi:99999'], ['kiosk-config.json', 'everywhere']] as const) {
      const userDataDir = where === 'environment' ? provisioned(upstreamUrl) : provisioned(upstreamUrl, { env: { KIOSK_DISPLAY_LISTEN: value } });
      const fake = fakeElectron({ userDataDir });
      const given: (DisplayListen | null | undefined)[] = [];
      const { running, logs } = start(fake, {
        env: where === 'environment' ? { TERMINAL_PORT: '0', KIOSK_DISPLAY_LISTEN: value } : { TERMINAL_PORT: '0' },
        startHost: async (options) => {
          given.push(options.displayListen);
          return startHostServer(options);
        },
      });
      const kiosk = await running;
      assert.ok(kiosk, where);
      assert.deepEqual(given, [null], `${where}: no LAN listener`);
      assert.ok(logs.some((line) => line.includes('KIOSK_DISPLAY_LISTEN must be host:port') && line.includes(JSON.stringify(value)) && line.includes('no LAN listener for tablets')), logs.join('\n'));
      assert.equal(fake.windows.length, 1, `${where}: the till's window opened`);
      assert.equal((await fetch(kiosk.host.url)).status, 200, `${where}: the host serves the till`);
      await quit(fake);
    }
  });

  it('refuses to start on a broken kiosk-config.json, naming every problem', async () => {
    const userDataDir = provisioned(null);
    writeFileSync(join(userDataDir, KIOSK_CONFIG_FILE), JSON.stringify({ syncServerUrl: 'javascript:alert(1)', updateChannel: 'nightly', env: { PATH: '/tmp', PRINTER: 9100 } }));
    const fake = fakeElectron({ userDataDir });
    await assert.rejects(start(fake).running, (error: Error) => {
      assert.match(error.message, /syncServerUrl must be an http\(s\) address/);
      assert.match(error.message, /updateChannel must be one of latest, beta/);
      assert.match(error.message, /env\.PATH is not a setting the kiosk knows/);
      assert.match(error.message, /env\.PRINTER must be a string/);
      return true;
    });
    assert.equal(fake.windows.length, 0);
  });
});
