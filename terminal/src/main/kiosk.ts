import type { TerminalHost, TerminalHostOptions } from '../host/index.ts';

/**
 * The parts of Electron the kiosk shell uses, so the shell can be exercised in Node with a
 * stand-in (Electron's binary cannot be downloaded where we build and test).
 */
export interface ElectronLike {
  app: {
    whenReady(): Promise<unknown>;
    requestSingleInstanceLock(): boolean;
    on(event: 'window-all-closed' | 'second-instance', listener: () => void): unknown;
    on(event: 'before-quit', listener: (event: { preventDefault(): void }) => void): unknown;
    quit(): void;
    exit(code?: number): void;
  };
  BrowserWindow: new (options: KioskWindowOptions) => KioskWindow;
  session: { defaultSession: { setPermissionRequestHandler(handler: (webContents: unknown, permission: string, callback: (granted: boolean) => void) => void): void } };
}

export interface KioskWindowOptions {
  kiosk: boolean;
  fullscreen: boolean;
  autoHideMenuBar: boolean;
  backgroundColor: string;
  title: string;
  webPreferences: { contextIsolation: boolean; nodeIntegration: boolean; sandbox: boolean; webSecurity: boolean };
}

export interface KioskWindow {
  loadURL(url: string): Promise<unknown>;
  focus(): void;
  isMinimized(): boolean;
  restore(): void;
  webContents: {
    setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' | 'allow' }): void;
    on(event: 'will-navigate', listener: (event: { preventDefault(): void }, url: string) => void): unknown;
  };
}

export interface KioskOptions {
  /** SYNC_SERVER_URL, default http://127.0.0.1:3000. */
  syncServerUrl: string;
  /** Starts the terminal host (the real one by default; tests may pass their own options). */
  startHost: (options: TerminalHostOptions) => Promise<TerminalHost>;
  hostOptions?: Omit<TerminalHostOptions, 'syncServerUrl'>;
  /** false: a normal window (development); the kiosk app is full screen with no way out. */
  kiosk?: boolean;
  log?: (line: string) => void;
}

export interface RunningKiosk {
  host: TerminalHost;
  window: KioskWindow;
}

/**
 * The Electron main process, thin on purpose: it starts the same terminal host `npm start` runs
 * (renderer over loopback HTTP, /api forwarded to the sync server, NFC reader and printer behind
 * the bridge) and shows it in one locked-down window. The page keeps to its own origin: other
 * navigations, new windows and permission prompts (camera, notifications...) are refused.
 */
export async function runKiosk(electron: ElectronLike, options: KioskOptions): Promise<RunningKiosk | undefined> {
  const { app, BrowserWindow, session } = electron;
  const log = options.log ?? ((line: string) => console.log(line));
  // One terminal per machine: a second launch focuses the first (two would fight over the reader).
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return undefined;
  }
  await app.whenReady();
  const host = await options.startHost({ ...options.hostOptions, syncServerUrl: options.syncServerUrl });
  const origin = new URL(host.url).origin;
  session.defaultSession.setPermissionRequestHandler((_webContents, _permission, callback) => callback(false));

  const kiosk = options.kiosk ?? true;
  const window = new BrowserWindow({
    kiosk,
    fullscreen: kiosk,
    autoHideMenuBar: true,
    backgroundColor: '#f4f6fb',
    title: 'Tapline Terminal',
    webPreferences: { contextIsolation: true, nodeIntegration: false, sandbox: true, webSecurity: true },
  });
  window.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
  window.webContents.on('will-navigate', (event, url) => {
    if (new URL(url).origin !== origin) {
      event.preventDefault();
      log(`kiosk: refused navigation to ${url}`);
    }
  });
  app.on('second-instance', () => {
    if (window.isMinimized()) window.restore();
    window.focus();
  });

  // Quit closes the host first (reader, printer queue, bridge), then lets Electron exit.
  let closed = false;
  app.on('before-quit', (event) => {
    if (closed) return;
    event.preventDefault();
    void host.close().finally(() => {
      closed = true;
      app.quit();
    });
  });
  app.on('window-all-closed', () => app.quit());

  await window.loadURL(host.url);
  log(`kiosk: showing ${host.url} (sync server ${options.syncServerUrl})`);
  return { host, window };
}
