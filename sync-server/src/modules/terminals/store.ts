// The terminals table's SQL, all of it: the terminals module is its only writer (a terminal's
// creation and revocation for the merchant's routes, its settings, its order of changes and its
// queue report for the offline module and the sync socket), pairing codes and the manager's PIN.
import type { Language } from '@tapline/shared/i18n';
import type { Queryable } from '../../db/database.ts';
import { type Mode, newId, randomHex, sha256Hex } from '../../auth/secrets.ts';

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

export interface TerminalRow {
  id: string;
  merchant_id: string;
  mode: Mode;
  name: string;
  created_at: Date;
  revoked_at: Date | null;
  last_seen_at: Date | null;
  queued_count: number | null;
  queued_reported_at: Date | null;
  /** ISO 639-1: the kiosk's default language and its receipts' (only catalogued ones are written). */
  language: Language;
  /** When the terminal's unused pairing code expires (listTerminals only): null when none is waiting. */
  pairing_expires_at?: Date | null;
}

export async function insertTerminal(db: Queryable, merchantId: string, mode: Mode, name: string, language: Language = 'en'): Promise<{ row: TerminalRow; token: string }> {
  const token = randomHex(32);
  const [row] = await db.query<TerminalRow>(
    `INSERT INTO terminals (id, merchant_id, mode, name, token_hash, language) VALUES ($1, $2, $3, $4, $5, $6)
     RETURNING id, merchant_id, mode, name, created_at, revoked_at, last_seen_at, language, queued_count, queued_reported_at`,
    [newId('trm'), merchantId, mode, name, sha256Hex(token), language],
  );
  return { row: row!, token };
}

/** A page of the merchant's terminals, each with the expiry of its pairing code still waiting at `now` (unused, unexpired, terminal not revoked). */
export async function listTerminals(db: Queryable, merchantId: string, mode: Mode, limit: number, offset: number, now: Date): Promise<{ rows: TerminalRow[]; total: number }> {
  const rows = await db.query<TerminalRow>(
    `SELECT id, merchant_id, mode, name, created_at, revoked_at, last_seen_at, language, queued_count, queued_reported_at,
       CASE WHEN t.revoked_at IS NULL THEN
         (SELECT max(p.expires_at) FROM terminal_pairing_codes p WHERE p.terminal_id = t.id AND p.used_at IS NULL AND p.expires_at > $5)
       END AS pairing_expires_at
     FROM terminals t
     WHERE merchant_id = $1 AND mode = $2 ORDER BY created_at, id LIMIT $3 OFFSET $4`,
    [merchantId, mode, limit, offset, now],
  );
  const [count] = await db.query<{ total: number }>('SELECT count(*)::int8 AS total FROM terminals WHERE merchant_id = $1 AND mode = $2', [merchantId, mode]);
  return { rows, total: count?.total ?? 0 };
}

/** Revokes a terminal at `now` (the app's clock); revoking it again keeps the first time. */
export async function revokeTerminal(db: Queryable, id: string, merchantId: string, mode: Mode, now: Date): Promise<TerminalRow | undefined> {
  const [row] = await db.query<TerminalRow>(
    `UPDATE terminals SET revoked_at = coalesce(revoked_at, $4) WHERE id = $1 AND merchant_id = $2 AND mode = $3
     RETURNING id, merchant_id, mode, name, created_at, revoked_at, last_seen_at, language, queued_count, queued_reported_at`,
    [id, merchantId, mode, now],
  );
  return row;
}

/**
 * The next number in this terminal's order of changes. The UPDATE locks the terminal's row until
 * the caller's transaction ends, so one terminal's changes commit in the order of their numbers.
 */
export async function nextTerminalSeq(tx: Queryable, terminalId: string): Promise<number> {
  const [row] = await tx.query<{ sync_seq: number }>('UPDATE terminals SET sync_seq = sync_seq + 1, last_seen_at = now() WHERE id = $1 RETURNING sync_seq', [terminalId], {
    prepareAs: 'terminal_next_seq',
  });
  if (!row) throw new Error(`terminal ${terminalId} vanished`);
  return row.sync_seq;
}

/**
 * Takes `count` numbers of this terminal's order of changes at once and answers the first. The
 * UPDATE locks the terminal's row until the caller's transaction ends: one terminal's pushes settle
 * one after the other, and their numbers commit in order.
 */
export async function reserveTerminalSeqs(tx: Queryable, terminalId: string, count: number): Promise<number> {
  const [row] = await tx.query<{ sync_seq: number }>(
    'UPDATE terminals SET sync_seq = sync_seq + $2, last_seen_at = now() WHERE id = $1 RETURNING sync_seq',
    [terminalId, count],
    { prepareAs: 'terminal_reserve_seqs' },
  );
  if (!row) throw new Error(`terminal ${terminalId} vanished`);
  return row.sync_seq - count + 1;
}

export async function setTerminalOfflineLimits(
  db: Queryable,
  terminalId: string,
  merchantId: string,
  mode: Mode,
  limits: { perPaymentMax?: number | null; totalMax?: number | null; maxAgeSeconds?: number | null },
): Promise<boolean> {
  // undefined leaves a limit as it is; null returns it to the default.
  const rows = await db.query(
    `UPDATE terminals SET
       offline_per_payment_max = CASE WHEN $4 THEN $5::int8 ELSE offline_per_payment_max END,
       offline_total_max = CASE WHEN $6 THEN $7::int8 ELSE offline_total_max END,
       offline_max_age_seconds = CASE WHEN $8 THEN $9::int4 ELSE offline_max_age_seconds END
     WHERE id = $1 AND merchant_id = $2 AND mode = $3 RETURNING id`,
    [
      terminalId, merchantId, mode,
      limits.perPaymentMax !== undefined, limits.perPaymentMax ?? null,
      limits.totalMax !== undefined, limits.totalMax ?? null,
      limits.maxAgeSeconds !== undefined, limits.maxAgeSeconds ?? null,
    ],
  );
  return rows.length > 0;
}

/** The language of a terminal's kiosk and receipts (the caller checked it has a catalogue). */
export async function setTerminalLanguage(db: Queryable, terminalId: string, merchantId: string, mode: Mode, language: Language): Promise<boolean> {
  const rows = await db.query('UPDATE terminals SET language = $4 WHERE id = $1 AND merchant_id = $2 AND mode = $3 RETURNING id', [terminalId, merchantId, mode, language]);
  return rows.length > 0;
}

/** Tips at a terminal (docs/till.md). */
export async function setTerminalTipping(db: Queryable, terminalId: string, merchantId: string, mode: Mode, tipping: { mode: string; percentages: number[] }): Promise<boolean> {
  const rows = await db.query('UPDATE terminals SET tipping = $4::jsonb WHERE id = $1 AND merchant_id = $2 AND mode = $3 RETURNING id', [terminalId, merchantId, mode, JSON.stringify(tipping)]);
  return rows.length > 0;
}

export async function setTerminalName(db: Queryable, terminalId: string, merchantId: string, mode: Mode, name: string): Promise<boolean> {
  const rows = await db.query('UPDATE terminals SET name = $4 WHERE id = $1 AND merchant_id = $2 AND mode = $3 RETURNING id', [terminalId, merchantId, mode, name]);
  return rows.length > 0;
}

/** What the kiosk last said it holds unsent (SYNC_EVENTS.status), and when: a contact too (lastSeenAt). */
export async function recordQueuedCount(db: Queryable, terminalId: string, queued: number, at: Date): Promise<void> {
  await db.query('UPDATE terminals SET queued_count = $2, queued_reported_at = $3, last_seen_at = $3 WHERE id = $1', [terminalId, queued, at]);
}
