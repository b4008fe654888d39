import type { Database, Queryable } from '../../db/database.ts';
import type { Mode } from '../../auth/secrets.ts';
import { type ApiError, badRequest, notFound } from '../../http/errors.ts';
import { canonicalHandle, displayHandle } from '../../http/validate.ts';
import { type WalletRow, checkWalletPin, findWallet } from '../wallets/index.ts';

/** The store's catalogue, codes and sales are per mode; without one, the test catalogue (CONTRACT.md: mode defaults to test). */
export function storeModeOf(mode: Mode | undefined): Mode {
  return mode ?? 'test';
}

export const productNotFound = (slugOrId: string): ApiError => notFound('product_not_found', `No product ${slugOrId}`);
export const orderNotFound = (id: string): ApiError => notFound('order_not_found', `No order ${id}`);
export const walletNotFound = (handle: string, mode?: Mode): ApiError => notFound('wallet_not_found', `No ${mode ? `${mode} ` : ''}wallet with handle ${displayHandle(handle)}`);

/**
 * The buyer's wallet, resolved as POST /api/wallet/sessions does: the given mode, else the test
 * wallet when there is one, else the live one.
 */
export async function buyerWallet(db: Queryable, buyerHandle: string, mode: Mode | undefined): Promise<WalletRow> {
  const handle = canonicalHandle(buyerHandle);
  const wallet = mode ? await findWallet(db, handle, mode) : ((await findWallet(db, handle, 'test')) ?? (await findWallet(db, handle, 'live')));
  if (!wallet) throw walletNotFound(handle, mode);
  return wallet;
}

/** The buyer proven by handle and wallet PIN, with the wallets' 5-tries / 15-minutes lock-out (the foundation's checker). */
export async function provenBuyer(db: Database, body: { buyerHandle: string; walletPin: string; mode?: Mode | undefined }, now: Date): Promise<WalletRow> {
  const wallet = await buyerWallet(db, body.buyerHandle, body.mode);
  await checkWalletPin(db, wallet, body.walletPin, now);
  return wallet;
}

/** A date-time from JSON, checked. */
export function parseTime(value: string, field: string): Date {
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw badRequest('date_invalid', `${field} must be an ISO 8601 date-time`);
  return new Date(time);
}
