import { MANAGER_PIN_ATTEMPTS_MAX, MANAGER_PIN_LOCK_MINUTES } from '@tapline/shared/limits';
import type { Database, Queryable } from '../../db/database.ts';
import { hashPin, verifyPin } from '../../auth/secrets.ts';
import { ApiError, forbidden, retryAfterSeconds } from '../../http/errors.ts';
import { countManagerPinAttempt, lockManagerPin, resetManagerPinFailures, setManagerPinHash } from '../terminals/index.ts';


/** Sets a terminal's manager PIN (scrypt) and clears its lock-out; false when the terminal is not the merchant's in that mode. */
export async function setManagerPin(db: Database, scope: { merchantId: string; mode: string }, terminalId: string, pin: string): Promise<boolean> {
  return setManagerPinHash(db, scope, terminalId, await hashPin(pin));
}

function locked(until: Date, now: Date): ApiError {
  return new ApiError(429, 'manager_pin_locked', `Too many wrong manager PINs: locked until ${until.toISOString()}`, { headers: { 'retry-after': String(retryAfterSeconds(until, now)) } });
}

async function lock(db: Queryable, terminalId: string, now: Date): Promise<Date> {
  const until = new Date(now.getTime() + MANAGER_PIN_LOCK_MINUTES * 60_000);
  await lockManagerPin(db, terminalId, until);
  return until;
}

/**
 * Checks a terminal's manager PIN (refunds, Z reports): 403 manager_pin_required when none is
 * sent, 403 manager_pin_not_set, 403 wrong_manager_pin, and after five wrong PINs 429
 * manager_pin_locked for 15 minutes. The attempt is counted before the slow KDF runs (so parallel
 * guesses cannot pass the limit), outside any transaction. `now` is the app's clock, which sets and
 * judges the lock-out.
 */
export async function checkManagerPin(db: Database, terminalId: string, pin: string | undefined, now: Date): Promise<void> {
  if (pin === undefined) throw forbidden('manager_pin_required', 'A manager PIN is needed at a terminal');
  const row = await countManagerPinAttempt(db, terminalId, now);
  if (!row) throw forbidden('manager_pin_not_set', 'This terminal has no manager PIN');
  if (!row.hash) throw forbidden('manager_pin_not_set', 'The merchant has not set a manager PIN for this terminal');
  if (row.locked && row.locked_until) throw locked(row.locked_until, now);
  if (row.failures > MANAGER_PIN_ATTEMPTS_MAX) throw locked(await lock(db, terminalId, now), now);
  const correct = await verifyPin(pin, row.hash);
  if (correct) {
    await resetManagerPinFailures(db, terminalId);
    return;
  }
  if (row.failures >= MANAGER_PIN_ATTEMPTS_MAX) await lock(db, terminalId, now);
  throw forbidden('wrong_manager_pin', 'Wrong manager PIN');
}
