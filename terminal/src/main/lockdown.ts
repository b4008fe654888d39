import type { ElectronLike, KeyInput, KioskWindow, KioskWindowOptions, SessionLike, WebContentsLike } from './electron-like.ts';

/**
 * Device permissions the till needs: none today. The reader and the printer are reached through
 * the main process, a QR scanner types like a keyboard, and the page asks for no camera, no
 * location, no notifications, no USB/HID/serial access of its own. A future need is added here.
 */
export const ALLOWED_PERMISSIONS: ReadonlySet<string> = new Set<string>();

/** The kiosk window's options: full screen with no way out, and a page with no Node and no tools. */
export function kioskWindowOptions(options: { kiosk: boolean; preload: string }): KioskWindowOptions {
  return {
    kiosk: options.kiosk,
    fullscreen: options.kiosk,
    autoHideMenuBar: true,
    backgroundColor: '#f4f6fb',
    title: 'Tapline Terminal',
    // Shown once the first page has loaded, so a kiosk never flashes an empty window.
    show: false,
    webPreferences: {
      preload: options.preload,
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      sandbox: true,
      webSecurity: true,
      webviewTag: false,
      devTools: !options.kiosk,
      spellcheck: false,
      navigateOnDragDrop: false,
      safeDialogs: true,
    },
  };
}

/**
 * Shortcuts that would leave or break the till: reload (F5, Ctrl+R, Ctrl+Shift+R), DevTools
 * (F12, Ctrl+Shift+I/J/C), closing or quitting (Ctrl+W, Ctrl+Q, Ctrl+F4), zoom (Ctrl +, -, 0),
 * printing the page and saving it (Ctrl+P, Ctrl+S), and Alt+Left/Right history. Cmd counts as
 * Ctrl (macOS keyboards).
 */
export function isBlockedShortcut(input: KeyInput): boolean {
  if (input.type !== 'keyDown' && input.type !== 'rawKeyDown') return false;
  const key = input.key.toLowerCase();
  if (key === 'f5' || key === 'f12' || key === 'browserrefresh' || key === 'browserback' || key === 'browserforward') return true;
  const command = input.control || input.meta;
  if (command && input.shift && ['i', 'j', 'c', 'r', 'delete'].includes(key)) return true;
  if (command && ['r', 'w', 'q', 'p', 's', 'o', 'n', 't', 'f4', '+', '=', '-', '_', '0'].includes(key)) return true;
  if (input.alt && (key === 'arrowleft' || key === 'arrowright' || key === 'home')) return true;
  return false;
}

export interface LockdownOptions {
  /** Whether a URL may be shown in the window (the host's origin, the first-start page). */
  isAllowedUrl: (url: string) => boolean;
  kiosk: boolean;
  log: (line: string) => void;
}

/** Any web contents the app makes (the window, and anything a page might try to open). */
function lockContents(contents: WebContentsLike, options: LockdownOptions): void {
  const refuse = (what: string) => (event: { preventDefault(): void }, url: string) => {
    if (options.isAllowedUrl(url)) return;
    event.preventDefault();
    options.log(`kiosk: refused ${what} to ${url}`);
  };
  contents.on('will-navigate', refuse('navigation'));
  contents.on('will-redirect', refuse('redirect'));
  contents.setWindowOpenHandler(({ url }) => {
    options.log(`kiosk: refused a new window for ${url}`);
    return { action: 'deny' };
  });
  contents.on('will-attach-webview', (event) => {
    event.preventDefault();
    options.log('kiosk: refused a webview');
  });
}

/** Permission prompts, device pickers and downloads: refused unless the till needs them. */
export function lockSession(session: SessionLike, log: (line: string) => void): void {
  session.setPermissionRequestHandler((_contents, permission, callback) => {
    const granted = ALLOWED_PERMISSIONS.has(permission);
    if (!granted) log(`kiosk: refused the permission ${permission}`);
    callback(granted);
  });
  session.setPermissionCheckHandler((_contents, permission) => ALLOWED_PERMISSIONS.has(permission));
  session.setDevicePermissionHandler(() => false);
  session.on('will-download', (event) => {
    event.preventDefault();
    log('kiosk: refused a download');
  });
}

/**
 * Locks the app down: no application menu, every web contents kept to the allowed URLs with no
 * pop-ups or webviews, no permission prompts or downloads, and in kiosk mode no shortcut that
 * reloads, opens DevTools, zooms or leaves the till.
 */
export function lockDown(electron: Pick<ElectronLike, 'app' | 'Menu' | 'session'>, options: LockdownOptions): { lockWindow(window: KioskWindow): void } {
  electron.Menu.setApplicationMenu(null);
  lockSession(electron.session.defaultSession, options.log);
  // Contents made later (a window a page tries to open, a devtools view) get the same rules.
  electron.app.on('web-contents-created', (_event, contents) => lockContents(contents, options));
  return {
    lockWindow(window) {
      window.setMenu(null);
      // Its navigation rules came from web-contents-created, emitted as the window was made.
      const contents = window.webContents;
      void contents.setVisualZoomLevelLimits(1, 1);
      if (options.kiosk) {
        contents.on('before-input-event', (event, input) => {
          if (isBlockedShortcut(input)) event.preventDefault();
        });
      }
    },
  };
}
