import { NdefError, parseTapUrl, parseType2TagImage } from '@tapline/shared/ndef';
import type { UnsupportedTagReason } from './types.ts';

export type TagReading =
  | { kind: 'tag'; uri?: string; tagId?: string }
  | { kind: 'unsupported'; reason: UnsupportedTagReason; message: string };

export const UNSUPPORTED_MESSAGES: Readonly<Record<UnsupportedTagReason, string>> = {
  iso14443_4: 'This card or phone is not a Tapline tag. Tap a Tapline sticker, card, ring or band.',
  not_ndef_formatted: 'This tag has not been set up for Tapline (no NDEF data).',
  read_failed: 'The tag could not be read. Hold it still on the reader and try again.',
};

export function unsupported(reason: UnsupportedTagReason, detail?: string): TagReading {
  return { kind: 'unsupported', reason, message: detail === undefined ? UNSUPPORTED_MESSAGES[reason] : `${UNSUPPORTED_MESSAGES[reason]} (${detail})` };
}

/** What a tag's URI means to the terminal: the URI, and the tag id when it is a tap URL. */
export function readingFromUri(uri: string | null): TagReading {
  if (uri === null) return { kind: 'tag' };
  const tap = parseTapUrl(uri);
  return tap === null ? { kind: 'tag', uri } : { kind: 'tag', uri, tagId: tap.tagId };
}

/** Interprets the memory read from a Type 2 tag (pages 0-3 and the data area up to the NDEF end). */
export function readingFromType2Memory(memory: Uint8Array): TagReading {
  try {
    return readingFromUri(parseType2TagImage(memory).uri);
  } catch (error) {
    if (error instanceof NdefError && (error.code === 'not_ndef_formatted' || error.code === 'mapping_version_unsupported')) {
      return unsupported('not_ndef_formatted');
    }
    if (error instanceof NdefError) return unsupported('read_failed', error.code);
    throw error;
  }
}
