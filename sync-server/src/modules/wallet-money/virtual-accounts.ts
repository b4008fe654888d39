// Top-ups by bank transfer (docs/wallet-money.md, "Top-ups by bank transfer"): a holder's wallet gets
// its own virtual bank account per currency (a Paystack dedicated virtual account or a Flutterwave
// virtual account number live, a sandbox account for test wallets); anyone may pay into it from any
// bank, and each transfer is credited to the wallet exactly once, when the provider confirms it.
//
// Exactly once: a transfer is keyed on the provider's transaction reference (UNIQUE (provider,
// provider_reference), and its record's id and ledger transfer id derive from it). A duplicate
// webhook, a requery that finds it again, a retry after a crash: each finds the row under the
// wallet row's lock and changes nothing. The record, the ledger transfer (the provider's rail
// clearing account live, the sandbox's funding account in test mode -> the wallet, the fee to
// fees), the tier movement and the holder's notification commit together.
//
// A bank transfer has already happened when we hear of it: it is never refused. One that passes
// the wallet's tier is credited and flagged beyond_limit (as a late mobile-money confirmation is).
// One into an account we do not know (or in a currency it does not take) is kept as unmatched for
// an operator, who assigns it to a wallet (credited then by the same creditToWallet) or records
// that it was sent back (unmatched-transfers.ts).
import { createHash } from 'node:crypto';
import { percentOf, toMajor, toMinor } from '@tapline/shared/money';
import type { AppContext } from '../../context.ts';
import { newId } from '../../auth/secrets.ts';
import { badRequest, notFound, unprocessable } from '../../http/errors.ts';
import { railClearing, systemAccount, walletAccount } from '../../ledger/accounts.ts';
import { transfer } from '../../ledger/ledger.ts';
import type { ArrivedBankTransfer, RailAdapter, RailProviderName } from '../../rails/index.ts';
import type { Queryable } from '../../db/database.ts';
import type { Mode } from '../../auth/secrets.ts';
import { type TierRates, type WalletRow, countArrivedMoney, findWalletById, lockWalletRow, tierRates } from '../wallets/index.ts';
import { insertWalletNotification } from '../wallets/index.ts';
import {
  type BankTransferRow,
  type UnmatchedTransferRow,
  type VirtualAccountRow,
  accountsOf,
  findAccountByNumber,
  findAccountByReference,
  findAccountOf,
  findBankTransfer,
  findUnmatchedByReference,
  insertAccount,
  insertBankTransfer,
  insertUnmatchedTransfer,
  markUnmatchedAssigned,
} from './virtual-accounts-store.ts';
import type { Holder } from './service.ts';

export const SANDBOX_BANK = { name: 'Tapline Sandbox Bank', slug: 'tapline-sandbox' } as const;

// Answers ---------------------------------------------------------------------------------------

function bankTransferFee(context: AppContext, received: number): number {
  return Math.min(percentOf(received, context.config.walletBankTransferFeePercent, 'up'), received);
}

function feeSentence(context: AppContext, currency: string): string {
  const percent = context.config.walletBankTransferFeePercent;
  if (Number(percent) === 0) return `No fee: every ${currency} sent to this account is added to the wallet.`;
  const example = toMinor(1000, currency);
  const fee = bankTransferFee(context, example);
  return `A fee of ${percent}% of each transfer is kept: ${currency} ${toMajor(example, currency)} sent adds ${currency} ${toMajor(example - fee, currency)}.`;
}

export function virtualAccountRecord(context: AppContext, row: VirtualAccountRow) {
  return {
    id: row.id,
    currency: row.currency,
    provider: row.provider,
    bankName: row.bank_name,
    accountNumber: row.account_number,
    accountName: row.account_name,
    feePercent: context.config.walletBankTransferFeePercent,
    fee: feeSentence(context, row.currency),
    createdAt: row.created_at.toISOString(),
  };
}

export function bankTransferRecord(row: BankTransferRow, accountNumber: string) {
  return {
    id: row.id,
    status: 'completed' as const,
    received: toMajor(row.received, row.currency),
    fee: toMajor(row.fee, row.currency),
    amount: toMajor(row.amount, row.currency),
    currency: row.currency,
    provider: row.provider,
    providerReference: row.provider_reference,
    accountNumber,
    ...(row.sender_name ? { senderName: row.sender_name } : {}),
    ...(row.sender_bank ? { senderBank: row.sender_bank } : {}),
    ...(row.narration ? { narration: row.narration } : {}),
    beyondLimit: row.beyond_limit,
    ...(row.paid_at ? { paidAt: row.paid_at.toISOString() } : {}),
    createdAt: row.created_at.toISOString(),
  };
}

// Opening an account ----------------------------------------------------------------------------

async function holderWallet(context: AppContext, holder: Holder): Promise<WalletRow> {
  const wallet = await findWalletById(context.db, holder.walletId);
  if (!wallet || wallet.mode !== holder.mode) throw notFound('wallet_not_found', 'Wallet not found');
  return wallet;
}

function currencyOf(wallet: WalletRow, given: string | undefined): string {
  const currency = (given ?? wallet.currency).trim().toUpperCase();
  if (currency !== wallet.currency) throw badRequest('currency_not_accepted', `This wallet moves money in ${wallet.currency} only, not ${currency.slice(0, 8)}`);
  return currency;
}

/**
 * The live provider a wallet's account in this currency is opened with: WALLET_VIRTUAL_ACCOUNT_PROVIDER
 * when it is set, configured and makes accounts in the currency; otherwise the first configured
 * provider that does, in the adapters' order (paystack, flutterwave). An account once made stays
 * with its provider.
 */
function liveProvider(context: AppContext, currency: string): RailAdapter | undefined {
  const offers = (adapter: RailAdapter | undefined) => adapter?.virtualAccounts?.currencies.includes(currency) === true;
  const preferred = context.config.walletVirtualAccountProvider;
  const chosen = preferred ? context.rails.adapters.get(preferred as RailProviderName) : undefined;
  if (offers(chosen)) return chosen;
  return [...context.rails.adapters.values()].find(offers);
}

/** A sandbox account number: ten digits derived from the wallet and currency, the same every time. */
function sandboxAccountNumber(walletId: string, currency: string): string {
  const digits = BigInt(`0x${createHash('sha256').update(`${walletId}:${currency}`).digest('hex').slice(0, 15)}`) % 10_000_000_000n;
  return `99${String(digits).padStart(10, '0').slice(2)}`;
}

function namesOf(wallet: WalletRow): { firstName: string; lastName: string; full: string } {
  const full = (wallet.display_name ?? '').trim() || `@${wallet.handle}`;
  const parts = full.split(/\s+/);
  return { firstName: parts[0]!, lastName: parts.length > 1 ? parts.slice(1).join(' ') : parts[0]!, full };
}

/**
 * The holder's virtual account in a currency: the one she has, or one made now (sandbox in test
 * mode, the provider live). Idempotent: the same account every time; two requests at once keep one.
 */
export async function openVirtualAccount(context: AppContext, holder: Holder, body: { currency?: string | undefined; bvn?: string | undefined }): Promise<{ row: VirtualAccountRow; created: boolean }> {
  const wallet = await holderWallet(context, holder);
  const currency = currencyOf(wallet, body.currency);
  const had = await findAccountOf(context.db, wallet.id, currency, wallet.mode);
  if (had) return { row: had, created: false };
  const names = namesOf(wallet);
  const base = { id: newId('vac'), wallet_id: wallet.id, mode: wallet.mode, currency, created_at: context.now() };
  let row: VirtualAccountRow;
  if (wallet.mode === 'test') {
    row = { ...base, provider: 'sandbox', provider_customer: null, provider_account_id: null, account_number: sandboxAccountNumber(wallet.id, currency), account_name: `TAPLINE/${names.full.toUpperCase()}`.slice(0, 100), bank_name: SANDBOX_BANK.name, bank_slug: SANDBOX_BANK.slug };
  } else {
    const adapter = liveProvider(context, currency);
    if (!adapter?.virtualAccounts) throw unprocessable('virtual_account_unavailable', `No provider on this server makes virtual bank accounts in ${currency}: top up from mobile money instead`);
    // Flutterwave's permanent accounts need the holder's BVN: asked for, passed on, never stored.
    const bvn = body.bvn?.trim();
    if (adapter.virtualAccounts.needsBvn && !bvn) throw unprocessable('bvn_required', `${adapter.name} makes a permanent account number only with the holder's BVN: send bvn (11 digits)`);
    let made;
    try {
      made = await adapter.virtualAccounts.open({ walletId: wallet.id, currency, firstName: names.firstName, lastName: names.lastName, ...(bvn ? { bvn } : {}) });
    } catch (error) {
      throw unprocessable('virtual_account_unavailable', `${adapter.name} could not make the account now; try again in a minute (${error instanceof Error ? error.message.slice(0, 160) : 'no answer'})`);
    }
    row = { ...base, provider: adapter.name, provider_customer: made.providerCustomer || null, provider_account_id: made.providerAccountId, account_number: made.accountNumber, account_name: made.accountName, bank_name: made.bankName, bank_slug: made.bankSlug ?? null };
  }
  await insertAccount(context.db, row);
  const kept = (await findAccountOf(context.db, wallet.id, currency, wallet.mode))!;
  return { row: kept, created: kept.id === row.id };
}

export async function virtualAccountsOf(context: AppContext, holder: Holder): Promise<VirtualAccountRow[]> {
  return accountsOf(context.db, holder.walletId, holder.mode);
}

export async function accountNumbersOf(context: AppContext, holder: Holder): Promise<Map<string, string>> {
  return new Map((await accountsOf(context.db, holder.walletId, holder.mode)).map((row) => [row.id, row.account_number]));
}

// Crediting what arrived ------------------------------------------------------------------------

/** unknown_account: not ours to credit (an account we do not know, or a currency it does not take): kept as unmatched for an operator. */
export type BankTransferOutcome = 'applied' | 'unchanged' | 'unknown_account';

export function bankTransferId(provider: string, reference: string): string {
  return `btr_${createHash('sha256').update(`${provider}:${reference}`).digest('hex').slice(0, 32)}`;
}

function unmatchedId(provider: string, reference: string): string {
  return `ubt_${createHash('sha256').update(`${provider}:${reference}`).digest('hex').slice(0, 32)}`;
}

/** What crediting a transfer to a wallet needs besides the transfer: where it was paid, and how to say so. */
export interface CreditTarget {
  wallet: WalletRow;
  /** The wallet's own account it was paid into; null when an operator assigned it (unmatched-transfers.ts). */
  account: VirtualAccountRow | null;
  /** The account number shown in the record and the notification's data. */
  accountNumber: string;
  rates: TierRates;
}

/**
 * The one path a bank transfer into a wallet takes, matched by its account or assigned by an
 * operator, in the caller's transaction: under the wallet row's lock, nothing if the reference was
 * credited already (null); else the ledger transfer (the provider's rail clearing account live, the
 * sandbox's funding account in test mode -> the wallet, the fee to fees), the tier movement
 * (beyond_limit when it passes the tier: a transfer the bank already made is never refused), the
 * record and the holder's notification.
 */
export async function creditToWallet(context: AppContext, tx: Queryable, provider: string, arrived: ArrivedBankTransfer, target: CreditTarget): Promise<BankTransferRow | null> {
  const { wallet, account } = target;
  await lockWalletRow(tx, wallet.id);
  if (await findBankTransfer(tx, provider, arrived.providerReference)) return null;
  const id = bankTransferId(provider, arrived.providerReference);
  const fee = bankTransferFee(context, arrived.amount);
  const amount = arrived.amount - fee;
  const paidAt = arrived.paidAt && !Number.isNaN(Date.parse(arrived.paidAt)) ? new Date(arrived.paidAt) : null;
  const now = context.now();
  const transferId = `${id}:credit`;
  await transfer(tx, {
    id: transferId,
    mode: wallet.mode,
    kind: 'wallet_bank_transfer',
    legs: [
      // Live: the money is at the provider until it settles to the platform; sandbox: the test faucet.
      { account: provider === 'sandbox' ? systemAccount('funding', arrived.currency) : railClearing(arrived.currency, provider), amount: -arrived.amount },
      ...(amount > 0 ? [{ account: walletAccount(wallet.id, arrived.currency), amount }] : []),
      ...(fee > 0 ? [{ account: systemAccount('fees', arrived.currency), amount: fee }] : []),
    ],
    metadata: { bankTransferId: id, provider, providerReference: arrived.providerReference, ...(account ? { virtualAccountId: account.id } : { assigned: true }) },
  });
  const beyondLimit = amount > 0 ? await countArrivedMoney(context, tx, wallet, { id, kind: 'bank_transfer_in', amount, currency: arrived.currency }, target.rates) : false;
  const row = await insertBankTransfer(tx, {
    id,
    virtual_account_id: account?.id ?? null,
    wallet_id: wallet.id,
    mode: wallet.mode,
    provider,
    provider_reference: arrived.providerReference,
    received: arrived.amount,
    fee,
    amount,
    currency: arrived.currency,
    sender_name: arrived.senderName ?? null,
    sender_bank: arrived.senderBank ?? null,
    narration: arrived.narration ?? null,
    beyond_limit: beyondLimit,
    transfer_id: transferId,
    paid_at: paidAt,
    created_at: now,
  });
  const record = bankTransferRecord(row, target.accountNumber);
  const money = (minor: number) => `${arrived.currency} ${toMajor(minor, arrived.currency)}`;
  await insertWalletNotification(tx, {
    walletId: wallet.id,
    mode: wallet.mode,
    kind: 'wallet.top_up.completed',
    title: 'Wallet topped up',
    body: `${money(amount)} from a bank transfer${arrived.senderName ? ` by ${arrived.senderName}` : ''} is in your wallet${fee > 0 ? ` (${money(arrived.amount)} sent, ${money(fee)} fee)` : ''}.`,
    data: { bankTransferId: id, method: 'bank_transfer', ...record },
    at: now,
  });
  return row;
}

/**
 * Keeps a transfer we cannot credit (docs/wallet-money.md, "A transfer we cannot match"): the
 * money is at the provider and an operator must see it. Idempotent under (provider, reference).
 */
async function keepUnmatched(context: AppContext, provider: string, arrived: ArrivedBankTransfer, reason: UnmatchedTransferRow['reason'], mode: Mode): Promise<'unknown_account'> {
  await insertUnmatchedTransfer(context.db, {
    id: unmatchedId(provider, arrived.providerReference),
    mode,
    provider,
    provider_reference: arrived.providerReference,
    account_number: arrived.accountNumber ?? null,
    // The CHECK wants one of them: a record naming neither is kept under its reference alone.
    account_reference: arrived.accountReference ?? (arrived.accountNumber ? null : '(none)'),
    reason,
    amount: arrived.amount,
    currency: arrived.currency,
    sender_name: arrived.senderName ?? null,
    sender_bank: arrived.senderBank ?? null,
    narration: arrived.narration ?? null,
    paid_at: arrived.paidAt && !Number.isNaN(Date.parse(arrived.paidAt)) ? new Date(arrived.paidAt) : null,
    received_at: context.now(),
  });
  return 'unknown_account';
}

/**
 * Credits a bank transfer the provider confirmed (its own verified record, never a webhook's body
 * alone), exactly once under its reference. An account we do not know, or a currency the account
 * does not take, is not ours to credit: it is kept as unmatched for an operator ('unknown_account').
 * A reference an operator already resolved is left alone: assigned, it was credited; returned,
 * the money went back to the sender.
 */
export async function creditBankTransfer(context: AppContext, provider: string, arrived: ArrivedBankTransfer): Promise<BankTransferOutcome> {
  if (arrived.amount <= 0) return 'unchanged';
  const account = arrived.accountReference
    ? await findAccountByReference(context.db, provider, arrived.accountReference)
    : arrived.accountNumber
      ? await findAccountByNumber(context.db, provider, arrived.accountNumber)
      : undefined;
  // Live providers' accounts are live; the sandbox's are test (openVirtualAccount).
  const mode: Mode = account?.mode ?? (provider === 'sandbox' ? 'test' : 'live');
  const wallet = account ? await findWalletById(context.db, account.wallet_id) : undefined;
  if (!account || !wallet) return keepUnmatched(context, provider, arrived, 'unknown_account', mode);
  if (account.currency !== arrived.currency) return keepUnmatched(context, provider, arrived, 'currency_not_accepted', mode);
  if (await findBankTransfer(context.db, provider, arrived.providerReference)) return 'unchanged';
  const kept = await findUnmatchedByReference(context.db, provider, arrived.providerReference);
  if (kept && kept.status !== 'open') return 'unchanged';
  // FX rates (a wallet holding other currencies) are read before the transaction opens (tiers.ts).
  const rates = await tierRates(context);
  return context.db.transaction(async (tx) => {
    const row = await creditToWallet(context, tx, provider, arrived, { wallet, account, accountNumber: account.account_number, rates });
    if (!row) return 'unchanged';
    // Kept as unmatched earlier (the account was unknown then, e.g. a row lost and made again),
    // and its webhook came again: credited now, so the operator's list says so. One returned in
    // the meantime was left alone above; if it is returned between that read and here, the
    // status check below makes the mark a no-op and the operator sees the credit on the wallet.
    if (kept) await markUnmatchedAssigned(tx, { provider, reference: arrived.providerReference, walletId: wallet.id, bankTransferId: row.id, by: 'matched', note: null, at: context.now() });
    return 'applied';
  });
}

/** Test mode: a bank transfer "sent" to the holder's sandbox account, credited like a provider's (the reference makes a retry change nothing). */
export async function sandboxBankTransfer(context: AppContext, holder: Holder, body: { amount: number; senderName?: string | undefined }, reference: string): Promise<BankTransferRow> {
  if (holder.mode !== 'test') throw unprocessable('sandbox_only', 'Simulated bank transfers are for test wallets only: live money arrives from a real bank');
  const wallet = await holderWallet(context, holder);
  const account = await findAccountOf(context.db, wallet.id, wallet.currency, wallet.mode);
  if (!account) throw unprocessable('virtual_account_not_found', 'This wallet has no virtual account yet: POST /api/wallet/virtual-account first');
  const received = toMinor(body.amount, account.currency);
  await creditBankTransfer(context, 'sandbox', {
    providerReference: reference,
    accountNumber: account.account_number,
    amount: received,
    currency: account.currency,
    paidAt: context.now().toISOString(),
    senderName: body.senderName?.trim() || 'SANDBOX SENDER',
    senderBank: 'Sandbox Sender Bank',
    narration: `Sandbox transfer to ${account.account_number}`,
  });
  return (await findBankTransfer(context.db, 'sandbox', reference))!;
}

/** Live: asks the provider to look again for transfers into the account today (they arrive by its webhook). */
export async function requeryVirtualAccount(context: AppContext, holder: Holder, currency: string | undefined): Promise<VirtualAccountRow> {
  const wallet = await holderWallet(context, holder);
  const account = await findAccountOf(context.db, wallet.id, currencyOf(wallet, currency), wallet.mode);
  if (!account) throw unprocessable('virtual_account_not_found', 'This wallet has no virtual account yet: POST /api/wallet/virtual-account first');
  if (account.provider === 'sandbox') return account;
  const adapter = context.rails.adapters.get(account.provider as RailProviderName);
  if (!adapter?.virtualAccounts) throw unprocessable('virtual_account_unavailable', `${account.provider} is no longer configured on this server`);
  try {
    await adapter.virtualAccounts.requery({ accountNumber: account.account_number, bankSlug: account.bank_slug ?? undefined, providerCustomer: account.provider_customer ?? undefined }, context.now().toISOString().slice(0, 10));
  } catch (error) {
    throw unprocessable('virtual_account_unavailable', `${account.provider} could not look again now; try again in a minute (${error instanceof Error ? error.message.slice(0, 160) : 'no answer'})`);
  }
  return account;
}
