import type { Queryable } from '../../db/database.ts';
import type { Mode } from '../../auth/secrets.ts';
import type { PayrollItemStatus, PayrollRunStatus } from '@tapline/shared/schemas';
import type { Receiver } from '../payments/index.ts';

export interface PayrollRunRow {
  id: string;
  merchant_id: string;
  mode: Mode;
  merchant_wallet_id: string;
  currency: string;
  description: string | null;
  reference: string | null;
  status: PayrollRunStatus;
  submitted_at: Date | null;
  ended_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** A run with its items' totals (integer minor units), as every read answers it. */
export interface PayrollRunSummary extends PayrollRunRow {
  item_count: number;
  total_amount: number;
  paid_amount: number;
  pending_count: number;
  paid_count: number;
  failed_count: number;
}

export interface PayrollItemRow {
  id: string;
  run_id: string;
  /** Integer minor units of the run's currency. */
  amount: number;
  handle: string | null;
  recipient_wallet_id: string | null;
  rail: string | null;
  receiver: Receiver | null;
  to_country: string | null;
  receiver_name: string | null;
  reference: string | null;
  external_ref: string | null;
  status: PayrollItemStatus;
  failure_reason: string | null;
  transfer_id: string | null;
  payment_id: string | null;
  created_at: Date;
  updated_at: Date;
}

/** What a caller may see: its merchant's runs in its mode (others are 404). */
export interface PayrollScope {
  merchantId: string;
  mode: Mode;
}

export type NewPayrollItem = Pick<PayrollItemRow, 'id' | 'amount' | 'handle' | 'recipient_wallet_id' | 'rail' | 'receiver' | 'to_country' | 'receiver_name' | 'reference' | 'external_ref'>;

const RUN_COLUMNS = 'r.id, r.merchant_id, r.mode, r.merchant_wallet_id, r.currency, r.description, r.reference, r.status, r.submitted_at, r.ended_at, r.created_at, r.updated_at';
const ITEM_COLUMNS =
  'id, run_id, amount, handle, recipient_wallet_id, rail, receiver, to_country, receiver_name, reference, external_ref, status, failure_reason, transfer_id, payment_id, created_at, updated_at';

/** The run's columns and its totals, computed from its items in the same statement. */
const SUMMARY_SELECT = `SELECT ${RUN_COLUMNS},
    coalesce(t.item_count, 0)::int8 AS item_count, coalesce(t.total_amount, 0)::int8 AS total_amount,
    coalesce(t.paid_amount, 0)::int8 AS paid_amount, coalesce(t.pending_count, 0)::int8 AS pending_count,
    coalesce(t.paid_count, 0)::int8 AS paid_count, coalesce(t.failed_count, 0)::int8 AS failed_count
  FROM payroll_runs r LEFT JOIN LATERAL (
    SELECT count(*) AS item_count, sum(i.amount) AS total_amount,
      sum(i.amount) FILTER (WHERE i.status = 'paid') AS paid_amount,
      count(*) FILTER (WHERE i.status = 'pending') AS pending_count,
      count(*) FILTER (WHERE i.status = 'paid') AS paid_count,
      count(*) FILTER (WHERE i.status = 'failed') AS failed_count
    FROM payroll_items i WHERE i.run_id = r.id) t ON true`;

export async function insertRun(
  tx: Queryable,
  run: Pick<PayrollRunRow, 'id' | 'merchant_id' | 'mode' | 'merchant_wallet_id' | 'currency' | 'description' | 'reference' | 'created_at'>,
): Promise<boolean> {
  const rows = await tx.query(
    `INSERT INTO payroll_runs (id, merchant_id, mode, merchant_wallet_id, currency, description, reference, status, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 'draft', $8, $8) ON CONFLICT (id) DO NOTHING RETURNING id`,
    [run.id, run.merchant_id, run.mode, run.merchant_wallet_id, run.currency, run.description, run.reference, run.created_at],
  );
  return rows.length > 0;
}

export async function findRun(db: Queryable, id: string, scope: PayrollScope): Promise<PayrollRunSummary | undefined> {
  const [row] = await db.query<PayrollRunSummary>(`${SUMMARY_SELECT} WHERE r.id = $1 AND r.merchant_id = $2 AND r.mode = $3`, [id, scope.merchantId, scope.mode]);
  return row;
}

/** The run row, locked until the end of the caller's transaction: item edits, submit and cancel queue on it. */
export async function lockRun(tx: Queryable, id: string, scope?: PayrollScope): Promise<PayrollRunRow | undefined> {
  const [row] = await tx.query<PayrollRunRow>(
    `SELECT ${RUN_COLUMNS} FROM payroll_runs r WHERE r.id = $1 AND ($2::text IS NULL OR (r.merchant_id = $2::text AND r.mode = $3::text)) FOR UPDATE`,
    [id, scope?.merchantId ?? null, scope?.mode ?? null],
  );
  return row;
}

export async function setRunStatus(tx: Queryable, id: string, status: PayrollRunStatus, at: Date): Promise<void> {
  await tx.query(
    `UPDATE payroll_runs SET status = $2, updated_at = $3,
       submitted_at = CASE WHEN $2 = 'processing' THEN $3 ELSE submitted_at END,
       ended_at = CASE WHEN $2 IN ('completed', 'partially_failed', 'failed', 'cancelled') THEN $3 ELSE ended_at END
     WHERE id = $1`,
    [id, status, at],
  );
}

export async function listRuns(db: Queryable, scope: PayrollScope, status: string | undefined, limit: number, offset: number): Promise<{ rows: PayrollRunSummary[]; total: number }> {
  const where = 'r.merchant_id = $1 AND r.mode = $2 AND ($3::text IS NULL OR r.status = $3::text)';
  const rows = await db.query<PayrollRunSummary>(`${SUMMARY_SELECT} WHERE ${where} ORDER BY r.created_at DESC, r.id LIMIT $4 OFFSET $5`, [
    scope.merchantId, scope.mode, status ?? null, limit, offset,
  ]);
  const [count] = await db.query<{ total: number }>(`SELECT count(*)::int8 AS total FROM payroll_runs r WHERE ${where}`, [scope.merchantId, scope.mode, status ?? null]);
  return { rows, total: count?.total ?? 0 };
}

export async function countItems(tx: Queryable, runId: string): Promise<number> {
  const [row] = await tx.query<{ count: number }>('SELECT count(*)::int8 AS count FROM payroll_items WHERE run_id = $1', [runId]);
  return row?.count ?? 0;
}

/**
 * Inserts items in one statement, in order. An item whose externalRef the run has already (or
 * an earlier item of the same batch has) is left out: the answer lists the ids inserted.
 */
export async function insertItems(tx: Queryable, runId: string, items: readonly NewPayrollItem[], at: Date): Promise<Set<string>> {
  if (items.length === 0) return new Set();
  const column = <K extends keyof NewPayrollItem>(key: K) => items.map((item) => item[key]);
  const rows = await tx.query<{ id: string }>(
    `INSERT INTO payroll_items (id, run_id, amount, handle, recipient_wallet_id, rail, receiver, to_country, receiver_name, reference, external_ref, status, created_at, updated_at)
     SELECT i.id, $1, i.amount, i.handle, i.recipient_wallet_id, i.rail, i.receiver, i.to_country, i.receiver_name, i.reference, i.external_ref, 'pending', $2, $2
     FROM unnest($3::text[], $4::int8[], $5::text[], $6::text[], $7::text[], $8::jsonb[], $9::text[], $10::text[], $11::text[], $12::text[]) WITH ORDINALITY
       AS i (id, amount, handle, recipient_wallet_id, rail, receiver, to_country, receiver_name, reference, external_ref, position)
     ORDER BY i.position
     ON CONFLICT (run_id, external_ref) WHERE external_ref IS NOT NULL DO NOTHING
     RETURNING id`,
    [
      runId, at, column('id'), column('amount'), column('handle'), column('recipient_wallet_id'), column('rail'),
      items.map((item) => (item.receiver ? JSON.stringify(item.receiver) : null)), column('to_country'), column('receiver_name'), column('reference'), column('external_ref'),
    ],
  );
  return new Set(rows.map((row) => row.id));
}

export async function findItem(db: Queryable, id: string, scope: PayrollScope): Promise<PayrollItemRow | undefined> {
  const [row] = await db.query<PayrollItemRow>(
    `SELECT ${ITEM_COLUMNS} FROM payroll_items WHERE id = $1 AND run_id IN (SELECT id FROM payroll_runs WHERE merchant_id = $2 AND mode = $3)`,
    [id, scope.merchantId, scope.mode],
  );
  return row;
}

export async function deleteItem(tx: Queryable, id: string): Promise<void> {
  await tx.query('DELETE FROM payroll_items WHERE id = $1', [id]);
}

/** Every item of a run, in the order they were added (at most PAYROLL_ITEMS_MAX). */
export async function runItems(db: Queryable, runId: string): Promise<PayrollItemRow[]> {
  return db.query<PayrollItemRow>(`SELECT ${ITEM_COLUMNS} FROM payroll_items WHERE run_id = $1 ORDER BY seq`, [runId]);
}

export async function listItems(db: Queryable, runId: string, status: string | undefined, limit: number, offset: number): Promise<{ rows: PayrollItemRow[]; total: number }> {
  const rows = await db.query<PayrollItemRow>(
    `SELECT ${ITEM_COLUMNS} FROM payroll_items WHERE run_id = $1 AND ($2::text IS NULL OR status = $2::text) ORDER BY seq LIMIT $3 OFFSET $4`,
    [runId, status ?? null, limit, offset],
  );
  const [count] = await db.query<{ total: number }>('SELECT count(*)::int8 AS total FROM payroll_items WHERE run_id = $1 AND ($2::text IS NULL OR status = $2::text)', [runId, status ?? null]);
  return { rows, total: count?.total ?? 0 };
}

export async function markItemsPaid(tx: Queryable, ids: readonly string[], transferId: string | null, at: Date): Promise<void> {
  if (ids.length === 0) return;
  await tx.query("UPDATE payroll_items SET status = 'paid', transfer_id = coalesce($2, transfer_id), updated_at = $3 WHERE id = ANY ($1::text[])", [ids, transferId, at]);
}

export async function markItemFailed(tx: Queryable, id: string, reason: string, at: Date): Promise<PayrollItemRow> {
  const [row] = await tx.query<PayrollItemRow>(`UPDATE payroll_items SET status = 'failed', failure_reason = $2, updated_at = $3 WHERE id = $1 RETURNING ${ITEM_COLUMNS}`, [id, reason, at]);
  return row!;
}

export async function setItemPayment(tx: Queryable, id: string, paymentId: string, at: Date): Promise<void> {
  await tx.query('UPDATE payroll_items SET payment_id = $2, updated_at = $3 WHERE id = $1', [id, paymentId, at]);
}

export async function itemsOfPayments(tx: Queryable, paymentIds: readonly string[]): Promise<PayrollItemRow[]> {
  return tx.query<PayrollItemRow>(`SELECT ${ITEM_COLUMNS} FROM payroll_items WHERE payment_id = ANY ($1::text[])`, [paymentIds]);
}

export async function pendingItemCount(tx: Queryable, runId: string): Promise<number> {
  const [row] = await tx.query<{ count: number }>("SELECT count(*)::int8 AS count FROM payroll_items WHERE run_id = $1 AND status = 'pending'", [runId]);
  return row?.count ?? 0;
}
