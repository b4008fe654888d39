import type { Queryable } from '../../db/database.ts';
import type { Mode } from '../../auth/secrets.ts';
import type { BillType } from './catalogue.ts';
import type { BillResult } from './providers.ts';

/** The only file of the module with SQL. */

export interface BillRow {
  id: string;
  merchant_id: string;
  mode: Mode;
  bill_type: BillType;
  biller_id: string;
  account_ref: string;
  amount: number;
  currency: string;
  fee: number;
  status: 'pending' | 'completed' | 'failed';
  plan_code: string | null;
  token: string | null;
  units: string | null;
  customer_name: string | null;
  reference: string | null;
  failure_reason: string | null;
  provider: string | null;
  provider_reference: string | null;
  wallet_id: string;
  created_at: Date;
  updated_at: Date;
}

/** Undefined when the id exists already (a re-run of the same request). */
export async function insertBill(tx: Queryable, row: Omit<BillRow, 'updated_at'>): Promise<BillRow | undefined> {
  const [inserted] = await tx.query<BillRow>(
    `INSERT INTO bill_payments (id, merchant_id, mode, bill_type, biller_id, account_ref, amount, currency, fee, status, plan_code, token, units,
       customer_name, reference, failure_reason, provider, provider_reference, wallet_id, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $20)
     ON CONFLICT (id) DO NOTHING RETURNING *`,
    [
      row.id, row.merchant_id, row.mode, row.bill_type, row.biller_id, row.account_ref, row.amount, row.currency, row.fee, row.status, row.plan_code,
      row.token, row.units, row.customer_name, row.reference, row.failure_reason, row.provider, row.provider_reference, row.wallet_id, row.created_at,
    ],
  );
  return inserted;
}

export async function findBill(db: Queryable, id: string): Promise<BillRow | undefined> {
  const [row] = await db.query<BillRow>('SELECT * FROM bill_payments WHERE id = $1', [id]);
  return row;
}

export async function lockBill(tx: Queryable, id: string): Promise<BillRow | undefined> {
  const [row] = await tx.query<BillRow>('SELECT * FROM bill_payments WHERE id = $1 FOR UPDATE', [id]);
  return row;
}

/** The biller's answer on a pending bill. */
export async function recordBillResult(tx: Queryable, id: string, result: BillResult, now: Date): Promise<BillRow> {
  const [row] = await tx.query<BillRow>(
    `UPDATE bill_payments SET status = $2, token = $3, units = $4, customer_name = $5, provider_reference = $6, failure_reason = $7, updated_at = $8
     WHERE id = $1 RETURNING *`,
    [id, result.status, result.token ?? null, result.units ?? null, result.customerName ?? null, result.providerReference, result.failureReason ?? null, now],
  );
  return row!;
}

/** Our live bills paid through one provider created in [from, to): what the daily reconciliation reads (migration 057's index). */
export async function listProviderBillsCreated(db: Queryable, provider: string, from: Date, to: Date): Promise<BillRow[]> {
  const rows = await db.query<BillRow>(
    `SELECT * FROM bill_payments WHERE provider = $1 AND mode = 'live' AND created_at >= $2 AND created_at < $3 ORDER BY created_at, id`,
    [provider, from, to],
  );
  return rows.map((row) => ({ ...row, amount: Number(row.amount), fee: Number(row.fee) }));
}

/** GET /api/bills/payments: one page of the merchant's bills in a mode, newest first, and how many match. */
export async function listBills(
  db: Queryable,
  owner: { merchantId: string; mode: Mode },
  filter: { status?: string | undefined; billType?: string | undefined },
  limit: number,
  offset: number,
): Promise<{ rows: BillRow[]; total: number }> {
  const where = 'merchant_id = $1 AND mode = $2 AND ($3::text IS NULL OR status = $3::text) AND ($4::text IS NULL OR bill_type = $4::text)';
  const params = [owner.merchantId, owner.mode, filter.status ?? null, filter.billType ?? null];
  const rows = await db.query<BillRow>(`SELECT * FROM bill_payments WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $5 OFFSET $6`, [...params, limit, offset]);
  const [count] = await db.query<{ total: number }>(`SELECT count(*)::int8 AS total FROM bill_payments WHERE ${where}`, params);
  return { rows, total: Number(count?.total ?? 0) };
}
