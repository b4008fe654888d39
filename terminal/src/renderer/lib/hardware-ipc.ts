import { type BridgeEventName, type BridgeEvents, type DrawerRequest, type DrawerResult, type HardwareStatus, type MerchantHeader, type PrintResult, type ReceiptInput, type ReceiptSettings, BridgeClientError } from '@tapline/hardware/browser';
import { KIOSK_API_GLOBAL, type HardwareAnswer, type KioskApi } from '../../preload/api.ts';

/** The Electron app's preload API, when the page runs in the kiosk app (else null: a browser). */
export function kioskApi(): KioskApi | null {
  const api = (globalThis as Record<string, unknown>)[KIOSK_API_GLOBAL] as KioskApi | undefined;
  return api !== undefined && api !== null && typeof api === 'object' && typeof api.hardware === 'object' ? api : null;
}

/** The hardware client calls HardwareConnection makes, over the loopback bridge or over IPC. */
export interface HardwareClient {
  connect(): Promise<void>;
  hardwareStatus(): Promise<HardwareStatus>;
  printReceipt(merchant: MerchantHeader, settings: ReceiptSettings, receipt: ReceiptInput, jobId?: string): Promise<PrintResult>;
  openDrawer(request: DrawerRequest): Promise<DrawerResult>;
  simulateTap(tagIdOrUri: string): Promise<{ accepted: boolean }>;
  on<E extends BridgeEventName>(event: E, listener: (data: BridgeEvents[E]) => void): () => void;
  onClose(listener: (code: number, reason: string) => void): () => void;
  close(): void;
}

async function unwrap<T>(answer: Promise<HardwareAnswer<T>>): Promise<T> {
  const settled = await answer;
  if (settled.ok) return settled.result;
  throw new BridgeClientError(settled.error.code, settled.error.message);
}

/**
 * The hardware through the Electron preload: the same calls and errors as the WebSocket client
 * (BridgeClientError with the bridge's code), without a socket or a secret, since IPC is
 * private to the app. It never "closes": the main process outlives the page.
 */
export class IpcHardwareClient implements HardwareClient {
  readonly #api: KioskApi;
  readonly #unsubscribe: (() => void)[] = [];

  constructor(api: KioskApi) {
    this.#api = api;
  }

  async connect(): Promise<void> {
    await this.hardwareStatus();
  }

  hardwareStatus(): Promise<HardwareStatus> {
    return unwrap(this.#api.hardware.status());
  }

  printReceipt(merchant: MerchantHeader, settings: ReceiptSettings, receipt: ReceiptInput, jobId?: string): Promise<PrintResult> {
    // $state proxies cannot be structured-cloned across IPC: send plain data.
    const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
    return unwrap(this.#api.hardware.printReceipt(plain(merchant), plain(settings), plain(receipt), jobId));
  }

  openDrawer(request: DrawerRequest): Promise<DrawerResult> {
    // Plain data for the same reason as printReceipt: the request may be a $state proxy.
    return unwrap(this.#api.hardware.openDrawer({ reason: request.reason, jobId: request.jobId }));
  }

  simulateTap(tagIdOrUri: string): Promise<{ accepted: boolean }> {
    return unwrap(this.#api.hardware.simulateTap(tagIdOrUri));
  }

  on<E extends BridgeEventName>(event: E, listener: (data: BridgeEvents[E]) => void): () => void {
    const unsubscribe = this.#api.hardware.on(event, listener);
    this.#unsubscribe.push(unsubscribe);
    return unsubscribe;
  }

  onClose(_listener: (code: number, reason: string) => void): () => void {
    return () => undefined;
  }

  close(): void {
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
  }
}
