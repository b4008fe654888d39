import { randomBytes } from 'node:crypto';
import type { Queryable } from '../../db/database.ts';
import type { Mode } from '../../auth/secrets.ts';

/** How the holder agreed that the tag pays from their wallet (migration 018). */
export type TagConsent = 'holder_pin' | 'holder_session' | 'own_wallet' | 'test_mode' | 'unrecorded';

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
  consent: TagConsent;
  disabled_by: 'holder' | 'merchant' | null;
  linked_at: Date;
  /** The holder's own no-PIN limits, minor units of `currency`; null: the default. */
  no_pin_per_tap: number | null;
  no_pin_per_day: number | null;
  /** The UTC day of no_pin_spent: what taps without the PIN took that day. */
  no_pin_day: string | null;
  no_pin_spent: number;
  /** The wallet's currency: the currency of the no-PIN limits. */
  currency: string;
  /** The default no-PIN limits of that currency; null when it has none (every tap needs the PIN). */
  default_per_tap: number | null;
  default_per_day: number | null;
}

/** A tag row with its wallet's currency and that currency's default no-PIN limits; `source` is a table or CTE named w. */
function selectTags(source: string): string {
  return `SELECT w.tag_id, w.mode, w.wallet_id, w.handle, w.tag_type, w.display_name, w.status, w.merchant_id, w.tap_count,
      w.last_tapped_at, w.created_at, w.updated_at, w.consent, w.disabled_by, w.linked_at, w.no_pin_per_tap, w.no_pin_per_day,
      to_char(w.no_pin_day, 'YYYY-MM-DD') AS no_pin_day, w.no_pin_spent, wa.currency, d.per_tap AS default_per_tap, d.per_day AS default_per_day
    FROM ${source} w JOIN wallets wa ON wa.id = w.wallet_id LEFT JOIN no_pin_limit_defaults d ON d.currency = wa.currency`;
}

/** The consents under which the merchant linking a tag may charge it without the PIN (SQL list). */
const MERCHANT_ALLOWED_AT_LINK = "('holder_pin', 'test_mode', 'own_wallet')";

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
  fields: { mode: Mode; walletId: string; handle: string; tagType: string; displayName: string; merchantId: string | null; consent: TagConsent },
  generateId: () => string = newTagId,
): Promise<WearableRow> {
  for (let attempt = 1; attempt <= TAG_ID_ATTEMPTS_MAX; attempt++) {
    // The registering merchant may charge the tag without its PIN when the holder agreed to the
    // link (her PIN) or the tag is a sandbox one (the spec's flow): the first entry of its list.
    const rows = await db.query<WearableRow>(
      `WITH inserted AS (
         INSERT INTO wearables (tag_id, mode, wallet_id, handle, tag_type, display_name, merchant_id, consent)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (tag_id) DO NOTHING RETURNING *
       ), allowed AS (
         INSERT INTO wearable_merchants (tag_id, merchant_id, source, created_at)
         SELECT i.tag_id, i.merchant_id, 'registered', i.linked_at FROM inserted i
         WHERE i.merchant_id IS NOT NULL AND i.consent IN ${MERCHANT_ALLOWED_AT_LINK}
       ) ${selectTags('inserted')}`,
      [generateId(), fields.mode, fields.walletId, fields.handle, fields.tagType, fields.displayName, fields.merchantId, fields.consent],
    );
    if (rows[0]) return rows[0];
  }
  throw new Error(`no free tag id after ${TAG_ID_ATTEMPTS_MAX} attempts`);
}

export async function findWearable(db: Queryable, tagId: string): Promise<WearableRow | undefined> {
  const [row] = await db.query<WearableRow>(`${selectTags('wearables')} WHERE w.tag_id = $1`, [tagId]);
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
    add('w.merchant_id = ?', owner.merchantId);
    add('w.mode = ?', owner.mode);
  } else {
    add('w.wallet_id = ?', owner.walletId);
  }
  if (filter.handle !== undefined) add('w.handle = ?', filter.handle);
  if (filter.status !== undefined) add('w.status = ?', filter.status);
  const where = conditions.join(' AND ');
  const rows = await db.query<WearableRow>(
    `${selectTags('wearables')} WHERE ${where} ORDER BY w.created_at, w.tag_id LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, limit, offset],
  );
  const [count] = await db.query<{ total: number }>(`SELECT count(*)::int8 AS total FROM wearables w WHERE ${where}`, params);
  return { rows, total: count?.total ?? 0 };
}

/**
 * Changes a tag. Linking it to another wallet starts afresh for the new holder: linked_at is now,
 * and the no-PIN limits and the day's no-PIN total of the previous holder are dropped. Setting
 * the status records who disabled it (`disabledBy`), or clears that when it is re-enabled.
 */
export async function updateWearable(
  db: Queryable,
  tagId: string,
  fields: {
    walletId?: string | undefined;
    handle?: string | undefined;
    consent?: TagConsent | undefined;
    displayName?: string | undefined;
    status?: 'active' | 'disabled' | undefined;
    disabledBy?: 'holder' | 'merchant' | undefined;
  },
  now: Date,
): Promise<WearableRow | undefined> {
  const [row] = await db.query<WearableRow>(
    `WITH updated AS (
       UPDATE wearables SET
         wallet_id = coalesce($2, wallet_id), handle = coalesce($3, handle), consent = coalesce($4, consent),
         display_name = coalesce($5, display_name), status = coalesce($6, status),
         disabled_by = CASE WHEN $6::text IS NULL THEN disabled_by WHEN $6::text = 'active' THEN NULL ELSE $7 END,
         linked_at = CASE WHEN $2::text IS NOT NULL AND $2::text <> wallet_id THEN $8 ELSE linked_at END,
         no_pin_per_tap = CASE WHEN $2::text IS NOT NULL AND $2::text <> wallet_id THEN NULL ELSE no_pin_per_tap END,
         no_pin_per_day = CASE WHEN $2::text IS NOT NULL AND $2::text <> wallet_id THEN NULL ELSE no_pin_per_day END,
         no_pin_day = CASE WHEN $2::text IS NOT NULL AND $2::text <> wallet_id THEN NULL ELSE no_pin_day END,
         no_pin_spent = CASE WHEN $2::text IS NOT NULL AND $2::text <> wallet_id THEN 0 ELSE no_pin_spent END,
         updated_at = $8
       WHERE tag_id = $1 RETURNING *
     ) ${selectTags('updated')}`,
    [tagId, fields.walletId ?? null, fields.handle ?? null, fields.consent ?? null, fields.displayName ?? null, fields.status ?? null, fields.disabledBy ?? null, now],
  );
  return row;
}

/** Sets the holder's own no-PIN limits (minor units): undefined keeps a limit, null restores the default. */
export async function setNoPinLimits(
  db: Queryable,
  tagId: string,
  limits: { perTap?: number | null | undefined; perDay?: number | null | undefined },
  now: Date,
): Promise<WearableRow | undefined> {
  const [row] = await db.query<WearableRow>(
    `WITH updated AS (
       UPDATE wearables SET no_pin_per_tap = CASE WHEN $2 THEN $3::int8 ELSE no_pin_per_tap END,
         no_pin_per_day = CASE WHEN $4 THEN $5::int8 ELSE no_pin_per_day END, updated_at = $6
       WHERE tag_id = $1 RETURNING *
     ) ${selectTags('updated')}`,
    [tagId, limits.perTap !== undefined, limits.perTap ?? null, limits.perDay !== undefined, limits.perDay ?? null, now],
  );
  return row;
}

/** What a tag may pay at one merchant without its holder's PIN, minor units of the payment's currency. */
export interface TagAllowance {
  /** The limits in force: the lower of the holder's own and the currency's default; 0 in another currency than the tag's wallet. */
  perTap: number;
  perDay: number;
  /** Whether the holder allows this merchant to charge the tag without her PIN (wearable_merchants). */
  merchantAllowed: boolean;
}

/**
 * What each tag may pay `merchantId` without its holder's PIN, in minor units of `currency` (a
 * payment in another currency than the tag's wallet always needs the PIN: limits of 0). Tags
 * unknown in that mode are left out. For a terminal's offline taps, whose settlement must decline
 * what the PIN would be needed for; call it inside that transaction, after the tags are locked.
 * The allowed-merchant test is a scalar subquery, one probe of wearable_merchants' key per tag: an
 * EXISTS there may be planned as a hash of every tag the merchant was ever allowed by.
 */
export async function tagAllowances(db: Queryable, tagIds: readonly string[], mode: Mode, currency: string, merchantId: string): Promise<Map<string, TagAllowance>> {
  const rows = await db.query<{ tag_id: string; per_tap: number; per_day: number; merchant_allowed: boolean }>(
    `SELECT w.tag_id,
       CASE WHEN wa.currency = $3 THEN least(coalesce(w.no_pin_per_tap, d.per_tap, 0), coalesce(d.per_tap, 0)) ELSE 0 END::int8 AS per_tap,
       CASE WHEN wa.currency = $3 THEN least(coalesce(w.no_pin_per_day, d.per_day, 0), coalesce(d.per_day, 0)) ELSE 0 END::int8 AS per_day,
       coalesce((SELECT true FROM wearable_merchants t WHERE t.tag_id = w.tag_id AND t.merchant_id = $4), false) AS merchant_allowed
     FROM wearables w JOIN wallets wa ON wa.id = w.wallet_id LEFT JOIN no_pin_limit_defaults d ON d.currency = wa.currency
     WHERE w.tag_id = ANY ($1::text[]) AND w.mode = $2`,
    [tagIds, mode, currency, merchantId],
    { prepareAs: 'wearables_no_pin_allowances' },
  );
  return new Map(rows.map((row) => [row.tag_id, { perTap: Number(row.per_tap), perDay: Number(row.per_day), merchantAllowed: row.merchant_allowed }]));
}

/** The default no-PIN limits of one currency, minor units; undefined when it has none. */
export async function noPinLimitDefault(db: Queryable, currency: string): Promise<{ perTap: number; perDay: number } | undefined> {
  const [row] = await db.query<{ per_tap: number; per_day: number }>('SELECT per_tap, per_day FROM no_pin_limit_defaults WHERE currency = $1', [currency]);
  return row ? { perTap: row.per_tap, perDay: row.per_day } : undefined;
}

/** Writes the default no-PIN limits of every currency given (minor units) in one statement. */
export async function saveNoPinLimitDefaults(db: Queryable, limits: readonly { currency: string; perTap: number; perDay: number }[], now: Date): Promise<void> {
  if (limits.length === 0) return;
  await db.query(
    `INSERT INTO no_pin_limit_defaults (currency, per_tap, per_day, updated_at)
     SELECT l.currency, l.per_tap, l.per_day, $4 FROM unnest($1::text[], $2::int8[], $3::int8[]) AS l (currency, per_tap, per_day)
     ON CONFLICT (currency) DO UPDATE SET per_tap = EXCLUDED.per_tap, per_day = EXCLUDED.per_day, updated_at = EXCLUDED.updated_at`,
    [limits.map((limit) => limit.currency), limits.map((limit) => limit.perTap), limits.map((limit) => limit.perDay), now],
  );
}

/** One tap or payment made with a tag, for its holder: a POS session it paid (or failed to), or an offline tap. */
export interface TagActivityRow {
  kind: 'pos_session' | 'offline_tap';
  id: string;
  status: string;
  amount: number;
  currency: string;
  description: string;
  merchant_handle: string | null;
  merchant_name: string | null;
  wallet_ref: string | null;
  decline_code: string | null;
  error_message: string | null;
  at: Date;
}

/**
 * What a tag did for its current holder, newest first: POS sessions it settled (completed or
 * failed) from the holder's wallet, and offline taps settled from it or declined since the tag
 * was linked to the holder (a declined tap of a disabled ring names no payer).
 */
export async function listTagActivity(
  db: Queryable,
  tag: { tagId: string; walletId: string; linkedAt: Date },
  limit: number,
  offset: number,
): Promise<{ rows: TagActivityRow[]; total: number }> {
  const activity = `
    SELECT 'pos_session' AS kind, s.id::text AS id, s.status, s.amount, s.currency, s.description, s.merchant_id,
           s.wallet_ref, NULL::text AS decline_code, s.error_message, s.ended_at AS at
    FROM pos_sessions s WHERE s.tag_id = $1 AND s.payer_wallet_id = $2
    UNION ALL
    SELECT 'offline_tap', p.id::text, p.status, p.amount, p.currency, p.description, p.merchant_id,
           p.transfer_id, p.decline_code, p.decline_reason, p.captured_at
    FROM offline_payments p
    WHERE p.tag_id = $1 AND (p.payer_wallet_id = $2 OR (p.payer_wallet_id IS NULL AND p.captured_at >= $3))`;
  const rows = await db.query<TagActivityRow>(
    `SELECT a.kind, a.id, a.status, a.amount, a.currency, a.description, m.handle AS merchant_handle, m.name AS merchant_name,
            a.wallet_ref, a.decline_code, a.error_message, a.at
     FROM (${activity}) a LEFT JOIN merchants m ON m.id = a.merchant_id
     ORDER BY a.at DESC, a.id LIMIT $4 OFFSET $5`,
    [tag.tagId, tag.walletId, tag.linkedAt, limit, offset],
  );
  const [count] = await db.query<{ total: number }>(`SELECT count(*)::int8 AS total FROM (${activity}) a`, [tag.tagId, tag.walletId, tag.linkedAt]);
  return { rows, total: count?.total ?? 0 };
}

export type TagLookup =
  | { outcome: 'active'; tagId: string; walletId: string; handle: string; displayName: string; tagType: string; tapCount: number }
  | { outcome: 'disabled' }
  | { outcome: 'unknown' };

/**
 * Counts taps on tags: the one rule for counting a tap (an active tag counts each tap, with the
 * tap's time; a disabled or unknown tag counts nothing), and answers, per distinct tag id, what it
 * resolves to. The public resolve and offline taps call it; pos_tap writes the same rule into its
 * one UPDATE of the tag (pos/tap-count.test.ts holds the two to one effect). The tags are locked
 * in id order first, so concurrent counts of the same tags wait for each other instead of
 * deadlocking. Two prepared statements, not a database function: a plpgsql function here cost the
 * offline catch-up a third of its speed (bench:sync 3.7 s -> 4.9 s for 10,000 taps). `mode`
 * restricts the tags to one mode (POS and offline taps); undefined accepts either (the resolve).
 */
export async function countTaps(db: Queryable, tagIds: readonly string[], mode: Mode | undefined, now: Date): Promise<Map<string, TagLookup>> {
  const unique = [...new Set(tagIds)];
  const tags = new Map<string, TagLookup>(unique.map((tagId) => [tagId, { outcome: 'unknown' }]));
  const known = await db.query<{ tag_id: string; status: string }>(
    'SELECT tag_id, status FROM wearables WHERE tag_id = ANY ($1::text[]) AND ($2::text IS NULL OR mode = $2) ORDER BY tag_id FOR NO KEY UPDATE',
    [unique, mode ?? null],
    { prepareAs: 'wearables_lock_tags' },
  );
  for (const row of known) if (row.status !== 'active') tags.set(row.tag_id, { outcome: 'disabled' });
  const active = new Set(known.filter((row) => row.status === 'active').map((row) => row.tag_id));
  if (active.size === 0) return tags;
  const counted = await db.query<{ tag_id: string; wallet_id: string; handle: string; display_name: string; tag_type: string; tap_count: number | string }>(
    `UPDATE wearables w SET tap_count = w.tap_count + c.taps, last_tapped_at = $2
     FROM (SELECT t.tag_id, count(*)::int8 AS taps FROM unnest($1::text[]) AS t (tag_id) GROUP BY t.tag_id) c
     WHERE w.tag_id = c.tag_id
     RETURNING w.tag_id, w.wallet_id, w.handle, w.display_name, w.tag_type, w.tap_count`,
    [tagIds.filter((tagId) => active.has(tagId)), now],
    { prepareAs: 'wearables_count_taps' },
  );
  for (const row of counted) {
    tags.set(row.tag_id, { outcome: 'active', tagId: row.tag_id, walletId: row.wallet_id, handle: row.handle, displayName: row.display_name, tagType: row.tag_type, tapCount: Number(row.tap_count) });
  }
  return tags;
}

/** countTaps for one tap on one tag. */
export async function countTap(db: Queryable, tagId: string, mode: Mode | undefined, now: Date): Promise<TagLookup> {
  return (await countTaps(db, [tagId], mode, now)).get(tagId) ?? { outcome: 'unknown' };
}

/** A merchant that may charge a tag without its holder's PIN, and why (wearable_merchants). */
export interface TagMerchantRow {
  merchant_id: string;
  handle: string;
  name: string;
  source: 'registered' | 'pin' | 'holder';
  created_at: Date;
}

/** The merchants a tag pays without its PIN, in the order they were allowed. */
export async function listTagMerchants(db: Queryable, tagId: string, limit: number, offset: number): Promise<{ rows: TagMerchantRow[]; total: number }> {
  const rows = await db.query<TagMerchantRow>(
    `SELECT t.merchant_id, m.handle, m.name, t.source, t.created_at
     FROM wearable_merchants t JOIN merchants m ON m.id = t.merchant_id
     WHERE t.tag_id = $1 ORDER BY t.created_at, t.merchant_id LIMIT $2 OFFSET $3`,
    [tagId, limit, offset],
  );
  const [count] = await db.query<{ total: number }>('SELECT count(*)::int8 AS total FROM wearable_merchants WHERE tag_id = $1', [tagId]);
  return { rows, total: Number(count?.total ?? 0) };
}

/** Allows a merchant to charge the tag without its PIN; an entry already there is kept as it is. */
export async function addTagMerchant(db: Queryable, tagId: string, merchantId: string, source: TagMerchantRow['source'], now: Date): Promise<{ row: TagMerchantRow; created: boolean }> {
  const inserted = await db.query<{ tag_id: string }>(
    `INSERT INTO wearable_merchants (tag_id, merchant_id, source, created_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (tag_id, merchant_id) DO NOTHING RETURNING tag_id`,
    [tagId, merchantId, source, now],
  );
  const [row] = await db.query<TagMerchantRow>(
    `SELECT t.merchant_id, m.handle, m.name, t.source, t.created_at
     FROM wearable_merchants t JOIN merchants m ON m.id = t.merchant_id WHERE t.tag_id = $1 AND t.merchant_id = $2`,
    [tagId, merchantId],
  );
  return { row: row!, created: inserted.length > 0 };
}

/** Withdraws a merchant's permission to charge the tag without its PIN; false when it had none. */
export async function removeTagMerchant(db: Queryable, tagId: string, merchantId: string): Promise<boolean> {
  const rows = await db.query<{ tag_id: string }>('DELETE FROM wearable_merchants WHERE tag_id = $1 AND merchant_id = $2 RETURNING tag_id', [tagId, merchantId]);
  return rows.length > 0;
}

/**
 * A tag linked to another holder starts a new list: the previous holder's choices are dropped, and
 * the merchant that linked it with the new holder's consent (her PIN, or a sandbox tag) is its first
 * entry. Run with the link's update, in one transaction.
 */
export async function restartTagMerchants(tx: Queryable, tagId: string, linkedBy: { merchantId: string; consent: TagConsent } | null, now: Date): Promise<void> {
  await tx.query('DELETE FROM wearable_merchants WHERE tag_id = $1', [tagId]);
  if (linkedBy && (linkedBy.consent === 'holder_pin' || linkedBy.consent === 'test_mode' || linkedBy.consent === 'own_wallet')) {
    await tx.query(
      "INSERT INTO wearable_merchants (tag_id, merchant_id, source, created_at) VALUES ($1, $2, 'registered', $3)",
      [tagId, linkedBy.merchantId, now],
    );
  }
}

/**
 * A wallet's payment to a merchant's @handle (the /pay/<handle> page), recorded for the merchant
 * (migration 030) in the transfer's transaction. False when `id` (the transfer's) is recorded
 * already: a retry of the same Idempotency-Key.
 */
export async function recordMerchantWalletPayment(
  tx: Queryable,
  payment: { id: string; merchantId: string; mode: string; merchantWalletId: string; payerWalletId: string; payerHandle: string; amount: number; currency: string; note: string | null; at: Date },
): Promise<boolean> {
  const rows = await tx.query<{ id: string }>(
    `INSERT INTO merchant_wallet_payments (id, merchant_id, mode, merchant_wallet_id, payer_wallet_id, payer_handle, amount, currency, note, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (id) DO NOTHING RETURNING id`,
    [payment.id, payment.merchantId, payment.mode, payment.merchantWalletId, payment.payerWalletId, payment.payerHandle, payment.amount, payment.currency, payment.note, payment.at],
  );
  return rows.length > 0;
}
