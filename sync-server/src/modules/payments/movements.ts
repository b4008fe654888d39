import type { Queryable } from '../../db/database.ts';
import type { Mode } from '../../auth/secrets.ts';
import { type AccountRef, railClearing, systemAccount, walletAccount } from '../../ledger/accounts.ts';
import { type TransferLeg, type TransferRequest, transfer, transferIds } from '../../ledger/ledger.ts';

/**
 * The ledger side of a payment. Every movement is one balanced transfer posted in the same
 * database transaction as the payment's state change and its event; a transfer's id is derived
 * from the payment id, so a re-run posts nothing twice (the ledger answers `exists`).
 *
 * The debit: the source wallet gives amount + fee in the payment currency C; the fee goes to the
 * `fees` account; the amount crosses the `fx` desk into the destination currency D (when C != D)
 * and lands in rail clearing (money in flight to a rail: the account of the payout's provider and
 * currency, `rail_clearing:<provider>`; the shared `rail_clearing` when there is no provider, in
 * the sandbox) or directly in a recipient wallet (on-us). Settlement moves it from clearing out
 * through `funding`, the platform's boundary.
 * A failure before completion posts the debit's exact negation (a refund); a reversal after
 * completion posts the negation of debit and settlement together.
 */
export interface PaymentMoney {
  id: string;
  mode: Mode;
  amount: number;
  currency: string;
  fee: number;
  destinationAmount: number;
  destinationCurrency: string;
  sourceWalletId: string;
  /** The payout provider (live payouts): whose rail clearing account holds the money in flight. */
  provider: string | null;
}

function legsInto(payment: PaymentMoney, destination: AccountRef): TransferLeg[] {
  const legs: TransferLeg[] = [{ account: walletAccount(payment.sourceWalletId, payment.currency), amount: -(payment.amount + payment.fee) }];
  if (payment.fee > 0) legs.push({ account: systemAccount('fees', payment.currency), amount: payment.fee });
  if (payment.currency === payment.destinationCurrency) {
    legs.push({ account: destination, amount: payment.amount });
  } else {
    legs.push(
      { account: systemAccount('fx', payment.currency), amount: payment.amount },
      { account: systemAccount('fx', payment.destinationCurrency), amount: -payment.destinationAmount },
      { account: destination, amount: payment.destinationAmount },
    );
  }
  return legs;
}

function negate(legs: TransferLeg[]): TransferLeg[] {
  return legs.map((leg) => ({ account: leg.account, amount: -leg.amount }));
}

/** The debit: the source wallet into rail clearing, or into `recipient` for an on-us payment. */
export function debitRequest(payment: PaymentMoney, recipient?: AccountRef): TransferRequest {
  return {
    id: transferIds.step(payment.id, 'debit'),
    mode: payment.mode,
    kind: recipient ? 'payment_on_us' : 'payment_debit',
    legs: legsInto(payment, recipient ?? railClearing(payment.destinationCurrency, payment.provider)),
    metadata: { paymentId: payment.id },
  };
}

/** Posts the debit in the caller's transaction. Throws LedgerError insufficient_funds. */
export async function postDebit(tx: Queryable, payment: PaymentMoney, recipient?: AccountRef): Promise<void> {
  await transfer(tx, debitRequest(payment, recipient));
}

/** The rail has paid out: clearing -> out of the platform (or -> the recipient wallet in the sandbox's on-us simulation). */
export async function postSettlement(tx: Queryable, payment: PaymentMoney, recipient?: AccountRef): Promise<void> {
  await transfer(tx, {
    id: transferIds.step(payment.id, 'settle'),
    mode: payment.mode,
    kind: 'payment_settlement',
    legs: [
      { account: railClearing(payment.destinationCurrency, payment.provider), amount: -payment.destinationAmount },
      { account: recipient ?? systemAccount('funding', payment.destinationCurrency), amount: payment.destinationAmount },
    ],
    metadata: { paymentId: payment.id },
  });
}

/** A failure before completion: the debit's exact negation, money back to the source wallet. */
export async function postRefund(tx: Queryable, payment: PaymentMoney): Promise<void> {
  await transfer(tx, {
    id: transferIds.step(payment.id, 'refund'),
    mode: payment.mode,
    kind: 'payment_refund',
    legs: negate(legsInto(payment, railClearing(payment.destinationCurrency, payment.provider))),
    metadata: { paymentId: payment.id },
  });
}

/** A reversal after completion: the correcting transfer, taking the money back from where it went. */
export async function postReversal(tx: Queryable, payment: PaymentMoney, from?: AccountRef): Promise<void> {
  await transfer(tx, {
    id: `${payment.id}:reversal`,
    mode: payment.mode,
    kind: 'payment_reversal',
    legs: negate(legsInto(payment, from ?? systemAccount('funding', payment.destinationCurrency))),
    metadata: { paymentId: payment.id },
  });
}
