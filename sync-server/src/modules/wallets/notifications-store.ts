// A holder's in-app notifications (wallet_notifications, GET /api/wallet/notifications): written by
// whichever module has news for her (a top-up, a withdrawal, a tier change, an agent's cash-in, a
// product back in stock) through these functions only, so the table has one writer.
import type { Queryable } from '../../db/database.ts';
import { type Mode, newId } from '../../auth/secrets.ts';

export interface NotificationRow {
  id: string;
  wallet_id: string;
  mode: Mode;
  kind: string;
  title: string;
  body: string;
  data: Record<string, unknown>;
  created_at: Date;
  read_at: Date | null;
}

/** One notification, in the caller's transaction (with the change it tells of). */
export async function insertWalletNotification(
  tx: Queryable,
  fields: { walletId: string; mode: Mode; kind: string; title: string; body: string; data: Record<string, unknown>; at: Date },
): Promise<void> {
  await tx.query('INSERT INTO wallet_notifications (id, wallet_id, mode, kind, title, body, data, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8)', [
    newId('ntf'),
    fields.walletId,
    fields.mode,
    fields.kind,
    fields.title,
    fields.body,
    JSON.stringify(fields.data),
    fields.at,
  ]);
}

/** Many at once (a product back in stock tells every holder who asked), in one statement. */
export async function insertWalletNotifications(tx: Queryable, rows: readonly Omit<NotificationRow, 'read_at'>[]): Promise<void> {
  if (rows.length === 0) return;
  await tx.query(
    `INSERT INTO wallet_notifications (id, wallet_id, mode, kind, title, body, data, created_at)
     SELECT * FROM jsonb_to_recordset($1::jsonb) AS r (id text, wallet_id text, mode text, kind text, title text, body text, data jsonb, created_at timestamptz)`,
    [JSON.stringify(rows.map((row) => ({ ...row, created_at: row.created_at.toISOString() })))],
  );
}

/** A holder's notifications, newest first, a page of them and how many there are. */
export async function listWalletNotifications(db: Queryable, walletId: string, limit: number, offset: number): Promise<{ rows: NotificationRow[]; total: number }> {
  const rows = await db.query<NotificationRow>('SELECT * FROM wallet_notifications WHERE wallet_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3', [walletId, limit, offset]);
  const [count] = await db.query<{ total: number }>('SELECT count(*)::int8 AS total FROM wallet_notifications WHERE wallet_id = $1', [walletId]);
  return { rows, total: Number(count?.total ?? 0) };
}
