// The wallet_cash_out_codes table (migration 046): one-time codes a holder makes for a cash-out at an agent.
import type { Mode } from '../../auth/secrets.ts';
import type { Queryable } from '../../db/database.ts';

export interface CashOutCodeRow {
  id: string;
  wallet_id: string;
  mode: Mode;
  amount: number;
  currency: string;
  code_hash: string;
  status: 'active' | 'used' | 'cancelled';
  created_at: Date;
  expires_at: Date;
  ended_at: Date | null;
  operation_id: string | null;
}

const COLUMNS = 'id, wallet_id, mode, amount::int8 AS amount, currency, code_hash, status, created_at, expires_at, ended_at, operation_id';
const parsed = (row: CashOutCodeRow): CashOutCodeRow => ({ ...row, amount: Number(row.amount) });

/** Cancels the wallet's active code (a new one replaces it), then records the new one. */
export async function replaceCashOutCode(tx: Queryable, row: Omit<CashOutCodeRow, 'status' | 'ended_at' | 'operation_id'>): Promise<void> {
  await tx.query(`UPDATE wallet_cash_out_codes SET status = 'cancelled', ended_at = $2 WHERE wallet_id = $1 AND status = 'active'`, [row.wallet_id, row.created_at]);
  await tx.query(
    `INSERT INTO wallet_cash_out_codes (id, wallet_id, mode, amount, currency, code_hash, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [row.id, row.wallet_id, row.mode, row.amount, row.currency, row.code_hash, row.created_at, row.expires_at],
  );
}

export async function findCashOutCode(db: Queryable, id: string): Promise<CashOutCodeRow | undefined> {
  const [row] = await db.query<CashOutCodeRow>(`SELECT ${COLUMNS} FROM wallet_cash_out_codes WHERE id = $1`, [id]);
  return row ? parsed(row) : undefined;
}

/** The wallet's active code, when it has one. */
export async function activeCashOutCode(db: Queryable, walletId: string): Promise<CashOutCodeRow | undefined> {
  const [row] = await db.query<CashOutCodeRow>(`SELECT ${COLUMNS} FROM wallet_cash_out_codes WHERE wallet_id = $1 AND status = 'active'`, [walletId]);
  return row ? parsed(row) : undefined;
}

export async function listCashOutCodes(db: Queryable, walletId: string, mode: Mode, limit: number, offset: number): Promise<{ rows: CashOutCodeRow[]; total: number }> {
  const rows = await db.query<CashOutCodeRow>(`SELECT ${COLUMNS} FROM wallet_cash_out_codes WHERE wallet_id = $1 AND mode = $2 ORDER BY created_at DESC, (status = 'active') DESC, id DESC LIMIT $3 OFFSET $4`, [walletId, mode, limit, offset]);
  const [count] = await db.query<{ total: number }>('SELECT count(*)::int8 AS total FROM wallet_cash_out_codes WHERE wallet_id = $1 AND mode = $2', [walletId, mode]);
  return { rows: rows.map(parsed), total: Number(count?.total ?? 0) };
}

/** Ends an active code (used by an operation, or cancelled by its holder); undefined when it was no longer active. */
export async function endCashOutCode(tx: Queryable, id: string, status: 'used' | 'cancelled', at: Date, operationId: string | null): Promise<CashOutCodeRow | undefined> {
  const [row] = await tx.query<CashOutCodeRow>(
    `UPDATE wallet_cash_out_codes SET status = $2, ended_at = $3, operation_id = $4 WHERE id = $1 AND status = 'active' RETURNING ${COLUMNS}`,
    [id, status, at, operationId],
  );
  return row ? parsed(row) : undefined;
}
