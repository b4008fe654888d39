import { createHash } from 'node:crypto';
import { buildTapUrl, buildType2TagImage, isTagId, toHex } from '@tapline/shared/ndef';
import type { Type2TagModel } from '@tapline/shared/ndef';
import { systemClock } from '../clock.ts';
import type { Clock } from '../clock.ts';
import { readingFromType2Memory, unsupported } from './interpret.ts';
import { NfcReaderBase } from './reader-base.ts';
import type { TagEvent, UnsupportedTagEvent, UnsupportedTagReason } from './types.ts';

export interface SimulatedNfcReaderOptions {
  /** The {base_url} a bare tag id is expanded with. */
  baseUrl: string;
  clock?: Clock;
  debounceWindowMs?: number;
  readerName?: string;
}

/**
 * A reader for development and tests. A tap builds the NTAG213 memory a real tag would hold and
 * runs it through the same parsing as the PC/SC driver, so what the terminal sees is the same.
 */
export class SimulatedNfcReader extends NfcReaderBase {
  readonly driver = 'simulated' as const;
  readonly readerName: string;
  readonly #baseUrl: string;

  constructor(options: SimulatedNfcReaderOptions) {
    super({ clock: options.clock ?? systemClock, ...(options.debounceWindowMs === undefined ? {} : { debounceWindowMs: options.debounceWindowMs }) });
    this.#baseUrl = options.baseUrl;
    this.readerName = options.readerName ?? 'Simulated NFC reader';
  }

  async start(): Promise<void> {
    this.setState('ready');
    this.readerAttached(this.readerName);
  }

  async stop(): Promise<void> {
    this.readerDetached(this.readerName);
    this.setState('stopped');
  }

  /**
   * Taps a tag holding `tagIdOrUri`: a tag id (expanded to {baseUrl}/tap/<tagId>) or any URI.
   * Returns the event emitted, or null when the tap was debounced or no reader is attached.
   */
  tap(tagIdOrUri: string, options: { uid?: string; model?: Type2TagModel } = {}): TagEvent | UnsupportedTagEvent | null {
    if (this.status().state !== 'ready') return null;
    const uri = isTagId(tagIdOrUri) ? buildTapUrl(this.#baseUrl, tagIdOrUri) : tagIdOrUri;
    const uid = options.uid ?? simulatedUid(tagIdOrUri);
    const memory = buildType2TagImage({ model: options.model ?? 'NTAG213', uid: hexToBytes(uid), uri });
    return this.deliver(this.readerName, uid, readingFromType2Memory(memory));
  }

  /** Presents something that is not a Tapline tag: a bank card or phone, or an unformatted tag. */
  present(uid: string, reason: UnsupportedTagReason = 'iso14443_4'): TagEvent | UnsupportedTagEvent | null {
    if (this.status().state !== 'ready') return null;
    return this.deliver(this.readerName, uid.toUpperCase(), unsupported(reason));
  }
}

/** A stable 7-byte NXP-style UID (manufacturer byte 04) derived from what the tag holds. */
export function simulatedUid(content: string): string {
  const digest = createHash('sha256').update(content).digest();
  return toHex(Uint8Array.of(0x04, ...digest.subarray(0, 6)));
}

function hexToBytes(hex: string): Uint8Array {
  if (!/^([0-9A-Fa-f]{2})+$/.test(hex)) throw new Error(`UID ${JSON.stringify(hex)} is not hex`);
  return Uint8Array.from(hex.match(/../g) ?? [], (pair) => parseInt(pair, 16));
}
