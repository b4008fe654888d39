import type { Queryable } from '../../db/database.ts';
import type { Mode } from '../../auth/secrets.ts';

/** A terminal's id and name (the POS context names the terminal a credential belongs to). */
export async function findTerminalName(db: Queryable, id: string): Promise<{ id: string; name: string } | undefined> {
  const [row] = await db.query<{ id: string; name: string }>('SELECT id, name FROM terminals WHERE id = $1', [id]);
  return row;
}

/** A terminal of one merchant and mode, revoked or not (the pairing's checks). */
export async function findMerchantTerminal(db: Queryable, terminalId: string, merchantId: string, mode: Mode): Promise<{ id: string; name: string; revoked_at: Date | null } | undefined> {
  const [row] = await db.query<{ id: string; name: string; revoked_at: Date | null }>('SELECT id, name, revoked_at FROM terminals WHERE id = $1 AND merchant_id = $2 AND mode = $3', [terminalId, merchantId, mode]);
  return row;
}

/** Stores a terminal's new pairing code (its hash), dropping the terminal's older codes and every code that expired before `expiredBefore`. */
export async function replacePairingCode(db: Queryable, code: { hash: string; terminalId: string; createdAt: Date; expiresAt: Date }, expiredBefore: Date): Promise<void> {
  await db.query('DELETE FROM terminal_pairing_codes WHERE terminal_id = $1 OR expires_at <= $2', [code.terminalId, expiredBefore]);
  await db.query('INSERT INTO terminal_pairing_codes (code_hash, terminal_id, created_at, expires_at) VALUES ($1, $2, $3, $4)', [code.hash, code.terminalId, code.createdAt, code.expiresAt]);
}

export interface PairingCodeRow {
  terminal_id: string;
  expires_at: Date;
  used_at: Date | null;
  revoked_at: Date | null;
  name: string;
  mode: Mode;
  merchant_name: string;
  handle: string;
}

/** A pairing code (by hash) with its terminal and merchant, the code's and the terminal's rows locked. */
export async function lockPairingCode(tx: Queryable, codeHash: string): Promise<PairingCodeRow | undefined> {
  const [row] = await tx.query<PairingCodeRow>(
    `SELECT p.terminal_id, p.expires_at, p.used_at, t.revoked_at, t.name, t.mode, m.name AS merchant_name, m.handle
     FROM terminal_pairing_codes p JOIN terminals t ON t.id = p.terminal_id JOIN merchants m ON m.id = t.merchant_id
     WHERE p.code_hash = $1 FOR UPDATE OF p, t`,
    [codeHash],
  );
  return row;
}

/** Gives the terminal its new token (its previous one stops working) and uses the code up. */
export async function pairWithCode(tx: Queryable, codeHash: string, terminalId: string, tokenHash: string, now: Date): Promise<void> {
  await tx.query('UPDATE terminals SET token_hash = $2 WHERE id = $1', [terminalId, tokenHash]);
  await tx.query('UPDATE terminal_pairing_codes SET used_at = $2 WHERE code_hash = $1', [codeHash, now]);
}

/** The unknown codes an address tried in its current window, if that window is still open at `now`. */
export async function findPairingMisses(db: Queryable, ip: string, now: Date): Promise<{ count: number; window_ends_at: Date } | undefined> {
  const [row] = await db.query<{ count: number; window_ends_at: Date }>('SELECT count, window_ends_at FROM terminal_pairing_misses WHERE ip = $1 AND window_ends_at > $2', [ip, now]);
  return row;
}

/** Counts one unknown code for an address: a new window (ending at `windowEndsAt`) when its last one is over; other addresses' ended windows are cleared away. */
export async function recordPairingMiss(db: Queryable, ip: string, now: Date, windowEndsAt: Date): Promise<void> {
  await db.query('DELETE FROM terminal_pairing_misses WHERE window_ends_at <= $1 AND ip <> $2', [now, ip]);
  await db.query(
    `INSERT INTO terminal_pairing_misses AS m (ip, count, window_ends_at) VALUES ($1, 1, $3)
     ON CONFLICT (ip) DO UPDATE SET
       count = CASE WHEN m.window_ends_at <= $2 THEN 1 ELSE m.count + 1 END,
       window_ends_at = CASE WHEN m.window_ends_at <= $2 THEN EXCLUDED.window_ends_at ELSE m.window_ends_at END`,
    [ip, now, windowEndsAt],
  );
}

/** Sets a live terminal's manager PIN hash and clears its lock-out; false when the terminal is not the merchant's in that mode. */
export async function setManagerPinHash(db: Queryable, scope: { merchantId: string; mode: string }, terminalId: string, hash: string): Promise<boolean> {
  const rows = await db.query<{ id: string }>(
    `UPDATE terminals SET manager_pin_hash = $4, manager_pin_failures = 0, manager_pin_locked_until = NULL
     WHERE id = $1 AND merchant_id = $2 AND mode = $3 AND revoked_at IS NULL RETURNING id`,
    [terminalId, scope.merchantId, scope.mode, hash],
  );
  return rows.length > 0;
}

/**
 * Counts one manager PIN attempt (unless the PIN is locked or not set) and answers the PIN's hash,
 * the failures so far and whether it is locked at `now` (the app's clock); undefined for an
 * unknown terminal.
 */
export async function countManagerPinAttempt(db: Queryable, terminalId: string, now: Date): Promise<{ hash: string | null; failures: number; locked_until: Date | null; locked: boolean } | undefined> {
  const [row] = await db.query<{ hash: string | null; failures: number; locked_until: Date | null; locked: boolean }>(
    `UPDATE terminals SET manager_pin_failures = CASE WHEN manager_pin_locked_until > $2 OR manager_pin_hash IS NULL THEN manager_pin_failures ELSE manager_pin_failures + 1 END
     WHERE id = $1
     RETURNING manager_pin_hash AS hash, manager_pin_failures AS failures, manager_pin_locked_until AS locked_until, COALESCE(manager_pin_locked_until > $2, false) AS locked`,
    [terminalId, now],
  );
  return row;
}

/** Whether a terminal has a manager PIN; undefined for an unknown terminal. */
export async function managerPinIsSet(db: Queryable, terminalId: string): Promise<boolean | undefined> {
  const [row] = await db.query<{ set: boolean }>('SELECT manager_pin_hash IS NOT NULL AS set FROM terminals WHERE id = $1', [terminalId]);
  return row?.set;
}

/** Locks a terminal's manager PIN until `until`. */
export async function lockManagerPin(db: Queryable, terminalId: string, until: Date): Promise<void> {
  await db.query('UPDATE terminals SET manager_pin_failures = 0, manager_pin_locked_until = $2 WHERE id = $1', [terminalId, until]);
}

/** A right manager PIN: the count of wrong ones starts again. */
export async function resetManagerPinFailures(db: Queryable, terminalId: string): Promise<void> {
  await db.query('UPDATE terminals SET manager_pin_failures = 0, manager_pin_locked_until = NULL WHERE id = $1', [terminalId]);
}
