/**
 * The hardware bridge protocol: how the terminal UI talks to the NFC reader and the printer,
 * whether over Electron IPC or a loopback WebSocket. Requests carry an id and get one response
 * with the same id; events flow from the host unasked. Type-only imports: this file is shared
 * with the browser client and must not pull in Node code.
 */
import type { MerchantHeader, ReceiptInput, ReceiptSettings } from '../printer/layouts.ts';
import type { ReceiptDocument } from '../printer/document.ts';
import type { DrawerRequest, DrawerResult, JobEvent, PrintResult, PrinterStatus } from '../printer/types.ts';
import type { NfcReaderStatus, ReaderEvent, TagEvent, UnsupportedTagEvent } from '../nfc/types.ts';

export const BRIDGE_PROTOCOL_VERSION = 1;
/** Larger messages are refused; a receipt with a logo is well under 256 KiB. */
export const MESSAGE_BYTES_MAX = 1024 * 1024;

export interface HardwareStatus {
  nfc: NfcReaderStatus;
  printer: PrinterStatus;
}

/** Request types with their parameters and results. */
export interface BridgeMethods {
  /** First message on a WebSocket: proves the client knows this run's secret. */
  hello: { params: { secret: string }; result: { protocolVersion: number } };
  'hardware.status': { params: Record<string, never>; result: HardwareStatus };
  'printer.status': { params: Record<string, never>; result: PrinterStatus };
  'printer.print': { params: { document: ReceiptDocument; jobId?: string; label?: string }; result: PrintResult };
  'printer.printReceipt': { params: { merchant: MerchantHeader; settings: ReceiptSettings; receipt: ReceiptInput; jobId?: string }; result: PrintResult };
  /** Kicks the cash drawer open; a jobId whose kick reached the printer is not kicked again. */
  'printer.openDrawer': { params: DrawerRequest; result: DrawerResult };
  /** Development only: taps the simulated reader (refused when a real reader is in use). */
  'nfc.simulateTap': { params: { tagIdOrUri: string }; result: { accepted: boolean } };
}

export type BridgeMethod = keyof BridgeMethods;

export type BridgeRequest = {
  [M in BridgeMethod]: { type: 'request'; id: number; method: M; params: BridgeMethods[M]['params'] };
}[BridgeMethod];

export type BridgeErrorCode = 'unauthorized' | 'bad_request' | 'unknown_method' | 'not_available' | 'print_queue_full' | 'failed';

export type BridgeResponse =
  | { type: 'response'; id: number; ok: true; result: unknown }
  | { type: 'response'; id: number; ok: false; error: { code: BridgeErrorCode; message: string } };

/** Events with their payloads. */
export interface BridgeEvents {
  'nfc.tap': TagEvent;
  'nfc.unsupported': UnsupportedTagEvent;
  'nfc.readerAttached': ReaderEvent;
  'nfc.readerDetached': ReaderEvent;
  'nfc.status': NfcReaderStatus;
  'printer.status': PrinterStatus;
  'printer.job': JobEvent;
}

export type BridgeEventName = keyof BridgeEvents;

export type BridgeEvent = {
  [E in BridgeEventName]: { type: 'event'; event: E; data: BridgeEvents[E] };
}[BridgeEventName];

export type HostMessage = BridgeResponse | BridgeEvent;

const METHODS: ReadonlySet<string> = new Set<BridgeMethod>(['hello', 'hardware.status', 'printer.status', 'printer.print', 'printer.printReceipt', 'printer.openDrawer', 'nfc.simulateTap']);

/** Shape check of an incoming request; parameters are checked by each handler. */
export function parseRequest(value: unknown): BridgeRequest | { error: string; id: number | null } {
  if (typeof value !== 'object' || value === null) return { error: 'message must be an object', id: null };
  const message = value as { type?: unknown; id?: unknown; method?: unknown; params?: unknown };
  const id = Number.isSafeInteger(message.id) ? (message.id as number) : null;
  if (message.type !== 'request' || id === null) return { error: 'expected {type: "request", id: integer, method, params}', id };
  if (typeof message.method !== 'string' || !METHODS.has(message.method)) return { error: `unknown method ${JSON.stringify(message.method)}`, id };
  const params = message.params ?? {};
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return { error: 'params must be an object', id };
  return { type: 'request', id, method: message.method, params } as BridgeRequest;
}
