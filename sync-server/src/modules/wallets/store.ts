import { WALLET_PIN_ATTEMPTS_MAX, WALLET_PIN_LOCK_MINUTES } from '@tapline/shared/limits';
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
  /** The verification tier an administrator set (docs/wallet-tiers.md); null: the configured default. */
  tier: number | null;
  tier_changed_at: Date | null;
  created_at: Date;
}

const WALLET_COLUMNS = 'id, handle, mode, owner_type, merchant_id, display_name, country, currency, pin_hash, preferred_rail, destinations, tier, tier_changed_at, created_at';

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

/** The wallets of these handles in one mode, by handle, in one query (a handle no wallet holds is absent). */
export async function findWalletsByHandle(db: Queryable, handles: readonly string[], mode: Mode): Promise<Map<string, WalletRow>> {
  if (handles.length === 0) return new Map();
  const rows = await db.query<WalletRow>(`SELECT ${WALLET_COLUMNS} FROM wallets WHERE handle = ANY($1::text[]) AND mode = $2`, [[...new Set(handles)], mode]);
  return new Map(rows.map((row) => [row.handle, row]));
}

export async function findWalletById(db: Queryable, id: string): Promise<WalletRow | undefined> {
  const [row] = await db.query<WalletRow>(`SELECT ${WALLET_COLUMNS} FROM wallets WHERE id = $1`, [id]);
  return row;
}

/** A merchant's own wallet in one mode. */
export async function findMerchantWallet(db: Queryable, merchantId: string, mode: Mode): Promise<WalletRow | undefined> {
  const [row] = await db.query<WalletRow>(`SELECT ${WALLET_COLUMNS} FROM wallets WHERE merchant_id = $1 AND mode = $2 AND owner_type = 'merchant'`, [merchantId, mode]);
  return row;
}

/**
 * Locks a wallet's row (FOR NO KEY UPDATE) in the caller's transaction: serialises what one wallet
 * does that a count must not race past (a gift-card issuer's single issues in 24 hours).
 */
export async function lockWalletRow(tx: Queryable, walletId: string): Promise<void> {
  await tx.query('SELECT id FROM wallets WHERE id = $1 FOR NO KEY UPDATE', [walletId]);
}

/** Which of `ids` are wallets of this mode and currency (the ones a payout can credit). */
export async function walletIdsIn(db: Queryable, ids: readonly string[], mode: Mode, currency: string): Promise<Set<string>> {
  const rows = await db.query<{ id: string }>('SELECT id FROM wallets WHERE id = ANY ($1::text[]) AND mode = $2 AND currency = $3', [ids, mode, currency]);
  return new Set(rows.map((row) => row.id));
}

/** Replaces a wallet's payout destinations; its preferred rail too unless `preferredRail` is undefined (null clears it). */
export async function updateDestinations(db: Queryable, walletId: string, destinations: unknown, preferredRail: string | null | undefined): Promise<WalletRow | undefined> {
  const [row] = await db.query<WalletRow>(
    `UPDATE wallets SET destinations = $2::jsonb, preferred_rail = CASE WHEN $3 THEN $4 ELSE preferred_rail END
     WHERE id = $1 RETURNING ${WALLET_COLUMNS}`,
    [walletId, JSON.stringify(destinations), preferredRail !== undefined, preferredRail ?? null],
  );
  return row;
}

export async function handleIsTaken(db: Queryable, handle: string): Promise<{ test: boolean; live: boolean }> {
  const rows = await db.query<{ mode: Mode }>('SELECT mode FROM wallets WHERE handle = $1', [handle]);
  return { test: rows.some((row) => row.mode === 'test'), live: rows.some((row) => row.mode === 'live') };
}


export type PinAttempt = { outcome: 'allowed'; attempt: number } | { outcome: 'locked'; lockedUntil: Date };

/**
 * Reserves a PIN attempt before the (slow) PIN check, so concurrent guesses cannot all slip in
 * before the counter moves: at most WALLET_PIN_ATTEMPTS_MAX checks per lock-out window. `now` is the
 * app's clock, which sets and judges the lock-out.
 */
export async function reservePinAttempt(db: Queryable, walletId: string, now: Date): Promise<PinAttempt> {
  const [row] = await db.query<{ failed_pin_attempts: number; locked_until: Date | null; locked: boolean }>(
    `UPDATE wallets SET failed_pin_attempts = CASE WHEN locked_until IS NOT NULL AND locked_until > $2
                                                  THEN failed_pin_attempts ELSE failed_pin_attempts + 1 END
     WHERE id = $1
     RETURNING failed_pin_attempts, locked_until, (locked_until IS NOT NULL AND locked_until > $2) AS locked`,
    [walletId, now],
  );
  if (!row) throw new Error(`wallet ${walletId} vanished`);
  if (row.locked && row.locked_until) return { outcome: 'locked', lockedUntil: row.locked_until };
  if (row.failed_pin_attempts > WALLET_PIN_ATTEMPTS_MAX) return { outcome: 'locked', lockedUntil: await lockWallet(db, walletId, now) };
  return { outcome: 'allowed', attempt: row.failed_pin_attempts };
}

async function lockWallet(db: Queryable, walletId: string, now: Date): Promise<Date> {
  const lockedUntil = new Date(now.getTime() + WALLET_PIN_LOCK_MINUTES * 60_000);
  await db.query('UPDATE wallets SET failed_pin_attempts = 0, locked_until = $2 WHERE id = $1', [walletId, lockedUntil]);
  return lockedUntil;
}

/** Records the result of a reserved attempt; returns the lock end when this wrong PIN locked the wallet. */
export async function settlePinAttempt(db: Queryable, walletId: string, attempt: number, correct: boolean, now: Date): Promise<Date | undefined> {
  if (correct) {
    await db.query('UPDATE wallets SET failed_pin_attempts = 0, locked_until = NULL WHERE id = $1', [walletId]);
    return undefined;
  }
  if (attempt >= WALLET_PIN_ATTEMPTS_MAX) return lockWallet(db, walletId, now);
  return undefined;
}

/** A wallet session that ends `ttlSeconds` after `now` (the app's clock, which judges it: auth/principal.ts). */
export async function insertWalletSession(db: Queryable, walletId: string, mode: Mode, ttlSeconds: number, now: Date): Promise<{ token: string; expiresAt: Date }> {
  const token = randomHex(32);
  const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
  await db.query('INSERT INTO wallet_sessions (token_hash, wallet_id, mode, expires_at) VALUES ($1, $2, $3, $4)', [sha256Hex(token), walletId, mode, expiresAt]);
  return { token, expiresAt };
}

export async function revokeWalletSession(db: Queryable, tokenHash: string, now: Date): Promise<void> {
  await db.query('UPDATE wallet_sessions SET revoked_at = $2 WHERE token_hash = $1 AND revoked_at IS NULL', [tokenHash, now]);
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

/** An agent session that ends `ttlSeconds` after `now` (the app's clock, which judges it: auth/principal.ts). */
export async function insertAgentSession(db: Queryable, agentId: string, mode: Mode, ttlSeconds: number, now: Date): Promise<{ token: string; expiresAt: Date }> {
  const token = randomHex(32);
  const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
  await db.query('INSERT INTO agent_sessions (token_hash, agent_id, mode, expires_at) VALUES ($1, $2, $3, $4)', [sha256Hex(token), agentId, mode, expiresAt]);
  return { token, expiresAt };
}
