import type { Queryable } from '../../db/database.ts';
import type { Mode } from '../../auth/secrets.ts';

/** A completed sale of either kind, as refunds and reports read it (minor units). */
export interface SaleRow {
  id: string;
  kind: 'pos_session' | 'offline_payment' | 'till_sale';
  merchant_id: string;
  mode: Mode;
  terminal_id: string | null;
  status: string;
  amount: number;
  currency: string;
  payer_wallet_id: string | null;
  payer_handle: string | null;
  merchant_wallet_id: string | null;
  transfer_id: string | null;
  created_at: Date;
  settled_at: Date | null;
  items: unknown;
  cart_discount: number | null;
  /** A till sale's tenders (jsonb, minor units: kind, amount, tendered, change), tip and cashier; null for the others. */
  tenders: unknown;
  tip: number | null;
  cashier_id: string | null;
  /** A till sale's shortfall: tenders the server declined at sync (an offline tap); absent for the others. */
  unpaid?: number | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The start of a sale id as a receipt prints it: 8 hex digits or more ("Session 1a2b3c4d", "Payment 1a2b3c4d-5e6"). */
const ID_PREFIX = /^[0-9a-f]{8}(?:-?[0-9a-f]{0,4}){0,4}$/i;

/** A sale id as typed: trimmed, lower case (receipts print ids as they are; a cashier may type capitals). */
export function normaliseSaleId(id: string): string {
  return id.trim().toLowerCase();
}

/** Whether `id` is a whole sale id (a UUID) rather than the short form printed on a receipt. */
export function isWholeSaleId(id: string): boolean {
  return UUID.test(id);
}

/**
 * The ids of a merchant's sales (POS sessions and offline payments, in one mode, of one terminal
 * when `terminalId` is set) that start with `prefix`, the short id a receipt prints: at most two
 * (two means it is ambiguous). None for something that is not such a prefix.
 */
export async function saleIdsByPrefix(db: Queryable, scope: { merchantId: string; mode: Mode; terminalId: string | null }, prefix: string): Promise<string[]> {
  const normalised = normaliseSaleId(prefix);
  if (!ID_PREFIX.test(normalised) || normalised.length > 36) return [];
  // Only hex digits and dashes: nothing LIKE would read as a wildcard.
  const rows = await db.query<{ id: string }>(
    `(SELECT id::text FROM pos_sessions WHERE merchant_id = $1 AND mode = $2 AND ($3::text IS NULL OR terminal_id = $3) AND id::text LIKE $4 LIMIT 2)
     UNION ALL
     (SELECT id::text FROM offline_payments WHERE merchant_id = $1 AND mode = $2 AND ($3::text IS NULL OR terminal_id = $3) AND id::text LIKE $4 LIMIT 2)
     UNION ALL
     (SELECT id::text FROM till_sales WHERE merchant_id = $1 AND mode = $2 AND ($3::text IS NULL OR terminal_id = $3) AND id::text LIKE $4 LIMIT 2)`,
    [scope.merchantId, scope.mode, scope.terminalId, `${normalised}%`],
  );
  return rows.map((row) => row.id).slice(0, 2);
}

/**
 * A sale by id (a POS session or an offline payment) of a merchant in one mode; with `lock`, its
 * row stays locked until the caller's transaction ends (one refund of a sale at a time).
 */
export async function findSale(db: Queryable, scope: { merchantId: string; mode: Mode }, id: string, options: { lock: boolean }): Promise<SaleRow | undefined> {
  if (!UUID.test(id)) return undefined;
  const suffix = options.lock ? ' FOR UPDATE' : '';
  const [session] = await db.query<SaleRow>(
    `SELECT id::text, 'pos_session' AS kind, merchant_id, mode, terminal_id, status, amount, currency, payer_wallet_id, payer_handle, merchant_wallet_id,
       wallet_ref AS transfer_id, created_at, ended_at AS settled_at, items, cart_discount, NULL::jsonb AS tenders, NULL::int8 AS tip, cashier_id
     FROM pos_sessions WHERE id = $1 AND merchant_id = $2 AND mode = $3${suffix}`,
    [id.toLowerCase(), scope.merchantId, scope.mode],
  );
  if (session) return session;
  const [payment] = await db.query<SaleRow>(
    `SELECT p.id::text, 'offline_payment' AS kind, p.merchant_id, p.mode, p.terminal_id, p.status, p.amount, p.currency, p.payer_wallet_id, p.payer_handle,
       NULL::text AS merchant_wallet_id, p.transfer_id, p.captured_at AS created_at, p.settled_at, p.items, p.cart_discount,
       NULL::jsonb AS tenders, NULL::int8 AS tip, p.cashier_id
     FROM offline_payments p WHERE p.id = $1::uuid AND p.merchant_id = $2 AND p.mode = $3${suffix}`,
    [id.toLowerCase(), scope.merchantId, scope.mode],
  );
  if (payment) return payment;
  const [till] = await db.query<SaleRow>(
    `SELECT t.id::text, 'till_sale' AS kind, t.merchant_id, t.mode, t.terminal_id, t.status, t.amount, t.currency, NULL::text AS payer_wallet_id, NULL::text AS payer_handle,
       NULL::text AS merchant_wallet_id, NULL::text AS transfer_id, t.captured_at AS created_at, t.settled_at, t.items, t.cart_discount, t.tenders, t.tip, t.cashier_id, t.unpaid
     FROM till_sales t WHERE t.id = $1::uuid AND t.merchant_id = $2 AND t.mode = $3${suffix}`,
    [id.toLowerCase(), scope.merchantId, scope.mode],
  );
  return till;
}

export interface RefundRow {
  id: string;
  sale_id: string;
  sale_kind: SaleRow['kind'];
  merchant_id: string;
  mode: Mode;
  sale_terminal_id: string | null;
  refunded_by_terminal_id: string | null;
  amount: number;
  currency: string;
  lines: StoredRefundLine[];
  reason: string | null;
  /** The wallet that paid and the correcting transfer; null for a refund of a cash sale (from the drawer). */
  payer_wallet_id: string | null;
  transfer_id: string | null;
  /** How the refund went back, minor units: [{kind: 'cash' | 'wallet', amount}]. */
  tenders: RefundTender[] | null;
  /** Who refunded and in which shift (a cash refund leaves that shift's drawer). */
  cashier_id: string | null;
  shift_id: string | null;
  created_at: Date;
  /**
   * What did not reach the customer (migration 059): the mobile money parts whose payout the
   * provider failed or reversed, minor units; 0 normally. The sale's refunded amount leaves it out.
   */
  failed_amount: number;
  failure_reason: string | null;
  failed_at: Date | null;
}

/** A refund's tender as stored (minor units); a mobile_money tender names its payout and carries the payout's outcome. */
export interface RefundTender {
  kind: string;
  amount: number;
  reference?: string;
  /** mobile_money: pending while the payout is processing, then succeeded or failed (missing on tenders that need none: given at once). */
  status?: 'pending' | 'succeeded' | 'failed';
  failureReason?: string | null;
}

const REFUND_COLUMNS = `id, sale_id::text, sale_kind, merchant_id, mode, sale_terminal_id, refunded_by_terminal_id, amount, currency, lines, reason, payer_wallet_id, transfer_id, tenders, cashier_id, shift_id::text, created_at,
  failed_amount, failure_reason, failed_at`;

function parsed(row: RefundRow): RefundRow {
  const json = <T>(value: T | string): T => (typeof value === 'string' ? (JSON.parse(value) as T) : value);
  return { ...row, lines: json(row.lines), tenders: row.tenders === null ? null : json(row.tenders), failed_amount: Number(row.failed_amount ?? 0) };
}

/** These refunds (the ones that exist), row-locked in id order: a payout's outcome is written on its refund. */
export async function lockRefunds(tx: Queryable, ids: readonly string[]): Promise<RefundRow[]> {
  const rows = await tx.query<RefundRow>(`SELECT ${REFUND_COLUMNS} FROM sale_refunds WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE`, [[...ids]]);
  return rows.map(parsed);
}

/** A payout's outcome written on its refund: its tenders' statuses and what did not reach the customer. */
export async function updateRefundOutcome(
  tx: Queryable,
  id: string,
  fields: { tenders: RefundTender[]; failed_amount: number; failure_reason: string | null; failed_at: Date | null },
): Promise<RefundRow> {
  const [row] = await tx.query<RefundRow>(
    `UPDATE sale_refunds SET tenders = $2::jsonb, failed_amount = $3, failure_reason = $4, failed_at = $5 WHERE id = $1 RETURNING ${REFUND_COLUMNS}`,
    [id, JSON.stringify(fields.tenders), fields.failed_amount, fields.failure_reason, fields.failed_at],
  );
  return parsed(row!);
}

export async function refundsOfSale(db: Queryable, saleId: string): Promise<RefundRow[]> {
  const rows = await db.query<RefundRow>(`SELECT ${REFUND_COLUMNS} FROM sale_refunds WHERE sale_id = $1::uuid ORDER BY created_at, id`, [saleId]);
  return rows.map(parsed);
}

export async function findRefund(db: Queryable, id: string): Promise<RefundRow | undefined> {
  const [row] = await db.query<RefundRow>(`SELECT ${REFUND_COLUMNS} FROM sale_refunds WHERE id = $1`, [id]);
  return row ? parsed(row) : undefined;
}

export async function insertRefund(tx: Queryable, row: Omit<RefundRow, 'created_at' | 'failed_amount' | 'failure_reason' | 'failed_at'>, now: Date): Promise<RefundRow> {
  const [inserted] = await tx.query<RefundRow>(
    `INSERT INTO sale_refunds (id, sale_id, sale_kind, merchant_id, mode, sale_terminal_id, refunded_by_terminal_id, amount, currency, lines, reason, payer_wallet_id, transfer_id, tenders, cashier_id, shift_id, created_at)
     VALUES ($1, $2::uuid, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11, $12, $13, $14::jsonb, $15, $16::uuid, $17) RETURNING ${REFUND_COLUMNS}`,
    [
      row.id, row.sale_id, row.sale_kind, row.merchant_id, row.mode, row.sale_terminal_id, row.refunded_by_terminal_id, row.amount, row.currency, JSON.stringify(row.lines), row.reason,
      row.payer_wallet_id, row.transfer_id, row.tenders === null ? null : JSON.stringify(row.tenders), row.cashier_id, row.shift_id, now,
    ],
  );
  return parsed(inserted!);
}

/** A refund line as stored, in minor units; `taxRate`, `tax` and `taxable` (the refunded units' share of the line's) on refunds made since reports net their taxes. */
export interface StoredRefundLine {
  line: number;
  quantity: number;
  amount: number;
  taxRate?: number;
  tax?: number;
  taxable?: number;
}

type DaySession = { amount: number; tag_id: string | null; items: unknown; cart_discount: number | null; cashier_id: string | null; tender_of: string | null };
type DayPayment = { amount: number; kind: 'tap' | 'qr'; status: string; items: unknown; cart_discount: number | null; cashier_id: string | null; tender_of: string | null };
type DayRefund = { amount: number; failed_amount: number; lines: unknown; sale_items: unknown; sale_cart_discount: number | null; sale_kind: SaleRow['kind']; tenders: unknown };
/** A refund an earlier Z report counted whose mobile money payout failed since (minor units): this day counts the failure. */
type DayRefundFailure = { failed_amount: number };
/** A till sale as a day report counts it: cash kept, handed over and given back, the tip (minor units). */
export type DayTillSale = {
  amount: number; tip: number; status: string; cash_amount: number; cash_tendered: number; cash_change: number; items: unknown; cart_discount: number | null; cashier_id: string | null; tenders: unknown;
};
/** A closed shift as a day report lists it (minor units), with its cash sales and refunds as the server has them. */
export type DayShift = {
  id: string; cashier_id: string; cashier_name: string | null; opened_at: Date; closed_at: Date; float: number; paid_in: number; paid_out: number; no_sales: number;
  counted: number; expected: number; cash_sales: number; cash_refunds: number;
};

export interface DayRows {
  sessions: DaySession[];
  payments: DayPayment[];
  giftCards: { amount: number }[];
  tillSales: DayTillSale[];
  shifts: DayShift[];
  refunds: DayRefund[];
  refundFailures: DayRefundFailure[];
}

// What a day report counts of each table: settled rows of the terminal that no Z report holds yet.
const OPEN = {
  sessions: { table: 'pos_sessions', where: `terminal_id = $1 AND status = 'completed' AND z_report_id IS NULL` },
  payments: { table: 'offline_payments', where: 'terminal_id = $1 AND z_report_id IS NULL' },
  giftCards: { table: 'terminal_gift_card_sales', where: `terminal_id = $1 AND status = 'accepted' AND z_report_id IS NULL` },
  tillSales: { table: 'till_sales', where: 'terminal_id = $1 AND z_report_id IS NULL' },
  shifts: { table: 'till_shifts s', where: 's.terminal_id = $1 AND s.z_report_id IS NULL AND s.closed_at IS NOT NULL' },
  refunds: { table: 'sale_refunds r', where: 'r.sale_terminal_id = $1 AND r.z_report_id IS NULL' },
  // A refund's payout that failed after the refund's Z report closed: that report stays as it
  // closed, the failure is counted once, by the report of the day it is known in (migration 059).
  refundFailures: { table: 'sale_refunds r', where: 'r.sale_terminal_id = $1 AND r.z_report_id IS NOT NULL AND r.failed_amount > 0 AND r.failure_z_report_id IS NULL' },
};
const select = (open: { table: string; where: string }, columns: string) => `SELECT ${columns} FROM ${open.table} WHERE ${open.where}`;
/** Claims the open rows for the report $2: z_report_id, or another column a report claims rows by (failure_z_report_id). */
const claim = (open: { table: string; where: string }, columns: string, by = 'z_report_id') => `UPDATE ${open.table} SET ${by} = $2 WHERE ${open.where} RETURNING ${columns}`;
const SESSION_COLUMNS = 'amount, tag_id, items, cart_discount, cashier_id, tender_of::text';
const PAYMENT_COLUMNS = 'amount, kind, status, items, cart_discount, cashier_id, tender_of::text';
const TILL_COLUMNS = 'amount, tip, status, cash_amount, cash_tendered, cash_change, items, cart_discount, cashier_id, tenders';
/** The cash a refund `r` gave from the drawer: its cash tenders (refunds of till sales made before tenders were recorded: all of it). */
const CASH_PART = `coalesce((SELECT sum((t->>'amount')::int8) FROM jsonb_array_elements(r.tenders) t WHERE t->>'kind' = 'cash'), CASE WHEN r.tenders IS NULL THEN r.amount ELSE 0 END)`;
const SHIFT_COLUMNS = `s.id::text, s.cashier_id, (SELECT st.name FROM till_staff st WHERE st.id = s.cashier_id AND st.merchant_id = s.merchant_id) AS cashier_name,
  s.opened_at, s.closed_at, s.float, s.paid_in, s.paid_out, s.no_sales, s.counted, s.expected,
  coalesce((SELECT sum(ts.cash_amount) FROM till_sales ts WHERE ts.shift_id = s.id::text AND ts.status = 'accepted'), 0) AS cash_sales,
  coalesce((SELECT sum(${CASH_PART}) FROM sale_refunds r WHERE r.shift_id = s.id AND r.sale_kind = 'till_sale'), 0) AS cash_refunds`;
// A refund's sale lines, for refunds stored before their lines carried their tax.
const REFUND_COLUMNS_WITH_SALE = `r.amount, r.failed_amount, r.lines, r.sale_kind, r.tenders,
  coalesce((SELECT s.items FROM pos_sessions s WHERE s.id = r.sale_id), (SELECT p.items FROM offline_payments p WHERE p.id = r.sale_id),
    (SELECT t.items FROM till_sales t WHERE t.id = r.sale_id)) AS sale_items,
  coalesce((SELECT s.cart_discount FROM pos_sessions s WHERE s.id = r.sale_id), (SELECT p.cart_discount FROM offline_payments p WHERE p.id = r.sale_id),
    (SELECT t.cart_discount FROM till_sales t WHERE t.id = r.sale_id)) AS sale_cart_discount`;

/** The open day of a terminal: what its next Z report would claim (the X report). */
export async function openDayRows(db: Queryable, terminalId: string): Promise<DayRows> {
  return {
    sessions: await db.query<DaySession>(select(OPEN.sessions, SESSION_COLUMNS), [terminalId]),
    payments: await db.query<DayPayment>(select(OPEN.payments, PAYMENT_COLUMNS), [terminalId]),
    giftCards: await db.query<{ amount: number }>(select(OPEN.giftCards, 'amount'), [terminalId]),
    tillSales: await db.query<DayTillSale>(select(OPEN.tillSales, TILL_COLUMNS), [terminalId]),
    shifts: await db.query<DayShift>(`${select(OPEN.shifts, SHIFT_COLUMNS)} ORDER BY s.closed_at, s.id`, [terminalId]),
    refunds: await db.query<DayRefund>(select(OPEN.refunds, REFUND_COLUMNS_WITH_SALE), [terminalId]),
    refundFailures: await db.query<DayRefundFailure>(select(OPEN.refundFailures, 'r.failed_amount'), [terminalId]),
  };
}

/**
 * Marks the open day's rows as the Z report `reportId`'s and answers them. Each UPDATE sees the
 * rows committed before it started: a sale whose transaction is still open keeps a NULL claim
 * when it commits, and the next report claims it (a row locked by a concurrent transaction that
 * matched is waited for, then re-checked, so nothing is claimed twice).
 */
export async function claimDayRows(tx: Queryable, terminalId: string, reportId: string): Promise<DayRows> {
  return {
    sessions: await tx.query<DaySession>(claim(OPEN.sessions, SESSION_COLUMNS), [terminalId, reportId]),
    payments: await tx.query<DayPayment>(claim(OPEN.payments, PAYMENT_COLUMNS), [terminalId, reportId]),
    giftCards: await tx.query<{ amount: number }>(claim(OPEN.giftCards, 'amount'), [terminalId, reportId]),
    tillSales: await tx.query<DayTillSale>(claim(OPEN.tillSales, TILL_COLUMNS), [terminalId, reportId]),
    shifts: (await tx.query<DayShift>(claim(OPEN.shifts, SHIFT_COLUMNS), [terminalId, reportId])).sort((a, b) => a.closed_at.getTime() - b.closed_at.getTime() || a.id.localeCompare(b.id)),
    // Failures of refunds earlier reports counted, claimed before this day's refunds (which this report claims next).
    refundFailures: await tx.query<DayRefundFailure>(claim(OPEN.refundFailures, 'r.failed_amount', 'failure_z_report_id'), [terminalId, reportId]),
    // A refund whose payout failed before its report counts without the failed part: that failure is counted here, once.
    refunds: await tx.query<DayRefund>(
      `UPDATE ${OPEN.refunds.table} SET z_report_id = $2, failure_z_report_id = CASE WHEN r.failed_amount > 0 THEN $2 ELSE r.failure_z_report_id END WHERE ${OPEN.refunds.where} RETURNING ${REFUND_COLUMNS_WITH_SALE}`,
      [terminalId, reportId],
    ),
  };
}

export async function oversoldProducts(db: Queryable, merchantId: string, mode: Mode) {
  return db.query<{ id: string; name: string; stock: number }>(
    `SELECT id, name, stock FROM products WHERE merchant_id = $1 AND mode = $2 AND track_stock AND stock < 0 ORDER BY name, id`,
    [merchantId, mode],
  );
}

export interface ReportRow {
  id: string;
  terminal_id: string;
  merchant_id: string;
  mode: Mode;
  number: number;
  opened_at: Date;
  closed_at: Date;
  report: unknown;
}

const REPORT_COLUMNS = 'id, terminal_id, merchant_id, mode, number, opened_at, closed_at, report';

/** The terminal's row locked (one Z report at a time), with when its open day began. */
export async function lockTerminalDay(tx: Queryable, terminalId: string): Promise<{ openedAt: Date; number: number } | undefined> {
  const [terminal] = await tx.query<{ created_at: Date }>('SELECT created_at FROM terminals WHERE id = $1 FOR UPDATE', [terminalId]);
  if (!terminal) return undefined;
  return openDay(tx, terminalId, terminal.created_at);
}

export async function openDay(db: Queryable, terminalId: string, createdAt?: Date): Promise<{ openedAt: Date; number: number }> {
  const [last] = await db.query<{ number: number; closed_at: Date }>('SELECT number, closed_at FROM terminal_reports WHERE terminal_id = $1 ORDER BY number DESC LIMIT 1', [terminalId]);
  if (last) return { openedAt: last.closed_at, number: last.number + 1 };
  const start = createdAt ?? (await db.query<{ created_at: Date }>('SELECT created_at FROM terminals WHERE id = $1', [terminalId]))[0]?.created_at ?? new Date(0);
  return { openedAt: start, number: 1 };
}

export async function insertReport(tx: Queryable, row: ReportRow): Promise<ReportRow> {
  const [inserted] = await tx.query<ReportRow>(
    `INSERT INTO terminal_reports (${REPORT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb) RETURNING ${REPORT_COLUMNS}`,
    [row.id, row.terminal_id, row.merchant_id, row.mode, row.number, row.opened_at, row.closed_at, JSON.stringify(row.report)],
  );
  return inserted!;
}

export async function findReport(db: Queryable, terminalId: string, id: string): Promise<ReportRow | undefined> {
  const [row] = await db.query<ReportRow>(`SELECT ${REPORT_COLUMNS} FROM terminal_reports WHERE id = $1 AND terminal_id = $2`, [id, terminalId]);
  return row;
}

export async function listReports(db: Queryable, terminalId: string, limit: number, offset: number): Promise<{ rows: ReportRow[]; total: number }> {
  const rows = await db.query<ReportRow>(`SELECT ${REPORT_COLUMNS} FROM terminal_reports WHERE terminal_id = $1 ORDER BY number DESC LIMIT $2 OFFSET $3`, [terminalId, limit, offset]);
  const [count] = await db.query<{ total: number }>('SELECT count(*)::int8 AS total FROM terminal_reports WHERE terminal_id = $1', [terminalId]);
  return { rows, total: Number(count?.total ?? 0) };
}

export async function findTerminal(db: Queryable, scope: { merchantId: string; mode: Mode }, terminalId: string) {
  const [row] = await db.query<{ id: string; created_at: Date }>('SELECT id, created_at FROM terminals WHERE id = $1 AND merchant_id = $2 AND mode = $3', [terminalId, scope.merchantId, scope.mode]);
  return row;
}

/** The names of the merchant's till staff by id (a day report names its cashiers). */
export async function staffNames(db: Queryable, merchantId: string, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.query<{ id: string; name: string }>('SELECT id, name FROM till_staff WHERE merchant_id = $1 AND id = ANY ($2::text[])', [merchantId, [...ids]]);
  return new Map(rows.map((row) => [row.id, row.name]));
}

/** The till sale that claimed this POS session as its wallet tender, if any (its refunds go through that sale). */
export async function tillSaleClaiming(db: Queryable, sessionId: string): Promise<string | undefined> {
  const [row] = await db.query<{ sale_id: string }>('SELECT sale_id::text FROM till_sale_tender_claims WHERE reference = $1', [sessionId]);
  return row?.sale_id;
}

/** The till sale an offline tap was taken to pay part of (a split tender offline), if it was. */
export async function paymentTenderOf(db: Queryable, paymentId: string): Promise<string | undefined> {
  const [row] = await db.query<{ tender_of: string | null }>('SELECT tender_of::text FROM offline_payments WHERE id = $1::uuid', [paymentId]);
  return row?.tender_of ?? undefined;
}

/** The till that recorded a till sale, if the sale is on the server (any merchant's: the caller compares). */
export async function tillSaleTerminal(db: Queryable, saleId: string): Promise<string | undefined> {
  const [row] = await db.query<{ terminal_id: string }>('SELECT terminal_id FROM till_sales WHERE id = $1::uuid', [saleId]);
  return row?.terminal_id;
}

/** The till sale a POS session was opened to pay part of (a split tender), if it was. */
export async function sessionTenderOf(db: Queryable, sessionId: string): Promise<string | undefined> {
  const [row] = await db.query<{ tender_of: string | null }>('SELECT tender_of::text FROM pos_sessions WHERE id = $1::uuid', [sessionId]);
  return row?.tender_of ?? undefined;
}

/** The wallet that paid an offline tap a till sale names as its offline_tap tender: only once the server accepted it. */
export async function offlineTapPayer(db: Queryable, paymentId: string): Promise<{ payer_wallet_id: string; payer_handle: string } | undefined> {
  const [row] = await db.query<{ payer_wallet_id: string; payer_handle: string }>(
    `SELECT payer_wallet_id, payer_handle FROM offline_payments WHERE id = $1::uuid AND status = 'accepted'`,
    [paymentId],
  );
  return row;
}

/** The wallet that paid a POS session (a split sale's wallet tender is refunded to it). */
export async function sessionPayer(db: Queryable, sessionId: string): Promise<{ payer_wallet_id: string; payer_handle: string } | undefined> {
  const [row] = await db.query<{ payer_wallet_id: string; payer_handle: string }>(
    `SELECT payer_wallet_id, payer_handle FROM pos_sessions WHERE id = $1::uuid AND status = 'completed'`,
    [sessionId],
  );
  return row;
}
