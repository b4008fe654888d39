/**
 * A stand-in for Electron's main-process modules that records what the kiosk asks of them and
 * lets a test play Electron's part: emit app and window events, deliver IPC calls as a page's
 * frame would, crash or hang the page. kiosk.test.ts uses it directly; the built main bundle is
 * started in Node against it too (build/electron-build.test.ts), as its `electron` module.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { IpcRendererLike } from '../../preload/preload.ts';
import type { DisplayLike, ElectronLike, FrameLike, IpcMainInvokeEventLike, KeyInput, KioskWindow, KioskWindowOptions, PreventableEvent, SessionLike, UtilityProcessLike, WebContentsLike } from '../electron-like.ts';

type Listener = (...args: never[]) => unknown;

class Emitter {
  readonly listeners = new Map<string, Listener[]>();
  on(event: string, listener: Listener): this {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return this;
  }
  emit(event: string, ...args: unknown[]): void {
    for (const listener of this.listeners.get(event) ?? []) (listener as (...values: unknown[]) => unknown)(...args);
  }
  count(event: string): number {
    return this.listeners.get(event)?.length ?? 0;
  }
}

/** An event whose preventDefault a test can read back. */
export function preventable(): PreventableEvent & { prevented: boolean } {
  const event = { prevented: false, preventDefault: () => void (event.prevented = true) };
  return event;
}

let nextContentsId = 1;

export class FakeWebContents extends Emitter implements WebContentsLike {
  readonly id = nextContentsId++;
  url = '';
  destroyed = false;
  readonly sent: { channel: string; args: unknown[] }[] = [];
  readonly zoomLimits: [number, number][] = [];
  crashes = 0;
  reloads = 0;
  windowOpenHandler: ((details: { url: string }) => { action: 'deny' } | { action: 'allow' }) | null = null;
  isDestroyed() {
    return this.destroyed;
  }
  getURL() {
    return this.url;
  }
  send(channel: string, ...args: unknown[]) {
    this.sent.push({ channel, args });
    this.emit(`ipc:${channel}`, ...args);
  }
  reload() {
    this.reloads += 1;
    this.emit('did-finish-load');
  }
  forcefullyCrashRenderer() {
    this.crashes += 1;
    this.emit('render-process-gone', {}, { reason: 'killed', exitCode: 9 });
  }
  async setVisualZoomLevelLimits(minimumLevel: number, maximumLevel: number) {
    this.zoomLimits.push([minimumLevel, maximumLevel]);
  }
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' } | { action: 'allow' }) {
    this.windowOpenHandler = handler;
  }
  /** Navigation as Chromium asks for it: answers whether the app let it happen. */
  navigate(url: string, kind: 'will-navigate' | 'will-redirect' = 'will-navigate'): boolean {
    const event = preventable();
    this.emit(kind, event, url);
    return !event.prevented;
  }
  /** A key press: answers whether the page would receive it. */
  press(input: Partial<KeyInput> & { key: string }): boolean {
    const event = preventable();
    this.emit('before-input-event', event, { type: 'keyDown', code: '', control: false, meta: false, alt: false, shift: false, ...input });
    return !event.prevented;
  }
  /** The main frame as IPC reports it. */
  mainFrame(): FrameLike {
    return { url: this.url, parent: null };
  }
}

export class FakeWindow extends Emitter implements KioskWindow {
  readonly webContents: FakeWebContents;
  readonly loaded: string[] = [];
  shown = 0;
  focused = 0;
  menu: unknown = 'default';
  destroyed = false;
  /** Set by a test to make the next loads fail as an unreachable page would. */
  failLoads = false;

  constructor(
    readonly options: KioskWindowOptions,
    onCreated: (contents: FakeWebContents) => void,
  ) {
    super();
    this.webContents = new FakeWebContents();
    onCreated(this.webContents);
  }
  async loadURL(url: string) {
    this.loaded.push(url);
    this.webContents.url = url;
    if (this.failLoads) {
      this.webContents.emit('did-fail-load', {}, -102, 'ERR_CONNECTION_REFUSED', url, true);
      throw new Error(`ERR_CONNECTION_REFUSED (-102) loading '${url}'`);
    }
    this.webContents.emit('did-finish-load');
  }
  async loadFile(filePath: string) {
    await this.loadURL(pathToFileURL(filePath).href);
  }
  setMenu(menu: null) {
    this.menu = menu;
  }
  show() {
    this.shown += 1;
  }
  focus() {
    this.focused += 1;
  }
  isMinimized() {
    return false;
  }
  restore() {}
  isDestroyed() {
    return this.destroyed;
  }
  close() {
    if (this.destroyed) return;
    this.destroyed = true;
    this.emit('closed');
  }
}

export class FakeSession extends Emitter implements SessionLike {
  permissionRequest: Parameters<SessionLike['setPermissionRequestHandler']>[0] = null;
  permissionCheck: Parameters<SessionLike['setPermissionCheckHandler']>[0] = null;
  devicePermission: Parameters<SessionLike['setDevicePermissionHandler']>[0] = null;
  setPermissionRequestHandler(handler: Parameters<SessionLike['setPermissionRequestHandler']>[0]) {
    this.permissionRequest = handler;
  }
  setPermissionCheckHandler(handler: Parameters<SessionLike['setPermissionCheckHandler']>[0]) {
    this.permissionCheck = handler;
  }
  setDevicePermissionHandler(handler: Parameters<SessionLike['setDevicePermissionHandler']>[0]) {
    this.devicePermission = handler;
  }
  askPermission(permission: string): Promise<boolean> {
    return new Promise((resolve) => this.permissionRequest!(null, permission, resolve));
  }
}

export class FakeIpcMain {
  readonly handlers = new Map<string, (event: IpcMainInvokeEventLike, ...args: unknown[]) => unknown>();
  handle(channel: string, listener: (event: IpcMainInvokeEventLike, ...args: unknown[]) => unknown) {
    if (this.handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
    this.handlers.set(channel, listener);
  }
  removeHandler(channel: string) {
    this.handlers.delete(channel);
  }
  /** ipcRenderer.invoke as Electron delivers it: structured-cloned arguments, a rejected promise for a throw. */
  async invoke(event: IpcMainInvokeEventLike, channel: string, ...args: unknown[]): Promise<unknown> {
    const handler = this.handlers.get(channel);
    if (handler === undefined) throw new Error(`No handler registered for '${channel}'`);
    return structuredClone(await handler(event, ...structuredClone(args)));
  }
}

export interface FakeElectronOptions {
  lock?: boolean;
  packaged?: boolean;
  userDataDir?: string;
  fork?: (modulePath: string, args: string[], options: { env?: NodeJS.ProcessEnv }) => UtilityProcessLike;
  /** The screens connected (default: one, the primary); the first is the primary. */
  displays?: DisplayLike[];
}

/** The one screen of a plain till. */
export const PRIMARY_DISPLAY: DisplayLike = { id: 1, bounds: { x: 0, y: 0, width: 1024, height: 768 } };

export function fakeElectron(options: FakeElectronOptions = {}) {
  const app = new Emitter();
  const state = { idleSeconds: 0, quits: 0, exited: false as boolean, exitCode: null as number | null, menu: 'default' as unknown, crashReporter: null as unknown, blockers: new Set<number>() };
  const windows: FakeWindow[] = [];
  const session = new FakeSession();
  const ipcMain = new FakeIpcMain();
  const userDataDir = options.userDataDir ?? mkdtempSync(join(tmpdir(), 'tapline-kiosk-userdata-'));
  let nextBlocker = 1;
  const forks: { modulePath: string; options: unknown }[] = [];
  const screenEvents = new Emitter();
  let displays: DisplayLike[] = [...(options.displays ?? [PRIMARY_DISPLAY])];

  const electron: ElectronLike = {
    app: {
      isPackaged: options.packaged ?? false,
      whenReady: async () => undefined,
      requestSingleInstanceLock: () => options.lock ?? true,
      getPath: (name) => (name === 'userData' ? userDataDir : join(userDataDir, 'Crashpad')),
      getVersion: () => '0.1.0',
      getName: () => 'Tapline Terminal',
      on: (event: string, listener: Listener) => app.on(event, listener),
      quit() {
        state.quits += 1;
        // Electron emits before-quit; a listener that prevents it keeps the app running.
        const event = preventable();
        app.emit('before-quit', event);
        if (!event.prevented) state.exited = true;
      },
      exit(code = 0) {
        state.exited = true;
        state.exitCode = code;
      },
    } as ElectronLike['app'],
    BrowserWindow: class extends FakeWindow {
      constructor(windowOptions: KioskWindowOptions) {
        super(windowOptions, (contents) => app.emit('web-contents-created', {}, contents));
        windows.push(this);
      }
    },
    screen: {
      getAllDisplays: () => displays.map((display) => ({ ...display, bounds: { ...display.bounds } })),
      getPrimaryDisplay: () => ({ ...displays[0]!, bounds: { ...displays[0]!.bounds } }),
      on: (event: string, listener: Listener) => screenEvents.on(event, listener),
    } as ElectronLike['screen'],
    Menu: { setApplicationMenu: (menu) => void (state.menu = menu) },
    session: { defaultSession: session },
    ipcMain,
    powerMonitor: { getSystemIdleTime: () => state.idleSeconds },
    powerSaveBlocker: {
      start: () => {
        const id = nextBlocker++;
        state.blockers.add(id);
        return id;
      },
      stop: (id) => state.blockers.delete(id),
      isStarted: (id) => state.blockers.has(id),
    },
    crashReporter: { start: (crashOptions) => void (state.crashReporter = crashOptions) },
    utilityProcess: {
      fork(modulePath, args = [], forkOptions = {}) {
        forks.push({ modulePath, options: forkOptions });
        if (options.fork === undefined) throw new Error('this stand-in runs no utility process');
        return options.fork(modulePath, args, forkOptions);
      },
    },
  };

  /** A page's ipcRenderer in `window`'s main frame (what the preload is given). */
  const ipcRendererFor = (window: FakeWindow, frame: () => FrameLike = () => window.webContents.mainFrame()): IpcRendererLike => {
    const wrappers = new Map<unknown, Listener>();
    return {
      invoke: (channel, ...args) => ipcMain.invoke({ sender: window.webContents, senderFrame: frame() }, channel, ...args),
      on(channel, listener) {
        // Electron hands the listener an IpcRendererEvent first and structured-cloned data.
        const wrapper = ((...args: unknown[]) => listener({ sender: 'ipcRenderer' }, ...args.map((arg) => structuredClone(arg)))) as Listener;
        wrappers.set(listener, wrapper);
        window.webContents.on(`ipc:${channel}`, wrapper);
      },
      removeListener(channel, listener) {
        const key = `ipc:${channel}`;
        const wrapper = wrappers.get(listener);
        window.webContents.listeners.set(key, (window.webContents.listeners.get(key) ?? []).filter((registered) => registered !== wrapper));
        wrappers.delete(listener);
      },
    };
  };

  /** A screen plugged in or out, as Electron tells it. */
  const screens = {
    add(display: DisplayLike) {
      displays = [...displays, display];
      screenEvents.emit('display-added', {}, display);
    },
    remove(id: number) {
      const gone = displays.find((display) => display.id === id);
      displays = displays.filter((display) => display.id !== id);
      if (gone !== undefined) screenEvents.emit('display-removed', {}, gone);
    },
  };

  return { electron, app, state, windows, session, ipcMain, userDataDir, forks, screens, ipcRendererFor, emit: (event: string, ...args: unknown[]) => app.emit(event, ...args) };
}
