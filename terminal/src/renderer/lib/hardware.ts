import { type DrawerReason, type DrawerResult, type NfcReaderStatus, type PrintResult, type PrinterStatus, type TagEvent, type UnsupportedTagEvent, HardwareBridgeClient } from '@tapline/hardware/browser';
import { type HardwareClient, IpcHardwareClient, kioskApi } from './hardware-ipc.ts';
import type { ReceiptRequest } from './receipt.ts';
import type { TerminalConfig } from './terminal-config.ts';

export type BridgeState = 'connecting' | 'connected' | 'disconnected';

export interface HardwareSnapshot {
  bridge: BridgeState;
  nfc: NfcReaderStatus | null;
  printer: PrinterStatus | null;
  /** Why the bridge is not connected, in words. */
  detail: string | null;
}

const RETRY_MS_MIN = 1_000;
// A restarted host is back in seconds: the bridge is looked for again at most every 4 s.
const RETRY_MS_MAX = 4_000;

/**
 * The transport to the reader and printer: the Electron app's preload (IPC) when the page runs
 * in the kiosk app, else the host's loopback WebSocket bridge (a browser: development, tests).
 */
function createClient(config: TerminalConfig): HardwareClient {
  const api = kioskApi();
  if (api !== null) return new IpcHardwareClient(api);
  if (config.bridgeUrl === undefined || config.bridgeSecret === undefined) throw new Error('the host gave no hardware bridge and this is not the kiosk app');
  return new HardwareBridgeClient(config.bridgeUrl, config.bridgeSecret);
}

/**
 * The page's connection to the reader and printer (createClient: IPC or the loopback bridge).
 * It reconnects by itself (the host may restart), keeps the last known status for the status
 * bar and hands NFC taps to whoever listens (the waiting screen).
 */
export class HardwareConnection {
  #config: TerminalConfig;
  readonly #reloadConfig: (() => Promise<TerminalConfig>) | null;
  #client: HardwareClient | null = null;
  #snapshot: HardwareSnapshot = { bridge: 'connecting', nfc: null, printer: null, detail: null };
  #retryMs = RETRY_MS_MIN;
  #retryTimer: ReturnType<typeof setTimeout> | null = null;
  #stopped = false;
  readonly #changeListeners = new Set<(snapshot: HardwareSnapshot) => void>();
  readonly #tapListeners = new Set<(event: TagEvent) => void>();
  readonly #unsupportedListeners = new Set<(event: UnsupportedTagEvent) => void>();

  /**
   * `reloadConfig` is asked again before every reconnection: a restarted host has a new bridge
   * secret (and maybe port), which the page would otherwise keep knocking with the old one.
   */
  constructor(config: TerminalConfig, reloadConfig?: () => Promise<TerminalConfig>) {
    this.#config = config;
    this.#reloadConfig = reloadConfig ?? null;
  }

  get config(): TerminalConfig {
    return this.#config;
  }

  get snapshot(): HardwareSnapshot {
    return this.#snapshot;
  }

  start(): void {
    this.#stopped = false;
    void this.#connect();
  }

  stop(): void {
    this.#stopped = true;
    if (this.#retryTimer !== null) clearTimeout(this.#retryTimer);
    this.#client?.close();
    this.#client = null;
  }

  onChange(listener: (snapshot: HardwareSnapshot) => void): () => void {
    this.#changeListeners.add(listener);
    listener(this.#snapshot);
    return () => this.#changeListeners.delete(listener);
  }

  onTap(listener: (event: TagEvent) => void): () => void {
    this.#tapListeners.add(listener);
    return () => this.#tapListeners.delete(listener);
  }

  onUnsupported(listener: (event: UnsupportedTagEvent) => void): () => void {
    this.#unsupportedListeners.add(listener);
    return () => this.#unsupportedListeners.delete(listener);
  }

  /** Rejects when the bridge is down or the printer refuses the job; the caller shows why. */
  printReceipt(request: ReceiptRequest): Promise<PrintResult> {
    if (this.#client === null || this.#snapshot.bridge !== 'connected') return Promise.reject(new Error('the hardware bridge is not connected'));
    return this.#client.printReceipt(request.merchant, request.settings, request.receipt, request.jobId);
  }

  /** Pulses the drawer; rejects when the bridge is down or the printer refuses (the caller shows why). */
  openDrawer(request: { reason: DrawerReason; jobId: string }): Promise<DrawerResult> {
    if (this.#client === null || this.#snapshot.bridge !== 'connected') return Promise.reject(new Error('the hardware bridge is not connected'));
    return this.#client.openDrawer(request);
  }

  /** Development: the simulated reader reads a tag holding this id, exactly as a real tap. */
  async simulateTap(tagId: string): Promise<boolean> {
    if (this.#client === null) throw new Error('the hardware bridge is not connected');
    return (await this.#client.simulateTap(tagId)).accepted;
  }

  #update(change: Partial<HardwareSnapshot>): void {
    this.#snapshot = { ...this.#snapshot, ...change };
    for (const listener of this.#changeListeners) listener(this.#snapshot);
  }

  async #connect(): Promise<void> {
    this.#update({ bridge: 'connecting' });
    let client: HardwareClient;
    try {
      client = createClient(this.#config);
    } catch (error) {
      this.#lost((error as Error).message);
      return;
    }
    client.on('nfc.status', (nfc) => this.#update({ nfc }));
    client.on('printer.status', (printer) => this.#update({ printer }));
    client.on('nfc.tap', (event) => {
      for (const listener of this.#tapListeners) listener(event);
    });
    client.on('nfc.unsupported', (event) => {
      for (const listener of this.#unsupportedListeners) listener(event);
    });
    try {
      await client.connect();
      const status = await client.hardwareStatus();
      if (this.#stopped) {
        client.close();
        return;
      }
      this.#client = client;
      this.#retryMs = RETRY_MS_MIN;
      client.onClose((code, reason) => this.#lost(`bridge closed (${code}${reason ? ` ${reason}` : ''})`));
      this.#update({ bridge: 'connected', nfc: status.nfc, printer: status.printer, detail: null });
    } catch (error) {
      client.close();
      this.#lost((error as Error).message);
    }
  }

  async #reconnect(): Promise<void> {
    if (this.#reloadConfig !== null) {
      try {
        this.#config = await this.#reloadConfig();
      } catch (error) {
        // The host is not back yet: try again later with what we have.
        this.#lost((error as Error).message);
        return;
      }
    }
    if (!this.#stopped) await this.#connect();
  }

  #lost(detail: string): void {
    this.#client = null;
    this.#update({ bridge: 'disconnected', detail });
    if (this.#stopped) return;
    this.#retryTimer = setTimeout(() => void this.#reconnect(), this.#retryMs);
    this.#retryMs = Math.min(this.#retryMs * 2, RETRY_MS_MAX);
  }
}
