import { OFFLINE_QR_VOUCHER_HOURS_DEFAULT } from '@tapline/shared/limits';
import { toMajor, toMinor } from '@tapline/shared/money';
import type { AppContext } from '../../context.ts';
import type { Queryable } from '../../db/database.ts';
import { type Mode, randomHex, sha256Hex } from '../../auth/secrets.ts';
import { conflict, notFound, unprocessable } from '../../http/errors.ts';
import { displayHandle, supportedCurrency } from '../../http/validate.ts';
import { systemAccount, walletAccount } from '../../ledger/accounts.ts';
import { LedgerError, transfer } from '../../ledger/ledger.ts';
import { findWalletById } from '../wallets/index.ts';
import { currentSigner, signerForKey } from './keys.ts';
import { type VoucherRow, endVoucher, findVoucher, insertVoucher, listVouchers, lockVoucher, releasableVoucherIds } from './store.ts';


export interface VoucherOwner {
  walletId: string;
  handle: string;
  mode: Mode;
}

/** The reserve account of a currency: money of vouchers not yet spent, released or revoked. */
const reserve = (currency: string) => systemAccount('offline_qr_reserve', currency);

/** Transfer ids of a voucher's movements: one each, so no retry moves its money twice. */
export const voucherTransferId = (id: string, movement: 'reserve' | 'release' | 'revoke') => `oqr:${id}:${movement}`;

export function voucherRecord(row: VoucherRow, qrPayload?: string) {
  return {
    id: row.id,
    handle: displayHandle(row.handle),
    mode: row.mode,
    status: row.status,
    amount: toMajor(row.amount, row.currency),
    currency: row.currency,
    expiresAt: row.expires_at.toISOString(),
    createdAt: row.created_at.toISOString(),
    ...(row.ended_at ? { endedAt: row.ended_at.toISOString() } : {}),
    ...(row.used_amount !== null ? { usedAmount: toMajor(row.used_amount, row.currency), usedByPaymentId: row.used_by_payment_id } : {}),
    ...(qrPayload === undefined ? {} : { qrPayload }),
  };
}

/**
 * Signs the voucher text again from its row: Ed25519 signatures are deterministic, so the holder
 * can be shown their QR code again without the server storing it (only its hash is kept).
 */
async function voucherText(context: Pick<AppContext, 'db' | 'secrets'>, row: VoucherRow): Promise<string> {
  return (await signerForKey(context.db, context.secrets, row.key_id)).sign(claimsOf(row));
}

function claimsOf(row: VoucherRow) {
  return { v: 1 as const, id: row.id, h: row.handle, c: row.currency, a: row.amount, x: Math.floor(row.expires_at.getTime() / 1000), m: row.mode };
}

export function voucherService(context: AppContext) {
  const { db, secrets } = context;

  async function owned(owner: VoucherOwner, id: string): Promise<VoucherRow> {
    const row = await findVoucher(db, id);
    if (!row || row.wallet_id !== owner.walletId || row.mode !== owner.mode) throw notFound('voucher_not_found', `No offline QR voucher ${id}`);
    return row;
  }

  return {
    /** Reserves the amount from the holder's wallet and signs a voucher for it. */
    /** `derivedVoucherId`: the id the request's Idempotency-Key derives (http/idempotency.ts derivedId), if it has one. */
    async create(owner: VoucherOwner, body: { amount: number; currency?: string; expiresInHours?: number }, derivedVoucherId?: string) {
      const wallet = await findWalletById(db, owner.walletId);
      if (!wallet) throw notFound('wallet_not_found', 'The wallet of this session no longer exists');
      const currency = supportedCurrency(body.currency ?? wallet.currency);
      const amount = toMinor(body.amount, currency);
      const now = context.now();
      const hours = body.expiresInHours ?? OFFLINE_QR_VOUCHER_HOURS_DEFAULT;
      // Whole seconds: the voucher's claims carry seconds, and the row must sign back to the same text.
      const expiresAt = new Date(Math.floor(now.getTime() / 1000) * 1000 + hours * 3600_000);
      const id = derivedVoucherId ?? `oqr_${randomHex(12)}`;
      const signer = await currentSigner(db, secrets, now);
      const text = signer.sign({ v: 1, id, h: wallet.handle, c: currency, a: amount, x: expiresAt.getTime() / 1000, m: owner.mode });
      const row = await db.transaction(async (tx) => {
        try {
          await transfer(tx, {
            id: voucherTransferId(id, 'reserve'),
            mode: owner.mode,
            kind: 'offline_qr_reserve',
            legs: [
              { account: walletAccount(wallet.id, currency), amount: -amount },
              { account: reserve(currency), amount },
            ],
            metadata: { voucherId: id },
          });
        } catch (error) {
          if (error instanceof LedgerError && error.code === 'insufficient_funds') {
            throw unprocessable('insufficient_funds', `${displayHandle(wallet.handle)} has less than ${body.amount} ${currency} to reserve`);
          }
          throw error;
        }
        return insertVoucher(tx, {
          id,
          wallet_id: wallet.id,
          handle: wallet.handle,
          mode: owner.mode,
          currency,
          amount,
          key_id: signer.keyId,
          payload_hash: sha256Hex(text),
          expires_at: expiresAt,
          created_at: now,
        });
      });
      return voucherRecord(row, text);
    },

    async get(owner: VoucherOwner, id: string) {
      const row = await owned(owner, id);
      return voucherRecord(row, row.status === 'active' ? await voucherText(context, row) : undefined);
    },

    async list(owner: VoucherOwner, status: string | undefined, limit: number, offset: number) {
      const page = await listVouchers(db, owner.walletId, owner.mode, status, limit, offset);
      return { data: page.rows.map((row) => voucherRecord(row)), total: page.total, limit, offset };
    },

    /** The holder takes the reserved money back at once (a lost phone). */
    async revoke(owner: VoucherOwner, id: string) {
      await owned(owner, id);
      const row = await db.transaction(async (tx) => {
        const locked = await lockVoucher(tx, id);
        if (!locked) throw notFound('voucher_not_found', `No offline QR voucher ${id}`);
        if (locked.status !== 'active') throw conflict('voucher_not_active', `The voucher is ${locked.status}: only an active voucher can be revoked`);
        await release(tx, locked, 'revoke');
        return endVoucher(tx, id, 'revoked', context.now());
      });
      return voucherRecord(row);
    },
  };
}

async function release(tx: Queryable, row: VoucherRow, movement: 'release' | 'revoke'): Promise<void> {
  await transfer(tx, {
    id: voucherTransferId(row.id, movement),
    mode: row.mode,
    kind: `offline_qr_${movement}`,
    legs: [
      { account: reserve(row.currency), amount: -row.amount },
      { account: walletAccount(row.wallet_id, row.currency), amount: row.amount },
    ],
    metadata: { voucherId: row.id },
  });
}

/**
 * Gives back the money of vouchers that expired more than the settlement grace ago and never
 * paid: a terminal that took one offline before it expired has had that long to sync.
 */
export async function releaseExpiredVouchers(context: Pick<AppContext, 'db' | 'config' | 'now'>, batch = 100): Promise<number> {
  const cutoff = new Date(context.now().getTime() - context.config.offlineQrSettlementGraceHours * 3600_000);
  const ids = await releasableVoucherIds(context.db, cutoff, batch);
  let released = 0;
  for (const id of ids) {
    const done = await context.db.transaction(async (tx) => {
      const row = await lockVoucher(tx, id);
      if (!row || row.status !== 'active' || row.expires_at > cutoff) return false;
      await release(tx, row, 'release');
      await endVoucher(tx, id, 'expired', context.now());
      return true;
    });
    if (done) released += 1;
  }
  return released;
}
