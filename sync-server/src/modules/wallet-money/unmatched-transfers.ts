// Bank transfers we could not match (docs/wallet-money.md, "A transfer we cannot match"): a
// provider confirmed money sent to an account number that is no wallet's here, or in a currency
// the account does not take. creditBankTransfer (virtual-accounts.ts) keeps each one, once under
// its provider reference; an operator (the admin token) lists them and resolves each:
//
// - assigned to a wallet: credited through the same path a matched transfer takes (creditToWallet:
//   the fee, the tier movement flagged beyond_limit past the tier, the record, the holder's
//   notification), in one transaction with the status change, so exactly once: a second assign
//   finds it no longer open (409).
// - returned: the operator sent it back to the sender at the provider and records its reference.
//   Nothing moves in the ledger: the money never entered our books (an unmatched transfer is
//   recorded without a ledger transfer; it stays at the provider), so there is nothing to take out.
import { toMajor } from '@tapline/shared/money';
import type { AppContext } from '../../context.ts';
import { conflict, notFound, unprocessable } from '../../http/errors.ts';
import { findWalletById, tierRates } from '../wallets/index.ts';
import { type UnmatchedStatus, type UnmatchedTransferRow, findUnmatchedTransfer, listUnmatchedTransfers, markUnmatchedAssigned, markUnmatchedReturned } from './virtual-accounts-store.ts';
import { creditToWallet } from './virtual-accounts.ts';

export function unmatchedTransferRecord(row: UnmatchedTransferRow) {
  return {
    id: row.id,
    status: row.status,
    reason: row.reason,
    mode: row.mode,
    provider: row.provider,
    providerReference: row.provider_reference,
    accountNumber: row.account_number,
    accountReference: row.account_reference,
    amount: toMajor(row.amount, row.currency),
    currency: row.currency,
    senderName: row.sender_name,
    senderBank: row.sender_bank,
    narration: row.narration,
    paidAt: row.paid_at?.toISOString() ?? null,
    receivedAt: row.received_at.toISOString(),
    walletId: row.wallet_id,
    bankTransferId: row.bank_transfer_id,
    returnReference: row.return_reference,
    note: row.note,
    resolvedBy: row.resolved_by,
    resolvedAt: row.resolved_at?.toISOString() ?? null,
  };
}

export async function listUnmatched(context: AppContext, status: UnmatchedStatus | undefined, limit: number, offset: number) {
  return listUnmatchedTransfers(context.db, status, limit, offset);
}

async function openOne(context: AppContext, id: string): Promise<UnmatchedTransferRow> {
  const row = await findUnmatchedTransfer(context.db, id);
  if (!row) throw notFound('unmatched_transfer_not_found', `No unmatched bank transfer ${id.slice(0, 100)}`);
  if (row.status !== 'open') throw conflict('unmatched_transfer_resolved', `This transfer is already ${row.status}${row.resolved_at ? ` (${row.resolved_at.toISOString()})` : ''}: it is resolved once`);
  return row;
}

/** Credits an open unmatched transfer to a wallet, once; the status change in the same transaction. */
export async function assignUnmatched(context: AppContext, id: string, body: { walletId: string; note?: string | undefined }): Promise<UnmatchedTransferRow> {
  const row = await openOne(context, id);
  const wallet = await findWalletById(context.db, body.walletId.trim());
  if (!wallet) throw notFound('wallet_not_found', `No wallet ${body.walletId.slice(0, 100)}`);
  if (wallet.mode !== row.mode) throw unprocessable('wallet_mode_mismatch', `This transfer arrived in ${row.mode} mode; wallet ${wallet.id} is a ${wallet.mode} wallet`);
  if (wallet.currency !== row.currency) throw unprocessable('currency_not_accepted', `This transfer is in ${row.currency}; wallet ${wallet.id} moves money in ${wallet.currency} only`);
  // FX rates (a wallet holding other currencies) are read before the transaction opens (tiers.ts).
  const rates = await tierRates(context);
  const note = body.note?.trim() || null;
  const outcome = await context.db.transaction(async (tx) => {
    // Two assigns at once (two operators, a double click): the row's lock makes the second wait and find it resolved.
    const locked = await findUnmatchedTransfer(tx, id, true);
    if (locked?.status !== 'open') throw conflict('unmatched_transfer_resolved', `This transfer was ${locked?.status ?? 'resolved'} meanwhile: it is resolved once`);
    const credited = await creditToWallet(
      context,
      tx,
      row.provider,
      {
        providerReference: row.provider_reference,
        amount: row.amount,
        currency: row.currency,
        ...(row.paid_at ? { paidAt: row.paid_at.toISOString() } : {}),
        ...(row.sender_name ? { senderName: row.sender_name } : {}),
        ...(row.sender_bank ? { senderBank: row.sender_bank } : {}),
        ...(row.narration ? { narration: row.narration } : {}),
      },
      { wallet, account: null, accountNumber: row.account_number ?? '', rates },
    );
    // Already credited under this reference (its webhook came again once the account was known): nothing more.
    if (!credited) return 'resolved' as const;
    const marked = await markUnmatchedAssigned(tx, { provider: row.provider, reference: row.provider_reference, walletId: wallet.id, bankTransferId: credited.id, by: 'admin', note, at: context.now() });
    // Returned or assigned by someone else since the read: throwing rolls the credit back.
    if (!marked) throw conflict('unmatched_transfer_resolved', 'This transfer was resolved meanwhile: it is resolved once');
    return 'assigned' as const;
  });
  if (outcome === 'resolved') throw conflict('unmatched_transfer_resolved', 'This transfer was already credited under its provider reference');
  return (await findUnmatchedTransfer(context.db, id))!;
}

/** Records that the operator sent an open unmatched transfer back to its sender at the provider (no ledger movement: see the header). */
export async function markReturned(context: AppContext, id: string, body: { reference: string; note?: string | undefined }): Promise<UnmatchedTransferRow> {
  await openOne(context, id);
  const reference = body.reference.trim();
  if (!reference) throw unprocessable('return_reference_required', "Give the provider's reference of the refund you made there");
  const marked = await markUnmatchedReturned(context.db, { id, returnReference: reference, note: body.note?.trim() || null, at: context.now() });
  if (!marked) throw conflict('unmatched_transfer_resolved', 'This transfer was resolved meanwhile: it is resolved once');
  return (await findUnmatchedTransfer(context.db, id))!;
}
