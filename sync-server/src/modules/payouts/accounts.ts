// Settlement accounts: where a merchant is paid out. A bank account (country, bank code, number;
// its holder's name resolved by the provider where one can) or a mobile money number with its
// operator. One default per currency; numbers are stored whole (the provider needs them) and
// answered masked.
import { currencyOfCountry } from '@tapline/shared/countries';
import type { CreateSettlementAccountBody, SettlementAccountRecord } from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import type { Mode } from '../../auth/secrets.ts';
import { newId } from '../../auth/secrets.ts';
import { badRequest, notFound, unprocessable } from '../../http/errors.ts';
import { supportedCountry } from '../../http/validate.ts';
import { maskPhone, normalisePhone } from '../collections/index.ts';
import { type NewPayment, type Rail, railAvailableIn } from '../payments/index.ts';
import { mask, resolveBankAccount } from './resolve.ts';
import { type SettlementAccountRow, findSettlementAccount, insertSettlementAccount, listSettlementAccounts, lockMerchantAccounts, removeSettlementAccount, setDefaultAccount } from './store.ts';
import type { MerchantCaller } from './types.ts';

const ACCOUNT_NUMBER = /^\d{6,20}$/;
const NUBAN = /^\d{10}$/;

export function railOf(account: Pick<SettlementAccountRow, 'type'>): Rail {
  return account.type === 'bank' ? 'bank_transfer' : 'mobile_money';
}

/** The receiver the rails pay for a settlement account (merchants' and agents' alike). */
export function settlementReceiver(account: Pick<SettlementAccountRow, 'type' | 'country' | 'bank_code' | 'account_number' | 'phone' | 'operator' | 'account_name'>): NewPayment['receiver'] {
  return account.type === 'bank'
    ? { type: 'account', accountNumber: account.account_number!, bankCode: account.bank_code!, name: account.account_name }
    : { type: 'phone', phone: account.phone!, phoneCountry: account.country, provider: account.operator!, name: account.account_name };
}

export function settlementAccountRecord(row: SettlementAccountRow): SettlementAccountRecord {
  return {
    id: row.id,
    type: row.type,
    country: row.country,
    currency: row.currency,
    bankCode: row.bank_code,
    accountNumber: row.account_number ? mask(row.account_number) : null,
    phone: row.phone ? maskPhone(row.phone) : null,
    operator: row.operator,
    accountName: row.account_name,
    nameSource: row.name_source,
    default: row.is_default,
    createdAt: row.created_at.toISOString(),
  };
}

/** The account's destination checked and normalised: what will be stored, before any name is resolved. */
function destinationOf(body: CreateSettlementAccountBody, country: string): Pick<SettlementAccountRow, 'bank_code' | 'account_number' | 'phone' | 'operator'> {
  if (body.type === 'bank') {
    if (body.phone !== undefined) throw badRequest('validation_failed', 'A bank account has no phone: send bankCode and accountNumber', [{ field: 'phone', message: 'is not allowed with type bank' }]);
    const bankCode = body.bankCode?.trim();
    if (!bankCode) throw badRequest('validation_failed', 'A bank account needs its bankCode (the bank\'s code, e.g. 058)', [{ field: 'bankCode', message: 'is required' }]);
    const accountNumber = (body.accountNumber ?? '').replace(/[\s-]/g, '');
    if (!ACCOUNT_NUMBER.test(accountNumber)) throw badRequest('account_number_invalid', 'accountNumber must be 6 to 20 digits');
    if (country === 'NG' && !NUBAN.test(accountNumber)) throw badRequest('account_number_invalid', 'A Nigerian bank account number is the 10-digit NUBAN');
    return { bank_code: bankCode, account_number: accountNumber, phone: null, operator: null };
  }
  if (body.accountNumber !== undefined) throw badRequest('validation_failed', 'A mobile money account has no accountNumber: send phone and operator', [{ field: 'accountNumber', message: 'is not allowed with type mobile_money' }]);
  if (!body.phone) throw badRequest('validation_failed', 'A mobile money account needs its phone', [{ field: 'phone', message: 'is required' }]);
  const operator = body.operator?.trim();
  if (!operator) throw badRequest('validation_failed', 'A mobile money account needs its operator (MTN, Airtel, M-Pesa...)', [{ field: 'operator', message: 'is required' }]);
  const phone = normalisePhone(body.phone, country);
  if (phone.country !== country) throw badRequest('invalid_phone', `The number is a ${phone.country} number, the account's country is ${country}`);
  return { bank_code: null, account_number: null, phone: phone.e164, operator };
}

/** A settlement destination checked, normalised and named, ready to store (a merchant's account, or an agent's: modules/agent). */
export type CheckedDestination = Pick<SettlementAccountRow, 'type' | 'country' | 'currency' | 'bank_code' | 'account_number' | 'phone' | 'operator' | 'account_name' | 'name_source'>;

/**
 * Checks a destination before anyone is paid into it: the account or number itself, that it can be
 * paid (the rail in its country; live: a configured provider), and the holder's name (resolved by
 * the provider where one can).
 */
export async function checkSettlementDestination(context: AppContext, mode: Mode, body: CreateSettlementAccountBody): Promise<CheckedDestination> {
  const country = supportedCountry(body.country, 'country');
  const currency = currencyOfCountry(country);
  if (!currency) throw badRequest('country_not_supported', `No currency is known for ${country}`);
  const destination = destinationOf(body, country);
  const rail: Rail = body.type === 'bank' ? 'bank_transfer' : 'mobile_money';
  if (!railAvailableIn(rail, country)) throw unprocessable('rail_unavailable', `Payouts by ${rail} are not available in ${country}`);
  if (mode === 'live' && !context.payoutProviders.some((provider) => provider.supports(rail, country))) {
    throw unprocessable('rail_unavailable', `No payout provider is configured for ${rail} to ${country} on this server`);
  }
  const named =
    body.type === 'bank'
      ? await resolveBankAccount(context.rails, mode, { country, bankCode: destination.bank_code!, accountNumber: destination.account_number!, givenName: body.accountName })
      : { name: body.accountName?.trim() || `${destination.operator} ${maskPhone(destination.phone!)}`, source: 'merchant' as const };
  return { type: body.type, country, currency, ...destination, account_name: named.name, name_source: named.source };
}

/** Registers an account (checkSettlementDestination), the default of its currency when asked or when it is the first. */
export async function createSettlementAccount(context: AppContext, caller: MerchantCaller, body: CreateSettlementAccountBody): Promise<SettlementAccountRow> {
  const checked = await checkSettlementDestination(context, caller.mode, body);
  const currency = checked.currency;
  return context.db.transaction(async (tx) => {
    await lockMerchantAccounts(tx, caller.merchantId);
    const others = (await listSettlementAccounts(tx, caller.merchantId, caller.mode)).filter((row) => row.currency === currency);
    const row = await insertSettlementAccount(tx, {
      id: newId('sac'),
      merchant_id: caller.merchantId,
      mode: caller.mode,
      ...checked,
      is_default: false,
      created_at: context.now(),
    });
    if (body.default === true || others.length === 0) {
      await setDefaultAccount(tx, row);
      return { ...row, is_default: true };
    }
    return row;
  });
}

export async function requireSettlementAccount(context: AppContext, caller: MerchantCaller, id: string): Promise<SettlementAccountRow> {
  const row = await findSettlementAccount(context.db, caller.merchantId, caller.mode, id);
  if (!row) throw notFound('settlement_account_not_found', `No settlement account ${id.slice(0, 100)}`);
  return row;
}

export async function makeDefault(context: AppContext, caller: MerchantCaller, id: string): Promise<SettlementAccountRow> {
  return context.db.transaction(async (tx) => {
    await lockMerchantAccounts(tx, caller.merchantId);
    const row = await findSettlementAccount(tx, caller.merchantId, caller.mode, id);
    if (!row) throw notFound('settlement_account_not_found', `No settlement account ${id.slice(0, 100)}`);
    await setDefaultAccount(tx, row);
    return { ...row, is_default: true };
  });
}

/** Removes an account (its payouts keep naming it); the next of its currency becomes the default. */
export async function deleteSettlementAccount(context: AppContext, caller: MerchantCaller, id: string): Promise<void> {
  await context.db.transaction(async (tx) => {
    await lockMerchantAccounts(tx, caller.merchantId);
    const row = await findSettlementAccount(tx, caller.merchantId, caller.mode, id);
    if (!row) throw notFound('settlement_account_not_found', `No settlement account ${id.slice(0, 100)}`);
    await removeSettlementAccount(tx, row, context.now());
  });
}
