/**
 * Offline QR vouchers. A wallet holder, while online, reserves an amount from their wallet and
 * receives a voucher signed by the sync server (Ed25519). Their phone shows it as a QR code; a
 * terminal that cannot reach the server verifies the signature with the public key it received
 * in its last sync hello, takes a payment up to the voucher's amount, and settles it when it is
 * back online. The money is reserved when the voucher is made, so an offline payment can never
 * overdraw a wallet; a voucher pays once (the first settlement wins).
 *
 * Format (fits a QR code): `TLQ1.<claims>.<signature>`, both parts base64url without padding;
 * the signature covers the ASCII bytes of `TLQ1.<claims>`. Browser-safe: no Buffer, WebCrypto only.
 */

export const VOUCHER_PREFIX = 'TLQ1';

/** What a voucher says, in short field names to keep the QR code small. */
export interface VoucherClaims {
  v: 1;
  /** Voucher id, `oqr_...`. */
  id: string;
  /** The payer's handle, without `@`. */
  h: string;
  /** ISO 4217 currency. */
  c: string;
  /** The reserved amount in minor units: the most one payment may take. */
  a: number;
  /** Expiry, seconds since the epoch. */
  x: number;
  /** Mode of the wallet: test or live. */
  m: 'test' | 'live';
  /** Id of the signing key. */
  k: string;
}

export interface ParsedVoucher {
  claims: VoucherClaims;
  /** The bytes the signature covers. */
  signedPart: string;
  signature: Uint8Array;
}

export type VoucherProblem = 'voucher_malformed' | 'voucher_signature_invalid' | 'voucher_unknown_key' | 'voucher_expired' | 'voucher_wrong_mode' | 'voucher_currency_mismatch' | 'amount_exceeds_voucher';

export function base64UrlEncode(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function base64UrlDecode(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  const padded = text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4);
  try {
    const binary = atob(padded);
    const bytes = new Uint8Array(binary.length);
    for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
    return bytes;
  } catch {
    return undefined;
  }
}

/** The part of a voucher its signature covers. */
export function voucherSignedPart(claims: VoucherClaims): string {
  return `${VOUCHER_PREFIX}.${base64UrlEncode(new TextEncoder().encode(JSON.stringify(claims)))}`;
}

export function encodeVoucher(signedPart: string, signature: Uint8Array): string {
  return `${signedPart}.${base64UrlEncode(signature)}`;
}

function isClaims(value: unknown): value is VoucherClaims {
  if (typeof value !== 'object' || value === null) return false;
  const claims = value as Record<string, unknown>;
  return (
    claims.v === 1 &&
    typeof claims.id === 'string' && /^oqr_[A-Za-z0-9]{8,64}$/.test(claims.id) &&
    typeof claims.h === 'string' && /^[a-z0-9_.]{3,30}$/.test(claims.h) &&
    typeof claims.c === 'string' && /^[A-Z]{3}$/.test(claims.c) &&
    typeof claims.a === 'number' && Number.isSafeInteger(claims.a) && claims.a > 0 &&
    typeof claims.x === 'number' && Number.isSafeInteger(claims.x) &&
    (claims.m === 'test' || claims.m === 'live') &&
    typeof claims.k === 'string' && claims.k.length > 0 && claims.k.length <= 64
  );
}

/** Parses a scanned voucher without checking its signature; undefined when it is not one. */
export function parseVoucher(text: string): ParsedVoucher | undefined {
  const parts = text.trim().split('.');
  if (parts.length !== 3 || parts[0] !== VOUCHER_PREFIX || !parts[1] || !parts[2]) return undefined;
  const claimBytes = base64UrlDecode(parts[1]);
  const signature = base64UrlDecode(parts[2]);
  if (!claimBytes || !signature || signature.length !== 64) return undefined;
  let claims: unknown;
  try {
    claims = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(claimBytes));
  } catch {
    return undefined;
  }
  if (!isClaims(claims)) return undefined;
  return { claims, signedPart: `${parts[0]}.${parts[1]}`, signature };
}

/** Verifies an Ed25519 signature with WebCrypto (browsers and Node alike). */
export async function verifyVoucherSignature(voucher: ParsedVoucher, publicKeyBase64Url: string): Promise<boolean> {
  const raw = base64UrlDecode(publicKeyBase64Url);
  if (!raw || raw.length !== 32) return false;
  try {
    const key = await globalThis.crypto.subtle.importKey('raw', raw as Uint8Array<ArrayBuffer>, { name: 'Ed25519' }, false, ['verify']);
    return await globalThis.crypto.subtle.verify({ name: 'Ed25519' }, key, voucher.signature as Uint8Array<ArrayBuffer>, new TextEncoder().encode(voucher.signedPart));
  } catch {
    return false;
  }
}

export interface VoucherCheck {
  /** Keys by id (from the sync hello, or the server's own). */
  keys: ReadonlyMap<string, string>;
  mode: 'test' | 'live';
  currency: string;
  amountMinor: number;
  /** When the payment is taken. */
  at: Date;
}

/**
 * Everything a terminal (offline) and the server (at settlement) check on a voucher, in the same
 * order on both sides, so an offline acceptance predicts the server's verdict except for what
 * only the server knows (the voucher was already used elsewhere, or revoked).
 */
export async function checkVoucher(text: string, check: VoucherCheck): Promise<{ ok: true; voucher: ParsedVoucher } | { ok: false; code: VoucherProblem; voucher?: ParsedVoucher }> {
  const voucher = parseVoucher(text);
  if (!voucher) return { ok: false, code: 'voucher_malformed' };
  const key = check.keys.get(voucher.claims.k);
  if (!key) return { ok: false, code: 'voucher_unknown_key', voucher };
  if (!(await verifyVoucherSignature(voucher, key))) return { ok: false, code: 'voucher_signature_invalid', voucher };
  if (voucher.claims.m !== check.mode) return { ok: false, code: 'voucher_wrong_mode', voucher };
  if (voucher.claims.x * 1000 <= check.at.getTime()) return { ok: false, code: 'voucher_expired', voucher };
  if (voucher.claims.c !== check.currency.toUpperCase()) return { ok: false, code: 'voucher_currency_mismatch', voucher };
  if (check.amountMinor > voucher.claims.a) return { ok: false, code: 'amount_exceeds_voucher', voucher };
  return { ok: true, voucher };
}

export const VOUCHER_PROBLEM_MESSAGES: Record<VoucherProblem, string> = {
  voucher_malformed: 'This is not a Tapline offline QR code',
  voucher_signature_invalid: 'The QR code is not signed by Tapline (forged or damaged)',
  voucher_unknown_key: 'The QR code is signed with a key this terminal does not know: sync once, then try again',
  voucher_expired: 'The QR code has expired: ask the customer to make a new one',
  voucher_wrong_mode: 'The QR code is for the other mode (test/live)',
  voucher_currency_mismatch: 'The QR code is in another currency',
  amount_exceeds_voucher: 'The amount is more than the QR code covers',
};
