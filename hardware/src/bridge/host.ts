import type { NfcReader, NfcReaderEvents } from '../nfc/types.ts';
import type { SimulatedNfcReader } from '../nfc/simulated-reader.ts';
import { validateReceiptDocument } from '../printer/document.ts';
import { layoutReceipt } from '../printer/layouts.ts';
import { PrintQueueFullError } from '../printer/print-queue.ts';
import { DRAWER_REASONS } from '../printer/types.ts';
import type { DrawerReason, ReceiptPrinter, ReceiptPrinterEvents } from '../printer/types.ts';
import { BRIDGE_PROTOCOL_VERSION, parseRequest } from './protocol.ts';
import type { BridgeErrorCode, BridgeEventName, BridgeMethods, BridgeRequest, HostMessage } from './protocol.ts';

export interface BridgeHostOptions {
  nfc: NfcReader;
  printer: ReceiptPrinter;
  /** Set when the reader is the simulator, to allow nfc.simulateTap. */
  simulator?: SimulatedNfcReader;
  /** Delivers a message to the terminal: an Electron webContents.send, a WebSocket send. */
  send: (message: HostMessage) => void;
}

class BridgeError extends Error {
  constructor(
    readonly code: BridgeErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Serves one terminal connection: answers requests against the drivers and forwards their
 * events. It knows nothing of the transport; authentication is the transport's job (the
 * WebSocket server checks the secret, Electron IPC is private to the app).
 */
export class BridgeHost {
  readonly #options: BridgeHostOptions;
  readonly #unsubscribe: Array<() => void> = [];

  constructor(options: BridgeHostOptions) {
    this.#options = options;
    this.#fromNfc('tag', 'nfc.tap');
    this.#fromNfc('unsupported', 'nfc.unsupported');
    this.#fromNfc('attach', 'nfc.readerAttached');
    this.#fromNfc('detach', 'nfc.readerDetached');
    this.#fromNfc('status', 'nfc.status');
    this.#fromPrinter('status', 'printer.status');
    this.#fromPrinter('job', 'printer.job');
  }

  /** Handles one incoming message and sends its response. Never throws. */
  async handle(raw: unknown): Promise<void> {
    const request = parseRequest(raw);
    if ('error' in request) {
      if (request.id !== null) this.#options.send({ type: 'response', id: request.id, ok: false, error: { code: 'bad_request', message: request.error } });
      return;
    }
    try {
      const result = await this.#dispatch(request);
      this.#options.send({ type: 'response', id: request.id, ok: true, result });
    } catch (error) {
      const code: BridgeErrorCode = error instanceof BridgeError ? error.code : error instanceof PrintQueueFullError ? 'print_queue_full' : 'failed';
      const message = error instanceof Error ? error.message : String(error);
      this.#options.send({ type: 'response', id: request.id, ok: false, error: { code, message } });
    }
  }

  dispose(): void {
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
  }

  async #dispatch(request: BridgeRequest): Promise<BridgeMethods[BridgeRequest['method']]['result']> {
    const { nfc, printer, simulator } = this.#options;
    switch (request.method) {
      case 'hello':
        return { protocolVersion: BRIDGE_PROTOCOL_VERSION };
      case 'hardware.status':
        return { nfc: nfc.status(), printer: printer.status() };
      case 'printer.status':
        return printer.refreshStatus();
      case 'printer.print': {
        const document = this.#validDocument(request.params.document);
        return printer.print(document, optionalStrings(request.params, ['jobId', 'label']));
      }
      case 'printer.printReceipt': {
        const { merchant, settings, receipt } = request.params;
        if (typeof merchant !== 'object' || typeof settings !== 'object' || typeof receipt !== 'object' || receipt === null) {
          throw new BridgeError('bad_request', 'printReceipt needs merchant, settings and receipt');
        }
        let document;
        try {
          document = validateReceiptDocument(layoutReceipt(merchant, settings, receipt));
        } catch (error) {
          throw new BridgeError('bad_request', `receipt could not be laid out: ${(error as Error).message}`);
        }
        // A gift card's receipt prints its code: the queue must not keep it.
        return printer.print(document, { ...optionalStrings(request.params, ['jobId']), label: receipt.kind, sensitive: receipt.kind === 'gift-card-sale' });
      }
      case 'printer.openDrawer': {
        const { reason } = request.params;
        if (!DRAWER_REASONS.includes(reason as DrawerReason)) throw new BridgeError('bad_request', `reason must be one of ${DRAWER_REASONS.join(', ')}`);
        // Unlike a print, the job id is required: it is what keeps a retried kick from opening the drawer twice.
        const { jobId } = optionalStrings(request.params, ['jobId']);
        if (jobId === undefined) throw new BridgeError('bad_request', 'jobId must be a string of 1 to 200 characters');
        return printer.openDrawer({ reason, jobId });
      }
      case 'nfc.simulateTap': {
        if (simulator === undefined) throw new BridgeError('not_available', 'the NFC reader is not the simulator');
        if (typeof request.params.tagIdOrUri !== 'string' || request.params.tagIdOrUri.length > 2000) throw new BridgeError('bad_request', 'tagIdOrUri must be a string');
        return { accepted: simulator.tap(request.params.tagIdOrUri) !== null };
      }
    }
  }

  #validDocument(value: unknown) {
    try {
      return validateReceiptDocument(value);
    } catch (error) {
      throw new BridgeError('bad_request', (error as Error).message);
    }
  }

  #fromNfc<K extends Exclude<keyof NfcReaderEvents, 'error'>>(sourceEvent: K, event: BridgeEventName): void {
    const { nfc } = this.#options;
    const listener = (...args: NfcReaderEvents[K]) => this.#options.send({ type: 'event', event, data: args[0] } as HostMessage);
    nfc.on(sourceEvent, listener);
    this.#unsubscribe.push(() => nfc.off(sourceEvent, listener));
  }

  #fromPrinter<K extends keyof ReceiptPrinterEvents>(sourceEvent: K, event: BridgeEventName): void {
    const { printer } = this.#options;
    const listener = (...args: ReceiptPrinterEvents[K]) => this.#options.send({ type: 'event', event, data: args[0] } as HostMessage);
    printer.on(sourceEvent, listener);
    this.#unsubscribe.push(() => printer.off(sourceEvent, listener));
  }
}

function optionalStrings<K extends string>(params: Partial<Record<K, unknown>>, keys: readonly K[]): Partial<Record<K, string>> {
  const out: Partial<Record<K, string>> = {};
  for (const key of keys) {
    const value = params[key];
    if (value === undefined) continue;
    if (typeof value !== 'string' || value.length === 0 || value.length > 200) throw new BridgeError('bad_request', `${key} must be a string of 1 to 200 characters`);
    out[key] = value;
  }
  return out;
}
