import { randomInt } from 'node:crypto';
import type { Database, Queryable } from '../../db/database.ts';
import { credentialsChanged } from '../../auth/credential-cache.ts';
import { randomHex, sha256Hex, type Mode } from '../../auth/secrets.ts';
import { ApiError, badRequest, conflict, gone, notFound } from '../../http/errors.ts';
import { displayHandle } from '../../http/validate.ts';
import { qrPng } from '../gift-cards/index.ts';

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
export const PAIRING_CODE_TTL_SECONDS = 600;
export const PAIRING_MISSES_MAX = 10;
export const PAIRING_MISS_WINDOW_SECONDS = 900;

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
  await db.query('DELETE FROM terminal_pairing_codes WHERE terminal_id = $1 OR expires_at <= $2', [terminalId, new Date(now.getTime() - 86_400_000)]);
  await db.query('INSERT INTO terminal_pairing_codes (code_hash, terminal_id, created_at, expires_at) VALUES ($1, $2, $3, $4)', [hashOf(canonicalPairingCode(code)!), terminalId, now, expiresAt]);
  return { pairingCode: code, pairingExpiresAt: expiresAt.toISOString() };
}

/** The answer's fields: the code, its expiry and its QR code (PNG data URL) for a kiosk's barcode scanner. Drawn outside any transaction. */
export async function pairingAnswer(issued: IssuedPairingCode): Promise<IssuedPairingCode & { pairingQr: string }> {
  return { ...issued, pairingQr: await qrPng(issued.pairingCode) };
}

/** The merchant's own live terminal, for a new code; 404 for another's, 409 for a revoked one. */
export async function pairableTerminal(db: Queryable, terminalId: string, merchantId: string, mode: Mode): Promise<{ id: string; name: string }> {
  const [row] = await db.query<{ id: string; name: string; revoked_at: Date | null }>('SELECT id, name, revoked_at FROM terminals WHERE id = $1 AND merchant_id = $2 AND mode = $3', [terminalId, merchantId, mode]);
  if (!row) throw notFound('terminal_not_found', `No terminal ${terminalId}`);
  if (row.revoked_at !== null) throw conflict('terminal_revoked', 'This terminal has been revoked: create a new one');
  return { id: row.id, name: row.name };
}

async function checkLockout(db: Queryable, ip: string, now: Date): Promise<void> {
  const [row] = await db.query<{ count: number; window_ends_at: Date }>('SELECT count, window_ends_at FROM terminal_pairing_misses WHERE ip = $1 AND window_ends_at > $2', [ip, now]);
  if (row && row.count >= PAIRING_MISSES_MAX) {
    const seconds = Math.max(1, Math.ceil((row.window_ends_at.getTime() - now.getTime()) / 1000));
    throw new ApiError(429, 'pairing_locked', `Too many wrong pairing codes from this address; try again in ${seconds} seconds`, { headers: { 'retry-after': String(seconds) } });
  }
}

async function recordMiss(db: Queryable, ip: string, now: Date): Promise<void> {
  await db.query('DELETE FROM terminal_pairing_misses WHERE window_ends_at <= $1 AND ip <> $2', [now, ip]);
  await db.query(
    `INSERT INTO terminal_pairing_misses AS m (ip, count, window_ends_at) VALUES ($1, 1, $3)
     ON CONFLICT (ip) DO UPDATE SET
       count = CASE WHEN m.window_ends_at <= $2 THEN 1 ELSE m.count + 1 END,
       window_ends_at = CASE WHEN m.window_ends_at <= $2 THEN EXCLUDED.window_ends_at ELSE m.window_ends_at END`,
    [ip, now, new Date(now.getTime() + PAIRING_MISS_WINDOW_SECONDS * 1000)],
  );
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
    const [row] = await tx.query<{ terminal_id: string; expires_at: Date; used_at: Date | null; revoked_at: Date | null; name: string; mode: Mode; merchant_name: string; handle: string }>(
      `SELECT p.terminal_id, p.expires_at, p.used_at, t.revoked_at, t.name, t.mode, m.name AS merchant_name, m.handle
       FROM terminal_pairing_codes p JOIN terminals t ON t.id = p.terminal_id JOIN merchants m ON m.id = t.merchant_id
       WHERE p.code_hash = $1 FOR UPDATE OF p, t`,
      [hashOf(canonical)],
    );
    if (!row || row.revoked_at !== null) return { miss: true as const };
    if (row.used_at !== null) throw conflict('pairing_code_used', 'This pairing code has already paired a terminal: ask for a new one');
    if (row.expires_at <= now) throw gone('pairing_code_expired', 'This pairing code has expired: ask for a new one');
    const token = randomHex(32);
    await tx.query('UPDATE terminals SET token_hash = $2 WHERE id = $1', [row.terminal_id, sha256Hex(token)]);
    await tx.query('UPDATE terminal_pairing_codes SET used_at = $2 WHERE code_hash = $1', [hashOf(canonical), now]);
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
