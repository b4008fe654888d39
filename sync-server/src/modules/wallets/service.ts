import { toMajor } from '@tapline/shared/money';
import type { Database, Queryable } from '../../db/database.ts';
import { type Mode, verifyPin } from '../../auth/secrets.ts';
import { ApiError, forbidden, notFound } from '../../http/errors.ts';
import { displayHandle } from '../../http/validate.ts';
import { walletBalances } from '../../ledger/ledger.ts';
import { type WalletRow, findWallet, reservePinAttempt, settlePinAttempt } from './store.ts';

export async function requireWallet(db: Queryable, handle: string, mode: Mode): Promise<WalletRow> {
  const wallet = await findWallet(db, handle, mode);
  if (!wallet) throw notFound('wallet_not_found', `No ${mode} wallet with handle ${displayHandle(handle)}`);
  return wallet;
}

/** 429 with Retry-After counted by the clock that judges the lock-out (the database's: see reservePinAttempt), never the process's. */
function lockedError(lockedUntil: Date, retryAfterSeconds: number): ApiError {
  return new ApiError(429, 'pin_attempts_exceeded', `Too many wrong PINs: this wallet is locked until ${lockedUntil.toISOString()}`, {
    headers: { 'retry-after': String(retryAfterSeconds) },
  });
}

/**
 * Checks a wallet PIN with the lock-out rule: wrong PIN 403 `wrong_pin`; after 5 wrong PINs the
 * wallet refuses PINs for 15 minutes with 429 `pin_attempts_exceeded`. Runs outside transactions:
 * the KDF is slow and PGlite has a single connection.
 */
export async function checkWalletPin(db: Database, wallet: WalletRow, pin: string): Promise<void> {
  if (!wallet.pin_hash) throw forbidden('pin_not_set', `${displayHandle(wallet.handle)} has no PIN and cannot sign in with one`);
  const reservation = await reservePinAttempt(db, wallet.id);
  if (reservation.outcome === 'locked') throw lockedError(reservation.lockedUntil, reservation.retryAfterSeconds);
  const correct = await verifyPin(pin, wallet.pin_hash);
  const lockedUntil = await settlePinAttempt(db, wallet.id, reservation.attempt, correct);
  if (!correct) {
    // The wrong PIN that triggers the lock-out is still answered as a wrong PIN; the next try gets the 429.
    throw forbidden('wrong_pin', lockedUntil ? `Wrong PIN: too many wrong PINs, the wallet is locked until ${lockedUntil.toISOString()}` : 'Wrong PIN');
  }
}

export async function balanceResponse(db: Queryable, wallet: Pick<WalletRow, 'id' | 'handle' | 'currency'>, mode: Mode) {
  const balances = await walletBalances(db, wallet.id, mode);
  if (!balances.some((balance) => balance.currency === wallet.currency)) balances.unshift({ currency: wallet.currency, available: 0 });
  return {
    handle: displayHandle(wallet.handle),
    balances: balances.map((balance) => ({ currency: balance.currency, available: toMajor(balance.available, balance.currency) })),
  };
}
