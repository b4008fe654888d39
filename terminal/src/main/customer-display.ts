import type { DisplayLike, ElectronLike, KioskWindow, KioskWindowOptions } from './electron-like.ts';

/**
 * The customer display: when a second screen is connected, a second window on it, frameless and
 * full screen, showing the host's /display page (the renderer's Display.svelte), which follows the
 * till's window through a BroadcastChannel of their shared origin. It never takes the keyboard, so
 * a scanner's keys stay with the till. Closed when its screen is unplugged, opened again when one
 * is plugged in.
 *
 * KIOSK_CUSTOMER_DISPLAY (the environment or kiosk-config.json's env): `auto` (the default: the
 * first screen that is not the primary one), `off`, or a display id (Electron's `screen` ids,
 * logged at start) for a machine with several.
 */
export type CustomerDisplayMode = { kind: 'auto' } | { kind: 'off' } | { kind: 'display'; id: number };

/** The mode a value of KIOSK_CUSTOMER_DISPLAY names; null when it names none (the caller says so and turns it off). */
export function customerDisplayMode(value: string | undefined): CustomerDisplayMode | null {
  const text = (value ?? '').trim().toLowerCase();
  if (text === '' || text === 'auto') return { kind: 'auto' };
  if (['off', 'none', 'no', 'false', '0'].includes(text)) return { kind: 'off' };
  if (/^\d{1,15}$/.test(text)) return { kind: 'display', id: Number(text) };
  return null;
}

/** The screen the customer display goes on, or null: never the primary (the till's own). */
export function chooseCustomerDisplay(displays: readonly DisplayLike[], primary: DisplayLike, mode: CustomerDisplayMode): DisplayLike | null {
  const others = displays.filter((display) => display.id !== primary.id);
  if (mode.kind === 'off') return null;
  if (mode.kind === 'display') return others.find((display) => display.id === mode.id) ?? null;
  return others[0] ?? null;
}

/** The display window: on `display`'s bounds, frameless, full screen, never focused, a page with no Node, no preload and no tools. */
export function customerDisplayWindowOptions(display: DisplayLike, kiosk: boolean): KioskWindowOptions {
  return {
    kiosk: false,
    fullscreen: true,
    frame: false,
    focusable: false,
    ...display.bounds,
    autoHideMenuBar: true,
    backgroundColor: '#f4f6fb',
    title: 'Tapline customer display',
    show: false,
    webPreferences: {
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      sandbox: true,
      webSecurity: true,
      webviewTag: false,
      devTools: !kiosk,
      spellcheck: false,
      navigateOnDragDrop: false,
      safeDialogs: true,
    },
  };
}

export interface CustomerDisplayOptions {
  /** The host's /display page. */
  url: string;
  mode: CustomerDisplayMode;
  kiosk: boolean;
  /** The lock-down every window of the app gets (lockdown.ts). */
  lockWindow: (window: KioskWindow) => void;
  log: (line: string) => void;
}

export interface CustomerDisplay {
  /** The display window open now, and the screen it is on. */
  current(): { window: KioskWindow; displayId: number } | null;
  stop(): void;
}

/** Opens the customer display on the chosen screen now and follows screens coming and going. */
export function startCustomerDisplay(electron: Pick<ElectronLike, 'BrowserWindow' | 'screen'>, options: CustomerDisplayOptions): CustomerDisplay {
  let open: { window: KioskWindow; displayId: number } | null = null;
  let stopped = false;

  const close = () => {
    const closing = open;
    open = null;
    if (closing !== null && !closing.window.isDestroyed()) closing.window.close();
  };

  const place = () => {
    if (stopped) return;
    const displays = electron.screen.getAllDisplays();
    const target = chooseCustomerDisplay(displays, electron.screen.getPrimaryDisplay(), options.mode);
    if (open !== null && (open.window.isDestroyed() || open.displayId !== target?.id)) {
      options.log(`kiosk: customer display closed (screen ${open.displayId} ${target === null ? 'gone' : 'replaced'})`);
      close();
    }
    if (target === null || open !== null) return;
    const window = new electron.BrowserWindow(customerDisplayWindowOptions(target, options.kiosk));
    options.lockWindow(window);
    const entry = { window, displayId: target.id };
    open = entry;
    window.on('closed', () => {
      if (open === entry) open = null;
    });
    // Its page crashed or was killed: loaded again (it shows the till's last state at once).
    window.webContents.on('render-process-gone', () => {
      if (!window.isDestroyed()) window.webContents.reload();
    });
    window
      .loadURL(options.url)
      .then(() => {
        if (!window.isDestroyed()) window.show();
      })
      .catch((error: unknown) => options.log(`kiosk: loading the customer display failed: ${(error as Error).message}`));
    options.log(`kiosk: customer display on screen ${target.id} (${target.bounds.width}x${target.bounds.height} at ${target.bounds.x},${target.bounds.y})`);
  };

  options.log(`kiosk: screens ${electron.screen.getAllDisplays().map((display) => display.id).join(', ')} (primary ${electron.screen.getPrimaryDisplay().id}); customer display ${options.mode.kind === 'display' ? `on screen ${options.mode.id}` : options.mode.kind}`);
  if (options.mode.kind !== 'off') {
    electron.screen.on('display-added', place);
    electron.screen.on('display-removed', place);
    place();
  }
  return {
    current: () => (open === null || open.window.isDestroyed() ? null : open),
    stop() {
      stopped = true;
      close();
    },
  };
}
