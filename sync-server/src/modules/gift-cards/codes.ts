import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../../auth/secrets.ts';
import { qrPng } from '../../http/qr-image.ts';

/**
 * Gift card codes (CONTRACT.md): `gc_` + 64 lower-case hex from 32 random bytes (256 bits).
 * The plaintext leaves the server once, in the issue answer; the database keeps its SHA-256 and
 * the first 10 characters. A 256-bit random code needs no slow KDF: there is nothing to guess.
 */
export const CODE_PREFIX = 'gc_';
const CODE = /^gc_[0-9a-f]{64}$/;

export function newGiftCardCode(): string {
  return `${CODE_PREFIX}${randomBytes(32).toString('hex')}`;
}

/** The canonical (lower-case) code, or undefined when the input is not a well-formed code. */
export function canonicalCode(input: string): string | undefined {
  const code = input.trim().toLowerCase();
  return CODE.test(code) ? code : undefined;
}

export function isGiftCardCode(value: unknown): value is string {
  return typeof value === 'string' && CODE.test(value);
}

export function codeHash(code: string): string {
  return sha256Hex(code);
}

/** First 10 characters: `gc_` and 7 hex, enough to tell cards apart on a receipt. */
export function codePrefixOf(code: string): string {
  return code.slice(0, 10);
}


/**
 * QR codes for many cards. Each PNG takes a few milliseconds of CPU; yielding between them
 * keeps the event loop answering other requests during a 500-row import.
 */
export async function qrPngs(codes: readonly string[]): Promise<string[]> {
  const images: string[] = [];
  for (const code of codes) {
    images.push(await qrPng(code));
    if (images.length % 20 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  return images;
}
