/**
 * The contract between the kiosk page and the Electron app: what the preload exposes as
 * `window.taplineKiosk` and the IPC channels behind it. Types and constants only (no Electron,
 * no Node), so the renderer, the preload and the main process all import it.
 */
import type { BridgeErrorCode, BridgeEventName, BridgeEvents, DrawerRequest, DrawerResult, HardwareStatus, MerchantHeader, PrinterStatus, PrintResult, ReceiptDocument, ReceiptInput, ReceiptSettings } from '@tapline/hardware';

/** The global the preload defines in the page's world. */
export const KIOSK_API_GLOBAL = 'taplineKiosk';
export const KIOSK_API_VERSION = 1;

/** IPC channels (ipcRenderer.invoke -> ipcMain.handle, and main -> page events). */
export const IPC = {
  /** invoke(method, params) -> HardwareAnswer */
  hardware: 'tapline:hardware',
  /** main -> page: {event, data} of the reader and the printer */
  hardwareEvent: 'tapline:hardware-event',
  /** invoke() -> AppInfo */
  appInfo: 'tapline:app-info',
  /** invoke() -> KioskTerminalConfig (what a browser reads at /terminal-config.json) */
  terminalConfig: 'tapline:terminal-config',
  /** invoke() -> ProvisioningState (the first-start page only) */
  provisioningState: 'tapline:provisioning-state',
  /** invoke({syncServerUrl, pairingCode, force}) -> ProvisioningAnswer (the first-start page only) */
  provisioningSave: 'tapline:provisioning-save',
  /** invoke() -> the terminal token the first start paired, once, or null (the till page only) */
  takeTerminalToken: 'tapline:take-terminal-token',
} as const;

/** The bridge methods the page may call over IPC ('hello' is the WebSocket's handshake only). */
export const IPC_HARDWARE_METHODS = ['hardware.status', 'printer.status', 'printer.print', 'printer.printReceipt', 'printer.openDrawer', 'nfc.simulateTap'] as const;
export type IpcHardwareMethod = (typeof IPC_HARDWARE_METHODS)[number];

/** Every hardware call answers this instead of rejecting, so the error's code crosses the context bridge. */
export type HardwareAnswer<T> = { ok: true; result: T } | { ok: false; error: { code: BridgeErrorCode | 'not_connected'; message: string } };

export interface HardwareEventMessage<E extends BridgeEventName = BridgeEventName> {
  event: E;
  data: BridgeEvents[E];
}

export interface AppInfo {
  name: string;
  version: string;
  electron: string;
  chrome: string;
  platform: string;
  arch: string;
  /** Full screen with no way out (false in a development window). */
  kiosk: boolean;
  /** Installed from a package (updates apply) rather than run from a build folder. */
  packaged: boolean;
  syncServerUrl: string | null;
  updateChannel: string;
}

/** How the page lays out receipts; in a browser the host serves it at /terminal-config.json. */
export interface KioskTerminalConfig {
  receipt: { paperWidth: 58 | 80; language: string; timeZone: string };
}

export interface ProvisioningState {
  /** The saved address, if any (the page offers it for editing). */
  syncServerUrl: string | null;
  /** The terminal this kiosk was paired as, if any. */
  terminal: PairedTerminalInfo | null;
}

/** What kiosk-config.json keeps of a pairing (the token goes to the till page, the code nowhere). */
export interface PairedTerminalInfo {
  id: string;
  name: string;
  merchant: string;
}

/** Refusals of the first-start page's address and pairing code. */
export type ProvisioningErrorCode =
  /** not an http(s) address */
  | 'invalid_url'
  /** the server check failed (force skips it and the pairing) */
  | 'unreachable'
  | 'not_tapline'
  | 'forbidden'
  /** the pairing code, checked here (missing, malformed) or by the server (the rest) */
  | 'pairing_code_missing'
  | 'pairing_code_invalid'
  | 'pairing_code_not_found'
  | 'pairing_code_expired'
  | 'pairing_code_used'
  | 'pairing_locked'
  | 'rate_limited'
  | 'pairing_failed';

export type ProvisioningAnswer =
  /** terminal null: saved with force (no server to pair with yet): the till's pairing screen asks later. */
  | { ok: true; syncServerUrl: string; terminal: PairedTerminalInfo | null }
  | { ok: false; code: ProvisioningErrorCode; message: string };

export interface KioskHardwareApi {
  status(): Promise<HardwareAnswer<HardwareStatus>>;
  printerStatus(): Promise<HardwareAnswer<PrinterStatus>>;
  print(document: ReceiptDocument, options?: { jobId?: string; label?: string }): Promise<HardwareAnswer<PrintResult>>;
  printReceipt(merchant: MerchantHeader, settings: ReceiptSettings, receipt: ReceiptInput, jobId?: string): Promise<HardwareAnswer<PrintResult>>;
  /** Kicks the cash drawer open; a jobId whose kick reached the printer is not kicked again. */
  openDrawer(request: DrawerRequest): Promise<HardwareAnswer<DrawerResult>>;
  /** Development: taps the simulated reader (refused with not_available for a real reader). */
  simulateTap(tagIdOrUri: string): Promise<HardwareAnswer<{ accepted: boolean }>>;
  /** Reader and printer events (nfc.tap, nfc.status, printer.status, ...); returns the unsubscribe. */
  on<E extends BridgeEventName>(event: E, listener: (data: BridgeEvents[E]) => void): () => void;
}

/** window.taplineKiosk */
export interface KioskApi {
  version: typeof KIOSK_API_VERSION;
  hardware: KioskHardwareApi;
  app: {
    info(): Promise<AppInfo>;
    terminalConfig(): Promise<KioskTerminalConfig>;
    /** The token the first start paired this kiosk with, handed over once (the page keeps it); else null. */
    takeTerminalToken(): Promise<string | null>;
  };
  provisioning: {
    state(): Promise<ProvisioningState>;
    /** force: keep an address that does not answer (yet), without pairing. */
    save(syncServerUrl: string, options?: { pairingCode?: string; force?: boolean }): Promise<ProvisioningAnswer>;
  };
}
