import { toMajor } from '@tapline/shared/money';
import type { Database, Queryable } from '../../db/database.ts';
import { type Mode, verifyPin } from '../../auth/secrets.ts';
import { ApiError, forbidden, notFound, retryAfterSeconds } from '../../http/errors.ts';
import { displayHandle } from '../../http/validate.ts';
import { walletBalances } from '../../ledger/ledger.ts';
import { type WalletRow, findWallet, reservePinAttempt, settlePinAttempt } from './store.ts';

/**
 * "A merchant cannot pay itself": the payer's wallet is the wallet of the merchant being paid. The
 * one rule for every surface that pays a merchant from a wallet (checkout, payment links, offline
 * taps and vouchers), each answering it with its own error code. pos_tap learns a tap's payer only
 * inside the database, so it asks the SQL form, payer_is_merchant() (db/functions/wallet_rules.sql);
 * payer-is-merchant.test.ts holds the two to the same answers.
 */
export function payerIsMerchant(payerWalletId: string, merchantWalletId: string): boolean {
  return payerWalletId === merchantWalletId;
}

export async function requireWallet(db: Queryable, handle: string, mode: Mode): Promise<WalletRow> {
  const wallet = await findWallet(db, handle, mode);
  if (!wallet) throw notFound('wallet_not_found', `No ${mode} wallet with handle ${displayHandle(handle)}`);
  return wallet;
}

/** 429 with Retry-After counted by the clock that judges the lock-out: the app's (see reservePinAttempt). */
function lockedError(lockedUntil: Date, now: Date): ApiError {
  return new ApiError(429, 'pin_attempts_exceeded', `Too many wrong PINs: this wallet is locked until ${lockedUntil.toISOString()}`, {
    headers: { 'retry-after': String(retryAfterSeconds(lockedUntil, now)) },
  });
}

/**
 * Checks a wallet PIN with the lock-out rule: wrong PIN 403 `wrong_pin`; after 5 wrong PINs the
 * wallet refuses PINs for 15 minutes with 429 `pin_attempts_exceeded`. Runs outside transactions:
 * the KDF is slow and PGlite has a single connection. `now` is the app's clock (context.now()),
 * which sets and judges the lock-out.
 */
export async function checkWalletPin(db: Database, wallet: WalletRow, pin: string, now: Date): Promise<void> {
  if (!wallet.pin_hash) throw forbidden('pin_not_set', `${displayHandle(wallet.handle)} has no PIN and cannot sign in with one`);
  const pinHash = wallet.pin_hash;
  const { correct, lockedUntil } = await attemptWalletSecret(db, wallet.id, now, () => verifyPin(pin, pinHash));
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

/**
 * One attempt at a secret that stands for the holder's consent (her PIN, or a one-time code she
 * made with it), counted in the wallet's one lock-out: 429 `pin_attempts_exceeded` while locked;
 * otherwise `check` runs and a wrong answer counts towards the 5 that lock the wallet for 15
 * minutes (`lockedUntil` set by the one that does).
 */
export async function attemptWalletSecret(db: Database, walletId: string, now: Date, check: () => Promise<boolean>): Promise<{ correct: boolean; lockedUntil: Date | undefined }> {
  const reservation = await reservePinAttempt(db, walletId, now);
  if (reservation.outcome === 'locked') throw lockedError(reservation.lockedUntil, now);
  const correct = await check();
  const lockedUntil = await settlePinAttempt(db, walletId, reservation.attempt, correct, now);
  return { correct, lockedUntil };
}
