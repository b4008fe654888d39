import type { Queryable } from '../../db/database.ts';
import { type Mode, newId, randomHex, sha256Hex } from '../../auth/secrets.ts';

export interface WalletRow {
  id: string;
  handle: string;
  mode: Mode;
  owner_type: 'person' | 'merchant' | 'agent';
  merchant_id: string | null;
  display_name: string | null;
  country: string;
  currency: string;
  pin_hash: string | null;
  preferred_rail: string | null;
  destinations: unknown[];
  created_at: Date;
}

const WALLET_COLUMNS = 'id, handle, mode, owner_type, merchant_id, display_name, country, currency, pin_hash, preferred_rail, destinations, created_at';

export async function insertWallet(
  tx: Queryable,
  fields: {
    handle: string;
    mode: Mode;
    ownerType: WalletRow['owner_type'];
    merchantId?: string | null;
    displayName?: string | null;
    country: string;
    currency: string;
    pinHash: string | null;
    preferredRail?: string | null;
    destinations?: unknown[];
  },
): Promise<WalletRow> {
  const [row] = await tx.query<WalletRow>(
    `INSERT INTO wallets (id, handle, mode, owner_type, merchant_id, display_name, country, currency, pin_hash, preferred_rail, destinations)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb) RETURNING ${WALLET_COLUMNS}`,
    [
      newId('wal'),
      fields.handle,
      fields.mode,
      fields.ownerType,
      fields.merchantId ?? null,
      fields.displayName ?? null,
      fields.country,
      fields.currency,
      fields.pinHash,
      fields.preferredRail ?? null,
      JSON.stringify(fields.destinations ?? []),
    ],
  );
  return row!;
}

export async function findWallet(db: Queryable, handle: string, mode: Mode): Promise<WalletRow | undefined> {
  const [row] = await db.query<WalletRow>(`SELECT ${WALLET_COLUMNS} FROM wallets WHERE handle = $1 AND mode = $2`, [handle, mode]);
  return row;
}

export async function findWalletById(db: Queryable, id: string): Promise<WalletRow | undefined> {
  const [row] = await db.query<WalletRow>(`SELECT ${WALLET_COLUMNS} FROM wallets WHERE id = $1`, [id]);
  return row;
}

export async function handleIsTaken(db: Queryable, handle: string): Promise<{ test: boolean; live: boolean }> {
  const rows = await db.query<{ mode: Mode }>('SELECT mode FROM wallets WHERE handle = $1', [handle]);
  return { test: rows.some((row) => row.mode === 'test'), live: rows.some((row) => row.mode === 'live') };
}

/** Wrong PINs allowed before a lock-out, and the lock-out's length. */
export const PIN_ATTEMPTS_MAX = 5;
export const PIN_LOCK_MINUTES = 15;

/** `retryAfterSeconds`: until the lock ends, by the database's clock, the one that judges the lock-out (at least 1). */
export type PinAttempt = { outcome: 'allowed'; attempt: number } | { outcome: 'locked'; lockedUntil: Date; retryAfterSeconds: number };

/**
 * Reserves a PIN attempt before the (slow) PIN check, so concurrent guesses cannot all slip in
 * before the counter moves: at most PIN_ATTEMPTS_MAX checks per lock-out window.
 */
export async function reservePinAttempt(db: Queryable, walletId: string): Promise<PinAttempt> {
  const [row] = await db.query<{ failed_pin_attempts: number; locked_until: Date | null; locked: boolean; retry_after_seconds: number }>(
    `UPDATE wallets SET failed_pin_attempts = CASE WHEN locked_until IS NOT NULL AND locked_until > now()
                                                  THEN failed_pin_attempts ELSE failed_pin_attempts + 1 END
     WHERE id = $1
     RETURNING failed_pin_attempts, locked_until, (locked_until IS NOT NULL AND locked_until > now()) AS locked, ${RETRY_AFTER_SECONDS}`,
    [walletId],
  );
  if (!row) throw new Error(`wallet ${walletId} vanished`);
  if (row.locked && row.locked_until) return { outcome: 'locked', lockedUntil: row.locked_until, retryAfterSeconds: row.retry_after_seconds };
  if (row.failed_pin_attempts > PIN_ATTEMPTS_MAX) return { outcome: 'locked', ...(await lockWallet(db, walletId)) };
  return { outcome: 'allowed', attempt: row.failed_pin_attempts };
}

/** Seconds until locked_until by the database's clock, at least 1. */
const RETRY_AFTER_SECONDS = 'greatest(1, ceil(extract(epoch FROM coalesce(locked_until, now()) - now())))::int4 AS retry_after_seconds';

async function lockWallet(db: Queryable, walletId: string): Promise<{ lockedUntil: Date; retryAfterSeconds: number }> {
  const [row] = await db.query<{ locked_until: Date; retry_after_seconds: number }>(
    `UPDATE wallets SET failed_pin_attempts = 0, locked_until = now() + make_interval(mins => $2) WHERE id = $1 RETURNING locked_until, ${RETRY_AFTER_SECONDS}`,
    [walletId, PIN_LOCK_MINUTES],
  );
  return { lockedUntil: row!.locked_until, retryAfterSeconds: row!.retry_after_seconds };
}

/** Records the result of a reserved attempt; returns the lock end when this wrong PIN locked the wallet. */
export async function settlePinAttempt(db: Queryable, walletId: string, attempt: number, correct: boolean): Promise<Date | undefined> {
  if (correct) {
    await db.query('UPDATE wallets SET failed_pin_attempts = 0, locked_until = NULL WHERE id = $1', [walletId]);
    return undefined;
  }
  if (attempt >= PIN_ATTEMPTS_MAX) return (await lockWallet(db, walletId)).lockedUntil;
  return undefined;
}

export async function insertWalletSession(db: Queryable, walletId: string, mode: Mode, ttlSeconds: number): Promise<{ token: string; expiresAt: Date }> {
  const token = randomHex(32);
  const [row] = await db.query<{ expires_at: Date }>(
    `INSERT INTO wallet_sessions (token_hash, wallet_id, mode, expires_at) VALUES ($1, $2, $3, now() + make_interval(secs => $4))
     RETURNING expires_at`,
    [sha256Hex(token), walletId, mode, ttlSeconds],
  );
  return { token, expiresAt: row!.expires_at };
}

export async function revokeWalletSession(db: Queryable, tokenHash: string): Promise<void> {
  await db.query('UPDATE wallet_sessions SET revoked_at = now() WHERE token_hash = $1 AND revoked_at IS NULL', [tokenHash]);
}

export async function insertAgent(tx: Queryable, fields: { name: string; walletId: string; mode: Mode }): Promise<{ id: string; secret: string }> {
  const secret = `agsec_${randomHex(32)}`;
  const id = newId('agt');
  await tx.query('INSERT INTO agents (id, name, wallet_id, mode, secret_hash) VALUES ($1, $2, $3, $4, $5)', [id, fields.name, fields.walletId, fields.mode, sha256Hex(secret)]);
  return { id, secret };
}

export async function findAgent(db: Queryable, id: string): Promise<{ id: string; mode: Mode; secret_hash: string; wallet_id: string; disabled: boolean } | undefined> {
  const [row] = await db.query<{ id: string; mode: Mode; secret_hash: string; wallet_id: string; disabled: boolean }>(
    'SELECT id, mode, secret_hash, wallet_id, disabled_at IS NOT NULL AS disabled FROM agents WHERE id = $1',
    [id],
  );
  return row;
}

export async function insertAgentSession(db: Queryable, agentId: string, mode: Mode, ttlSeconds: number): Promise<{ token: string; expiresAt: Date }> {
  const token = randomHex(32);
  const [row] = await db.query<{ expires_at: Date }>(
    `INSERT INTO agent_sessions (token_hash, agent_id, mode, expires_at) VALUES ($1, $2, $3, now() + make_interval(secs => $4)) RETURNING expires_at`,
    [sha256Hex(token), agentId, mode, ttlSeconds],
  );
  return { token, expiresAt: row!.expires_at };
}
