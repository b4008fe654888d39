import type { SecretBox } from '../../auth/secret-box.ts';
import type { Queryable } from '../../db/database.ts';
import { type Mode, newId, newMerchantKey, randomHex, sha256Hex } from '../../auth/secrets.ts';

export interface MerchantRow {
  id: string;
  name: string;
  handle: string;
  country: string;
  currency: string;
  webhook_url: string | null;
  rate_limit_multiplier: number;
  created_at: Date;
}

// The webhook secret is not among them: it is stored sealed and only the dispatcher opens it.
const MERCHANT_COLUMNS = 'id, name, handle, country, currency, webhook_url, rate_limit_multiplier, created_at';

/** A new webhook signing secret, in plaintext: answered once, stored sealed (SecretBox). */
export function newWebhookSecret(): string {
  return `whsec_${randomHex(32)}`;
}

/** Seals webhook secrets stored before sealing existed (at start-up; a no-op once done). */
export async function sealStoredWebhookSecrets(db: Queryable, box: SecretBox): Promise<number> {
  const rows = await db.query<{ id: string; webhook_secret: string }>("SELECT id, webhook_secret FROM merchants WHERE webhook_secret NOT LIKE 'sealed.%'");
  for (const row of rows) {
    await db.query('UPDATE merchants SET webhook_secret = $2 WHERE id = $1 AND webhook_secret = $3', [row.id, box.seal(row.webhook_secret), row.webhook_secret]);
  }
  return rows.length;
}

export async function insertMerchant(
  tx: Queryable,
  fields: { name: string; handle: string; country: string; currency: string; webhookUrl: string | null; sealedWebhookSecret: string },
): Promise<MerchantRow> {
  const [row] = await tx.query<MerchantRow>(
    `INSERT INTO merchants (id, name, handle, country, currency, webhook_url, webhook_secret)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${MERCHANT_COLUMNS}`,
    [newId('mer'), fields.name, fields.handle, fields.country, fields.currency, fields.webhookUrl, fields.sealedWebhookSecret],
  );
  return row!;
}

export async function findMerchant(db: Queryable, id: string): Promise<MerchantRow | undefined> {
  const [row] = await db.query<MerchantRow>(`SELECT ${MERCHANT_COLUMNS} FROM merchants WHERE id = $1`, [id]);
  return row;
}

/** A merchant by its canonical handle (lower case, without '@'). */
export async function findMerchantByHandle(db: Queryable, handle: string): Promise<MerchantRow | undefined> {
  const [row] = await db.query<MerchantRow>(`SELECT ${MERCHANT_COLUMNS} FROM merchants WHERE handle = $1`, [handle]);
  return row;
}

export async function listMerchants(db: Queryable, limit: number, offset: number): Promise<{ rows: MerchantRow[]; total: number }> {
  const rows = await db.query<MerchantRow>(`SELECT ${MERCHANT_COLUMNS} FROM merchants ORDER BY created_at, id LIMIT $1 OFFSET $2`, [limit, offset]);
  const [count] = await db.query<{ total: number }>('SELECT count(*)::int8 AS total FROM merchants');
  return { rows, total: count?.total ?? 0 };
}

export async function updateMerchant(db: Queryable, id: string, fields: { rateLimitMultiplier?: number | undefined; name?: string | undefined }): Promise<MerchantRow | undefined> {
  const [row] = await db.query<MerchantRow>(
    `UPDATE merchants SET rate_limit_multiplier = coalesce($2, rate_limit_multiplier), name = coalesce($3, name), updated_at = now()
     WHERE id = $1 RETURNING ${MERCHANT_COLUMNS}`,
    [id, fields.rateLimitMultiplier ?? null, fields.name ?? null],
  );
  return row;
}

export async function updateWebhookSettings(
  db: Queryable,
  id: string,
  fields: { webhookUrl?: string | null | undefined; sealedNewSecret: string | null },
): Promise<MerchantRow | undefined> {
  const [row] = await db.query<MerchantRow>(
    `UPDATE merchants SET
       webhook_url = CASE WHEN $2 THEN $3 ELSE webhook_url END,
       webhook_secret = CASE WHEN $4 THEN $5 ELSE webhook_secret END,
       updated_at = now()
     WHERE id = $1 RETURNING ${MERCHANT_COLUMNS}`,
    [id, fields.webhookUrl !== undefined, fields.webhookUrl ?? null, fields.sealedNewSecret !== null, fields.sealedNewSecret],
  );
  return row;
}

/** Creates a key and returns it in plaintext: the only time it is ever seen. */
export async function insertApiKey(tx: Queryable, merchantId: string, mode: Mode): Promise<{ id: string; key: string }> {
  const key = newMerchantKey(mode);
  const id = newId('key');
  await tx.query('INSERT INTO api_keys (id, merchant_id, mode, key_hash, key_prefix) VALUES ($1, $2, $3, $4, $5)', [
    id,
    merchantId,
    mode,
    sha256Hex(key),
    key.slice(0, 12),
  ]);
  return { id, key };
}

/**
 * Rotates the calling key: a new key of the same mode, and the old one expiring after the grace
 * period (now when 0). Returns the new key and when the old one stops working.
 */
export async function rotateApiKey(tx: Queryable, keyId: string, merchantId: string, mode: Mode, graceHours: number, now: Date): Promise<{ key: string; previousKeyExpiresAt: Date }> {
  // The app's clock, which also judges a key's expiry (auth/principal.ts), not the database's.
  const [expiry] = await tx.query<{ expires_at: Date }>(
    `UPDATE api_keys SET expires_at = least(coalesce(expires_at, 'infinity'::timestamptz), $3::timestamptz + $2 * interval '1 hour')
     WHERE id = $1 RETURNING expires_at`,
    [keyId, graceHours, now],
  );
  const created = await insertApiKey(tx, merchantId, mode);
  return { key: created.key, previousKeyExpiresAt: expiry!.expires_at };
}

/** A secret API key as its owner may see it: never the key, its first 12 characters. */
export interface ApiKeyRow {
  id: string;
  mode: Mode;
  key_prefix: string;
  created_at: Date;
  expires_at: Date | null;
}

/** A merchant's keys of one mode, newest first, and how many there are. */
export async function listApiKeys(db: Queryable, merchantId: string, mode: Mode, limit: number, offset: number): Promise<{ rows: ApiKeyRow[]; total: number }> {
  const rows = await db.query<ApiKeyRow>(
    'SELECT id, mode, key_prefix, created_at, expires_at FROM api_keys WHERE merchant_id = $1 AND mode = $2 ORDER BY created_at DESC, id LIMIT $3 OFFSET $4',
    [merchantId, mode, limit, offset],
  );
  const [count] = await db.query<{ total: number | string }>('SELECT count(*)::int8 AS total FROM api_keys WHERE merchant_id = $1 AND mode = $2', [merchantId, mode]);
  return { rows, total: Number(count?.total ?? 0) };
}

/** One key of the merchant's mode, its row locked (a rotation). */
export async function lockApiKey(tx: Queryable, id: string, merchantId: string, mode: Mode): Promise<ApiKeyRow | undefined> {
  const [row] = await tx.query<ApiKeyRow>(
    'SELECT id, mode, key_prefix, created_at, expires_at FROM api_keys WHERE id = $1 AND merchant_id = $2 AND mode = $3 FOR UPDATE',
    [id, merchantId, mode],
  );
  return row;
}

