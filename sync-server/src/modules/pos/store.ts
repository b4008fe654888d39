import type { Queryable } from '../../db/database.ts';
import type { Mode } from '../../auth/secrets.ts';
import type { PosSessionStatus } from '@tapline/shared/schemas';

export interface PosSessionRow {
  id: string;
  merchant_id: string;
  mode: Mode;
  merchant_wallet_id: string;
  terminal_id: string | null;
  /** Integer minor units. */
  amount: number;
  currency: string;
  description: string;
  callback_url: string | null;
  status: PosSessionStatus;
  tag_id: string | null;
  payer_handle: string | null;
  payer_wallet_id: string | null;
  wallet_ref: string | null;
  error_message: string | null;
  created_at: Date;
  expires_at: Date;
  ended_at: Date | null;
  /** The lines sold (shared/src/cart.ts SaleLines, jsonb), for a session created with items. */
  items: unknown;
  /** The cart discount, minor units. */
  cart_discount: number | null;
  /** The till sale this session pays part of (a split tender), or null. */
  tender_of: string | null;
  /** The till staff member who charged it, or null. */
  cashier_id: string | null;
}

const SESSION_COLUMNS =
  'id, merchant_id, mode, merchant_wallet_id, terminal_id, amount, currency, description, callback_url, status, tag_id, payer_handle, payer_wallet_id, wallet_ref, error_message, created_at, expires_at, ended_at, items, cart_discount, tender_of::text, cashier_id';

/** Who may see a session: its merchant in one mode (keys, terminals), or anyone of that mode (a paying wallet holder). */
export interface SessionScope {
  mode: Mode;
  merchantId: string | null;
}

/**
 * Creates a pending session. The merchant's wallet is looked up in the same statement (one round
 * trip); no row comes back when the merchant has no wallet in that mode, or when the id is taken
 * (an id derived from an Idempotency-Key whose first run created it: the caller reads that one).
 *
 * The caller passes a relaxed-commit view (relaxedCommits): creating a session moves no money and
 * emits no event, so its commit does not wait for the WAL flush. What that risks: a database
 * crash within a fraction of a second of a 201 can lose the pending session (the terminal's next
 * poll answers 404 and the cashier starts the sale again; nobody has paid). What it cannot do is
 * lose a paid session: WAL is flushed in order, so the synchronous commit of the tap that pays it
 * makes the session row durable too. Where a synchronous standby stands by for a failover, the
 * database commits it in full (PostgresDatabase.queryRelaxed): a promoted standby has it.
 */
export async function insertSession(
  db: Pick<Queryable, 'query'>,
  fields: {
    id: string;
    merchantId: string;
    merchantHandle: string;
    mode: Mode;
    terminalId: string | null;
    amount: number;
    currency: string;
    description: string;
    callbackUrl: string | null;
    createdAt: Date;
    expiresAt: Date;
    items?: string | null;
    cartDiscount?: number | null;
    tenderOf?: string | null;
    cashierId?: string | null;
  },
): Promise<PosSessionRow | undefined> {
  const [row] = await db.query<PosSessionRow>(
    `INSERT INTO pos_sessions (id, merchant_id, mode, merchant_wallet_id, terminal_id, amount, currency, description, callback_url, created_at, expires_at, updated_at, items, cart_discount, tender_of, cashier_id)
     SELECT $1, $2, $3, w.id, $5, $6, $7, $8, $9, $10, $11, $10, $12::jsonb, $13, $14::uuid, $15
     FROM wallets w WHERE w.handle = $4 AND w.mode = $3 AND w.owner_type = 'merchant' AND w.merchant_id = $2
     ON CONFLICT (id) DO NOTHING
     RETURNING ${SESSION_COLUMNS}`,
    [
      fields.id,
      fields.merchantId,
      fields.mode,
      fields.merchantHandle,
      fields.terminalId,
      fields.amount,
      fields.currency,
      fields.description,
      fields.callbackUrl,
      fields.createdAt,
      fields.expiresAt,
      fields.items ?? null,
      fields.cartDiscount ?? null,
      fields.tenderOf ?? null,
      fields.cashierId ?? null,
    ],
    { prepareAs: 'pos_insert_session' },
  );
  return row;
}

/**
 * A session as read at `now`: `overdue` is the expiry rule's answer, pos_session_overdue()
 * (db/functions/pos_tap.sql), the rule's only form: the tap asks it under the session's lock, and
 * reads, cancels and the PIN check take it from here instead of a TypeScript copy.
 */
export type SessionAt = PosSessionRow & { overdue: boolean };

/** One session of the scope ($1 id, $2 mode, $3 merchant or null), with `overdue` at $4. */
const SESSION_AT = `SELECT ${SESSION_COLUMNS}, pos_session_overdue(status, expires_at, $4) AS overdue
  FROM pos_sessions WHERE id = $1 AND mode = $2 AND ($3::text IS NULL OR merchant_id = $3::text)`;

export async function findSession(db: Queryable, id: string, scope: SessionScope, now: Date): Promise<SessionAt | undefined> {
  const [row] = await db.query<SessionAt>(SESSION_AT, [id, scope.mode, scope.merchantId, now], { prepareAs: 'pos_find_session_at' });
  return row;
}

/** The session row as read at `now` (findSession), locked until the end of the caller's transaction: one tap at a time per session. */
export async function lockSession(tx: Queryable, id: string, scope: SessionScope, now: Date): Promise<SessionAt | undefined> {
  const [row] = await tx.query<SessionAt>(
    `${SESSION_AT} FOR UPDATE`,
    [id, scope.mode, scope.merchantId, now],
    { prepareAs: 'pos_lock_session_at' },
  );
  return row;
}

export const CANCELLED_MESSAGE = 'Cancelled by the merchant';

/** pending -> expired for one session whose time has passed (pos_session_overdue); undefined when it was not (or no longer) pending. */
export async function expireSession(db: Queryable, id: string, now: Date): Promise<PosSessionRow | undefined> {
  const [row] = await db.query<PosSessionRow>(
    `UPDATE pos_sessions SET status = 'expired', error_message = pos_session_expired_message(), ended_at = expires_at, updated_at = $2
     WHERE id = $1 AND pos_session_overdue(status, expires_at, $2) RETURNING ${SESSION_COLUMNS}`,
    [id, now],
  );
  return row;
}

/**
 * The sweeper's step: expires up to `batchSize` pending sessions whose time has passed. SKIP LOCKED
 * leaves a session being tapped right now to its tap (which checks the expiry itself).
 */
export async function expireDueSessions(db: Queryable, now: Date, batchSize: number): Promise<number> {
  const rows = await db.query<{ id: string }>(
    `UPDATE pos_sessions SET status = 'expired', error_message = pos_session_expired_message(), ended_at = expires_at, updated_at = $1
     WHERE id IN (SELECT id FROM pos_sessions WHERE pos_session_overdue(status, expires_at, $1) ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       AND status = 'pending'
     RETURNING id`,
    [now, batchSize],
  );
  return rows.length;
}

/** Expires a merchant's overdue sessions before a list is read, so no list shows a dead session as pending. */
export async function expireMerchantSessions(db: Queryable, merchantId: string, mode: Mode, now: Date): Promise<void> {
  await db.query(
    `UPDATE pos_sessions SET status = 'expired', error_message = pos_session_expired_message(), ended_at = expires_at, updated_at = $3
     WHERE merchant_id = $1 AND mode = $2 AND pos_session_overdue(status, expires_at, $3)`,
    [merchantId, mode, now],
  );
}

export async function markCancelled(tx: Queryable, id: string, now: Date): Promise<PosSessionRow> {
  const [row] = await tx.query<PosSessionRow>(
    `UPDATE pos_sessions SET status = 'cancelled', error_message = $2, ended_at = $3, updated_at = $3 WHERE id = $1 RETURNING ${SESSION_COLUMNS}`,
    [id, CANCELLED_MESSAGE, now],
  );
  return row!;
}

export async function listSessions(
  db: Queryable,
  merchantId: string,
  mode: Mode,
  filter: { status?: string | undefined; terminalId?: string | undefined },
  limit: number,
  offset: number,
): Promise<{ rows: PosSessionRow[]; total: number }> {
  const where = 'merchant_id = $1 AND mode = $2 AND ($3::text IS NULL OR status = $3::text) AND ($4::text IS NULL OR terminal_id = $4::text)';
  const params = [merchantId, mode, filter.status ?? null, filter.terminalId ?? null];
  const rows = await db.query<PosSessionRow>(`SELECT ${SESSION_COLUMNS} FROM pos_sessions WHERE ${where} ORDER BY created_at DESC, id LIMIT $5 OFFSET $6`, [...params, limit, offset]);
  const [count] = await db.query<{ total: number }>(`SELECT count(*)::int8 AS total FROM pos_sessions WHERE ${where}`, params);
  return { rows, total: count?.total ?? 0 };
}
