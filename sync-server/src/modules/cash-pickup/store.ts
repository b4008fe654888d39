// The cash_pickups table (migration 051): payments on the cash_pickup rail waiting at Tapline's
// agent network for their recipient. Rows in, rows out; the rules are in service.ts.
import type { Mode } from '../../auth/secrets.ts';
import type { Queryable } from '../../db/database.ts';

export interface CashPickupRow {
  id: string;
  payment_id: string;
  mode: Mode;
  amount: number;
  currency: string;
  country: string;
  phone: string;
  code_hash: string | null;
  code_issued_at: Date | null;
  failed_attempts: number;
  locked_until: Date | null;
  status: 'active' | 'paid' | 'expired';
  created_at: Date;
  expires_at: Date;
  ended_at: Date | null;
  agent_id: string | null;
  commission: number;
}

const COLUMNS = `id, payment_id, mode, amount::int8 AS amount, currency, country, phone, code_hash, code_issued_at, failed_attempts,
  locked_until, status, created_at, expires_at, ended_at, agent_id, commission::int8 AS commission`;
const parsed = (row: CashPickupRow): CashPickupRow => ({ ...row, amount: Number(row.amount), commission: Number(row.commission) });

/** Records a pickup once per payment; a repeated submit keeps the first row (and its expiry). */
export async function insertCashPickup(db: Queryable, row: Pick<CashPickupRow, 'id' | 'payment_id' | 'mode' | 'amount' | 'currency' | 'country' | 'phone' | 'created_at' | 'expires_at'>): Promise<CashPickupRow> {
  await db.query(
    `INSERT INTO cash_pickups (id, payment_id, mode, amount, currency, country, phone, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (payment_id) DO NOTHING`,
    [row.id, row.payment_id, row.mode, row.amount, row.currency, row.country, row.phone, row.created_at, row.expires_at],
  );
  return (await findPickupOfPayment(db, row.payment_id))!;
}

export async function findPickupOfPayment(db: Queryable, paymentId: string): Promise<CashPickupRow | undefined> {
  const [row] = await db.query<CashPickupRow>(`SELECT ${COLUMNS} FROM cash_pickups WHERE payment_id = $1`, [paymentId]);
  return row ? parsed(row) : undefined;
}

/** A new code for an active pickup (the last one stops working; the wrong-code count starts again). */
export async function setPickupCode(db: Queryable, id: string, codeHash: string, at: Date): Promise<CashPickupRow | undefined> {
  const [row] = await db.query<CashPickupRow>(
    `UPDATE cash_pickups SET code_hash = $2, code_issued_at = $3, failed_attempts = 0, locked_until = NULL
     WHERE id = $1 AND status = 'active' AND expires_at > $3 RETURNING ${COLUMNS}`,
    [id, codeHash, at],
  );
  return row ? parsed(row) : undefined;
}

/**
 * One attempt at the codes of a phone's active pickups in a mode and country, counted before the
 * code is checked (so parallel guesses cannot outrun the count): the pickups with a code, each
 * with its count after this attempt; a locked one keeps its count.
 */
export async function reservePickupAttempt(db: Queryable, phone: string, mode: Mode, country: string, now: Date): Promise<CashPickupRow[]> {
  const rows = await db.query<CashPickupRow>(
    `UPDATE cash_pickups SET failed_attempts = CASE WHEN locked_until IS NOT NULL AND locked_until > $4 THEN failed_attempts ELSE failed_attempts + 1 END
     WHERE phone = $1 AND mode = $2 AND country = $3 AND status = 'active' AND code_hash IS NOT NULL
     RETURNING ${COLUMNS}`,
    [phone, mode, country, now],
  );
  return rows.map(parsed);
}

/** The attempt was right: the phone's pickups count from zero again. */
export async function clearPickupAttempts(db: Queryable, ids: readonly string[]): Promise<void> {
  await db.query('UPDATE cash_pickups SET failed_attempts = 0, locked_until = NULL WHERE id = ANY ($1::text[])', [ids]);
}

/** Too many wrong codes: these pickups refuse codes until `until`. */
export async function lockPickups(db: Queryable, ids: readonly string[], until: Date): Promise<void> {
  await db.query('UPDATE cash_pickups SET failed_attempts = 0, locked_until = $2 WHERE id = ANY ($1::text[])', [ids, until]);
}

/** Paid by an agent: only an active, unexpired pickup; undefined otherwise (expired or paid meanwhile). */
export async function markPickupPaid(tx: Queryable, id: string, agentId: string, commission: number, at: Date): Promise<CashPickupRow | undefined> {
  const [row] = await tx.query<CashPickupRow>(
    `UPDATE cash_pickups SET status = 'paid', ended_at = $3, agent_id = $2, commission = $4
     WHERE id = $1 AND status = 'active' AND expires_at > $3 RETURNING ${COLUMNS}`,
    [id, agentId, at, commission],
  );
  return row ? parsed(row) : undefined;
}

/** Not collected in time: an active pickup past its expiry ends; undefined when it was not (paid, or not yet due). */
export async function markPickupExpired(db: Queryable, id: string, at: Date): Promise<CashPickupRow | undefined> {
  const [row] = await db.query<CashPickupRow>(
    `UPDATE cash_pickups SET status = 'expired', ended_at = $2 WHERE id = $1 AND status = 'active' AND expires_at <= $2 RETURNING ${COLUMNS}`,
    [id, at],
  );
  return row ? parsed(row) : undefined;
}
