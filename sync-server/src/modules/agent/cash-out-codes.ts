// One-time cash-out codes (docs/agents.md): the holder makes one in her wallet session, with her
// PIN, for an amount; she tells it to the agent, who pays her that amount in cash against her
// wallet without her typing her PIN on the agent's device. The code is 8 random digits shown
// once and stored only as a slow hash, like a PIN; a wrong code counts in the wallet's PIN
// lock-out (5 wrong PINs or codes lock it for 15 minutes), so guessing it is no easier than
// guessing her PIN. One active code per wallet (a new one replaces it), used once, for
// CASH_OUT_CODE_MINUTES.
import { CASH_OUT_CODE_MINUTES } from '@tapline/shared/limits';
import { randomInt } from 'node:crypto';
import { toMajor, toMinor } from '@tapline/shared/money';
import type { AppContext } from '../../context.ts';
import { hashPin, newId, verifyPin } from '../../auth/secrets.ts';
import type { Database } from '../../db/database.ts';
import { badRequest, conflict, forbidden, gone, notFound, unprocessable } from '../../http/errors.ts';
import { supportedCurrency } from '../../http/validate.ts';
import { walletAccount } from '../../ledger/accounts.ts';
import { accountBalance } from '../../ledger/ledger.ts';
import { type WalletRow, attemptWalletSecret, checkTierRoomOut, checkWalletPin, findWallet } from '../wallets/index.ts';
import { type CashOutCodeRow, activeCashOutCode, endCashOutCode, findCashOutCode, listCashOutCodes, replaceCashOutCode } from './cash-out-codes-store.ts';

const CODE_DIGITS = 8;

/** "1234 5678", "12345678" or "1234-5678" as the holder reads it out: the 8 digits, or null. */
export function normalisedCode(text: string): string | null {
  const digits = text.replace(/[\s-]/g, '');
  return new RegExp(`^\\d{${CODE_DIGITS}}$`).test(digits) ? digits : null;
}

/** What the holder sees of a code: never the code itself, except once, when it is made. */
export function cashOutCodeRecord(row: CashOutCodeRow, now: Date, code?: string) {
  const expired = row.status === 'active' && row.expires_at.getTime() <= now.getTime();
  return {
    id: row.id,
    ...(code === undefined ? {} : { code: `${code.slice(0, 4)} ${code.slice(4)}` }),
    status: expired ? ('expired' as const) : row.status,
    amount: toMajor(row.amount, row.currency),
    currency: row.currency,
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at.toISOString(),
    ...(row.ended_at ? { endedAt: row.ended_at.toISOString() } : {}),
    ...(row.operation_id ? { operationId: row.operation_id } : {}),
  };
}

interface Holder {
  handle: string;
  mode: CashOutCodeRow['mode'];
}

async function holderWallet(db: Database, holder: Holder): Promise<WalletRow> {
  const wallet = await findWallet(db, holder.handle, holder.mode);
  if (!wallet) throw notFound('wallet_not_found', 'Wallet not found');
  return wallet;
}

export function cashOutCodeService(context: AppContext) {
  const { db } = context;
  return {
    /** Makes a code for `amount` (the wallet's currency unless named), confirmed with her PIN; replaces her active one. */
    async create(holder: Holder, body: { amount: number; currency?: string | undefined; walletPin: string }) {
      const wallet = await holderWallet(db, holder);
      const currency = supportedCurrency(body.currency ?? wallet.currency);
      const amount = toMinor(body.amount, currency);
      // A code the wallet cannot pay is refused now, not at the agent's counter; before the PIN,
      // so it spends no attempt. The agent checks again when paying out.
      const balance = await accountBalance(db, walletAccount(wallet.id, currency), holder.mode);
      if (balance < amount) {
        throw unprocessable('insufficient_funds', `The wallet holds ${toMajor(balance, currency)} ${currency}: a code for ${toMajor(amount, currency)} ${currency} could not be paid out`);
      }
      // Nor one past the wallet's day of money out (docs/wallet-tiers.md): the cash-out counts it again.
      await checkTierRoomOut(context, db, wallet, amount, currency);
      await checkWalletPin(db, wallet, body.walletPin, context.now());
      const code = Array.from({ length: CODE_DIGITS }, () => randomInt(10)).join('');
      const now = context.now();
      const row = {
        id: newId('cxc'),
        wallet_id: wallet.id,
        mode: holder.mode,
        amount,
        currency,
        code_hash: await hashPin(code),
        created_at: now,
        expires_at: new Date(now.getTime() + CASH_OUT_CODE_MINUTES * 60_000),
      };
      await db.transaction((tx) => replaceCashOutCode(tx, row));
      return cashOutCodeRecord((await findCashOutCode(db, row.id))!, now, code);
    },

    async list(holder: Holder, limit: number, offset: number) {
      const wallet = await holderWallet(db, holder);
      const { rows, total } = await listCashOutCodes(db, wallet.id, holder.mode, limit, offset);
      const now = context.now();
      return { data: rows.map((row) => cashOutCodeRecord(row, now)), total, limit, offset };
    },

    async cancel(holder: Holder, id: string) {
      const wallet = await holderWallet(db, holder);
      const row = await findCashOutCode(db, id);
      if (!row || row.wallet_id !== wallet.id) throw notFound('cash_out_code_not_found', `No cash-out code ${id} in this wallet`);
      const now = context.now();
      if (row.status === 'active') {
        const ended = await db.transaction((tx) => endCashOutCode(tx, id, 'cancelled', now, null));
        if (ended) return cashOutCodeRecord(ended, now);
      }
      const current = (await findCashOutCode(db, id))!;
      if (current.status === 'cancelled') return cashOutCodeRecord(current, now);
      throw conflict('cash_out_code_used', `Cash-out code ${id} was already used: the cash was paid out`);
    },
  };
}

/**
 * The agent's side: the code the customer read out, checked against her active code in the
 * wallet's PIN lock-out. Answers the code to end (in the operation's transaction, endCashOutCode)
 * once it is right, unexpired and for exactly this amount and currency.
 */
export async function checkCashOutCode(context: AppContext, wallet: WalletRow, typed: string, amount: number, currency: string): Promise<CashOutCodeRow> {
  const now = context.now();
  const code = normalisedCode(typed);
  if (code === null) throw badRequest('cash_out_code_invalid', 'A cash-out code is 8 digits, such as 1234 5678');
  const active = await activeCashOutCode(context.db, wallet.id);
  const { correct } = await attemptWalletSecret(context.db, wallet.id, now, async () => (active ? verifyPin(code, active.code_hash) : false));
  if (!correct || !active) throw forbidden('wrong_cash_out_code', 'Wrong cash-out code (or none is active for this wallet)');
  if (active.expires_at.getTime() <= now.getTime()) throw gone('cash_out_code_expired', `This cash-out code expired at ${active.expires_at.toISOString()}: the customer makes a new one`);
  if (active.currency !== currency || active.amount !== amount) {
    throw badRequest('cash_out_code_amount', `This code is for ${toMajor(active.amount, active.currency)} ${active.currency}: pay out exactly that`);
  }
  return active;
}
