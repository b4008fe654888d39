import type { Queryable } from '../../db/database.ts';
import type { Mode } from '../../auth/secrets.ts';

/** The only file of the module with SQL. */

export interface LinkRow {
  id: string;
  merchant_id: string;
  mode: Mode;
  amount: number | null;
  min_amount: number | null;
  max_amount: number | null;
  currency: string;
  description: string | null;
  reference: string | null;
  single_use: boolean;
  expires_at: Date | null;
  active: boolean;
  payment_count: number;
  amount_collected: number;
  deactivated_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export type NewLink = Omit<LinkRow, 'active' | 'payment_count' | 'amount_collected' | 'deactivated_at' | 'updated_at'>;

/** A re-run with the same id (Idempotency-Key) answers the link it made. */
export async function insertLink(db: Queryable, link: NewLink): Promise<LinkRow> {
  const [row] = await db.query<LinkRow>(
    `INSERT INTO payment_links (id, merchant_id, mode, amount, min_amount, max_amount, currency, description, reference, single_use, expires_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12)
     ON CONFLICT (id) DO UPDATE SET id = payment_links.id
     RETURNING *`,
    [link.id, link.merchant_id, link.mode, link.amount, link.min_amount, link.max_amount, link.currency, link.description, link.reference, link.single_use, link.expires_at, link.created_at],
  );
  return row!;
}

export async function findLink(db: Queryable, id: string): Promise<LinkRow | undefined> {
  const [row] = await db.query<LinkRow>('SELECT * FROM payment_links WHERE id = $1', [id]);
  return row;
}

export async function listLinks(db: Queryable, merchantId: string, mode: Mode, active: boolean | undefined, limit: number, offset: number): Promise<{ rows: LinkRow[]; total: number }> {
  const params: unknown[] = [merchantId, mode];
  let where = 'merchant_id = $1 AND mode = $2';
  if (active !== undefined) {
    params.push(active);
    where += ` AND active = $${params.length}`;
  }
  const rows = await db.query<LinkRow>(`SELECT * FROM payment_links WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`, [
    ...(params as (string | boolean)[]),
    limit,
    offset,
  ]);
  const [count] = await db.query<{ total: number }>(`SELECT count(*)::int8 AS total FROM payment_links WHERE ${where}`, params as (string | boolean)[]);
  return { rows, total: count?.total ?? 0 };
}

export async function deactivateLink(db: Queryable, id: string, merchantId: string, mode: Mode, now: Date): Promise<LinkRow | undefined> {
  const [row] = await db.query<LinkRow>(
    `UPDATE payment_links SET active = false, deactivated_at = coalesce(deactivated_at, $4), updated_at = $4
     WHERE id = $1 AND merchant_id = $2 AND mode = $3 RETURNING *`,
    [id, merchantId, mode, now],
  );
  return row;
}

/**
 * Counts one payment of `amount` on the link if it can still be paid at `now` (active, not
 * expired, a single-use link not paid yet); undefined when it cannot. One statement, so two
 * payers of a single-use link cannot both claim it.
 */
export async function claimLinkPayment(tx: Queryable, linkId: string, amount: number, now: Date): Promise<LinkRow | undefined> {
  const [row] = await tx.query<LinkRow>(
    `UPDATE payment_links SET payment_count = payment_count + 1, amount_collected = amount_collected + $2, updated_at = $3
     WHERE id = $1 AND active AND (expires_at IS NULL OR expires_at > $3) AND (NOT single_use OR payment_count = 0)
     RETURNING *`,
    [linkId, amount, now],
  );
  return row;
}
