import type { Queryable } from '../../db/database.ts';

/** A member of the merchant's till staff (migration 034_till_staff_shifts.sql). */
export interface StaffRow {
  id: string;
  merchant_id: string;
  name: string;
  role: 'cashier' | 'manager';
  active: boolean;
  pin_verifier: string;
  created_at: Date;
  updated_at: Date;
  removed_at: Date | null;
  server_seq: number;
}

const COLUMNS = 'id, merchant_id, name, role, active, pin_verifier, created_at, updated_at, removed_at, server_seq';
const normalize = (row: StaffRow): StaffRow => ({ ...row, server_seq: Number(row.server_seq) });

/**
 * The merchant's next change number for its staff, under the merchant's row lock: two changes
 * of one merchant's staff take numbers one after the other and commit in that order, so a pull
 * never skips a change that commits later.
 */
async function nextSeq(tx: Queryable, merchantId: string): Promise<number> {
  await tx.query('SELECT id FROM merchants WHERE id = $1 FOR UPDATE', [merchantId]);
  const [row] = await tx.query<{ seq: number }>('SELECT coalesce(max(server_seq), 0) + 1 AS seq FROM till_staff WHERE merchant_id = $1', [merchantId]);
  return Number(row!.seq);
}

export async function insertStaff(tx: Queryable, row: Pick<StaffRow, 'id' | 'merchant_id' | 'name' | 'role' | 'pin_verifier'>, now: Date): Promise<StaffRow> {
  const seq = await nextSeq(tx, row.merchant_id);
  const [inserted] = await tx.query<StaffRow>(
    `INSERT INTO till_staff (id, merchant_id, name, role, active, pin_verifier, created_at, updated_at, server_seq)
     VALUES ($1, $2, $3, $4, true, $5, $6, $6, $7) RETURNING ${COLUMNS}`,
    [row.id, row.merchant_id, row.name, row.role, row.pin_verifier, now, seq],
  );
  return normalize(inserted!);
}

export interface StaffChange {
  name?: string | undefined;
  role?: 'cashier' | 'manager' | undefined;
  active?: boolean | undefined;
  pin_verifier?: string | undefined;
  removed?: boolean;
}

/** Changes a member (not a removed one) and gives the change the merchant's next number. */
export async function updateStaff(tx: Queryable, merchantId: string, id: string, change: StaffChange, now: Date): Promise<StaffRow | undefined> {
  const seq = await nextSeq(tx, merchantId);
  const [row] = await tx.query<StaffRow>(
    `UPDATE till_staff SET name = coalesce($3, name), role = coalesce($4, role), active = coalesce($5, active), pin_verifier = coalesce($6, pin_verifier),
       removed_at = CASE WHEN $7 THEN $8 ELSE removed_at END, updated_at = $8, server_seq = $9
     WHERE id = $1 AND merchant_id = $2 AND removed_at IS NULL RETURNING ${COLUMNS}`,
    [id, merchantId, change.name ?? null, change.role ?? null, change.active ?? null, change.pin_verifier ?? null, change.removed ?? false, now, seq],
  );
  return row ? normalize(row) : undefined;
}

export async function findStaff(db: Queryable, merchantId: string, id: string): Promise<StaffRow | undefined> {
  const [row] = await db.query<StaffRow>(`SELECT ${COLUMNS} FROM till_staff WHERE id = $1 AND merchant_id = $2`, [id, merchantId]);
  return row ? normalize(row) : undefined;
}

export async function staffByIds(db: Queryable, merchantId: string, ids: readonly string[]): Promise<Map<string, StaffRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db.query<StaffRow>(`SELECT ${COLUMNS} FROM till_staff WHERE merchant_id = $1 AND id = ANY ($2::text[])`, [merchantId, [...new Set(ids)]]);
  return new Map(rows.map((row) => [row.id, normalize(row)]));
}

export async function listStaff(db: Queryable, merchantId: string, options: { includeRemoved: boolean; limit: number; offset: number }): Promise<{ rows: StaffRow[]; total: number }> {
  const where = `merchant_id = $1${options.includeRemoved ? '' : ' AND removed_at IS NULL'}`;
  const rows = await db.query<StaffRow>(`SELECT ${COLUMNS} FROM till_staff WHERE ${where} ORDER BY lower(name), id LIMIT $2 OFFSET $3`, [merchantId, options.limit, options.offset]);
  const [count] = await db.query<{ total: number }>(`SELECT count(*)::int8 AS total FROM till_staff WHERE ${where}`, [merchantId]);
  return { rows: rows.map(normalize), total: Number(count?.total ?? 0) };
}

/** The replica's pull: the merchant's staff changed after `afterSeq`, removed ones included (as deletions). */
export async function staffAfter(db: Queryable, merchantId: string, afterSeq: number, limit: number): Promise<StaffRow[]> {
  const rows = await db.query<StaffRow>(`SELECT ${COLUMNS} FROM till_staff WHERE merchant_id = $1 AND server_seq > $2 ORDER BY server_seq LIMIT $3`, [merchantId, afterSeq, limit]);
  return rows.map(normalize);
}

/**
 * The ids among `ids` that name one of the merchant's people: a member of its till staff (removed
 * ones too: a kiosk that has not yet heard of a removal still names them) or a user of its
 * dashboard. Another merchant's people are unknown here.
 */
export async function knownCashierIds(db: Queryable, merchantId: string, ids: readonly string[]): Promise<Set<string>> {
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return new Set();
  const rows = await db.query<{ id: string }>(
    `SELECT id FROM till_staff WHERE merchant_id = $1 AND id = ANY ($2::text[])
     UNION SELECT id FROM merchant_users WHERE merchant_id = $1 AND id = ANY ($2::text[])`,
    [merchantId, wanted],
  );
  return new Set(rows.map((row) => row.id));
}
