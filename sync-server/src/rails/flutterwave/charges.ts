// Where and how Flutterwave collects mobile money (Direct Charge: POST /v3/charges?type=...), and a
// charge record (the create answer's `data`, GET /v3/transactions/verify_by_reference's `data`,
// the charge.completed webhook's `data`) read into a CollectionUpdate.
//
// From Flutterwave's Node SDK (Flutterwave/Node-v3): services/mobile-money/rave.*.js post to
// `v3/charges?type=<type>` with one body schema for all (services/schema/create.js momoSchema):
//   amount        number, positive, required (major units: the samples send "1500" UGX, "10" KES)
//   email         string, an address, at most 100, required
//   tx_ref        trimmed string, at most 100, required: the merchant's unique reference
//   currency      three upper-case letters, required
//   phone_number  digits with an optional leading '+', at most 50, required
//   network       optional; where given, one of: GHS MTN, AIRTELTIGO, VODAFONE; UGX MTN, AIRTEL;
//                 KES SAFARICOM, AIRTEL; RWF MTN, AIRTEL; TZS HALOPESA, AIRTEL, TIGO, VODACOM;
//                 ZMW MTN, AIRTEL, ZAMTEL; XOF WAVE, MTN, ORANGEMONEY
// and documentation/collections.md's samples give each type's currency and phone form:
//   mpesa                   KES  "25454709929220" (international digits)       -> Kenya
//   mobile_money_ghana      GHS  "054709929220" (national, trunk 0), network   -> Ghana
//   mobile_money_uganda     UGX  network MTN                                   -> Uganda
//   mobile_money_rwanda     RWF                                                -> Rwanda
//   mobile_money_zambia     ZMW                                                -> Zambia
//   mobile_money_tanzania   TZS  "0782835136" (national, trunk 0), network     -> Tanzania
//   mobile_money_franco     XAF/XOF with `country` ("CM", phone "23700000020") -> "Senegal, Cote
//                           D'Ivoire, Mali and Cameroon" (the section's title)
// The Uganda, Rwanda and Zambia samples send a Ghanaian-looking national number; this adapter
// sends international digits there, as the Kenyan and francophone samples do.
//
// The answers: Kenya, Tanzania and the francophone sample answer `data` with status "pending"
// (the customer approves on the phone: auth_model LIPA_MPESA / MOBILEMONEY, or
// meta.authorization.mode "callback"); Ghana, Uganda, Rwanda and Zambia answer no `data` but
// meta.authorization {mode: "redirect", redirect: <a Flutterwave page>} ("OTP on staging (TEST
// MODE) is 123456"); developer.flutterwave.com's pages for those countries say the customer
// "completes the payment by authorising it with their mobile money provider". Either way the
// charge is pending until verify_by_reference says otherwise; a till cannot open the redirect
// page for the customer, so where Flutterwave insists on it the charge never completes and the
// collection expires in words (the link is logged for the operator, never shown as a success).
//
// The network: a till collection carries a phone only, so where a network is sent it is read from
// the number's prefix (national number without its trunk 0), per each country's numbering plan as
// this adapter records it. Ghana and Uganda (whose pages say the network is needed) and Tanzania
// (whose sample sends one) refuse a number whose prefix is not listed; Rwanda and Zambia send one
// where the prefix is listed and none otherwise (the schema makes it optional); Kenya and the
// francophone countries send none (their samples do not). A number ported to another network keeps
// its prefix: Flutterwave then fails the charge and the till shows why.
//
// Statuses (verify_by_reference's `data.status`; the SDK treats "successful" as paid):
//   successful          -> completed, with what was paid (`amount`, `currency`: CollectionUpdate.paid)
//   pending             -> pending
//   failed, cancelled   -> failed, in words (Flutterwave's processor_response)
//   anything else       -> unknown: throws (asked again later)
import { minorFromMajor } from '@tapline/shared/money';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import type { CollectionUpdate } from '../types.ts';
import { FlutterwaveError } from './client.ts';

export interface ChargeMarket {
  /** The `type` query value of POST /v3/charges. */
  type: 'mpesa' | 'mobile_money_ghana' | 'mobile_money_uganda' | 'mobile_money_rwanda' | 'mobile_money_zambia' | 'mobile_money_tanzania' | 'mobile_money_franco';
  currency: string;
  /** How phone_number is written: national with its trunk 0, or the country code and national number (digits only). */
  phone: 'trunk0' | 'international';
  /** National number prefixes to the network's code; `required`: a number whose prefix is not listed is refused. */
  networks?: { byPrefix: Readonly<Record<string, string>>; required: boolean };
  /** Sent as `country` (the francophone charge). */
  sendsCountry?: boolean;
}

const prefixes = (table: Readonly<Record<string, readonly string[]>>): Readonly<Record<string, string>> =>
  Object.fromEntries(Object.entries(table).flatMap(([network, list]) => list.map((prefix) => [prefix, network])));

/** The countries Flutterwave collects mobile money in (documentation/collections.md), by ISO code. */
export const CHARGE_MARKETS: Readonly<Record<string, ChargeMarket>> = {
  KE: { type: 'mpesa', currency: 'KES', phone: 'international' },
  GH: { type: 'mobile_money_ghana', currency: 'GHS', phone: 'trunk0', networks: { required: true, byPrefix: prefixes({ MTN: ['24', '25', '53', '54', '55', '59'], VODAFONE: ['20', '50'], AIRTELTIGO: ['26', '27', '56', '57'] }) } },
  UG: { type: 'mobile_money_uganda', currency: 'UGX', phone: 'international', networks: { required: true, byPrefix: prefixes({ MTN: ['76', '77', '78', '39'], AIRTEL: ['70', '74', '75', '20'] }) } },
  RW: { type: 'mobile_money_rwanda', currency: 'RWF', phone: 'international', networks: { required: false, byPrefix: prefixes({ MTN: ['78', '79'], AIRTEL: ['72', '73'] }) } },
  ZM: { type: 'mobile_money_zambia', currency: 'ZMW', phone: 'international', networks: { required: false, byPrefix: prefixes({ MTN: ['96', '76'], AIRTEL: ['97', '77'], ZAMTEL: ['95', '75'] }) } },
  TZ: { type: 'mobile_money_tanzania', currency: 'TZS', phone: 'trunk0', networks: { required: true, byPrefix: prefixes({ VODACOM: ['74', '75', '76'], AIRTEL: ['68', '69', '78'], TIGO: ['65', '67', '71', '77'], HALOPESA: ['61', '62'] }) } },
  CM: { type: 'mobile_money_franco', currency: 'XAF', phone: 'international', sendsCountry: true },
  SN: { type: 'mobile_money_franco', currency: 'XOF', phone: 'international', sendsCountry: true },
  CI: { type: 'mobile_money_franco', currency: 'XOF', phone: 'international', sendsCountry: true },
  ML: { type: 'mobile_money_franco', currency: 'XOF', phone: 'international', sendsCountry: true },
};

export function collectsIn(country: string): boolean {
  return Object.hasOwn(CHARGE_MARKETS, country);
}

export type ChargeTarget = { type: ChargeMarket['type']; phone: string; network?: string; country: string } | { refusal: string };

/** What POST /v3/charges takes for this E.164 phone and currency, or why Flutterwave cannot collect from it. */
export function chargeTarget(e164: string, currency: string): ChargeTarget {
  const parsed = parsePhoneNumberFromString(e164);
  if (!parsed?.isValid() || !parsed.country) return { refusal: `${e164.slice(0, 20)} is not a valid phone number` };
  const country = parsed.country;
  const market = Object.hasOwn(CHARGE_MARKETS, country) ? CHARGE_MARKETS[country] : undefined;
  if (!market) return { refusal: `Flutterwave does not collect from ${country} numbers (mobile money in ${Object.keys(CHARGE_MARKETS).join(', ')} only)` };
  if (currency !== market.currency) return { refusal: `Flutterwave collects ${market.currency} from ${country} numbers, not ${currency.slice(0, 8)}` };
  const national = String(parsed.nationalNumber);
  const phone = market.phone === 'trunk0' ? `0${national}` : `${parsed.countryCallingCode}${national}`;
  let network: string | undefined;
  if (market.networks) {
    const prefix = Object.keys(market.networks.byPrefix).find((candidate) => national.startsWith(candidate));
    network = prefix === undefined ? undefined : market.networks.byPrefix[prefix];
    if (!network && market.networks.required) {
      const names = [...new Set(Object.values(market.networks.byPrefix))].join(', ');
      return { refusal: `Flutterwave does not collect from this ${country} number: its prefix is not one of ${names}` };
    }
  }
  return { type: market.type, phone, country, ...(network ? { network } : {}) };
}

/** A charge as Flutterwave records it. */
export interface ChargeRecord {
  id: string | undefined;
  txRef: string;
  status: string;
  /** Major units, as Flutterwave writes them. */
  amount: number | undefined;
  currency: string | undefined;
  /** Flutterwave's words on the charge (processor_response), trimmed. */
  detail: string | undefined;
}

const DETAIL_LENGTH_MAX = 120;

export function readCharge(value: unknown): ChargeRecord | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const data = value as Record<string, unknown>;
  if (typeof data.tx_ref !== 'string' || typeof data.status !== 'string') return undefined;
  const text = (field: unknown) => (typeof field === 'string' && field.trim() !== '' ? field.replace(/\s+/g, ' ').trim().slice(0, DETAIL_LENGTH_MAX) : undefined);
  const amount = typeof data.amount === 'number' ? data.amount : typeof data.amount === 'string' && data.amount.trim() !== '' ? Number(data.amount) : undefined;
  return {
    id: typeof data.id === 'number' || (typeof data.id === 'string' && data.id !== '') ? String(data.id) : undefined,
    txRef: data.tx_ref,
    status: data.status.toLowerCase(),
    amount: amount !== undefined && Number.isFinite(amount) ? amount : undefined,
    currency: text(data.currency)?.toUpperCase(),
    detail: text(data.processor_response),
  };
}

/** What was paid in minor units, where the record says so exactly; undefined otherwise. */
function paidOf(record: ChargeRecord): CollectionUpdate['paid'] {
  if (record.amount === undefined || !record.currency) return undefined;
  try {
    return { amount: minorFromMajor(record.amount, record.currency), currency: record.currency };
  } catch {
    // An amount that is not a whole number of the currency's minor units is not what we asked.
    return { amount: Number.NaN, currency: record.currency };
  }
}

export function chargeUpdateOf(record: ChargeRecord): CollectionUpdate {
  const providerReference = record.id;
  const reference = providerReference ? { providerReference } : {};
  const said = record.detail ? ` (Flutterwave: ${record.detail})` : '';
  switch (record.status) {
    case 'successful': {
      const paid = paidOf(record);
      return { status: 'completed', ...reference, ...(paid ? { paid } : {}) };
    }
    case 'pending':
      return { status: 'pending', ...reference };
    case 'failed':
      return { status: 'failed', ...reference, failureReason: `The customer did not pay${said}` };
    case 'cancelled':
      return { status: 'failed', ...reference, failureReason: `The charge was cancelled: the customer did not pay${said}` };
    default: {
      const shown = /^[a-z_ -]{1,32}$/.test(record.status) ? record.status : 'unreadable';
      throw new FlutterwaveError('malformed', `Flutterwave reported a charge status this adapter does not know (${shown})`);
    }
  }
}
