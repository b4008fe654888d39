import type { Database, Queryable } from '../../db/database.ts';
import { hashPin, verifyPin } from '../../auth/secrets.ts';
import { ApiError, forbidden } from '../../http/errors.ts';

/** Wrong manager PINs in a row before the terminal's PIN is locked (as wallet PINs). */
export const MANAGER_PIN_ATTEMPTS_MAX = 5;
export const MANAGER_PIN_LOCK_MINUTES = 15;

/** Sets a terminal's manager PIN (scrypt) and clears its lock-out; false when the terminal is not the merchant's in that mode. */
export async function setManagerPin(db: Database, scope: { merchantId: string; mode: string }, terminalId: string, pin: string): Promise<boolean> {
  const hash = await hashPin(pin);
  const rows = await db.query<{ id: string }>(
    `UPDATE terminals SET manager_pin_hash = $4, manager_pin_failures = 0, manager_pin_locked_until = NULL
     WHERE id = $1 AND merchant_id = $2 AND mode = $3 AND revoked_at IS NULL RETURNING id`,
    [terminalId, scope.merchantId, scope.mode, hash],
  );
  return rows.length > 0;
}

function locked(until: Date): ApiError {
  const seconds = Math.max(1, Math.ceil((until.getTime() - Date.now()) / 1000));
  return new ApiError(429, 'manager_pin_locked', `Too many wrong manager PINs: locked until ${until.toISOString()}`, { headers: { 'retry-after': String(seconds) } });
}

async function lock(db: Queryable, terminalId: string): Promise<Date> {
  const [row] = await db.query<{ until: Date }>(
    `UPDATE terminals SET manager_pin_failures = 0, manager_pin_locked_until = now() + make_interval(mins => $2) WHERE id = $1 RETURNING manager_pin_locked_until AS until`,
    [terminalId, MANAGER_PIN_LOCK_MINUTES],
  );
  return row!.until;
}

/**
 * Checks a terminal's manager PIN (refunds, Z reports): 403 manager_pin_required when none is
 * sent, 403 manager_pin_not_set, 403 wrong_manager_pin, and after five wrong PINs 429
 * manager_pin_locked for 15 minutes. The attempt is counted before the slow KDF runs (so parallel
 * guesses cannot pass the limit), outside any transaction.
 */
export async function checkManagerPin(db: Database, terminalId: string, pin: string | undefined): Promise<void> {
  if (pin === undefined) throw forbidden('manager_pin_required', 'A manager PIN is needed at a terminal');
  const [row] = await db.query<{ hash: string | null; failures: number; locked_until: Date | null; locked: boolean }>(
    `UPDATE terminals SET manager_pin_failures = CASE WHEN manager_pin_locked_until > now() OR manager_pin_hash IS NULL THEN manager_pin_failures ELSE manager_pin_failures + 1 END
     WHERE id = $1
     RETURNING manager_pin_hash AS hash, manager_pin_failures AS failures, manager_pin_locked_until AS locked_until, COALESCE(manager_pin_locked_until > now(), false) AS locked`,
    [terminalId],
  );
  if (!row) throw forbidden('manager_pin_not_set', 'This terminal has no manager PIN');
  if (!row.hash) throw forbidden('manager_pin_not_set', 'The merchant has not set a manager PIN for this terminal');
  if (row.locked && row.locked_until) throw locked(row.locked_until);
  if (row.failures > MANAGER_PIN_ATTEMPTS_MAX) throw locked(await lock(db, terminalId));
  const correct = await verifyPin(pin, row.hash);
  if (correct) {
    await db.query('UPDATE terminals SET manager_pin_failures = 0, manager_pin_locked_until = NULL WHERE id = $1', [terminalId]);
    return;
  }
  if (row.failures >= MANAGER_PIN_ATTEMPTS_MAX) await lock(db, terminalId);
  throw forbidden('wrong_manager_pin', 'Wrong manager PIN');
}
