// Where Flutterwave can pay, and the account_bank / account_number / meta of each destination.
//
// Sources (see test/fakes/flutterwave/README.md for commits and addresses):
// - Mobile money: developer.flutterwave.com "Mobile Money Transfer" (v3.0 docs): account_number is
//   the mobile number with its country code, account_bank the operator's code, beneficiary_name is
//   required, and Kenya (M-Pesa) also needs meta.sender, meta.sender_country and meta.mobile_number.
//   Its table of networks:
//     Cameroon (XAF) MTN, ORANGEMONEY        Cote d'Ivoire (XOF) MOOV, MTN, ORANGE, WAVE
//     Ethiopia (ETB) AMOLEMONEY              Ghana (GHS) AIRTELTIGO, MTN, VODAFONE (Telecel)
//     Kenya (KES) MPS                        Rwanda (RWF) MPS, MTN
//     Senegal (XOF) ORANGEMONEY, WAVE        Tanzania (TZS) AIRTEL, HALOPESA, TIGO, VODACOM
//     Uganda (UGX) AIRTEL, MTN               Zambia (ZMW) MPS
// - Bank accounts: "Bank Account Transfer" lists NGN, GHS, KES, ... but transfers to Benin,
//   Cameroon, Chad, Cote d'Ivoire, DR Congo, Gabon, Ghana, Malawi, Rwanda, Senegal, Sierra Leone,
//   Tanzania and Uganda need a destination_branch_code, and USD/GBP/EUR/ZAR need the beneficiary's
//   address in meta: our receiver (an account number and a bank code) carries neither. So bank
//   transfers go to Nigeria (account_bank = the bank code, as in the SDK's transfers.md example)
//   and to Kenya (the SDK's transferSchema: KES needs meta.sender, meta.mobile_number,
//   meta.sender_country).
// - Kenya's sender (mobile money and bank): "the sender's full name as sender, the sender's country
//   as sender_country and the sender's mobile number as mobile_number in the meta object"
//   (developer.flutterwave.com, Mobile Money Transfer; its example sends `meta` as an object, which
//   this adapter follows; the SDK's transferSchema validates an array of such objects). The sender
//   is the payout's own (PayoutRequest.sender: the merchant's name and country, and the phone of
//   its mobile money settlement account; modules/payouts/sender.ts), else a configured one. A
//   Kenyan transfer without a sender mobile number is refused before it is sent, in words that say
//   what to add.
// - Cash pick-up: the "Cash Pick Up" page documents it for Nigeria only, paid out by FCMB,
//   Fidelity, Polaris, UBA or Zenith, behind an approval Flutterwave grants per account, with
//   `meta.is_cash_pickup: true` and further meta fields the pages we could read do not list. Our
//   cash_pickup receiver is a phone number with no bank: not offered.
// The network is chosen by the receiver's `provider` (any spelling: "M-Pesa", "mpesa", "MPS");
// where the table lists one network only, it is the default.
import type { Rail, Receiver } from '../../modules/payments/index.ts';
import type { PayoutRequest } from '../types.ts';
import type { FlutterwaveConfig } from './config.ts';

interface MobileMoneyCountry {
  currency: string;
  /** Normalised spellings of an operator (lowercase letters and digits) to Flutterwave's code. */
  operators: Readonly<Record<string, string>>;
  needsSender?: boolean;
}

export const MOBILE_MONEY: Readonly<Record<string, MobileMoneyCountry>> = {
  CM: { currency: 'XAF', operators: { mtn: 'MTN', mtnmomo: 'MTN', orange: 'ORANGEMONEY', orangemoney: 'ORANGEMONEY' } },
  CI: { currency: 'XOF', operators: { moov: 'MOOV', moovmoney: 'MOOV', mtn: 'MTN', mtnmomo: 'MTN', orange: 'ORANGE', orangemoney: 'ORANGE', wave: 'WAVE' } },
  ET: { currency: 'ETB', operators: { amole: 'AMOLEMONEY', amolemoney: 'AMOLEMONEY' } },
  GH: { currency: 'GHS', operators: { airteltigo: 'AIRTELTIGO', atmoney: 'AIRTELTIGO', mtn: 'MTN', mtnmomo: 'MTN', vodafone: 'VODAFONE', vodafonecash: 'VODAFONE', telecel: 'VODAFONE', telecelcash: 'VODAFONE' } },
  KE: { currency: 'KES', operators: { mpesa: 'MPS', mps: 'MPS', safaricom: 'MPS' }, needsSender: true },
  RW: { currency: 'RWF', operators: { mps: 'MPS', mtn: 'MTN', mtnmomo: 'MTN' } },
  SN: { currency: 'XOF', operators: { orange: 'ORANGEMONEY', orangemoney: 'ORANGEMONEY', wave: 'WAVE' } },
  TZ: { currency: 'TZS', operators: { airtel: 'AIRTEL', airtelmoney: 'AIRTEL', halopesa: 'HALOPESA', halotel: 'HALOPESA', tigo: 'TIGO', tigopesa: 'TIGO', vodacom: 'VODACOM', mpesa: 'VODACOM' } },
  UG: { currency: 'UGX', operators: { airtel: 'AIRTEL', airtelmoney: 'AIRTEL', mtn: 'MTN', mtnmomo: 'MTN' } },
  ZM: { currency: 'ZMW', operators: { mps: 'MPS' } },
};

const BANK: Readonly<Record<string, { currency: string; needsSender?: boolean }>> = {
  NG: { currency: 'NGN' },
  KE: { currency: 'KES', needsSender: true },
};

/** Kenya's sender comes with each payout (the merchant's profile), so every listed country is supported; a payout without one is refused at submit. */
export function supportsDestination(_config: FlutterwaveConfig, rail: Rail, country: string): boolean {
  if (rail === 'mobile_money') return MOBILE_MONEY[country] !== undefined;
  if (rail === 'bank_transfer') return BANK[country] !== undefined;
  return false;
}

/** Whether a transfer on this rail to this country must name its sender (Kenya): only then does the scheduler look the sender up. */
export function needsSender(rail: Rail, country: string): boolean {
  return Boolean((rail === 'mobile_money' ? MOBILE_MONEY[country] : rail === 'bank_transfer' ? BANK[country] : undefined)?.needsSender);
}

/** The meta of a transfer that needs its sender: the payout's own, else the configured one; or why there is none. */
function senderMeta(config: FlutterwaveConfig, request: PayoutRequest): { meta: Record<string, string> } | { refuse: string } {
  const own = request.sender;
  const sender = own?.mobileNumber ? { name: own.name, country: own.country, mobileNumber: own.mobileNumber } : config.sender;
  if (!sender || !sender.name.trim() || !/^[A-Z]{2}$/.test(sender.country) || !/^\d{6,15}$/.test(sender.mobileNumber)) {
    return { refuse: `Flutterwave pays ${request.toCountry} only with the sender's name, country and mobile number: add a mobile money settlement account (your own number) to the merchant profile, then send the payment again` };
  }
  return { meta: { sender: clip(sender.name, 100), sender_country: sender.country, mobile_number: sender.mobileNumber } };
}

const normalise = (text: string): string => text.toLowerCase().replace(/[^a-z0-9]/g, '');

/** Flutterwave's operator code for a mobile money receiver, or why there is none. */
export function operatorCode(country: string, receiver: Receiver): { code: string } | { refuse: string } {
  const entry = MOBILE_MONEY[country];
  if (!entry) return { refuse: `Flutterwave does not pay mobile money in ${country}` };
  const codes = [...new Set(Object.values(entry.operators))];
  if (!receiver.provider) {
    if (codes.length === 1) return { code: codes[0]! };
    return { refuse: `Flutterwave needs the mobile money network for ${country}: send receiver.provider, one of ${codes.join(', ')}` };
  }
  const wanted = normalise(receiver.provider);
  const code = entry.operators[wanted] ?? codes.find((candidate) => normalise(candidate) === wanted);
  return code ? { code } : { refuse: `Flutterwave does not pay ${receiver.provider} mobile money in ${country}; it pays ${codes.join(', ')}` };
}

export interface TransferDestination {
  account_bank: string;
  account_number: string;
  currency: string;
  beneficiary_name?: string;
  meta?: Record<string, unknown>;
}

const clip = (text: string, max: number): string => text.replace(/\s+/g, ' ').trim().slice(0, max);

/** The destination fields of POST /v3/transfers for a payout, or a sentence saying why Flutterwave cannot take it. */
export function destinationOf(config: FlutterwaveConfig, request: PayoutRequest): TransferDestination | { refuse: string } {
  const { rail, toCountry: country, receiver, destinationCurrency: currency } = request;
  if (!supportsDestination(config, rail, country)) return { refuse: `Flutterwave is not set up to pay ${rail.replace('_', ' ')} in ${country}` };
  const name = request.receiverName ?? receiver.name;
  const beneficiary = name && name.trim() ? { beneficiary_name: clip(name, 100) } : {};
  if (rail === 'mobile_money') {
    const entry = MOBILE_MONEY[country]!;
    if (currency !== entry.currency) return { refuse: `Flutterwave pays mobile money in ${country} in ${entry.currency}, not ${currency}` };
    if (!receiver.phone) return { refuse: 'Flutterwave pays mobile money to a phone number; the receiver has none' };
    if (!beneficiary.beneficiary_name) return { refuse: "Flutterwave needs the recipient's name for a mobile money transfer (beneficiary_name)" };
    const operator = operatorCode(country, receiver);
    if ('refuse' in operator) return operator;
    const sender: { meta?: Record<string, string> } | { refuse: string } = entry.needsSender ? senderMeta(config, request) : {};
    if ('refuse' in sender) return sender;
    return { account_bank: operator.code, account_number: receiver.phone.replace(/^\+/, ''), currency, ...beneficiary, ...sender };
  }
  const entry = BANK[country]!;
  if (currency !== entry.currency) return { refuse: `Flutterwave pays bank accounts in ${country} in ${entry.currency}, not ${currency}` };
  if (!receiver.accountNumber) return { refuse: 'Flutterwave pays a bank transfer to an account number; the receiver has none' };
  if (!/^\d{1,20}$/.test(receiver.accountNumber)) return { refuse: `Flutterwave takes an account number of at most 20 digits for ${country}` };
  if (!receiver.bankCode) return { refuse: "Flutterwave needs the receiver's bank code (account_bank) for a bank transfer" };
  const sender: { meta?: Record<string, string> } | { refuse: string } = entry.needsSender ? senderMeta(config, request) : {};
  if ('refuse' in sender) return sender;
  return { account_bank: receiver.bankCode, account_number: receiver.accountNumber, currency, ...beneficiary, ...sender };
}
