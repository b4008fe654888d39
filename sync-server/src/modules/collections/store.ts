// The pos_collections table (migrations 037, 043): one row per mobile-money collection, asked for
// by a till (purpose till_sale) or by a wallet holder topping up her wallet (purpose wallet_top_up).
import type { Queryable } from '../../db/database.ts';
import type { Mode } from '../../auth/secrets.ts';

export const COLLECTION_STATUSES = ['pending', 'completed', 'failed', 'expired', 'cancelled'] as const;
export type CollectionStatus = (typeof COLLECTION_STATUSES)[number];
/** What a collection pays for: a till sale (credits the merchant's wallet), a wallet top-up (credits the holder's) or an agent's float top-up (credits the agent's wallet). */
export type CollectionPurpose = 'till_sale' | 'wallet_top_up' | 'agent_float_top_up';
/** The purposes that top a wallet up (its own holder's, or an agent's float): no merchant, a fee on top. */
export type TopUpPurpose = Exclude<CollectionPurpose, 'till_sale'>;

export interface CollectionRow {
  id: string;
  purpose: CollectionPurpose;
  /** The till's merchant; null for a wallet top-up. */
  merchant_id: string | null;
  mode: Mode;
  /** The wallet the collection credits: the merchant's (till sale) or the holder's own (top-up). */
  merchant_wallet_id: string;
  terminal_id: string | null;
  amount: number;
  /** Paid by the phone on top of amount (top-ups; 0 for a till sale): the phone is asked for amount + fee. */
  fee: number;
  currency: string;
  phone: string;
  country: string;
  description: string | null;
  provider: string;
  provider_reference: string | null;
  /** The first provider_reference it got: the id of the request it was made with (M-Pesa's CheckoutRequestID), kept when the reference becomes a receipt. */
  provider_request_id: string | null;
  sandbox_outcome: string | null;
  status: CollectionStatus;
  failure_code: string | null;
  failure_reason: string | null;
  transfer_id: string | null;
  cancelled_at: Date | null;
  next_poll_at: Date | null;
  poll_errors: number;
  created_at: Date;
  expires_at: Date;
  ended_at: Date | null;
  updated_at: Date;
  /** Given back to the phone that paid (POST /api/pos/collections/{id}/return, migration 056): when, by which payout, by whom, in which shift. */
  returned_at: Date | null;
  return_payment_id: string | null;
  return_cashier_id: string | null;
  return_shift_id: string | null;
  /** How many payouts have given it back (migration 058): one the provider failed or reversed is cleared from returned_at and return_payment_id, and counted here. */
  return_attempts: number;
  /** Filled by the reads that join the claims table: the till sale this collection pays, if any. */
  claimed_by?: string | null;
}

const COLUMNS = `c.id, c.purpose, c.merchant_id, c.mode, c.merchant_wallet_id, c.terminal_id, c.amount::int8 AS amount, c.fee::int8 AS fee, c.currency, c.phone, c.country, c.description,
  c.provider, c.provider_reference, c.provider_request_id, c.sandbox_outcome, c.status, c.failure_code, c.failure_reason, c.transfer_id, c.cancelled_at, c.next_poll_at,
  c.poll_errors, c.created_at, c.expires_at, c.ended_at, c.updated_at, c.returned_at, c.return_payment_id, c.return_cashier_id, c.return_shift_id, c.return_attempts,
  (SELECT t.sale_id::text FROM till_sale_tender_claims t WHERE t.reference = c.id) AS claimed_by`;

/** Amounts come back as numbers on both drivers (int8 may arrive as a string). */
function normalised(row: CollectionRow | undefined): CollectionRow | undefined {
  if (!row) return row;
  return { ...row, amount: Number(row.amount), fee: Number(row.fee), poll_errors: Number(row.poll_errors), return_attempts: Number(row.return_attempts) };
}

export async function insertCollection(
  db: Queryable,
  fields: {
    id: string;
    purpose: CollectionPurpose;
    merchantId: string | null;
    mode: Mode;
    merchantWalletId: string;
    terminalId: string | null;
    amount: number;
    fee: number;
    currency: string;
    phone: string;
    country: string;
    description: string | null;
    provider: string;
    sandboxOutcome: string | null;
    nextPollAt: Date;
    createdAt: Date;
    expiresAt: Date;
  },
): Promise<{ row: CollectionRow; created: boolean }> {
  // A retry with the same (derived) id finds the first run's row: ON CONFLICT DO NOTHING, then read.
  const inserted = await db.query<{ id: string }>(
    `INSERT INTO pos_collections (id, merchant_id, mode, merchant_wallet_id, terminal_id, amount, currency, phone, country, description, provider,
       sandbox_outcome, next_poll_at, created_at, expires_at, updated_at, purpose, fee)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $14, $16, $17) ON CONFLICT (id) DO NOTHING RETURNING id`,
    [fields.id, fields.merchantId, fields.mode, fields.merchantWalletId, fields.terminalId, fields.amount, fields.currency, fields.phone, fields.country,
      fields.description, fields.provider, fields.sandboxOutcome, fields.nextPollAt, fields.createdAt, fields.expiresAt, fields.purpose, fields.fee],
  );
  const row = await findCollection(db, fields.id);
  if (!row) throw new Error(`collection ${fields.id} was not stored`);
  return { row, created: inserted.length > 0 };
}

export async function findCollection(db: Queryable, id: string): Promise<CollectionRow | undefined> {
  const [row] = await db.query<CollectionRow>(`SELECT ${COLUMNS} FROM pos_collections c WHERE c.id = $1`, [id]);
  return normalised(row);
}

export async function lockCollection(tx: Queryable, id: string): Promise<CollectionRow | undefined> {
  const [row] = await tx.query<CollectionRow>(`SELECT ${COLUMNS} FROM pos_collections c WHERE c.id = $1 FOR UPDATE OF c`, [id]);
  return normalised(row);
}

/**
 * A collection under its row lock, read after the lock in a statement of its own: under READ
 * COMMITTED a statement that waited for the lock reads its subqueries (the till sale that claims
 * it) as of when it began, and a claim committed meanwhile must be seen.
 */
export async function lockCollectionFresh(tx: Queryable, id: string): Promise<CollectionRow | undefined> {
  await tx.query('SELECT c.id FROM pos_collections c WHERE c.id = $1 FOR UPDATE OF c', [id]);
  return findCollection(tx, id);
}

/** A wallet's top-ups of one purpose (a holder's own, or an agent's float) in one mode, newest first. */
export async function listWalletTopUps(db: Queryable, walletId: string, mode: Mode, limit: number, offset: number, purpose: TopUpPurpose = 'wallet_top_up'): Promise<{ rows: CollectionRow[]; total: number }> {
  const where = `c.purpose = $3 AND c.merchant_wallet_id = $1 AND c.mode = $2`;
  const rows = await db.query<CollectionRow>(`SELECT ${COLUMNS} FROM pos_collections c WHERE ${where} ORDER BY c.created_at DESC, c.id DESC LIMIT $4 OFFSET $5`, [walletId, mode, purpose, limit, offset]);
  const [count] = await db.query<{ total: number }>(`SELECT count(*)::int8 AS total FROM pos_collections c WHERE ${where}`, [walletId, mode, purpose]);
  return { rows: rows.map((row) => normalised(row)!), total: Number(count?.total ?? 0) };
}

/** Several collections under their row locks (a till sale's mobile_money tenders), by id. */
export async function lockCollections(tx: Queryable, ids: readonly string[]): Promise<Map<string, CollectionRow>> {
  if (ids.length === 0) return new Map();
  const unique = [...new Set(ids)];
  // The lock first, the read (with its claim subquery) in a statement of its own: under READ
  // COMMITTED a statement that waited for the lock reads its subqueries as of when it began.
  await tx.query('SELECT c.id FROM pos_collections c WHERE c.id = ANY($1::text[]) ORDER BY c.id FOR UPDATE OF c', [unique]);
  const rows = await tx.query<CollectionRow>(`SELECT ${COLUMNS} FROM pos_collections c WHERE c.id = ANY($1::text[])`, [unique]);
  return new Map(rows.map((row) => [row.id, normalised(row)!]));
}

/**
 * The collections these payouts gave back, made returnable again (their payout failed or was
 * reversed): returned_at and the return's payment, cashier and shift cleared, under the rows' locks.
 * Answers each collection as it is now, with the payout that failed.
 */
export async function reopenReturns(tx: Queryable, paymentIds: readonly string[], now: Date): Promise<{ row: CollectionRow; failedPaymentId: string }[]> {
  const reopened = await tx.query<{ id: string; failed_payment_id: string }>(
    `WITH failed AS (SELECT id, return_payment_id FROM pos_collections WHERE return_payment_id = ANY($1::text[]) FOR UPDATE)
     UPDATE pos_collections c SET returned_at = NULL, return_payment_id = NULL, return_cashier_id = NULL, return_shift_id = NULL, updated_at = $2
       FROM failed WHERE c.id = failed.id RETURNING c.id, failed.return_payment_id AS failed_payment_id`,
    [paymentIds, now],
  );
  const answers: { row: CollectionRow; failedPaymentId: string }[] = [];
  for (const { id, failed_payment_id } of reopened) {
    const row = await findCollection(tx, id);
    if (row) answers.push({ row, failedPaymentId: failed_payment_id });
  }
  return answers;
}

export async function updateCollection(
  tx: Queryable,
  id: string,
  fields: Partial<Pick<CollectionRow, 'status' | 'failure_code' | 'failure_reason' | 'transfer_id' | 'cancelled_at' | 'next_poll_at' | 'poll_errors' | 'provider_reference' | 'ended_at' | 'returned_at' | 'return_payment_id' | 'return_cashier_id' | 'return_shift_id' | 'return_attempts'>>,
  now: Date,
): Promise<CollectionRow> {
  const names = Object.keys(fields) as (keyof typeof fields)[];
  const sets = names.map((name, index) => `${name} = $${index + 3}`);
  // The first reference a collection gets names the request it was made with: kept apart (above).
  const reference = names.indexOf('provider_reference');
  if (reference >= 0) sets.push(`provider_request_id = coalesce(provider_request_id, $${reference + 3})`);
  await tx.query(`UPDATE pos_collections SET ${[...sets, 'updated_at = $2'].join(', ')} WHERE id = $1`, [id, now, ...names.map((name) => fields[name] ?? null)]);
  const row = await findCollection(tx, id);
  if (!row) throw new Error(`collection ${id} vanished`);
  return row;
}

/**
 * The collections due for a step (the sandbox's answer, a poll at the provider, the expiry), each
 * pushed on by `leaseMs` as it is claimed, so a second worker does not take it meanwhile.
 */
export async function claimDueCollections(db: Queryable, now: Date, leaseMs: number, limit: number): Promise<CollectionRow[]> {
  const ids = await db.query<{ id: string }>(
    `UPDATE pos_collections SET next_poll_at = $2 WHERE id IN (
       SELECT id FROM pos_collections WHERE next_poll_at IS NOT NULL AND next_poll_at <= $1 ORDER BY next_poll_at LIMIT $3 FOR UPDATE SKIP LOCKED
     ) RETURNING id`,
    [now, new Date(now.getTime() + leaseMs), limit],
  );
  const rows: CollectionRow[] = [];
  for (const { id } of ids) {
    const row = await findCollection(db, id);
    if (row) rows.push(row);
  }
  return rows;
}

/**
 * Whether an id has the shape of a collection's (`col_` + newId's base64url or derivedId's hex):
 * what a provider's record under one of our collection keys must decode to before the daily
 * reconciliation counts it as a collection of ours (known or not).
 */
export function isCollectionId(id: string): boolean {
  return /^col_[A-Za-z0-9_-]{1,100}$/.test(id);
}

/** Live collections through `provider` among `ids` (any day): the ones a provider's list of a day names that were made on another. */
export async function findProviderCollections(db: Queryable, provider: string, ids: readonly string[]): Promise<CollectionRow[]> {
  if (ids.length === 0) return [];
  const rows = await db.query<CollectionRow>(`SELECT ${COLUMNS} FROM pos_collections c WHERE c.id = ANY ($2::text[]) AND c.provider = $1 AND c.mode = 'live'`, [provider, ids]);
  return rows.map((row) => normalised(row)!);
}

/**
 * Live collections through `provider` created in [from, to), oldest first: the day the daily
 * reconciliation compares with the provider's record (migration 052's index).
 */
export async function listProviderCollectionsCreated(db: Queryable, provider: string, from: Date, to: Date): Promise<CollectionRow[]> {
  const rows = await db.query<CollectionRow>(
    `SELECT ${COLUMNS} FROM pos_collections c WHERE c.provider = $1 AND c.mode = 'live' AND c.created_at >= $2 AND c.created_at < $3 ORDER BY c.created_at, c.id`,
    [provider, from, to],
  );
  return rows.map((row) => normalised(row)!);
}
