import type { Queryable } from '../../db/database.ts';
import { newId, randomHex, sha256Hex } from '../../auth/secrets.ts';
import type { MerchantRole } from '@tapline/shared/schemas';

export interface UserRow {
  id: string;
  merchant_id: string;
  email: string;
  role: MerchantRole;
  password_hash: string | null;
  failed_attempts: number;
  locked_until: Date | null;
  totp_secret_sealed: string | null;
  totp_pending_sealed: string | null;
  /** int8: a string from pg, a number from PGlite. */
  totp_last_step: string | number | null;
  created_at: Date;
  removed_at: Date | null;
}

const USER_COLUMNS = 'id, merchant_id, email, role, password_hash, failed_attempts, locked_until, totp_secret_sealed, totp_pending_sealed, totp_last_step, created_at, removed_at';

export async function findUserByEmail(db: Queryable, email: string): Promise<UserRow | undefined> {
  const [row] = await db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM merchant_users WHERE email = $1`, [email]);
  return row;
}

export async function findUser(db: Queryable, id: string, merchantId?: string): Promise<UserRow | undefined> {
  const [row] = await db.query<UserRow>(
    `SELECT ${USER_COLUMNS} FROM merchant_users WHERE id = $1 AND ($2::text IS NULL OR merchant_id = $2) AND removed_at IS NULL`,
    [id, merchantId ?? null],
  );
  return row;
}

/** A new user, or a removed one of the same merchant brought back (an address belongs to one merchant). */
export async function upsertInvitedUser(tx: Queryable, merchantId: string, email: string, role: MerchantRole): Promise<UserRow | undefined> {
  const [row] = await tx.query<UserRow>(
    `INSERT INTO merchant_users (id, merchant_id, email, role) VALUES ($1, $2, $3, $4)
     ON CONFLICT (email) DO UPDATE SET role = EXCLUDED.role, removed_at = NULL, password_hash = NULL, failed_attempts = 0,
       locked_until = NULL, totp_secret_sealed = NULL, totp_pending_sealed = NULL, totp_last_step = NULL
     WHERE merchant_users.merchant_id = EXCLUDED.merchant_id AND merchant_users.removed_at IS NOT NULL
     RETURNING ${USER_COLUMNS}`,
    [newId('usr'), merchantId, email, role],
  );
  return row;
}

export async function listUsers(db: Queryable, merchantId: string, limit: number, offset: number): Promise<{ rows: UserRow[]; total: number }> {
  const rows = await db.query<UserRow>(
    `SELECT ${USER_COLUMNS} FROM merchant_users WHERE merchant_id = $1 AND removed_at IS NULL ORDER BY created_at, id LIMIT $2 OFFSET $3`,
    [merchantId, limit, offset],
  );
  const [count] = await db.query<{ total: number | string }>('SELECT count(*)::int8 AS total FROM merchant_users WHERE merchant_id = $1 AND removed_at IS NULL', [merchantId]);
  return { rows, total: Number(count?.total ?? 0) };
}

export async function countActiveOwners(db: Queryable, merchantId: string): Promise<number> {
  const [row] = await db.query<{ total: number | string }>(
    "SELECT count(*)::int8 AS total FROM merchant_users WHERE merchant_id = $1 AND role = 'owner' AND removed_at IS NULL",
    [merchantId],
  );
  return Number(row?.total ?? 0);
}

export async function setRole(tx: Queryable, id: string, role: MerchantRole): Promise<UserRow | undefined> {
  const [row] = await tx.query<UserRow>(`UPDATE merchant_users SET role = $2 WHERE id = $1 RETURNING ${USER_COLUMNS}`, [id, role]);
  return row;
}

export async function removeUser(tx: Queryable, id: string, now: Date): Promise<void> {
  await tx.query('UPDATE merchant_users SET removed_at = $2 WHERE id = $1', [id, now]);
  await tx.query('UPDATE merchant_user_links SET used_at = $2 WHERE user_id = $1 AND used_at IS NULL', [id, now]);
  await revokeUserSessions(tx, id, now);
}

// ---- one-time links ----

export type LinkPurpose = 'setup' | 'invite';

/** A one-time link token for the user (previous unused ones stop working); answered once, stored as SHA-256. */
export async function issueLink(tx: Queryable, userId: string, purpose: LinkPurpose, now: Date, expiresAt: Date): Promise<string> {
  await tx.query('UPDATE merchant_user_links SET used_at = $2 WHERE user_id = $1 AND used_at IS NULL', [userId, now]);
  const token = randomHex(32);
  await tx.query('INSERT INTO merchant_user_links (token_hash, user_id, purpose, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)', [
    sha256Hex(token),
    userId,
    purpose,
    now,
    expiresAt,
  ]);
  return token;
}

/** Uses a link once: the user it belongs to, or why not. */
export async function consumeLink(tx: Queryable, token: string, now: Date): Promise<{ outcome: 'ok'; userId: string } | { outcome: 'unknown' | 'expired' | 'used' }> {
  const [row] = await tx.query<{ user_id: string; expires_at: Date; used_at: Date | null }>(
    'SELECT user_id, expires_at, used_at FROM merchant_user_links WHERE token_hash = $1 FOR UPDATE',
    [sha256Hex(token)],
  );
  if (!row) return { outcome: 'unknown' };
  if (row.used_at) return { outcome: 'used' };
  if (row.expires_at.getTime() <= now.getTime()) return { outcome: 'expired' };
  await tx.query('UPDATE merchant_user_links SET used_at = $2 WHERE token_hash = $1', [sha256Hex(token), now]);
  return { outcome: 'ok', userId: row.user_id };
}

export async function setPassword(tx: Queryable, userId: string, passwordHash: string): Promise<void> {
  await tx.query('UPDATE merchant_users SET password_hash = $2, failed_attempts = 0, locked_until = NULL WHERE id = $1', [userId, passwordHash]);
}

// ---- sign-in attempts (the lock-out) ----

export type Attempt = { outcome: 'allowed'; attempt: number } | { outcome: 'locked'; lockedUntil: Date };

/**
 * Counts a sign-in attempt before the slow password check, so parallel guesses cannot slip past
 * the limit: `max` wrong attempts in a row lock the user for `lockMinutes` (clock: `now`).
 */
export async function reserveAttempt(db: Queryable, userId: string, now: Date, max: number, lockMinutes: number): Promise<Attempt> {
  const [row] = await db.query<{ failed_attempts: number; locked_until: Date | null }>(
    `UPDATE merchant_users SET failed_attempts = CASE WHEN locked_until IS NOT NULL AND locked_until > $2 THEN failed_attempts ELSE failed_attempts + 1 END
     WHERE id = $1 RETURNING failed_attempts, locked_until`,
    [userId, now],
  );
  if (!row) throw new Error(`merchant user ${userId} vanished`);
  if (row.locked_until && row.locked_until.getTime() > now.getTime()) return { outcome: 'locked', lockedUntil: row.locked_until };
  if (row.failed_attempts > max) return { outcome: 'locked', lockedUntil: await lockUser(db, userId, now, lockMinutes) };
  return { outcome: 'allowed', attempt: row.failed_attempts };
}

export async function lockUser(db: Queryable, userId: string, now: Date, lockMinutes: number): Promise<Date> {
  const until = new Date(now.getTime() + lockMinutes * 60_000);
  await db.query('UPDATE merchant_users SET failed_attempts = 0, locked_until = $2 WHERE id = $1', [userId, until]);
  return until;
}

/** A correct password (and code): the count starts again. */
export async function clearAttempts(db: Queryable, userId: string): Promise<void> {
  await db.query('UPDATE merchant_users SET failed_attempts = 0, locked_until = NULL WHERE id = $1', [userId]);
}

/** A right password still waiting for its TOTP code: that attempt is not counted as a failure. */
export async function forgiveAttempt(db: Queryable, userId: string): Promise<void> {
  await db.query('UPDATE merchant_users SET failed_attempts = greatest(failed_attempts - 1, 0) WHERE id = $1', [userId]);
}

// ---- TOTP ----

export async function setPendingTotp(db: Queryable, userId: string, sealed: string | null): Promise<void> {
  await db.query('UPDATE merchant_users SET totp_pending_sealed = $2 WHERE id = $1', [userId, sealed]);
}

export async function enableTotp(db: Queryable, userId: string, step: number): Promise<void> {
  await db.query('UPDATE merchant_users SET totp_secret_sealed = totp_pending_sealed, totp_pending_sealed = NULL, totp_last_step = $2 WHERE id = $1', [userId, step]);
}

export async function disableTotp(db: Queryable, userId: string): Promise<void> {
  await db.query('UPDATE merchant_users SET totp_secret_sealed = NULL, totp_pending_sealed = NULL, totp_last_step = NULL WHERE id = $1', [userId]);
}

/** Records the time step of an accepted code; false when a code of this step or a later one was already used. */
export async function claimTotpStep(db: Queryable, userId: string, step: number): Promise<boolean> {
  const rows = await db.query('UPDATE merchant_users SET totp_last_step = $2 WHERE id = $1 AND (totp_last_step IS NULL OR totp_last_step < $2) RETURNING id', [userId, step]);
  return rows.length === 1;
}

// ---- sessions ----

export interface SessionRow {
  user_id: string;
  created_at: Date;
  last_used_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
  role: MerchantRole;
  email: string;
  removed_at: Date | null;
  totp_enabled: boolean;
  merchant_id: string;
  merchant_name: string;
  handle: string;
  currency: string;
  rate_limit_multiplier: number;
}

export async function insertSession(db: Queryable, tokenHash: string, userId: string, now: Date, expiresAt: Date): Promise<void> {
  await db.query('INSERT INTO merchant_user_sessions (token_hash, user_id, created_at, last_used_at, expires_at) VALUES ($1, $2, $3, $3, $4)', [
    tokenHash,
    userId,
    now,
    expiresAt,
  ]);
}

export async function findSession(db: Queryable, tokenHash: string): Promise<SessionRow | undefined> {
  const [row] = await db.query<SessionRow>(
    `SELECT s.user_id, s.created_at, s.last_used_at, s.expires_at, s.revoked_at, u.role, u.email, u.removed_at,
            u.totp_secret_sealed IS NOT NULL AS totp_enabled, u.merchant_id, m.name AS merchant_name, m.handle, m.currency, m.rate_limit_multiplier
     FROM merchant_user_sessions s JOIN merchant_users u ON u.id = s.user_id JOIN merchants m ON m.id = u.merchant_id
     WHERE s.token_hash = $1`,
    [tokenHash],
    { prepareAs: 'auth_dashboard_session' },
  );
  return row;
}

export async function touchSession(db: Queryable, tokenHash: string, now: Date): Promise<void> {
  await db.query('UPDATE merchant_user_sessions SET last_used_at = $2 WHERE token_hash = $1 AND last_used_at < $2', [tokenHash, now]);
}

export async function revokeSession(db: Queryable, tokenHash: string, now: Date): Promise<void> {
  await db.query('UPDATE merchant_user_sessions SET revoked_at = coalesce(revoked_at, $2) WHERE token_hash = $1', [tokenHash, now]);
}

export async function revokeUserSessions(db: Queryable, userId: string, now: Date): Promise<number> {
  const rows = await db.query('UPDATE merchant_user_sessions SET revoked_at = $2 WHERE user_id = $1 AND revoked_at IS NULL RETURNING token_hash', [userId, now]);
  return rows.length;
}

/**
 * Every payment the merchant received, one row per payment, whatever the channel (the
 * dashboard's payments view, its CSV, the overview's sales; RECEIVED_CHANNELS in shared/):
 * POS sessions completed, offline payments accepted (by when the terminal took them), checkout
 * sessions paid, wallets paying the merchant's @handle, payment links paid, subscription periods
 * charged, mobile money collected at a till (pos_collections completed). $1 merchant, $2 mode.
 */
const RECEIVED_SQL = `
  SELECT 'pos' AS channel, s.id::text AS id, CASE WHEN s.tag_id IS NULL THEN 'wallet' ELSE 'tap' END AS method,
         s.amount, 0::int8 AS fee, s.currency, s.payer_handle, s.description AS reference, s.terminal_id, s.wallet_ref AS transfer_id, s.ended_at AS at
  FROM pos_sessions s WHERE s.merchant_id = $1 AND s.mode = $2 AND s.status = 'completed'
  UNION ALL
  SELECT 'offline', o.id::text, o.kind, o.amount, 0::int8, o.currency, o.payer_handle, o.description, o.terminal_id, o.transfer_id, o.captured_at
  FROM offline_payments o WHERE o.merchant_id = $1 AND o.mode = $2 AND o.status = 'accepted'
  UNION ALL
  SELECT 'checkout', c.id, c.payment_method, c.amount, 0::int8, c.currency, c.payer_handle, c.reference, NULL, c.transfer_id, c.ended_at
  FROM checkout_sessions c WHERE c.merchant_id = $1 AND c.mode = $2 AND c.status = 'paid'
  UNION ALL
  SELECT 'pay_page', w.id, 'wallet', w.amount, 0::int8, w.currency, w.payer_handle, w.note, NULL, w.id, w.created_at
  FROM merchant_wallet_payments w WHERE w.merchant_id = $1 AND w.mode = $2
  UNION ALL
  SELECT 'payment_link', p.id, 'wallet', p.amount, p.fee, p.currency, pw.handle, p.reference, NULL, p.id || ':debit', p.created_at
  FROM payments p LEFT JOIN wallets pw ON pw.id = p.source_wallet_id
  WHERE p.merchant_id = $1 AND p.mode = $2 AND p.kind = 'link' AND p.status = 'completed'
  UNION ALL
  SELECT 'mobile_money', m.id, 'mobile_money', m.amount, 0::int8, m.currency, NULL, m.description, m.terminal_id, m.transfer_id, m.ended_at
  FROM pos_collections m WHERE m.merchant_id = $1 AND m.mode = $2 AND m.status = 'completed'
  UNION ALL
  SELECT 'subscription', c.id, 'wallet', c.amount, 0::int8, c.currency, s.handle, sp.name, NULL, c.transfer_id, c.attempted_at
  FROM subscriptions s JOIN subscription_charges c ON c.subscription_id = s.id AND c.status = 'paid'
  LEFT JOIN subscription_plans sp ON sp.id = s.plan_id
  WHERE s.merchant_id = $1 AND s.mode = $2`;

export interface ReceivedRow {
  channel: string;
  id: string;
  method: string;
  amount: string | number;
  fee: string | number;
  currency: string;
  payer_handle: string | null;
  reference: string | null;
  terminal_id: string | null;
  transfer_id: string | null;
  at: Date;
}

/** A page of what the merchant received, newest first; `channel` narrows it to one channel. */
export async function listReceived(
  db: Queryable,
  merchantId: string,
  mode: string,
  channel: string | undefined,
  limit: number,
  offset: number,
): Promise<{ rows: ReceivedRow[]; total: number }> {
  const rows = await db.query<ReceivedRow & { total: string | number }>(
    `SELECT r.*, count(*) OVER () AS total FROM (${RECEIVED_SQL}) r
     WHERE $3::text IS NULL OR r.channel = $3
     ORDER BY r.at DESC, r.id DESC LIMIT $4 OFFSET $5`,
    [merchantId, mode, channel ?? null, limit, offset],
  );
  if (rows.length === 0 && offset > 0) {
    const [count] = await db.query<{ total: string | number }>(`SELECT count(*) AS total FROM (${RECEIVED_SQL}) r WHERE $3::text IS NULL OR r.channel = $3`, [merchantId, mode, channel ?? null]);
    return { rows: [], total: Number(count?.total ?? 0) };
  }
  return { rows, total: Number(rows[0]?.total ?? 0) };
}

/** What the merchant received per UTC day and currency, every channel (RECEIVED_SQL), in [from, until). */
export async function dailySales(
  db: Queryable,
  merchantId: string,
  mode: string,
  from: Date,
  until: Date,
): Promise<{ day: string; currency: string; amount: string | number; count: string | number }[]> {
  return db.query<{ day: string; currency: string; amount: string | number; count: string | number }>(
    `SELECT to_char(r.at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, r.currency, sum(r.amount)::int8 AS amount, count(*)::int8 AS count
     FROM (${RECEIVED_SQL}) r WHERE r.at >= $3 AND r.at < $4 GROUP BY 1, 2 ORDER BY 2, 1`,
    [merchantId, mode, from, until],
  );
}
