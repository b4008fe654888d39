import { randomBytes } from 'node:crypto';
import type { Queryable } from '../../db/database.ts';
import type { Mode } from '../../auth/secrets.ts';

export interface WearableRow {
  tag_id: string;
  mode: Mode;
  wallet_id: string;
  handle: string;
  tag_type: string;
  display_name: string;
  status: 'active' | 'disabled';
  merchant_id: string | null;
  tap_count: number;
  last_tapped_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const WEARABLE_COLUMNS = 'tag_id, mode, wallet_id, handle, tag_type, display_name, status, merchant_id, tap_count, last_tapped_at, created_at, updated_at';

/** 32 random bits per id: a collision is rare, and a retry with a fresh id settles it. */
const TAG_ID_ATTEMPTS_MAX = 8;

export function newTagId(): string {
  return `TG${randomBytes(4).toString('hex').toUpperCase()}`;
}

/**
 * Inserts a tag under a fresh random id. The primary key decides collisions: a taken id is
 * retried with another one, so two registrations can never share a tag id.
 */
export async function insertWearable(
  db: Queryable,
  fields: { mode: Mode; walletId: string; handle: string; tagType: string; displayName: string; merchantId: string | null },
  generateId: () => string = newTagId,
): Promise<WearableRow> {
  for (let attempt = 1; attempt <= TAG_ID_ATTEMPTS_MAX; attempt++) {
    const rows = await db.query<WearableRow>(
      `INSERT INTO wearables (tag_id, mode, wallet_id, handle, tag_type, display_name, merchant_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (tag_id) DO NOTHING RETURNING ${WEARABLE_COLUMNS}`,
      [generateId(), fields.mode, fields.walletId, fields.handle, fields.tagType, fields.displayName, fields.merchantId],
    );
    if (rows[0]) return rows[0];
  }
  throw new Error(`no free tag id after ${TAG_ID_ATTEMPTS_MAX} attempts`);
}

export async function findWearable(db: Queryable, tagId: string): Promise<WearableRow | undefined> {
  const [row] = await db.query<WearableRow>(`SELECT ${WEARABLE_COLUMNS} FROM wearables WHERE tag_id = $1`, [tagId]);
  return row;
}

/** Whose tags a list shows: a merchant's registrations in one mode, or every tag of one wallet. */
export type WearableOwner = { merchantId: string; mode: Mode } | { walletId: string };

export async function listWearables(
  db: Queryable,
  owner: WearableOwner,
  filter: { handle?: string | undefined; status?: string | undefined },
  limit: number,
  offset: number,
): Promise<{ rows: WearableRow[]; total: number }> {
  const conditions: string[] = [];
  const params: (string | number)[] = [];
  const add = (condition: string, value: string) => {
    params.push(value);
    conditions.push(condition.replace('?', `$${params.length}`));
  };
  if ('merchantId' in owner) {
    add('merchant_id = ?', owner.merchantId);
    add('mode = ?', owner.mode);
  } else {
    add('wallet_id = ?', owner.walletId);
  }
  if (filter.handle !== undefined) add('handle = ?', filter.handle);
  if (filter.status !== undefined) add('status = ?', filter.status);
  const where = conditions.join(' AND ');
  const rows = await db.query<WearableRow>(
    `SELECT ${WEARABLE_COLUMNS} FROM wearables WHERE ${where} ORDER BY created_at, tag_id LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, limit, offset],
  );
  const [count] = await db.query<{ total: number }>(`SELECT count(*)::int8 AS total FROM wearables WHERE ${where}`, params);
  return { rows, total: count?.total ?? 0 };
}

export async function updateWearable(
  db: Queryable,
  tagId: string,
  fields: { walletId?: string | undefined; handle?: string | undefined; displayName?: string | undefined; status?: string | undefined },
  now: Date,
): Promise<WearableRow | undefined> {
  const [row] = await db.query<WearableRow>(
    `UPDATE wearables SET wallet_id = coalesce($2, wallet_id), handle = coalesce($3, handle), display_name = coalesce($4, display_name),
       status = coalesce($5, status), updated_at = $6
     WHERE tag_id = $1 RETURNING ${WEARABLE_COLUMNS}`,
    [tagId, fields.walletId ?? null, fields.handle ?? null, fields.displayName ?? null, fields.status ?? null, now],
  );
  return row;
}

export type TagLookup =
  | { outcome: 'active'; tagId: string; walletId: string; handle: string; displayName: string; tagType: string; tapCount: number }
  | { outcome: 'disabled' }
  | { outcome: 'unknown' };

/**
 * Counts one tap on an active tag and returns what it resolves to, in one atomic statement: the
 * row lock makes concurrent resolves count exactly once each. A disabled or unknown tag counts
 * nothing. `mode` restricts the tag to one mode (POS taps); undefined accepts either (public).
 */
export async function countTap(db: Queryable, tagId: string, mode: Mode | undefined, now: Date): Promise<TagLookup> {
  const rows = await db.query<{ wallet_id: string; handle: string; display_name: string; tag_type: string; tap_count: number }>(
    `UPDATE wearables SET tap_count = tap_count + 1, last_tapped_at = $3
     WHERE tag_id = $1 AND status = 'active' AND ($2::text IS NULL OR mode = $2::text)
     RETURNING wallet_id, handle, display_name, tag_type, tap_count`,
    [tagId, mode ?? null, now],
    { prepareAs: 'wearables_count_tap' },
  );
  const row = rows[0];
  if (row) return { outcome: 'active', tagId, walletId: row.wallet_id, handle: row.handle, displayName: row.display_name, tagType: row.tag_type, tapCount: row.tap_count };
  const [other] = await db.query<{ status: string }>('SELECT status FROM wearables WHERE tag_id = $1 AND ($2::text IS NULL OR mode = $2::text)', [tagId, mode ?? null]);
  return other ? { outcome: 'disabled' } : { outcome: 'unknown' };
}
