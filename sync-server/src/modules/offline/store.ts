import type { Language } from '@tapline/shared/i18n';
import type { Queryable } from '../../db/database.ts';
import type { Mode } from '../../auth/secrets.ts';

export interface VoucherRow {
  id: string;
  wallet_id: string;
  handle: string;
  mode: Mode;
  currency: string;
  amount: number;
  key_id: string;
  status: 'active' | 'used' | 'revoked' | 'expired';
  expires_at: Date;
  used_by_payment_id: string | null;
  used_amount: number | null;
  created_at: Date;
  ended_at: Date | null;
}

const VOUCHER_COLUMNS = 'id, wallet_id, handle, mode, currency, amount, key_id, status, expires_at, used_by_payment_id, used_amount, created_at, ended_at';

export async function insertVoucher(tx: Queryable, row: Omit<VoucherRow, 'status' | 'used_by_payment_id' | 'used_amount' | 'ended_at'> & { payload_hash: string }): Promise<VoucherRow> {
  const [inserted] = await tx.query<VoucherRow>(
    `INSERT INTO offline_qr_vouchers (id, wallet_id, handle, mode, currency, amount, key_id, payload_hash, status, expires_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'active', $9, $10) RETURNING ${VOUCHER_COLUMNS}`,
    [row.id, row.wallet_id, row.handle, row.mode, row.currency, row.amount, row.key_id, row.payload_hash, row.expires_at, row.created_at],
  );
  return inserted!;
}

export async function findVoucher(db: Queryable, id: string): Promise<VoucherRow | undefined> {
  const [row] = await db.query<VoucherRow>(`SELECT ${VOUCHER_COLUMNS} FROM offline_qr_vouchers WHERE id = $1`, [id]);
  return row;
}

/** The voucher with this text's hash, locked for the caller's transaction. */
export async function lockVoucherByHash(tx: Queryable, payloadHash: string): Promise<VoucherRow | undefined> {
  const [row] = await tx.query<VoucherRow>(`SELECT ${VOUCHER_COLUMNS} FROM offline_qr_vouchers WHERE payload_hash = $1 FOR UPDATE`, [payloadHash]);
  return row;
}

export async function lockVoucher(tx: Queryable, id: string): Promise<VoucherRow | undefined> {
  const [row] = await tx.query<VoucherRow>(`SELECT ${VOUCHER_COLUMNS} FROM offline_qr_vouchers WHERE id = $1 FOR UPDATE`, [id]);
  return row;
}

export async function endVoucher(tx: Queryable, id: string, status: 'used' | 'revoked' | 'expired', at: Date, use?: { paymentId: string; amount: number }): Promise<VoucherRow> {
  const [row] = await tx.query<VoucherRow>(
    `UPDATE offline_qr_vouchers SET status = $2, ended_at = $3, used_by_payment_id = $4, used_amount = $5 WHERE id = $1 RETURNING ${VOUCHER_COLUMNS}`,
    [id, status, at, use?.paymentId ?? null, use?.amount ?? null],
  );
  return row!;
}

export async function listVouchers(db: Queryable, walletId: string, mode: Mode, status: string | undefined, limit: number, offset: number): Promise<{ rows: VoucherRow[]; total: number }> {
  const rows = await db.query<VoucherRow>(
    `SELECT ${VOUCHER_COLUMNS} FROM offline_qr_vouchers WHERE wallet_id = $1 AND mode = $2 AND ($3::text IS NULL OR status = $3::text)
     ORDER BY created_at DESC, id DESC LIMIT $4 OFFSET $5`,
    [walletId, mode, status ?? null, limit, offset],
  );
  const [count] = await db.query<{ total: number }>(
    'SELECT count(*)::int8 AS total FROM offline_qr_vouchers WHERE wallet_id = $1 AND mode = $2 AND ($3::text IS NULL OR status = $3::text)',
    [walletId, mode, status ?? null],
  );
  return { rows, total: count?.total ?? 0 };
}

/** Active vouchers whose settlement grace has ended, oldest first: their money goes back. */
export async function releasableVoucherIds(db: Queryable, before: Date, limit: number): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    "SELECT id FROM offline_qr_vouchers WHERE status = 'active' AND expires_at <= $1 ORDER BY expires_at LIMIT $2",
    [before, limit],
  );
  return rows.map((row) => row.id);
}

export interface OfflinePaymentRow {
  id: string;
  terminal_id: string | null;
  merchant_id: string;
  mode: Mode;
  kind: 'tap' | 'qr';
  tag_id: string | null;
  voucher_id: string | null;
  amount: number;
  currency: string;
  description: string;
  captured_at: Date;
  received_at: Date;
  status: 'accepted' | 'declined';
  payer_wallet_id: string | null;
  payer_handle: string | null;
  transfer_id: string | null;
  decline_code: string | null;
  decline_reason: string | null;
  settled_at: Date;
  server_seq: number;
  /** The lines sold (shared/src/cart.ts SaleLines, jsonb), when the terminal sent them and they add up. */
  items: unknown;
  /** The cart discount, minor units. */
  cart_discount: number | null;
  /** Who took it at the till (migration 042), when the kiosk said. */
  cashier_id: string | null;
  /** A tap for part of a split sale: the till sale's id (migration 050). */
  tender_of?: string | null;
}

const PAYMENT_COLUMNS =
  'id, terminal_id, merchant_id, mode, kind, tag_id, voucher_id, amount, currency, description, captured_at, received_at, status, payer_wallet_id, payer_handle, transfer_id, decline_code, decline_reason, settled_at, server_seq, items, cart_discount, cashier_id, tender_of::text';

export async function findOfflinePayment(db: Queryable, id: string): Promise<OfflinePaymentRow | undefined> {
  const [row] = await db.query<OfflinePaymentRow>(`SELECT ${PAYMENT_COLUMNS} FROM offline_payments WHERE id = $1`, [id], { prepareAs: 'offline_payment_find' });
  return row;
}

export async function insertOfflinePayment(tx: Queryable, row: OfflinePaymentRow & { voucher_hash: string | null }): Promise<OfflinePaymentRow> {
  const [inserted] = await tx.query<OfflinePaymentRow>(
    `INSERT INTO offline_payments (id, terminal_id, merchant_id, mode, kind, tag_id, voucher_id, voucher_hash, amount, currency, description, captured_at,
       received_at, status, payer_wallet_id, payer_handle, transfer_id, decline_code, decline_reason, settled_at, server_seq, cashier_id, tender_of)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23::uuid) RETURNING ${PAYMENT_COLUMNS}`,
    [
      row.id, row.terminal_id, row.merchant_id, row.mode, row.kind, row.tag_id, row.voucher_id, row.voucher_hash, row.amount, row.currency, row.description,
      row.captured_at, row.received_at, row.status, row.payer_wallet_id, row.payer_handle, row.transfer_id, row.decline_code, row.decline_reason, row.settled_at,
      row.server_seq, row.cashier_id ?? null, row.tender_of ?? null,
    ],
    { prepareAs: 'offline_payment_insert_v2' },
  );
  return inserted!;
}

/**
 * Planned on every call, never prepared: prepared on a new database, while offline_payments was
 * still empty, its cached generic plan was a sequential scan, kept while the table grew (2.2 ms a
 * push of 100 at 10,000 rows instead of 0.1 ms; bench:sync catch-up). Planned each time, it sees
 * the table's real size and probes the primary key.
 */
export async function findOfflinePayments(db: Queryable, ids: readonly string[]): Promise<OfflinePaymentRow[]> {
  return db.query<OfflinePaymentRow>(`SELECT ${PAYMENT_COLUMNS} FROM offline_payments WHERE id = ANY ($1::uuid[])`, [ids]);
}

/** Records many settled payments in one statement. */
export async function insertOfflinePayments(tx: Queryable, rows: readonly (OfflinePaymentRow & { voucher_hash: string | null })[]): Promise<OfflinePaymentRow[]> {
  if (rows.length === 0) return [];
  const column = <K extends keyof (OfflinePaymentRow & { voucher_hash: string | null })>(name: K) => rows.map((row) => row[name]);
  const times = (name: 'captured_at' | 'received_at' | 'settled_at') => rows.map((row) => row[name].toISOString());
  return tx.query<OfflinePaymentRow>(
    `INSERT INTO offline_payments (id, terminal_id, merchant_id, mode, kind, tag_id, voucher_id, voucher_hash, amount, currency, description, captured_at,
       received_at, status, payer_wallet_id, payer_handle, transfer_id, decline_code, decline_reason, settled_at, server_seq, items, cart_discount, cashier_id, tender_of)
     SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::int8[], $10::text[], $11::text[],
       $12::timestamptz[], $13::timestamptz[], $14::text[], $15::text[], $16::text[], $17::text[], $18::text[], $19::text[], $20::timestamptz[], $21::int8[],
       $22::jsonb[], $23::int8[], $24::text[], $25::uuid[])
     RETURNING ${PAYMENT_COLUMNS}`,
    [
      column('id'), column('terminal_id'), column('merchant_id'), column('mode'), column('kind'), column('tag_id'), column('voucher_id'), column('voucher_hash'),
      column('amount'), column('currency'), column('description'), times('captured_at'), times('received_at'), column('status'), column('payer_wallet_id'),
      column('payer_handle'), column('transfer_id'), column('decline_code'), column('decline_reason'), times('settled_at'), column('server_seq'),
      rows.map((row) => (row.items === null || row.items === undefined ? null : JSON.stringify(row.items))), column('cart_discount'),
      rows.map((row) => row.cashier_id ?? null),
      rows.map((row) => row.tender_of ?? null),
    ],
    { prepareAs: 'offline_payments_insert_many_v2' },
  );
}

/** One terminal's documents after a checkpoint, in the order of their numbers. */
export async function terminalPaymentsAfter(db: Queryable, terminalId: string, afterSeq: number, limit: number): Promise<OfflinePaymentRow[]> {
  return db.query<OfflinePaymentRow>(
    `SELECT ${PAYMENT_COLUMNS} FROM offline_payments WHERE terminal_id = $1 AND server_seq > $2 ORDER BY server_seq LIMIT $3`,
    [terminalId, afterSeq, limit],
  );
}

export async function listOfflinePayments(
  db: Queryable,
  scope: { merchantId: string; mode: Mode; terminalId?: string | undefined; status?: string | undefined },
  limit: number,
  offset: number,
): Promise<{ rows: OfflinePaymentRow[]; total: number }> {
  const where = 'merchant_id = $1 AND mode = $2 AND ($3::text IS NULL OR terminal_id = $3::text) AND ($4::text IS NULL OR status = $4::text)';
  const params = [scope.merchantId, scope.mode, scope.terminalId ?? null, scope.status ?? null];
  const rows = await db.query<OfflinePaymentRow>(`SELECT ${PAYMENT_COLUMNS} FROM offline_payments WHERE ${where} ORDER BY received_at DESC, captured_at DESC, id LIMIT $5 OFFSET $6`, [...params, limit, offset]);
  const [count] = await db.query<{ total: number }>(`SELECT count(*)::int8 AS total FROM offline_payments WHERE ${where}`, params);
  return { rows, total: count?.total ?? 0 };
}

export interface TerminalSyncRow {
  id: string;
  name: string;
  merchant_id: string;
  mode: Mode;
  revoked_at: Date | null;
  created_at: Date;
  offline_per_payment_max: number | null;
  offline_total_max: number | null;
  offline_max_age_seconds: number | null;
  language: Language;
  /** Tips at this till (jsonb); null: off. */
  tipping: { mode: 'off' | 'before' | 'after'; percentages: number[] } | null;
  merchant_name: string;
  merchant_handle: string;
  merchant_currency: string;
}

export async function findTerminalForSync(db: Queryable, terminalId: string): Promise<TerminalSyncRow | undefined> {
  const [row] = await db.query<TerminalSyncRow>(
    `SELECT t.id, t.name, t.merchant_id, t.mode, t.revoked_at, t.created_at, t.offline_per_payment_max, t.offline_total_max, t.offline_max_age_seconds, t.language, t.tipping,
            m.name AS merchant_name, m.handle AS merchant_handle, m.currency AS merchant_currency
     FROM terminals t JOIN merchants m ON m.id = t.merchant_id WHERE t.id = $1`,
    [terminalId],
  );
  return row;
}

export interface GiftCardSaleRow {
  id: string;
  terminal_id: string;
  merchant_id: string;
  mode: Mode;
  code_hash: string;
  code_prefix: string;
  amount: number;
  currency: string;
  design_theme: string | null;
  message: string | null;
  captured_at: Date;
  received_at: Date;
  status: 'accepted' | 'declined';
  card_id: string | null;
  card_expires_at: Date | null;
  decline_code: string | null;
  decline_reason: string | null;
  settled_at: Date;
  server_seq: number;
}

const SALE_COLUMNS =
  'id, terminal_id, merchant_id, mode, code_hash, code_prefix, amount, currency, design_theme, message, captured_at, received_at, status, card_id, card_expires_at, decline_code, decline_reason, settled_at, server_seq';

export async function findGiftCardSales(db: Queryable, ids: readonly string[]): Promise<GiftCardSaleRow[]> {
  return db.query<GiftCardSaleRow>(`SELECT ${SALE_COLUMNS} FROM terminal_gift_card_sales WHERE id = ANY ($1::uuid[])`, [ids]);
}

export async function insertGiftCardSale(tx: Queryable, row: GiftCardSaleRow): Promise<GiftCardSaleRow> {
  const [inserted] = await tx.query<GiftCardSaleRow>(
    `INSERT INTO terminal_gift_card_sales (${SALE_COLUMNS})
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19) RETURNING ${SALE_COLUMNS}`,
    [
      row.id, row.terminal_id, row.merchant_id, row.mode, row.code_hash, row.code_prefix, row.amount, row.currency, row.design_theme, row.message, row.captured_at, row.received_at,
      row.status, row.card_id, row.card_expires_at, row.decline_code, row.decline_reason, row.settled_at, row.server_seq,
    ],
  );
  return inserted!;
}

export async function terminalSalesAfter(db: Queryable, terminalId: string, afterSeq: number, limit: number): Promise<GiftCardSaleRow[]> {
  return db.query<GiftCardSaleRow>(`SELECT ${SALE_COLUMNS} FROM terminal_gift_card_sales WHERE terminal_id = $1 AND server_seq > $2 ORDER BY server_seq LIMIT $3`, [
    terminalId,
    afterSeq,
    limit,
  ]);
}

/** A voucher signing key with its private key, sealed. */
export interface SigningKeyRow {
  id: string;
  private_key_sealed: string;
}

/** The newest key that is not retired: the one that signs new vouchers. */
export async function findCurrentSigningKey(db: Queryable): Promise<SigningKeyRow | undefined> {
  const [row] = await db.query<SigningKeyRow>('SELECT id, private_key_sealed FROM offline_qr_keys WHERE retired_at IS NULL ORDER BY created_at DESC, id DESC LIMIT 1');
  return row;
}

export async function findSigningKey(db: Queryable, keyId: string): Promise<SigningKeyRow | undefined> {
  const [row] = await db.query<SigningKeyRow>('SELECT id, private_key_sealed FROM offline_qr_keys WHERE id = $1', [keyId]);
  return row;
}

export async function insertSigningKey(db: Queryable, key: { id: string; publicKey: string; privateKeySealed: string; createdAt: Date }): Promise<SigningKeyRow> {
  const [created] = await db.query<SigningKeyRow>(
    'INSERT INTO offline_qr_keys (id, public_key, private_key_sealed, created_at) VALUES ($1, $2, $3, $4) RETURNING id, private_key_sealed',
    [key.id, key.publicKey, key.privateKeySealed, key.createdAt],
  );
  return created!;
}

/** Every key's public half, oldest first. */
export async function listPublicKeys(db: Queryable): Promise<{ id: string; public_key: string }[]> {
  return db.query<{ id: string; public_key: string }>('SELECT id, public_key FROM offline_qr_keys ORDER BY created_at, id');
}

/**
 * What the terminal's accepted offline taps took in each period [starts[i], ends[i]) of capture
 * time (timestamps as text; a UTC day each): `i` counts from 1.
 */
export async function offlineWindowsUsed(tx: Queryable, terminalId: string, starts: readonly string[], ends: readonly string[]): Promise<{ i: number; used: number }[]> {
  return tx.query<{ i: number; used: number }>(
    `SELECT w.i::int4 AS i,
       coalesce((SELECT sum(p.amount) FROM offline_payments p
                 WHERE p.terminal_id = $1 AND p.status = 'accepted' AND p.kind = 'tap' AND p.captured_at >= w.s AND p.captured_at < w.e), 0)::int8 AS used
     FROM unnest($2::timestamptz[], $3::timestamptz[]) WITH ORDINALITY AS w (s, e, i)`,
    [terminalId, starts, ends],
    { prepareAs: 'offline_window_used' },
  );
}

/** What a merchant's accepted offline payments captured after `since` add up to, minor units (modules/payouts holds them back from payouts). */
export async function acceptedOfflineSince(db: Queryable, merchantId: string, mode: Mode, currency: string, since: Date): Promise<number> {
  const [row] = await db.query<{ total: number | string | null }>(
    `SELECT coalesce(sum(amount), 0)::int8 AS total FROM offline_payments WHERE merchant_id = $1 AND mode = $2 AND currency = $3 AND status = 'accepted' AND captured_at > $4`,
    [merchantId, mode, currency, since],
  );
  return Number(row?.total ?? 0);
}
