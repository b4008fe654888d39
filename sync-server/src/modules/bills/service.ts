import { createHash, randomBytes } from 'node:crypto';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { percentOf, toMajor, toMinor } from '@tapline/shared/money';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/database.ts';
import type { Mode } from '../../auth/secrets.ts';
import { badRequest, notFound, unprocessable } from '../../http/errors.ts';
import { supportedCurrency } from '../../http/validate.ts';
import { railClearing, systemAccount, walletAccount } from '../../ledger/accounts.ts';
import { transfer, transferIds, type TransferLeg } from '../../ledger/ledger.ts';
import { ensureSandboxFloat } from '../payments/index.ts';
import { findWallet } from '../wallets/index.ts';
import { type Biller, findBiller } from './catalogue.ts';
import type { BillResult, BillerProvider } from './providers.ts';
import { type BillRow, findBill, insertBill, lockBill, recordBillResult } from './store.ts';

export interface BillBody {
  billType: string;
  billerId: string;
  accountRef: string;
  amount: number;
  currency?: string | undefined;
  planCode?: string | undefined;
  reference?: string | undefined;
}

export interface BillDeps {
  db: Database;
  config: Config;
  now: () => Date;
  billerProviders: readonly BillerProvider[];
}

export const SANDBOX_BILL_FAILURE = 'The biller refused the payment (sandbox reference test_failure)';

export function billRecord(row: BillRow) {
  const biller = findBiller(row.biller_id);
  return {
    id: row.id,
    status: row.status,
    success: row.status !== 'failed',
    mode: row.mode,
    billType: row.bill_type,
    billerId: row.biller_id,
    billerName: biller?.name ?? row.biller_id,
    country: biller?.country ?? '',
    accountRef: row.account_ref,
    amount: toMajor(row.amount, row.currency),
    currency: row.currency,
    fee: toMajor(row.fee, row.currency),
    planCode: row.plan_code,
    token: row.token,
    units: row.units,
    customerName: row.customer_name,
    reference: row.reference,
    providerReference: row.provider_reference,
    ...(row.failure_reason ? { failureReason: row.failure_reason } : {}),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** Checks accountRef the biller's way; returns it normalised (phones in E.164). */
export function validateAccountRef(biller: Biller, accountRef: string): string {
  const text = accountRef.trim();
  if (biller.accountRefType === 'phone') {
    const parsed = parsePhoneNumberFromString(text, biller.country);
    if (!parsed?.isValid() || parsed.country !== biller.country) {
      throw badRequest('account_ref_invalid', `accountRef must be a valid ${biller.country} mobile number for ${biller.name}`);
    }
    return parsed.number;
  }
  const compact = text.replace(/[\s-]/g, '');
  if (!new RegExp(biller.accountRefPattern ?? '^\\d+$').test(compact)) {
    throw badRequest('account_ref_invalid', `accountRef must be a ${biller.accountRefType === 'meter' ? 'meter' : 'smartcard'} number for ${biller.name}: ${biller.accountRefDescription}`);
  }
  return compact;
}

/** A sandbox prepaid token: 20 digits in groups of four, derived from the bill id. */
function sandboxToken(billId: string): string {
  const digest = createHash('sha256').update(billId).digest();
  let digits = '';
  for (const byte of digest) {
    digits += String(byte % 10);
    if (digits.length === 20) break;
  }
  return digits.match(/.{4}/g)!.join('-');
}

function sandboxResult(biller: Biller, billId: string, amount: number, reference: string | undefined): BillResult {
  const providerReference = `sbx_bill_${randomBytes(8).toString('hex')}`;
  if (reference === 'test_failure') return { status: 'failed', providerReference, failureReason: SANDBOX_BILL_FAILURE };
  if (biller.billType === 'electricity') {
    // Units to one decimal, rounded down: amount (major) / tariff.
    const units = Math.floor((amount / (biller.tariffPerKwh ?? 1)) * 10) / 10;
    return { status: 'completed', providerReference, token: sandboxToken(billId), units: units.toFixed(1), customerName: 'SANDBOX CUSTOMER' };
  }
  if (biller.billType === 'cable_tv') return { status: 'completed', providerReference, customerName: 'SANDBOX CUSTOMER' };
  return { status: 'completed', providerReference };
}

/** A bill's debit: into its live biller provider's own clearing account (rail_clearing:<provider>), or `funding` in the sandbox. */
function debitLegs(walletId: string, currency: string, amount: number, fee: number, to: { provider: string } | 'funding'): TransferLeg[] {
  const legs: TransferLeg[] = [
    { account: walletAccount(walletId, currency), amount: -(amount + fee) },
    { account: to === 'funding' ? systemAccount('funding', currency) : railClearing(currency, to.provider), amount },
  ];
  if (fee > 0) legs.push({ account: systemAccount('fees', currency), amount: fee });
  return legs;
}

/**
 * POST /api/bills/pay. Sandbox: the result is decided at once (a token for electricity) and the
 * debit, the bill record and its outcome commit in one transaction. Live: the wallet is debited
 * into rail clearing with the bill pending, the biller adapter is called outside the
 * transaction, and its answer settles or refunds the bill.
 */
export async function payBill(deps: BillDeps, caller: { merchantId: string; handle: string; mode: Mode }, body: BillBody, billId: string): Promise<BillRow> {
  const biller = findBiller(body.billerId);
  if (!biller) throw notFound('biller_not_found', `No biller ${body.billerId}: see GET /api/bills/billers`);
  if (biller.billType !== body.billType) throw badRequest('bill_type_mismatch', `${biller.name} takes billType ${biller.billType}, not ${body.billType}`);
  if (body.currency && supportedCurrency(body.currency) !== biller.currency) throw badRequest('currency_mismatch', `${biller.name} is paid in ${biller.currency}`);
  const accountRef = validateAccountRef(biller, body.accountRef);
  const amount = toMinor(body.amount, biller.currency);
  let planCode: string | null = null;
  if (body.planCode !== undefined) {
    const plan = biller.plans?.find((candidate) => candidate.code === body.planCode);
    if (!plan) throw badRequest('plan_invalid', `${biller.name} has no plan ${body.planCode}${biller.plans ? `; plans: ${biller.plans.map((p) => p.code).join(', ')}` : ''}`);
    if (toMinor(plan.amount, biller.currency) !== amount) throw badRequest('amount_mismatch', `Plan ${plan.code} costs ${plan.amount} ${biller.currency}`);
    planCode = plan.code;
  }
  if (amount < toMinor(biller.minAmount, biller.currency) || amount > toMinor(biller.maxAmount, biller.currency)) {
    throw badRequest('amount_out_of_range', `${biller.name} takes ${biller.minAmount} to ${biller.maxAmount} ${biller.currency}`);
  }
  const provider = caller.mode === 'live' ? deps.billerProviders.find((candidate) => candidate.supports(biller)) : undefined;
  if (caller.mode === 'live' && !provider) throw unprocessable('biller_unavailable', `No bill-payment provider is configured for ${biller.name} in live mode`);

  const wallet = await findWallet(deps.db, caller.handle, caller.mode);
  if (!wallet) throw notFound('wallet_not_found', `The merchant has no ${caller.mode} wallet`);
  await ensureSandboxFloat(deps, wallet, biller.currency);
  const fee = percentOf(amount, deps.config.feePercentByRail.bills ?? '0', 'up');
  const now = deps.now();
  const base: Omit<BillRow, 'updated_at'> = {
    id: billId, merchant_id: caller.merchantId, mode: caller.mode, bill_type: biller.billType, biller_id: biller.id, account_ref: accountRef, amount,
    currency: biller.currency, fee, status: 'pending', plan_code: planCode, token: null, units: null, customer_name: null, reference: body.reference ?? null,
    failure_reason: null, provider: provider?.name ?? 'sandbox', provider_reference: null, wallet_id: wallet.id, created_at: now,
  };

  if (!provider) {
    const result = sandboxResult(biller, billId, Number(body.amount), body.reference);
    return deps.db.transaction(async (tx) => {
      const row = await insertBill(tx, {
        ...base,
        status: result.status,
        token: result.token ?? null,
        units: result.units ?? null,
        customer_name: result.customerName ?? null,
        provider_reference: result.providerReference,
        failure_reason: result.failureReason ?? null,
      });
      if (!row) return (await findBill(tx, billId))!;
      await transfer(tx, { id: transferIds.step(billId, 'debit'), mode: caller.mode, kind: 'bill_debit', legs: debitLegs(wallet.id, biller.currency, amount, fee, 'funding'), metadata: { billId } });
      if (result.status === 'failed') {
        await transfer(tx, {
          id: transferIds.step(billId, 'refund'), mode: caller.mode, kind: 'bill_refund', legs: debitLegs(wallet.id, biller.currency, amount, fee, 'funding').map((leg) => ({ ...leg, amount: -leg.amount })), metadata: { billId },
        });
      }
      return row;
    });
  }

  const pending = await deps.db.transaction(async (tx) => {
    const row = await insertBill(tx, base);
    if (!row) return { row: (await findBill(tx, billId))!, created: false };
    await transfer(tx, { id: transferIds.step(billId, 'debit'), mode: caller.mode, kind: 'bill_debit', legs: debitLegs(wallet.id, biller.currency, amount, fee, { provider: provider.name }), metadata: { billId } });
    return { row, created: true };
  });
  if (!pending.created || pending.row.status !== 'pending') return pending.row;
  let result: BillResult;
  try {
    result = await provider.pay({ billId, biller, accountRef, amount, planCode });
  } catch {
    // Unknown outcome: the bill stays pending (debited into clearing) for reconciliation.
    return pending.row;
  }
  return deps.db.transaction(async (tx) => {
    const locked = await lockBill(tx, billId);
    if (!locked || locked.status !== 'pending') return locked!;
    if (result.status === 'completed') {
      await transfer(tx, {
        id: transferIds.step(billId, 'settle'), mode: caller.mode, kind: 'bill_settlement',
        legs: [{ account: railClearing(biller.currency, provider.name), amount: -amount }, { account: systemAccount('funding', biller.currency), amount }],
      });
    } else {
      await transfer(tx, {
        id: transferIds.step(billId, 'refund'), mode: caller.mode, kind: 'bill_refund', legs: debitLegs(wallet.id, biller.currency, amount, fee, { provider: provider.name }).map((leg) => ({ ...leg, amount: -leg.amount })), metadata: { billId },
      });
    }
    const row = await recordBillResult(tx, billId, result, deps.now());
    return row!;
  });
}
