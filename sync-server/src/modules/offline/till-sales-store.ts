import type { Queryable } from '../../db/database.ts';
import type { Mode } from '../../auth/secrets.ts';

import type { StoredTender } from '../products/index.ts';

export type { StoredTender };

/** A till sale as recorded (migration 033_till_sales.sql). */
export interface TillSaleRow {
  id: string;
  terminal_id: string;
  merchant_id: string;
  mode: Mode;
  amount: number;
  tip: number;
  currency: string;
  tenders: StoredTender[];
  cash_amount: number;
  cash_tendered: number;
  cash_change: number;
  items: unknown;
  cart_discount: number | null;
  cashier_id: string | null;
  shift_id: string | null;
  description: string | null;
  captured_at: Date;
  received_at: Date;
  status: 'accepted' | 'declined';
  decline_code: string | null;
  decline_reason: string | null;
  settled_at: Date;
  server_seq: number;
  /** What the tenders did not pay: the offline taps the server declined at sync (migration 050). */
  unpaid: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const COLUMNS =
  'id::text, terminal_id, merchant_id, mode, amount, tip, currency, tenders, cash_amount, cash_tendered, cash_change, items, cart_discount, cashier_id, shift_id, description, captured_at, received_at, status, decline_code, decline_reason, settled_at, server_seq, unpaid';

/** Numbers as numbers (node-postgres answers int8 as text, PGlite as numbers), jsonb parsed. */
function parsed(row: TillSaleRow): TillSaleRow {
  const tenders = (typeof row.tenders === 'string' ? JSON.parse(row.tenders) : row.tenders) as StoredTender[];
  return {
    ...row,
    amount: Number(row.amount),
    tip: Number(row.tip),
    cash_amount: Number(row.cash_amount),
    cash_tendered: Number(row.cash_tendered),
    cash_change: Number(row.cash_change),
    cart_discount: row.cart_discount === null ? null : Number(row.cart_discount),
    server_seq: Number(row.server_seq),
    unpaid: Number(row.unpaid ?? 0),
    tenders,
  };
}

export async function findTillSales(db: Queryable, ids: readonly string[]): Promise<TillSaleRow[]> {
  return (await db.query<TillSaleRow>(`SELECT ${COLUMNS} FROM till_sales WHERE id = ANY ($1::uuid[])`, [ids])).map(parsed);
}

/** Records settled sales in one statement. */
export async function insertTillSales(tx: Queryable, rows: readonly TillSaleRow[]): Promise<TillSaleRow[]> {
  if (rows.length === 0) return [];
  const inserted = await tx.query<TillSaleRow>(
    `INSERT INTO till_sales (id, terminal_id, merchant_id, mode, amount, tip, currency, tenders, cash_amount, cash_tendered, cash_change, items, cart_discount,
       cashier_id, shift_id, description, captured_at, received_at, status, decline_code, decline_reason, settled_at, server_seq, unpaid)
     SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, terminal_id text, merchant_id text, mode text, amount bigint, tip bigint, currency text, tenders jsonb,
       cash_amount bigint, cash_tendered bigint, cash_change bigint, items jsonb, cart_discount bigint, cashier_id text, shift_id text, description text,
       captured_at timestamptz, received_at timestamptz, status text, decline_code text, decline_reason text, settled_at timestamptz, server_seq bigint, unpaid bigint)
     RETURNING ${COLUMNS}`,
    [JSON.stringify(rows)],
  );
  return inserted.map(parsed);
}

export async function terminalTillSalesAfter(db: Queryable, terminalId: string, afterSeq: number, limit: number): Promise<TillSaleRow[]> {
  const rows = await db.query<TillSaleRow>(`SELECT ${COLUMNS} FROM till_sales WHERE terminal_id = $1 AND server_seq > $2 ORDER BY server_seq LIMIT $3`, [terminalId, afterSeq, limit]);
  return rows.map(parsed);
}

/** A POS session a till sale names as its wallet tender, with the till sale that claimed it already, if any. */
export interface TenderSessionRow {
  id: string;
  terminal_id: string | null;
  status: string;
  amount: number;
  currency: string;
  items: unknown;
  claimed_by: string | null;
  /** Something of it was refunded (a split tender given back when its sale was cancelled). */
  refunded: boolean;
}

/** The sessions named as wallet tenders, locked (two pushes claiming one session wait for each other). */
export async function lockTenderSessions(tx: Queryable, scope: { merchantId: string; mode: Mode }, ids: readonly string[]): Promise<Map<string, TenderSessionRow>> {
  // A reference that is not a UUID names no session (and must not reach the uuid cast).
  const uuids = [...new Set(ids.map((id) => id.toLowerCase()))].filter((id) => UUID.test(id)).sort();
  if (uuids.length === 0) return new Map();
  // The lock first, the read in a statement of its own: under READ COMMITTED a statement that
  // waited for the lock still reads its subqueries as of when it began, and would miss the claim
  // or the return (refund) it waited for.
  await tx.query('SELECT s.id FROM pos_sessions s WHERE s.id = ANY ($1::uuid[]) AND s.merchant_id = $2 AND s.mode = $3 ORDER BY s.id FOR UPDATE OF s', [uuids, scope.merchantId, scope.mode]);
  const rows = await tx.query<TenderSessionRow>(
    `SELECT s.id::text, s.terminal_id, s.status, s.amount, s.currency, s.items, (SELECT c.sale_id::text FROM till_sale_tender_claims c WHERE c.reference = s.id::text) AS claimed_by,
       EXISTS (SELECT 1 FROM sale_refunds r WHERE r.sale_id = s.id) AS refunded
     FROM pos_sessions s WHERE s.id = ANY ($1::uuid[]) AND s.merchant_id = $2 AND s.mode = $3`,
    [uuids, scope.merchantId, scope.mode],
  );
  return new Map(rows.map((row) => [row.id, { ...row, amount: Number(row.amount) }]));
}

export async function insertTenderClaims(tx: Queryable, claims: readonly { reference: string; sale_id: string; amount: number }[]): Promise<void> {
  if (claims.length === 0) return;
  await tx.query(
    `INSERT INTO till_sale_tender_claims (reference, sale_id, amount)
     SELECT * FROM jsonb_to_recordset($1::jsonb) AS c(reference text, sale_id uuid, amount bigint)`,
    [JSON.stringify(claims)],
  );
}

/** An offline payment a till sale names as its offline_tap tender (any terminal's: the check says whose). */
export interface TenderPaymentRow {
  id: string;
  terminal_id: string;
  merchant_id: string;
  mode: Mode;
  kind: string;
  amount: number;
  currency: string;
  status: 'accepted' | 'declined';
  decline_code: string | null;
}

/**
 * What an offline_tap tender names: the offline payments already settled (a tap may reach the
 * server before or after its sale) and the till sale that claimed each reference, if any. The
 * references are a terminal's UUIDs; one that is not names nothing.
 */
export async function findTenderPayments(tx: Queryable, references: readonly string[]): Promise<{ payments: Map<string, TenderPaymentRow>; claims: Map<string, string> }> {
  const uuids = [...new Set(references.map((id) => id.toLowerCase()))].filter((id) => UUID.test(id)).sort();
  if (uuids.length === 0) return { payments: new Map(), claims: new Map() };
  // A terminal's pushes settle one after the other under its row's lock, so its tap and its sale
  // never settle at once; a claim by another terminal's sale is caught by the claims' primary key.
  const payments = await tx.query<TenderPaymentRow>(
    'SELECT id::text, terminal_id, merchant_id, mode, kind, amount, currency, status, decline_code FROM offline_payments WHERE id = ANY ($1::uuid[])',
    [uuids],
  );
  const claims = await tx.query<{ reference: string; sale_id: string }>('SELECT reference, sale_id::text FROM till_sale_tender_claims WHERE reference = ANY ($1::text[])', [uuids]);
  return {
    payments: new Map(payments.map((row) => [row.id, { ...row, amount: Number(row.amount) }])),
    claims: new Map(claims.map((row) => [row.reference, row.sale_id])),
  };
}

/** The till sales whose offline_tap tender names one of these offline payments, with the amount each claimed. */
export async function claimsOfPayments(tx: Queryable, paymentIds: readonly string[]): Promise<{ reference: string; sale_id: string; amount: number }[]> {
  if (paymentIds.length === 0) return [];
  const rows = await tx.query<{ reference: string; sale_id: string; amount: number }>(
    'SELECT reference, sale_id::text, amount FROM till_sale_tender_claims WHERE reference = ANY ($1::text[]) ORDER BY reference',
    [paymentIds.map((id) => id.toLowerCase())],
  );
  return rows.map((row) => ({ ...row, amount: Number(row.amount) }));
}

/** Adds what a declined tender did not pay to its sale's shortfall; answers the sale as it is now. */
export async function addUnpaid(tx: Queryable, saleId: string, amount: number): Promise<TillSaleRow | undefined> {
  const [row] = await tx.query<TillSaleRow>(`UPDATE till_sales SET unpaid = unpaid + $2 WHERE id = $1::uuid RETURNING ${COLUMNS}`, [saleId, amount]);
  return row ? parsed(row) : undefined;
}
