import type { Queryable } from '../../db/database.ts';
import { type Mode, newId, newPublishableKey, sha256Hex } from '../../auth/secrets.ts';
import type { CHECKOUT_PAYMENT_METHODS, CHECKOUT_RAILS, CHECKOUT_SESSION_STATUSES } from '@tapline/shared/schemas';

export interface PublishableKeyRow {
  id: string;
  merchant_id: string;
  mode: Mode;
  key_hint: string;
  allowed_origins: string[] | null;
  created_at: Date;
  revoked_at: Date | null;
}

const KEY_COLUMNS = 'id, merchant_id, mode, key_hint, allowed_origins, created_at, revoked_at';

/** Issues a publishable key: the key is returned once, only its SHA-256 is kept. */
export async function insertPublishableKey(
  db: Queryable,
  fields: { merchantId: string; mode: Mode; allowedOrigins: string[] | null; now: Date },
): Promise<{ row: PublishableKeyRow; key: string }> {
  const key = newPublishableKey(fields.mode);
  const [row] = await db.query<PublishableKeyRow>(
    `INSERT INTO publishable_keys (id, merchant_id, mode, key_hash, key_hint, allowed_origins, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
     RETURNING ${KEY_COLUMNS}`,
    [newId('pkey'), fields.merchantId, fields.mode, sha256Hex(key), `pk_${fields.mode}_…${key.slice(-4)}`, fields.allowedOrigins, fields.now],
  );
  return { row: row!, key };
}

export async function listPublishableKeys(db: Queryable, merchantId: string, mode: Mode, limit: number, offset: number): Promise<{ rows: PublishableKeyRow[]; total: number }> {
  const rows = await db.query<PublishableKeyRow>(
    `SELECT ${KEY_COLUMNS} FROM publishable_keys WHERE merchant_id = $1 AND mode = $2 ORDER BY created_at, id LIMIT $3 OFFSET $4`,
    [merchantId, mode, limit, offset],
  );
  const [count] = await db.query<{ total: number }>('SELECT count(*)::int8 AS total FROM publishable_keys WHERE merchant_id = $1 AND mode = $2', [merchantId, mode]);
  return { rows, total: count?.total ?? 0 };
}

export async function revokePublishableKey(db: Queryable, id: string, merchantId: string, mode: Mode, now: Date): Promise<PublishableKeyRow | undefined> {
  const [row] = await db.query<PublishableKeyRow>(
    `UPDATE publishable_keys SET revoked_at = coalesce(revoked_at, $4) WHERE id = $1 AND merchant_id = $2 AND mode = $3 RETURNING ${KEY_COLUMNS}`,
    [id, merchantId, mode, now],
  );
  return row;
}

export type CheckoutStatus = (typeof CHECKOUT_SESSION_STATUSES)[number];
export type CheckoutRail = (typeof CHECKOUT_RAILS)[number];
export type CheckoutPaymentMethod = (typeof CHECKOUT_PAYMENT_METHODS)[number];

export interface CheckoutSessionRow {
  id: string;
  merchant_id: string;
  mode: Mode;
  merchant_wallet_id: string;
  publishable_key_id: string | null;
  /** Integer minor units. */
  amount: number;
  currency: string;
  reference: string | null;
  description: string | null;
  country: string;
  rails: CheckoutRail[];
  status: CheckoutStatus;
  payment_method: CheckoutPaymentMethod | null;
  payer_handle: string | null;
  payer_wallet_id: string | null;
  payer_account: string | null;
  transfer_id: string | null;
  failure_reason: string | null;
  created_at: Date;
  expires_at: Date;
  ended_at: Date | null;
  /** From the merchants table: what the customer is shown. */
  merchant_name: string;
  merchant_handle: string;
}

const SESSION_COLUMNS = `s.id, s.merchant_id, s.mode, s.merchant_wallet_id, s.publishable_key_id, s.amount, s.currency, s.reference, s.description,
  s.country, s.rails, s.status, s.payment_method, s.payer_handle, s.payer_wallet_id, s.payer_account, s.transfer_id, s.failure_reason,
  s.created_at, s.expires_at, s.ended_at, m.name AS merchant_name, m.handle AS merchant_handle`;

/** The session with its merchant's name and handle, read after a write in the same statement. */
const withMerchant = (cte: string) => `WITH s AS (${cte} RETURNING *) SELECT ${SESSION_COLUMNS} FROM s JOIN merchants m ON m.id = s.merchant_id`;

/** Opens a session; no row comes back when the merchant has no wallet in that mode. */
export async function insertCheckoutSession(
  db: Queryable,
  fields: {
    id: string;
    merchantId: string;
    mode: Mode;
    publishableKeyId: string | null;
    amount: number;
    currency: string;
    reference: string | null;
    description: string | null;
    country: string;
    rails: CheckoutRail[];
    createdAt: Date;
    expiresAt: Date;
  },
): Promise<CheckoutSessionRow | undefined> {
  const [row] = await db.query<CheckoutSessionRow>(
    withMerchant(`INSERT INTO checkout_sessions (id, merchant_id, mode, merchant_wallet_id, publishable_key_id, amount, currency, reference, description, country, rails, created_at, expires_at, updated_at)
     SELECT $1, $2, $3, w.id, $4, $5, $6, $7, $8, $9, $10, $11, $12, $11
     FROM wallets w WHERE w.merchant_id = $2 AND w.mode = $3 AND w.owner_type = 'merchant'`),
    [fields.id, fields.merchantId, fields.mode, fields.publishableKeyId, fields.amount, fields.currency, fields.reference, fields.description, fields.country, fields.rails, fields.createdAt, fields.expiresAt],
  );
  return row;
}

export async function findCheckoutSession(db: Queryable, id: string): Promise<CheckoutSessionRow | undefined> {
  const [row] = await db.query<CheckoutSessionRow>(`SELECT ${SESSION_COLUMNS} FROM checkout_sessions s JOIN merchants m ON m.id = s.merchant_id WHERE s.id = $1`, [id]);
  return row;
}

/** The session under its row lock, for the transaction that pays it. */
export async function lockCheckoutSession(tx: Queryable, id: string): Promise<CheckoutSessionRow | undefined> {
  const [row] = await tx.query<CheckoutSessionRow>(`SELECT ${SESSION_COLUMNS} FROM checkout_sessions s JOIN merchants m ON m.id = s.merchant_id WHERE s.id = $1 FOR UPDATE OF s`, [id]);
  return row;
}

/** open -> expired once its time has passed; no row when it was not open and due. */
export async function expireCheckoutSession(db: Queryable, id: string, now: Date): Promise<CheckoutSessionRow | undefined> {
  const [row] = await db.query<CheckoutSessionRow>(
    withMerchant(`UPDATE checkout_sessions SET status = 'expired', ended_at = expires_at, updated_at = $2 WHERE id = $1 AND status = 'open' AND expires_at <= $2`),
    [id, now],
  );
  return row;
}

/** open -> paid or failed, with who paid and how. */
export async function endCheckoutSession(
  tx: Queryable,
  id: string,
  outcome: {
    status: 'paid' | 'failed';
    method: CheckoutPaymentMethod;
    payerHandle: string | null;
    payerWalletId: string | null;
    payerAccount: string | null;
    transferId: string | null;
    failureReason: string | null;
    now: Date;
  },
): Promise<CheckoutSessionRow> {
  const [row] = await tx.query<CheckoutSessionRow>(
    withMerchant(`UPDATE checkout_sessions SET status = $2, payment_method = $3, payer_handle = $4, payer_wallet_id = $5, payer_account = $6, transfer_id = $7,
       failure_reason = $8, ended_at = $9, updated_at = $9
     WHERE id = $1 AND status = 'open'`),
    [id, outcome.status, outcome.method, outcome.payerHandle, outcome.payerWalletId, outcome.payerAccount, outcome.transferId, outcome.failureReason, outcome.now],
  );
  if (!row) throw new Error(`checkout session ${id} was not open under its lock`);
  return row;
}
