// The Electron app's pages in Chromium: the real preload code (terminal/src/preload/preload.ts)
// bundled for the page over an ipcRenderer whose calls reach main-process handlers in this
// process (page.exposeFunction), and whose events this process pushes into the page.
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Page } from 'playwright-core';
import type { IpcMainInvokeEventLike, WebContentsLike } from '../../terminal/src/main/electron-like.ts';
import { IPC } from '../../terminal/src/preload/api.ts';
import type { FakeIpcMain, FakeWindow } from '../../terminal/src/main/testing/fake-electron.ts';

/**
 * The preload's createKioskApi for the page, over an ipcRenderer whose invoke goes to this
 * process (window.__taplineIpcInvoke) and whose events this process pushes (window.__taplineIpcEmit).
 */
export async function preloadForPage(): Promise<string> {
  const result = await build({
    stdin: {
      contents: [
        "import { createKioskApi } from './preload.ts';",
        "import { KIOSK_API_GLOBAL } from './api.ts';",
        'const listeners = new Map();',
        'const ipcRenderer = {',
        '  invoke: (channel, ...args) => window.__taplineIpcInvoke(channel, ...args),',
        '  on: (channel, listener) => listeners.set(channel, [...(listeners.get(channel) ?? []), listener]),',
        '  removeListener: (channel, listener) => listeners.set(channel, (listeners.get(channel) ?? []).filter((l) => l !== listener)),',
        '};',
        'window.__taplineIpcEmit = (channel, payload) => { for (const listener of listeners.get(channel) ?? []) listener({}, payload); };',
        // As contextBridge.exposeInMainWorld: a frozen copy the page cannot change.
        'Object.defineProperty(window, KIOSK_API_GLOBAL, { value: Object.freeze(createKioskApi(ipcRenderer)), writable: false });',
      ].join('\n'),
      resolveDir: fileURLToPath(new URL('../../terminal/src/preload/', import.meta.url)),
      sourcefile: 'stand-in-preload.ts',
      loader: 'ts',
    },
    bundle: true,
    format: 'iife',
    platform: 'browser',
    write: false,
  });
  return result.outputFiles[0]!.text;
}

/** Pushes a main -> page IPC message into the page (what webContents.send does). */
export function sendToPage(page: Page, channel: string, payload: unknown): void {
  void page.evaluate(([name, data]) => (globalThis as unknown as { __taplineIpcEmit(channel: unknown, payload: unknown): void }).__taplineIpcEmit(name, data), [channel, payload] as const).catch(() => undefined);
}

/**
 * Gives `page` the preload and carries its IPC to `ipcMain` as coming from `sender`'s main frame
 * at the page's real URL (so the handlers' sender and origin checks see what Electron would).
 */
export async function connectPageIpc(page: Page, ipcMain: FakeIpcMain, sender: () => WebContentsLike, invoked: string[] = []): Promise<void> {
  await page.exposeFunction('__taplineIpcInvoke', (channel: string, ...args: unknown[]) => {
    invoked.push(`${channel} ${typeof args[0] === 'string' ? args[0] : ''}`.trim());
    const event: IpcMainInvokeEventLike = { sender: sender(), senderFrame: { url: page.url(), parent: null } };
    return ipcMain.invoke(event, channel, ...args);
  });
  await page.addInitScript({ content: await preloadForPage() });
}

/**
 * Plays Electron's window with a Chromium page: what the main process loads into the stand-in
 * window (the first-start page from a file, then the till on the host) is loaded into `page`, and
 * what it sends the window's contents (the reader's and printer's events) reaches the page.
 */
export function mirrorWindow(page: Page, window: FakeWindow): { settled(): Promise<void> } {
  let shown = 0;
  let loading: Promise<unknown> = Promise.resolve();
  const follow = () => {
    while (shown < window.loaded.length) {
      const url = window.loaded[shown++]!;
      loading = loading.then(() => page.goto(url)).catch(() => undefined);
    }
  };
  const timer = setInterval(follow, 20);
  page.on('close', () => clearInterval(timer));
  window.webContents.on(`ipc:${IPC.hardwareEvent}`, ((payload: unknown) => sendToPage(page, IPC.hardwareEvent, payload)) as never);
  return {
    async settled() {
      follow();
      await loading;
    },
  };
}
