/**
 * What the terminal sees of an NFC reader: tag taps, taps it cannot use, and readers coming
 * and going. Both the PC/SC driver and the simulator implement this interface.
 */

/** A tag that was read. `uri` is absent for a blank (formatted but empty) tag, `tagId` when the URI is not a tap URL. */
export interface TagEvent {
  /** The tag's UID in upper-case hex, e.g. "04A22B521C6F80". */
  uid: string;
  tagId?: string;
  uri?: string;
  readerName: string;
  /** ISO 8601 time of the read. */
  at: string;
}

export type UnsupportedTagReason =
  /** ISO 14443-4 card (bank card, transport card) or a phone: we read NDEF from Type 2 tags only. */
  | 'iso14443_4'
  /** The tag has no NDEF capability container (unformatted Ultralight, MIFARE Classic). */
  | 'not_ndef_formatted'
  /** The tag answered but its memory could not be read or parsed. */
  | 'read_failed';

export interface UnsupportedTagEvent {
  uid: string;
  reason: UnsupportedTagReason;
  /** A sentence the terminal can show the cashier. */
  message: string;
  readerName: string;
  at: string;
}

export interface ReaderEvent {
  readerName: string;
  at: string;
}

export interface NfcReaderEvents {
  tag: [TagEvent];
  unsupported: [UnsupportedTagEvent];
  attach: [ReaderEvent];
  detach: [ReaderEvent];
  error: [Error];
  status: [NfcReaderStatus];
}

export type NfcDriverState =
  /** Driver process starting. */
  | 'starting'
  | 'ready'
  /** No PC/SC service (pcscd socket missing) or nfc-pcsc not installed; checked again later. */
  | 'unavailable'
  /** The driver process died and is being restarted after a back-off delay. */
  | 'restarting'
  /** Too many consecutive restarts; the reader stays off until restarted by hand. */
  | 'failed'
  | 'stopped';

export interface NfcReaderStatus {
  driver: 'pcsc' | 'simulated';
  state: NfcDriverState;
  readers: string[];
  /** Why the driver is unavailable or failed, in words. */
  detail?: string;
  restarts: number;
}

export interface NfcReader {
  readonly driver: 'pcsc' | 'simulated';
  start(): Promise<void>;
  stop(): Promise<void>;
  status(): NfcReaderStatus;
  on<K extends keyof NfcReaderEvents>(event: K, listener: (...args: NfcReaderEvents[K]) => void): this;
  off<K extends keyof NfcReaderEvents>(event: K, listener: (...args: NfcReaderEvents[K]) => void): this;
}
