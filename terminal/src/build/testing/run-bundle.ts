// Started with `node --import tsx --import <this file> <dist>/main/index.js` by
// electron-build.test.ts: the built main process runs in Node against the stand-in for Electron.
// Once the window shows the till, it loads the built preload as Electron would (a CommonJS script
// given `require('electron')`), asks the hardware through it, quits the app, and prints one line
// `SMOKE <json>` for the test to check.
import { readFileSync } from 'node:fs';
import { register } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SAMPLE_MERCHANT, SAMPLE_RECEIPTS, sampleSettings } from '@tapline/hardware';
import type { KioskApi } from '../../preload/api.ts';
import { fakeElectron } from '../../main/testing/fake-electron.ts';
import { nodeUtilityProcess } from '../../main/testing/node-utility-process.ts';

const distDir = process.env.SMOKE_DIST_DIR;
const userDataDir = process.env.SMOKE_USER_DATA;
if (distDir === undefined || userDataDir === undefined) throw new Error('SMOKE_DIST_DIR and SMOKE_USER_DATA are required');

// The built workers (printer-worker.js) run as Node children that look like utility processes.
const workspaceResolve = fileURLToPath(new URL('./workspace-resolve.mjs', import.meta.url));
const fake = fakeElectron({ userDataDir, fork: (modulePath, args, options) => nodeUtilityProcess(modulePath, args, options, [workspaceResolve]) });
(globalThis as { __taplineFakeElectron?: typeof fake }).__taplineFakeElectron = fake;
register('./electron-hooks.mjs', import.meta.url, { data: { standInUrl: new URL('./electron-stand-in.mjs', import.meta.url).href, workspaceUrl: new URL('../../../package.json', import.meta.url).href } });

function report(result: Record<string, unknown>): never {
  console.log(`SMOKE ${JSON.stringify(result)}`);
  process.exit(0);
}

const deadline = Date.now() + 60_000;
const poll = setInterval(() => {
  const window = fake.windows[0];
  const url = window?.loaded.at(-1);
  if (window === undefined || url === undefined || !url.startsWith('http://127.0.0.1:')) {
    if (Date.now() > deadline) report({ error: 'the till never showed', loaded: window?.loaded ?? [], exited: fake.state.exited, exitCode: fake.state.exitCode });
    return;
  }
  clearInterval(poll);
  void (async () => {
    const page = await fetch(url);
    const html = await page.text();
    // The preload as Electron's sandbox runs it: a CommonJS script whose require gives 'electron' only.
    const exposed: Record<string, unknown> = {};
    const electronForPreload = { contextBridge: { exposeInMainWorld: (key: string, value: unknown) => void (exposed[key] = value) }, ipcRenderer: fake.ipcRendererFor(window) };
    const preloadSource = readFileSync(join(distDir, 'preload', 'index.cjs'), 'utf8');
    const module = { exports: {} };
    new Function('require', 'module', 'exports', preloadSource)(
      (name: string) => {
        if (name !== 'electron') throw new Error(`the preload required ${name}`);
        return electronForPreload;
      },
      module,
      module.exports,
    );
    const api = exposed.taplineKiosk as KioskApi;
    // Printing waits for the printer's utility process (the built printer-worker.js) to be ready.
    const printed = await api.hardware.printReceipt(SAMPLE_MERCHANT, sampleSettings(80), SAMPLE_RECEIPTS['pos-payment'], 'pos-smoke');
    const status = await api.hardware.status();
    const terminalConfig = await api.app.terminalConfig();
    const info = await api.app.info();
    fake.emit('window-all-closed');
    for (const deadline = Date.now() + 60_000; !fake.state.exited && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 20));
    report({
      url,
      loaded: fake.windows[0]!.loaded,
      preloadOption: window.options.webPreferences.preload,
      status: page.status,
      csp: page.headers.get('content-security-policy'),
      hasApp: html.includes('<div id="app">'),
      exposed: Object.keys(exposed),
      hardware: status,
      printed,
      terminalConfig,
      forks: fake.forks.map((forked) => forked.modulePath),
      info,
      handlersLeft: fake.ipcMain.handlers.size,
      exited: fake.state.exited,
      crashReporter: fake.state.crashReporter,
      menu: fake.state.menu,
      distDir: fileURLToPath(new URL(`file://${distDir}`)),
    });
  })().catch((error: unknown) => report({ error: (error as Error).stack ?? String(error) }));
}, 25);
