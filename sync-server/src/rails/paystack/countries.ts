// Where Paystack pays, and how, per its documents:
// - currencies: TransferInitiate.currency enum is NGN, ZAR, KES, GHS; the bank list's `country`
//   enum is nigeria, ghana, kenya, south africa (openapi.yaml /bank).
// - recipient types (TransferRecipientCreate.type enum: nuban, ghipss, mobile_money, basa,
//   authorization): a Nigerian account is `nuban`, a Ghanaian one `ghipss`, a South African one
//   `basa`. The recipient enum names no Kenyan bank type; the bank list's own channel enum
//   (`type`: ghipps, mobile_money, nuban, kepss, basa) names `kepss`, Kenya's bank channel, so a
//   Kenyan account is created as `kepss` (recorded in test/fakes/paystack/known-mismatches.ts).
// - mobile money: `mobile_money` recipients with the operator's code as `bank_code`, the
//   operators being the bank list's `type=mobile_money` entries; Paystack's own example
//   (doc-code-snippets transfer-recipient-mpesa) pays Kenya's M-PESA (`MPESA`, KES), and the bank
//   list serves Ghana's operators in GHS. Nigeria and South Africa have none in the documents.
// - M-PESA tills: the same example answers a till (`bank_code` MPTILL) as `mobile_money_business`;
//   a Kenyan receiver {accountNumber: till number, bankCode: 'MPTILL'} on bank_transfer is paid so.
//   No other business code is documented.
import type { PayoutRequest } from '../types.ts';

export type BankRecipientType = 'nuban' | 'ghipss' | 'basa' | 'kepss';

export interface PaystackCountry {
  currency: 'NGN' | 'GHS' | 'ZAR' | 'KES';
  /** The bank list's `country` value (openapi.yaml /bank). */
  bankListCountry: 'nigeria' | 'ghana' | 'south africa' | 'kenya';
  /** The recipient type of an account at one of the country's banks. */
  bankType: BankRecipientType;
  /** The E.164 calling code of the country's mobile money numbers; absent where Paystack pays no mobile money. */
  mobileMoneyCallingCode?: string;
  /** Bank codes paid as `mobile_money_business` (documented: M-PESA till). */
  businessCodes?: readonly string[];
}

export const PAYSTACK_COUNTRIES: Readonly<Record<string, PaystackCountry>> = {
  NG: { currency: 'NGN', bankListCountry: 'nigeria', bankType: 'nuban' },
  GH: { currency: 'GHS', bankListCountry: 'ghana', bankType: 'ghipss', mobileMoneyCallingCode: '233' },
  ZA: { currency: 'ZAR', bankListCountry: 'south africa', bankType: 'basa' },
  KE: { currency: 'KES', bankListCountry: 'kenya', bankType: 'kepss', mobileMoneyCallingCode: '254', businessCodes: ['MPTILL'] },
};

export function paystackCountry(code: string): PaystackCountry | undefined {
  return Object.hasOwn(PAYSTACK_COUNTRIES, code) ? PAYSTACK_COUNTRIES[code] : undefined;
}

/** Capability: bank accounts in NG, GH, ZA and KE; mobile money in GH and KE. */
export function supports(rail: PayoutRequest['rail'], toCountry: string): boolean {
  const country = paystackCountry(toCountry);
  if (!country) return false;
  if (rail === 'bank_transfer') return true;
  if (rail === 'mobile_money') return country.mobileMoneyCallingCode !== undefined;
  return false;
}

/**
 * The phone as Paystack's mobile money recipients take it: the national number with its trunk
 * 0 (Paystack's Kenyan example: "0751234987"). The documents show no Ghanaian example; Ghana's
 * numbers are written the same way. Undefined when the phone is not of that country.
 */
export function nationalPhone(e164: string, callingCode: string): string | undefined {
  const digits = e164.replace(/^\+/, '');
  if (!digits.startsWith(callingCode)) return undefined;
  const national = digits.slice(callingCode.length);
  return /^\d{6,12}$/.test(national) ? `0${national}` : undefined;
}
