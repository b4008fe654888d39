// Where Paystack collects mobile money (POST /charge with `mobile_money: {phone, provider}`), the
// operator code it takes as `provider`, and the phone as it takes it. From Paystack's documents:
//
// - openapi.yaml MobileMoney.provider: "The telco provider of customer's phone number. This can be
//   fetched from the List Bank endpoint" (GET /bank?type=mobile_money). Paystack's list of Ghana's
//   telcos (doc-code-snippets transfers/recipients/list-telcos) answers MTN, VOD (Vodafone, now
//   Telecel) and ATL (AirtelTigo); Kenya's is MPESA (its transfer-recipient-mpesa example). Its
//   charge examples (payments/payment-methods/mobile, mobile-charge) send the code in lower case
//   (`"provider": "mtn"`), and so does this adapter.
// - Currencies: the charge examples collect GHS (mobile, mobile-charge) and KES (mobile-mpesa-
//   offline, mobile-mpesa-till); the bank list's currency enum is GHS, KES, NGN, ZAR. No Paystack
//   document here names a mobile money charge in any other country (Côte d'Ivoire, XOF, is not in
//   any of them), so Paystack collects in GH and KE only.
// - The phone: Ghana's examples send the national number with its trunk 0 ("0551234987"); the
//   only Kenyan charge example with a phone (mobile-mpesa-offline) sends 254 and the national
//   number ("254700000000"). Each country is sent the way its own example is.
//
// A collection carries no operator (the till asks for a phone only), so the operator is read from
// the number's prefix in the country's numbering plan. Ghana (National Communications Authority
// plan): MTN 024, 025, 053, 054, 055, 059; Telecel (Vodafone) 020, 050; AirtelTigo 026, 027, 056,
// 057. A number ported to another network keeps its prefix: Paystack then refuses or fails the
// charge and the till shows why. Kenya: every number is sent as M-PESA (the only Kenyan operator
// Paystack documents); a number that is not an M-PESA line is refused by Paystack.
import { parsePhoneNumberFromString } from 'libphonenumber-js';

export interface CollectingCountry {
  currency: 'GHS' | 'KES';
  /** National number prefixes (without the trunk 0) to Paystack's operator code; `*` for any. */
  operators: readonly { prefixes: readonly string[] | '*'; provider: string; name: string }[];
  /** The phone as that country's charge example writes it. */
  format: 'trunk0' | 'international';
}

export const PAYSTACK_COLLECTING: Readonly<Record<string, CollectingCountry>> = {
  GH: {
    currency: 'GHS',
    operators: [
      { prefixes: ['24', '25', '53', '54', '55', '59'], provider: 'mtn', name: 'MTN Mobile Money' },
      { prefixes: ['20', '50'], provider: 'vod', name: 'Telecel (Vodafone) Cash' },
      { prefixes: ['26', '27', '56', '57'], provider: 'atl', name: 'AirtelTigo Money' },
    ],
    format: 'trunk0',
  },
  KE: { currency: 'KES', operators: [{ prefixes: '*', provider: 'mpesa', name: 'M-PESA' }], format: 'international' },
};

export function collectsIn(country: string): boolean {
  return Object.hasOwn(PAYSTACK_COLLECTING, country);
}

export type ChargeTarget = { phone: string; provider: string; country: string; operatorName: string } | { refusal: string };

/** What POST /charge's `mobile_money` takes for this E.164 phone and currency, or why Paystack cannot collect from it. */
export function chargeTarget(e164: string, currency: string): ChargeTarget {
  const parsed = parsePhoneNumberFromString(e164);
  if (!parsed?.isValid() || !parsed.country) return { refusal: `${e164.slice(0, 20)} is not a valid phone number` };
  const country = parsed.country;
  const rules = Object.hasOwn(PAYSTACK_COLLECTING, country) ? PAYSTACK_COLLECTING[country] : undefined;
  if (!rules) return { refusal: `Paystack does not collect from ${country} numbers (mobile money in ${Object.keys(PAYSTACK_COLLECTING).join(' and ')} only)` };
  if (currency !== rules.currency) return { refusal: `Paystack collects ${rules.currency} from ${country} numbers, not ${currency.slice(0, 8)}` };
  const national = String(parsed.nationalNumber);
  const operator = rules.operators.find((op) => op.prefixes === '*' || op.prefixes.some((prefix) => national.startsWith(prefix)));
  if (!operator) {
    const names = rules.operators.map((op) => op.name).join(', ');
    return { refusal: `Paystack does not collect from this ${country} number: its prefix is not one of ${names}` };
  }
  const phone = rules.format === 'trunk0' ? `0${national}` : `${parsed.countryCallingCode}${national}`;
  return { phone, provider: operator.provider, country, operatorName: operator.name };
}
