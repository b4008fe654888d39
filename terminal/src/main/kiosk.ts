import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { type Clock, type NfcReader, type ReceiptPrinter, createNfcReader, nfcConfigFromEnv, printerConfigFromEnv, systemClock } from '@tapline/hardware';
import { type DisplayListen, displayListenFromEnv, terminalPortFromEnv } from '../host/config.ts';
import type { HostServerOptions, TerminalHost } from '../host/server.ts';
import type { AppInfo } from '../preload/api.ts';
import { type CustomerDisplay, customerDisplayMode, startCustomerDisplay } from './customer-display.ts';
import type { ElectronLike, KioskWindow } from './electron-like.ts';
import { registerHardwareIpc } from './hardware-ipc.ts';
import { hostEnvironment, parseSyncServerUrl, readKioskConfig } from './kiosk-config.ts';
import { kioskWindowOptions, lockDown } from './lockdown.ts';
import { utilityProcessWorker } from './pcsc-utility.ts';
import { UtilityPrinter, utilityPrinterProcess } from './printer-utility.ts';
import { type PairResult, type ServerCheck, provision } from './provisioning.ts';
import { superviseRenderer } from './recovery.ts';
import { type UpdaterLike, startUpdates, updateFeedFrom } from './updates.ts';

/** The files of the built app (dist/...), found next to the main bundle. */
export interface KioskPaths {
  /** dist/renderer: the till's page, served by the host. */
  renderer: string;
  /** dist/preload/index.cjs */
  preload: string;
  /** dist/provision/index.html: the first-start page. */
  provisionPage: string;
  /** dist/main/pcsc-worker.js: the PC/SC driver, run as a utility process. */
  pcscWorker: string;
  /** dist/main/printer-worker.js: the receipt printer, run as a utility process. */
  printerWorker: string;
}

export interface KioskOptions {
  paths: KioskPaths;
  /** Starts the terminal host on the shipped renderer (host/server.ts; tests may wrap it). */
  startHost: (options: HostServerOptions) => Promise<TerminalHost>;
  /** process.env: SYNC_SERVER_URL and the host's settings, over kiosk-config.json. */
  env?: NodeJS.ProcessEnv;
  /** process.argv: `--provision` shows the first-start page again. */
  argv?: readonly string[];
  /** false: a normal window with DevTools (development, KIOSK=0); the kiosk app is full screen with no way out. */
  kiosk?: boolean;
  /** Tests hand their own reader and printer; by default from the environment and the config file. */
  nfc?: NfcReader;
  printer?: ReceiptPrinter;
  /** electron-updater's autoUpdater, loaded by main.ts; null: no updates. */
  updater?: UpdaterLike | null;
  /** The package carries a feed (resources/app-update.yml, from TAPLINE_UPDATE_URL at packaging). */
  packagedUpdateFeed?: boolean;
  checkServer?: (syncServerUrl: string) => Promise<ServerCheck>;
  pair?: (syncServerUrl: string, code: string) => Promise<PairResult>;
  /** How long the first-start page shows its success before the till (default 1.5 s). */
  provisionedPauseMs?: number;
  clock?: Clock;
  log?: (line: string) => void;
}

export interface RunningKiosk {
  host: TerminalHost;
  window: KioskWindow;
  syncServerUrl: string;
  /** The customer display's window on a second screen (KIOSK_CUSTOMER_DISPLAY, customer-display.ts). */
  customerDisplay: CustomerDisplay;
}

/**
 * The Electron main process. It locks the app down, keeps the display awake, asks for the sync
 * server's address on the first start, then starts the terminal host `npm start` runs (the
 * shipped renderer over loopback HTTP, /api and socket.io forwarded to the sync server, the NFC
 * reader and the printer) without its WebSocket bridge: the page reaches the hardware through
 * the preload over IPC. The window is reloaded when its page crashes or hangs, the PC/SC driver
 * restarted when it dies (the reader does it), and updates come from a generic server.
 */
export async function runKiosk(electron: ElectronLike, options: KioskOptions): Promise<RunningKiosk | undefined> {
  const { app, BrowserWindow } = electron;
  const log = options.log ?? ((line: string) => console.log(line));
  const env = options.env ?? process.env;
  const kiosk = options.kiosk ?? true;
  // Minidumps stay on the machine (crashDumps folder) for support; nothing is uploaded.
  electron.crashReporter.start({ uploadToServer: false, compress: true });
  // One terminal per machine: a second launch focuses the first (two would fight over the reader).
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return undefined;
  }
  await app.whenReady();

  const provisionUrl = pathToFileURL(options.paths.provisionPage).href;
  let hostOrigin: string | null = null;
  const isAllowedUrl = (url: string) => {
    if (url.split('#')[0] === provisionUrl) return true;
    try {
      return hostOrigin !== null && new URL(url).origin === hostOrigin;
    } catch {
      return false;
    }
  };
  const locked = lockDown(electron, { isAllowedUrl, kiosk, log });
  const awake = electron.powerSaveBlocker.start('prevent-display-sleep');
  app.on('child-process-gone', (_event, details) => log(`kiosk: ${details.name ?? details.type} process gone (${details.reason}, exit code ${details.exitCode})`));

  const userDataDir = app.getPath('userData');
  let config = readKioskConfig(userDataDir);
  const window = new BrowserWindow(kioskWindowOptions({ kiosk, preload: options.paths.preload }));
  locked.lockWindow(window);
  app.on('second-instance', () => {
    if (window.isMinimized()) window.restore();
    window.focus();
  });

  let syncServerUrl = parseSyncServerUrl(env.SYNC_SERVER_URL) ?? config.syncServerUrl;
  // The token a first start paired: kept in memory only until the till page takes it (once).
  let pairedToken: string | null = null;
  if (syncServerUrl === null || (options.argv ?? []).includes('--provision')) {
    const provisioned = await provision({
      ipcMain: electron.ipcMain,
      window,
      pageFile: options.paths.provisionPage,
      userDataDir,
      config,
      ...(options.checkServer ? { checkServer: options.checkServer } : {}),
      ...(options.pair ? { pair: options.pair } : {}),
      ...(options.provisionedPauseMs === undefined ? {} : { pauseMs: options.provisionedPauseMs }),
      log,
    });
    config = provisioned.config;
    syncServerUrl = config.syncServerUrl as string;
    pairedToken = provisioned.token;
  }

  const hostEnv = hostEnvironment(config, env, userDataDir);
  const updateFeed = updateFeedFrom(env, config, options.packagedUpdateFeed ?? false);
  const printerConfig = printerConfigFromEnv(hostEnv);
  const nfc = options.nfc ?? createNfcReader(nfcConfigFromEnv(hostEnv), systemClock, { spawnWorker: () => utilityProcessWorker(electron.utilityProcess, options.paths.pcscWorker, hostEnv) });
  // The printer (its durable queue and its USB, serial or TCP transport, or the virtual one) runs
  // in a utility process of its own, started again when it dies.
  const printer = options.printer ?? new UtilityPrinter({ spawn: () => utilityPrinterProcess(electron.utilityProcess, options.paths.printerWorker, hostEnv), log, ...(options.clock ? { clock: options.clock } : {}) });
  // The port must stay the same from one start to the next: the page's origin holds its
  // IndexedDB replica (queued offline payments) and its saved token.
  // A tablet's customer display on the LAN only when asked; a value the kiosk cannot read is said and counts as off.
  let displayListen: DisplayListen | null = null;
  try {
    displayListen = displayListenFromEnv(hostEnv);
  } catch (error) {
    log(`kiosk: ${(error as Error).message}; no LAN listener for tablets`);
  }
  const host = await options.startHost({
    syncServerUrl,
    port: terminalPortFromEnv(hostEnv),
    displayListen,
    displayTokenFile: join(userDataDir, 'display-tokens.json'),
    staticDir: options.paths.renderer,
    hardwareBridge: 'ipc',
    nfc,
    printer,
    receipt: { paperWidth: printerConfig.paperWidth, language: printerConfig.language },
    log,
  });
  hostOrigin = new URL(host.url).origin;
  const appInfo = (): AppInfo => ({
    name: app.getName(),
    version: app.getVersion(),
    electron: process.versions.electron ?? '',
    chrome: process.versions.chrome ?? '',
    platform: process.platform,
    arch: process.arch,
    kiosk,
    packaged: app.isPackaged,
    syncServerUrl,
    updateChannel: updateFeed.channel,
  });
  const ipc = registerHardwareIpc({
    ipcMain: electron.ipcMain,
    nfc: host.nfc,
    printer: host.printer,
    simulator: host.simulator,
    contents: () => (window.isDestroyed() ? null : window.webContents),
    origin: hostOrigin,
    appInfo,
    terminalConfig: () => ({ receipt: host.receipt }),
    takeTerminalToken: () => {
      const token = pairedToken;
      pairedToken = null;
      return token;
    },
    log,
  });
  const supervisor = superviseRenderer(window, { url: () => host.url, clock: options.clock ?? systemClock, log });
  const updates = options.updater
    ? startUpdates(options.updater, {
        ...updateFeed,
        packaged: app.isPackaged,
        systemIdleSeconds: () => electron.powerMonitor.getSystemIdleTime(),
        log,
        ...(options.clock ? { clock: options.clock } : {}),
      })
    : null;

  // Quit closes the host first (reader, printer queue), then lets Electron exit.
  let closed = false;
  let customerDisplay: CustomerDisplay | null = null;
  // Without the till's window the customer display has nothing to follow: it closes too.
  window.on('closed', () => customerDisplay?.stop());
  app.on('before-quit', (event) => {
    if (closed) return;
    event.preventDefault();
    supervisor.stop();
    customerDisplay?.stop();
    updates?.stop();
    ipc.dispose();
    if (electron.powerSaveBlocker.isStarted(awake)) electron.powerSaveBlocker.stop(awake);
    void host.close().finally(() => {
      closed = true;
      app.quit();
    });
  });
  app.on('window-all-closed', () => app.quit());

  // A failed first load is retried by the supervisor (did-fail-load); the window shows anyway.
  await window.loadURL(host.url).catch((error: unknown) => log(`kiosk: loading ${host.url} failed: ${(error as Error).message}`));
  window.show();
  log(`kiosk: showing ${host.url} (sync server ${syncServerUrl})`);
  // A second screen facing the customer: the /display page, following this window's sale.
  const mode = customerDisplayMode(hostEnv.KIOSK_CUSTOMER_DISPLAY);
  if (mode === null) log(`kiosk: KIOSK_CUSTOMER_DISPLAY=${hostEnv.KIOSK_CUSTOMER_DISPLAY ?? ''} is not auto, off or a screen id: no customer display`);
  customerDisplay = startCustomerDisplay(electron, { url: new URL('/display', host.url).href, mode: mode ?? { kind: 'off' }, kiosk, lockWindow: locked.lockWindow, log });
  return { host, window, syncServerUrl, customerDisplay };
}
