/**
 * The parts of Electron's main-process API the kiosk app uses. The shell is written against
 * these so it runs in Node with a stand-in (Electron's binary cannot be downloaded where we
 * build and test); main.ts checks that the real `electron` module satisfies them.
 */

export interface PreventableEvent {
  preventDefault(): void;
}

/** webContents' input before the page sees it (before-input-event). */
export interface KeyInput {
  type: string;
  key: string;
  code: string;
  control: boolean;
  meta: boolean;
  alt: boolean;
  shift: boolean;
}

export interface RenderProcessGoneDetails {
  reason: string;
  exitCode: number;
}

export interface FrameLike {
  url: string;
  /** null for the main frame. */
  parent: unknown;
}

export interface WebContentsLike {
  readonly id: number;
  isDestroyed(): boolean;
  getURL(): string;
  send(channel: string, ...args: unknown[]): void;
  reload(): void;
  forcefullyCrashRenderer(): void;
  setVisualZoomLevelLimits(minimumLevel: number, maximumLevel: number): Promise<void>;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' } | { action: 'allow' }): void;
  on(event: 'will-navigate' | 'will-redirect', listener: (event: PreventableEvent, url: string) => void): unknown;
  on(event: 'will-attach-webview', listener: (event: PreventableEvent) => void): unknown;
  on(event: 'before-input-event', listener: (event: PreventableEvent, input: KeyInput) => void): unknown;
  on(event: 'render-process-gone', listener: (event: unknown, details: RenderProcessGoneDetails) => void): unknown;
  on(event: 'did-fail-load', listener: (event: unknown, errorCode: number, errorDescription: string, validatedURL: string, isMainFrame: boolean) => void): unknown;
  on(event: 'did-finish-load', listener: () => void): unknown;
}

export interface KioskWindowOptions {
  kiosk: boolean;
  /** Where the window opens (the customer display: on its display's bounds). */
  x?: number;
  y?: number;
  width?: number;
  height?: number;
  /** false: no title bar or border (the customer display). */
  frame?: boolean;
  /** false: never takes the keyboard (a scanner's keys stay with the till's window). */
  focusable?: boolean;
  fullscreen: boolean;
  autoHideMenuBar: boolean;
  backgroundColor: string;
  title: string;
  show: boolean;
  webPreferences: {
    /** The till's window only: the customer display has no preload (it needs no IPC). */
    preload?: string;
    contextIsolation: boolean;
    nodeIntegration: boolean;
    nodeIntegrationInWorker: boolean;
    sandbox: boolean;
    webSecurity: boolean;
    webviewTag: boolean;
    devTools: boolean;
    spellcheck: boolean;
    navigateOnDragDrop: boolean;
    safeDialogs: boolean;
  };
}

export interface KioskWindow {
  readonly webContents: WebContentsLike;
  loadURL(url: string): Promise<void>;
  loadFile(filePath: string): Promise<void>;
  setMenu(menu: null): void;
  show(): void;
  focus(): void;
  isMinimized(): boolean;
  restore(): void;
  isDestroyed(): boolean;
  close(): void;
  on(event: 'unresponsive' | 'responsive' | 'closed', listener: () => void): unknown;
}

/** A screen connected to the machine, as Electron's `screen` module describes it. */
export interface DisplayLike {
  id: number;
  bounds: { x: number; y: number; width: number; height: number };
}

/** Electron's `screen` module (used once the app is ready): the displays, and when one comes or goes. */
export interface ScreenLike {
  getAllDisplays(): DisplayLike[];
  getPrimaryDisplay(): DisplayLike;
  on(event: 'display-added', listener: (event: unknown, display: DisplayLike) => void): unknown;
  on(event: 'display-removed', listener: (event: unknown, display: DisplayLike) => void): unknown;
}

export interface IpcMainInvokeEventLike {
  sender: WebContentsLike;
  senderFrame: FrameLike | null;
}

export interface IpcMainLike {
  handle(channel: string, listener: (event: IpcMainInvokeEventLike, ...args: unknown[]) => unknown): void;
  removeHandler(channel: string): void;
}

export interface SessionLike {
  setPermissionRequestHandler(handler: ((webContents: unknown, permission: string, callback: (granted: boolean) => void) => void) | null): void;
  setPermissionCheckHandler(handler: ((webContents: unknown, permission: string) => boolean) | null): void;
  setDevicePermissionHandler(handler: ((details: unknown) => boolean) | null): void;
  on(event: 'will-download', listener: (event: PreventableEvent) => void): unknown;
}

/** A child process Electron runs with Node (utilityProcess.fork): the PC/SC driver. */
export interface UtilityProcessLike {
  readonly pid: number | undefined;
  postMessage(message: unknown): void;
  kill(): boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  on(event: 'exit', listener: (code: number) => void): unknown;
  on(event: 'spawn', listener: () => void): unknown;
  /** A fatal error in the process (Electron: 'FatalError'); its 'exit' follows all the same. */
  on(event: 'error', listener: (type: string, location: string) => void): unknown;
}

export interface ElectronLike {
  app: {
    readonly isPackaged: boolean;
    whenReady(): Promise<unknown>;
    requestSingleInstanceLock(): boolean;
    getPath(name: 'userData' | 'crashDumps'): string;
    getVersion(): string;
    getName(): string;
    on(event: 'window-all-closed' | 'second-instance', listener: () => void): unknown;
    on(event: 'before-quit', listener: (event: PreventableEvent) => void): unknown;
    on(event: 'web-contents-created', listener: (event: unknown, contents: WebContentsLike) => void): unknown;
    on(event: 'child-process-gone', listener: (event: unknown, details: { type: string; reason: string; exitCode: number; name?: string }) => void): unknown;
    quit(): void;
    exit(code?: number): void;
  };
  BrowserWindow: new (options: KioskWindowOptions) => KioskWindow;
  screen: ScreenLike;
  Menu: { setApplicationMenu(menu: null): void };
  session: { defaultSession: SessionLike };
  ipcMain: IpcMainLike;
  powerMonitor: { getSystemIdleTime(): number };
  powerSaveBlocker: { start(type: 'prevent-display-sleep' | 'prevent-app-suspension'): number; stop(id: number): boolean; isStarted(id: number): boolean };
  crashReporter: { start(options: { uploadToServer: boolean; compress?: boolean; globalExtra?: Record<string, string> }): void };
  utilityProcess: { fork(modulePath: string, args?: string[], options?: { serviceName?: string; stdio?: 'inherit' | 'ignore' | 'pipe'; env?: NodeJS.ProcessEnv }): UtilityProcessLike };
}
