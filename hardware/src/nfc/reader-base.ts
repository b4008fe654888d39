import { EventEmitter } from 'node:events';
import type { Clock } from '../clock.ts';
import { TapDebouncer, DEFAULT_DEBOUNCE_WINDOW_MS } from './debounce.ts';
import type { TagReading } from './interpret.ts';
import type { NfcDriverState, NfcReader, NfcReaderEvents, NfcReaderStatus, TagEvent, UnsupportedTagEvent } from './types.ts';

export interface ReaderBaseOptions {
  clock: Clock;
  debounceWindowMs?: number;
}

/**
 * What the PC/SC driver and the simulator share: turning a tag reading into a debounced event,
 * the list of attached readers, and a status that is safe to emit without listeners.
 */
export abstract class NfcReaderBase extends EventEmitter<NfcReaderEvents> implements NfcReader {
  abstract readonly driver: 'pcsc' | 'simulated';
  protected readonly clock: Clock;
  readonly #debouncer: TapDebouncer;
  readonly #readers = new Set<string>();
  #state: NfcDriverState = 'stopped';
  #detail: string | undefined;
  protected restarts = 0;

  constructor(options: ReaderBaseOptions) {
    super();
    this.clock = options.clock;
    this.#debouncer = new TapDebouncer(options.clock, options.debounceWindowMs ?? DEFAULT_DEBOUNCE_WINDOW_MS);
  }

  abstract start(): Promise<void>;
  abstract stop(): Promise<void>;

  status(): NfcReaderStatus {
    const status: NfcReaderStatus = { driver: this.driver, state: this.#state, readers: [...this.#readers].sort(), restarts: this.restarts };
    if (this.#detail !== undefined) status.detail = this.#detail;
    return status;
  }

  protected setState(state: NfcDriverState, detail?: string): void {
    if (state === this.#state && detail === this.#detail) return;
    this.#state = state;
    this.#detail = detail;
    if (state !== 'ready') this.#readers.clear();
    this.emit('status', this.status());
  }

  protected readerAttached(readerName: string): void {
    if (this.#readers.has(readerName)) return;
    this.#readers.add(readerName);
    this.emit('attach', { readerName, at: this.isoNow() });
    this.emit('status', this.status());
  }

  protected readerDetached(readerName: string): void {
    if (!this.#readers.delete(readerName)) return;
    this.emit('detach', { readerName, at: this.isoNow() });
    this.emit('status', this.status());
  }

  /** Emits the reading as a tap unless the same UID was read within the debounce window. */
  protected deliver(readerName: string, uid: string, reading: TagReading): TagEvent | UnsupportedTagEvent | null {
    if (!this.#debouncer.accept(uid)) return null;
    const at = this.isoNow();
    if (reading.kind === 'unsupported') {
      const event: UnsupportedTagEvent = { uid, reason: reading.reason, message: reading.message, readerName, at };
      this.emit('unsupported', event);
      return event;
    }
    const event: TagEvent = {
      uid,
      ...(reading.tagId === undefined ? {} : { tagId: reading.tagId }),
      ...(reading.uri === undefined ? {} : { uri: reading.uri }),
      readerName,
      at,
    };
    this.emit('tag', event);
    return event;
  }

  /** An 'error' event without a listener would throw and take the kiosk down; log it instead. */
  protected reportError(error: Error): void {
    if (this.listenerCount('error') > 0) this.emit('error', error);
    else console.warn(`[nfc] ${error.message}`);
  }

  protected isoNow(): string {
    return new Date(this.clock.now()).toISOString();
  }
}
