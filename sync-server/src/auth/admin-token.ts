import type { Database } from '../db/database.ts';
import { randomHex, sha256Hex } from './secrets.ts';

const SETTING = 'admin_token_sha256';

/**
 * The admin token comes from ADMIN_TOKEN; without it one is generated at first start, printed
 * once by the caller and stored only as a hash. Returns the hash to check against and, when
 * this start generated the token, the token itself.
 */
export async function ensureAdminToken(db: Database, configured: string | undefined): Promise<{ hash: string; generated?: string }> {
  if (configured) return { hash: sha256Hex(configured) };
  const existing = await db.query<{ value: string }>('SELECT value FROM system_settings WHERE key = $1', [SETTING]);
  if (existing[0]) return { hash: existing[0].value };
  const token = randomHex(32);
  const inserted = await db.query<{ value: string }>(
    'INSERT INTO system_settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING RETURNING value',
    [SETTING, sha256Hex(token)],
  );
  if (inserted[0]) return { hash: inserted[0].value, generated: token };
  // Another instance generated one at the same moment: use theirs (it printed it).
  const winner = await db.query<{ value: string }>('SELECT value FROM system_settings WHERE key = $1', [SETTING]);
  return { hash: winner[0]!.value };
}
