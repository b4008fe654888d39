// The fake's bank list (GET /bank). Shapes per openapi.yaml MiscellaneousListBanksResponseArray.
// The Nigerian codes 011, 044 and 058 appear in Paystack's own samples (events, the recipient
// example), MPESA and MPTILL in its Kenyan recipient example; every other code here (Ghana's,
// Kenya's and South Africa's banks, Ghana's mobile money operators) is the fake's own invention:
// the adapter reads codes from this list, it never hard-codes them.

export interface FakeBank {
  id: number;
  name: string;
  slug: string;
  code: string;
  country: string;
  currency: 'NGN' | 'GHS' | 'KES' | 'ZAR';
  type: 'nuban' | 'ghipss' | 'basa' | 'kepss' | 'mobile_money' | 'mobile_money_business';
}

let nextId = 1;
const bank = (name: string, code: string, country: string, currency: FakeBank['currency'], type: FakeBank['type']): FakeBank => ({
  id: nextId++,
  name,
  slug: name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, ''),
  code,
  country,
  currency,
  type,
});

export const BANKS: readonly FakeBank[] = [
  bank('Access Bank', '044', 'Nigeria', 'NGN', 'nuban'),
  bank('First Bank of Nigeria', '011', 'Nigeria', 'NGN', 'nuban'),
  bank('Guaranty Trust Bank', '058', 'Nigeria', 'NGN', 'nuban'),
  bank('Zenith Bank', '057', 'Nigeria', 'NGN', 'nuban'),
  bank('United Bank For Africa', '033', 'Nigeria', 'NGN', 'nuban'),
  bank('Fake Ghana Commercial Bank', '040100', 'Ghana', 'GHS', 'ghipss'),
  bank('Fake Ecobank Ghana', '130100', 'Ghana', 'GHS', 'ghipss'),
  bank('MTN Mobile Money', 'MTN', 'Ghana', 'GHS', 'mobile_money'),
  bank('Telecel Cash', 'VOD', 'Ghana', 'GHS', 'mobile_money'),
  bank('AirtelTigo Money', 'ATL', 'Ghana', 'GHS', 'mobile_money'),
  bank('Fake Equity Bank Kenya', '68', 'Kenya', 'KES', 'kepss'),
  bank('Fake KCB Bank Kenya', '01', 'Kenya', 'KES', 'kepss'),
  bank('M-PESA', 'MPESA', 'Kenya', 'KES', 'mobile_money'),
  bank('M-PESA Till', 'MPTILL', 'Kenya', 'KES', 'mobile_money_business'),
  bank('Fake Standard Bank South Africa', '051001', 'South Africa', 'ZAR', 'basa'),
  bank('Fake FNB South Africa', '250655', 'South Africa', 'ZAR', 'basa'),
];

/** The bank list's `country` values (openapi.yaml /bank) to the banks' country names. */
export const BANK_LIST_COUNTRIES: Readonly<Record<string, string>> = { nigeria: 'Nigeria', ghana: 'Ghana', kenya: 'Kenya', 'south africa': 'South Africa' };

export function bankJson(entry: FakeBank, createdAt: string): Record<string, unknown> {
  return {
    name: entry.name,
    slug: entry.slug,
    code: entry.code,
    longcode: entry.type === 'nuban' ? `${entry.code}150149` : '',
    gateway: null,
    pay_with_bank: false,
    supports_transfer: true,
    available_for_direct_debit: false,
    active: true,
    is_deleted: false,
    country: entry.country,
    currency: entry.currency,
    type: entry.type,
    id: entry.id,
    createdAt,
    updatedAt: createdAt,
  };
}
