import { PAIRING_CODE_TTL_SECONDS, PAIRING_MISS_WINDOW_SECONDS, PAIRING_MISSES_MAX } from '@tapline/shared/limits';
import { randomInt } from 'node:crypto';
import type { Database, Queryable } from '../../db/database.ts';
import { credentialsChanged } from '../../auth/credential-cache.ts';
import { randomHex, sha256Hex, type Mode } from '../../auth/secrets.ts';
import { ApiError, badRequest, conflict, gone, notFound, retryAfterSeconds } from '../../http/errors.ts';
import { qrPng } from '../../http/qr-image.ts';
import { displayHandle } from '../../http/validate.ts';
import { findMerchantTerminal, findPairingMisses, lockPairingCode, pairWithCode, recordPairingMiss, replacePairingCode } from './store.ts';

/**
 * Pairing a kiosk with a short code: the merchant reads the code (or shows its QR code to the
 * kiosk's scanner) and the kiosk exchanges it for its terminal token, which nobody has to copy.
 *
 * A code is 8 characters of an alphabet without look-alikes (no 0/O, 1/I/L), about 40 bits,
 * shown as ABCD-EFGH. It is valid PAIRING_CODE_TTL_SECONDS, pairs once, and only its SHA-256 is
 * stored. A client IP that tries PAIRING_MISSES_MAX unknown codes within the window is locked
 * out until the window ends.
 */
export const PAIRING_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
export const PAIRING_CODE_LENGTH = 8;

/** A new code, as it is shown: two groups of four (the dash is optional when typed). */
export function newPairingCode(): string {
  const characters = Array.from({ length: PAIRING_CODE_LENGTH }, () => PAIRING_ALPHABET[randomInt(PAIRING_ALPHABET.length)]!);
  return `${characters.slice(0, 4).join('')}-${characters.slice(4).join('')}`;
}

/** The code as typed, made canonical (case, spaces and dashes do not matter); null when it cannot be one. */
export function canonicalPairingCode(typed: string): string | null {
  const text = typed.toUpperCase().replace(/[\s-]+/g, '');
  if (text.length !== PAIRING_CODE_LENGTH) return null;
  return [...text].every((character) => PAIRING_ALPHABET.includes(character)) ? text : null;
}

const hashOf = (canonical: string) => sha256Hex(`pairing:${canonical}`);

export interface IssuedPairingCode {
  pairingCode: string;
  pairingExpiresAt: string;
}

/**
 * A fresh code for the terminal; any older code of that terminal stops working (and codes
 * expired for a day, of any terminal, are cleared away).
 */
export async function issuePairingCode(db: Queryable, terminalId: string, now: Date): Promise<IssuedPairingCode> {
  const code = newPairingCode();
  const expiresAt = new Date(now.getTime() + PAIRING_CODE_TTL_SECONDS * 1000);
  await replacePairingCode(db, { hash: hashOf(canonicalPairingCode(code)!), terminalId, createdAt: now, expiresAt }, new Date(now.getTime() - 86_400_000));
  return { pairingCode: code, pairingExpiresAt: expiresAt.toISOString() };
}

/** The answer's fields: the code, its expiry and its QR code (PNG data URL) for a kiosk's barcode scanner. Drawn outside any transaction. */
export async function pairingAnswer(issued: IssuedPairingCode): Promise<IssuedPairingCode & { pairingQr: string }> {
  return { ...issued, pairingQr: await qrPng(issued.pairingCode) };
}

/** The merchant's own live terminal, for a new code; 404 for another's, 409 for a revoked one. */
export async function pairableTerminal(db: Queryable, terminalId: string, merchantId: string, mode: Mode): Promise<{ id: string; name: string }> {
  const row = await findMerchantTerminal(db, terminalId, merchantId, mode);
  if (!row) throw notFound('terminal_not_found', `No terminal ${terminalId}`);
  if (row.revoked_at !== null) throw conflict('terminal_revoked', 'This terminal has been revoked: create a new one');
  return { id: row.id, name: row.name };
}

async function checkLockout(db: Queryable, ip: string, now: Date): Promise<void> {
  const row = await findPairingMisses(db, ip, now);
  if (row && row.count >= PAIRING_MISSES_MAX) {
    const seconds = retryAfterSeconds(row.window_ends_at, now);
    throw new ApiError(429, 'pairing_locked', `Too many wrong pairing codes from this address; try again in ${seconds} seconds`, { headers: { 'retry-after': String(seconds) } });
  }
}

async function recordMiss(db: Queryable, ip: string, now: Date): Promise<void> {
  await recordPairingMiss(db, ip, now, new Date(now.getTime() + PAIRING_MISS_WINDOW_SECONDS * 1000));
}

export interface PairedTerminal {
  /** Send as Authorization: Bearer term.<token>. */
  token: string;
  terminal: { id: string; name: string; mode: Mode; merchant: { name: string; handle: string } };
}

/**
 * The kiosk's exchange: a live, unused code of a live terminal gives that terminal a new token
 * (its previous token stops working: the terminal now lives on this kiosk) and is used up, in
 * one transaction. An unknown code counts against the client's IP; a locked-out IP is refused
 * before anything is looked up.
 */
export async function pairTerminal(db: Database, typed: string, ip: string, now: Date): Promise<PairedTerminal> {
  await checkLockout(db, ip, now);
  const canonical = canonicalPairingCode(typed);
  if (canonical === null) {
    await recordMiss(db, ip, now);
    throw badRequest('pairing_code_invalid', `A pairing code is ${PAIRING_CODE_LENGTH} letters and digits, like ABCD-EFGH`);
  }
  const outcome = await db.transaction(async (tx) => {
    const row = await lockPairingCode(tx, hashOf(canonical));
    if (!row || row.revoked_at !== null) return { miss: true as const };
    if (row.used_at !== null) throw conflict('pairing_code_used', 'This pairing code has already paired a terminal: ask for a new one');
    if (row.expires_at <= now) throw gone('pairing_code_expired', 'This pairing code has expired: ask for a new one');
    const token = randomHex(32);
    await pairWithCode(tx, hashOf(canonical), row.terminal_id, sha256Hex(token), now);
    return { miss: false as const, paired: { token, terminal: { id: row.terminal_id, name: row.name, mode: row.mode, merchant: { name: row.merchant_name, handle: displayHandle(row.handle) } } } };
  });
  if (outcome.miss) {
    await recordMiss(db, ip, now);
    throw notFound('pairing_code_not_found', 'No terminal is waiting for this pairing code');
  }
  // The previous token is out: forget any remembered lookup of it.
  credentialsChanged();
  return outcome.paired;
}
