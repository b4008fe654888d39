import type { Queryable } from '../../db/database.ts';
import type { Mode } from '../../auth/secrets.ts';

/** A shift event as recorded (migration 034_till_staff_shifts.sql). */
export interface ShiftEventRow {
  id: string;
  terminal_id: string;
  merchant_id: string;
  mode: Mode;
  shift_id: string;
  kind: string;
  cashier_id: string;
  amount: number;
  currency: string;
  reason: string | null;
  approved_by: string | null;
  expected: number | null;
  captured_at: Date;
  received_at: Date;
  status: 'accepted' | 'declined';
  decline_code: string | null;
  decline_reason: string | null;
  settled_at: Date;
  server_seq: number;
}

/** A shift as its accepted events made it. */
export interface ShiftRow {
  id: string;
  terminal_id: string;
  merchant_id: string;
  mode: Mode;
  cashier_id: string;
  currency: string;
  opened_at: Date;
  float: number;
  paid_in: number;
  paid_out: number;
  no_sales: number;
  closed_at: Date | null;
  counted: number | null;
  expected: number | null;
  z_report_id: string | null;
}

const EVENT_COLUMNS =
  'id::text, terminal_id, merchant_id, mode, shift_id::text, kind, cashier_id, amount, currency, reason, approved_by, expected, captured_at, received_at, status, decline_code, decline_reason, settled_at, server_seq';
const SHIFT_COLUMNS = 'id::text, terminal_id, merchant_id, mode, cashier_id, currency, opened_at, float, paid_in, paid_out, no_sales, closed_at, counted, expected, z_report_id';

const eventRow = (row: ShiftEventRow): ShiftEventRow => ({ ...row, amount: Number(row.amount), expected: row.expected === null ? null : Number(row.expected), server_seq: Number(row.server_seq) });
export const shiftRow = (row: ShiftRow): ShiftRow => ({
  ...row,
  float: Number(row.float),
  paid_in: Number(row.paid_in),
  paid_out: Number(row.paid_out),
  no_sales: Number(row.no_sales),
  counted: row.counted === null ? null : Number(row.counted),
  expected: row.expected === null ? null : Number(row.expected),
});

export async function findShiftEvents(db: Queryable, ids: readonly string[]): Promise<ShiftEventRow[]> {
  return (await db.query<ShiftEventRow>(`SELECT ${EVENT_COLUMNS} FROM shift_events WHERE id = ANY ($1::uuid[])`, [ids])).map(eventRow);
}

export async function insertShiftEvent(tx: Queryable, row: ShiftEventRow): Promise<ShiftEventRow> {
  const [inserted] = await tx.query<ShiftEventRow>(
    `INSERT INTO shift_events (id, terminal_id, merchant_id, mode, shift_id, kind, cashier_id, amount, currency, reason, approved_by, expected, captured_at, received_at,
       status, decline_code, decline_reason, settled_at, server_seq)
     VALUES ($1, $2, $3, $4, $5::uuid, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19) RETURNING ${EVENT_COLUMNS}`,
    [
      row.id, row.terminal_id, row.merchant_id, row.mode, row.shift_id, row.kind, row.cashier_id, row.amount, row.currency, row.reason, row.approved_by, row.expected,
      row.captured_at, row.received_at, row.status, row.decline_code, row.decline_reason, row.settled_at, row.server_seq,
    ],
  );
  return eventRow(inserted!);
}

export async function terminalShiftEventsAfter(db: Queryable, terminalId: string, afterSeq: number, limit: number): Promise<ShiftEventRow[]> {
  const rows = await db.query<ShiftEventRow>(`SELECT ${EVENT_COLUMNS} FROM shift_events WHERE terminal_id = $1 AND server_seq > $2 ORDER BY server_seq LIMIT $3`, [terminalId, afterSeq, limit]);
  return rows.map(eventRow);
}

export async function eventsOfShift(db: Queryable, shiftId: string): Promise<ShiftEventRow[]> {
  const rows = await db.query<ShiftEventRow>(`SELECT ${EVENT_COLUMNS} FROM shift_events WHERE shift_id = $1::uuid ORDER BY captured_at, server_seq`, [shiftId]);
  return rows.map(eventRow);
}

/** The shift, locked until the caller's transaction ends (its events change it one at a time). */
export async function lockShift(tx: Queryable, id: string): Promise<ShiftRow | undefined> {
  const [row] = await tx.query<ShiftRow>(`SELECT ${SHIFT_COLUMNS} FROM till_shifts WHERE id = $1::uuid FOR UPDATE`, [id]);
  return row ? shiftRow(row) : undefined;
}

export async function insertShift(tx: Queryable, row: Omit<ShiftRow, 'paid_in' | 'paid_out' | 'no_sales' | 'closed_at' | 'counted' | 'expected' | 'z_report_id'>): Promise<void> {
  await tx.query(
    'INSERT INTO till_shifts (id, terminal_id, merchant_id, mode, cashier_id, currency, opened_at, float) VALUES ($1::uuid, $2, $3, $4, $5, $6, $7, $8)',
    [row.id, row.terminal_id, row.merchant_id, row.mode, row.cashier_id, row.currency, row.opened_at, row.float],
  );
}

/** One accepted event's effect on its shift. */
export async function applyShiftEvent(tx: Queryable, shiftId: string, event: { kind: string; amount: number; expected: number | null; at: Date }): Promise<void> {
  if (event.kind === 'paid_in') await tx.query('UPDATE till_shifts SET paid_in = paid_in + $2 WHERE id = $1::uuid', [shiftId, event.amount]);
  else if (event.kind === 'paid_out') await tx.query('UPDATE till_shifts SET paid_out = paid_out + $2 WHERE id = $1::uuid', [shiftId, event.amount]);
  else if (event.kind === 'no_sale') await tx.query('UPDATE till_shifts SET no_sales = no_sales + 1 WHERE id = $1::uuid', [shiftId]);
  else if (event.kind === 'close') await tx.query('UPDATE till_shifts SET closed_at = $2, counted = $3, expected = $4 WHERE id = $1::uuid', [shiftId, event.at, event.amount, event.expected]);
}

/** A shift with what the server adds: the till's name, the cashier's, and the cash its sales kept and its refunds gave back. */
export interface ShiftView extends ShiftRow {
  terminal_name: string;
  cashier_name: string | null;
  cash_sales: number;
  cash_refunds: number;
}

const VIEW = `SELECT s.id::text, s.terminal_id, s.merchant_id, s.mode, s.cashier_id, s.currency, s.opened_at, s.float, s.paid_in, s.paid_out, s.no_sales, s.closed_at,
    s.counted, s.expected, s.z_report_id, t.name AS terminal_name, st.name AS cashier_name,
    coalesce((SELECT sum(ts.cash_amount) FROM till_sales ts WHERE ts.shift_id = s.id::text AND ts.status = 'accepted'), 0) AS cash_sales,
    coalesce((SELECT sum(coalesce((SELECT sum((t->>'amount')::int8) FROM jsonb_array_elements(r.tenders) t WHERE t->>'kind' = 'cash'), r.amount))
      FROM sale_refunds r WHERE r.shift_id = s.id AND r.sale_kind = 'till_sale'), 0) AS cash_refunds
  FROM till_shifts s JOIN terminals t ON t.id = s.terminal_id LEFT JOIN till_staff st ON st.id = s.cashier_id AND st.merchant_id = s.merchant_id`;

const view = (row: ShiftView): ShiftView => ({ ...row, ...shiftRow(row), cash_sales: Number(row.cash_sales), cash_refunds: Number(row.cash_refunds) });

export async function findShiftView(db: Queryable, scope: { merchantId: string; mode: Mode; terminalId: string | null }, id: string): Promise<ShiftView | undefined> {
  const [row] = await db.query<ShiftView>(`${VIEW} WHERE s.id = $1::uuid AND s.merchant_id = $2 AND s.mode = $3 AND ($4::text IS NULL OR s.terminal_id = $4)`, [id, scope.merchantId, scope.mode, scope.terminalId]);
  return row ? view(row) : undefined;
}

export async function listShiftViews(
  db: Queryable,
  scope: { merchantId: string; mode: Mode },
  filter: { terminalId?: string | undefined; cashierId?: string | undefined; status?: 'open' | 'closed' | undefined; limit: number; offset: number },
): Promise<{ rows: ShiftView[]; total: number }> {
  const where = `s.merchant_id = $1 AND s.mode = $2 AND ($3::text IS NULL OR s.terminal_id = $3) AND ($4::text IS NULL OR s.cashier_id = $4)
    AND ($5::text IS NULL OR ($5 = 'open') = (s.closed_at IS NULL))`;
  const params = [scope.merchantId, scope.mode, filter.terminalId ?? null, filter.cashierId ?? null, filter.status ?? null];
  const rows = await db.query<ShiftView>(`${VIEW} WHERE ${where} ORDER BY s.opened_at DESC, s.id LIMIT $6 OFFSET $7`, [...params, filter.limit, filter.offset]);
  const [count] = await db.query<{ total: number }>(`SELECT count(*)::int8 AS total FROM till_shifts s WHERE ${where}`, params);
  return { rows: rows.map(view), total: Number(count?.total ?? 0) };
}
