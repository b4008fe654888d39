/** Bill types: airtime top-ups, prepaid electricity (the result carries a token), cable TV, data bundles. */
export const BILL_TYPES = ['airtime', 'electricity', 'cable_tv', 'data'] as const;
export type BillType = (typeof BILL_TYPES)[number];

export interface BillerPlan {
  code: string;
  name: string;
  /** Major units of the biller's currency. */
  amount: number;
}

export interface Biller {
  id: string;
  name: string;
  country: 'NG' | 'GH' | 'KE';
  currency: 'NGN' | 'GHS' | 'KES';
  billType: BillType;
  /** What accountRef is: a phone (airtime, data), a meter number (electricity) or a smartcard number (cable TV). */
  accountRefType: 'phone' | 'meter' | 'smartcard';
  /** For meters and smartcards: the digits accepted. Phones are checked with libphonenumber-js. */
  accountRefPattern?: string;
  accountRefDescription: string;
  /** Inclusive bounds in major units. */
  minAmount: number;
  maxAmount: number;
  /** Bundles and bouquets: a planCode fixes the amount. */
  plans?: BillerPlan[];
  /** Prepaid electricity: the sandbox tariff used to state the units bought (currency per kWh). */
  tariffPerKwh?: number;
}

const airtime = (id: string, name: string, country: Biller['country'], currency: Biller['currency'], minAmount: number, maxAmount: number): Biller => ({
  id, name, country, currency, billType: 'airtime', accountRefType: 'phone', accountRefDescription: `The mobile number to top up (E.164 or local ${country} format)`, minAmount, maxAmount,
});
const electricity = (id: string, name: string, country: Biller['country'], currency: Biller['currency'], pattern: string, minAmount: number, maxAmount: number, tariffPerKwh: number): Biller => ({
  id, name, country, currency, billType: 'electricity', accountRefType: 'meter', accountRefPattern: pattern, accountRefDescription: `Prepaid meter number (${pattern.replace(/[\^$]/g, '')})`, minAmount, maxAmount, tariffPerKwh,
});
const cable = (id: string, name: string, country: Biller['country'], currency: Biller['currency'], pattern: string, plans: BillerPlan[]): Biller => ({
  id, name, country, currency, billType: 'cable_tv', accountRefType: 'smartcard', accountRefPattern: pattern, accountRefDescription: `Smartcard / IUC number (${pattern.replace(/[\^$]/g, '')})`,
  minAmount: Math.min(...plans.map((plan) => plan.amount)), maxAmount: Math.max(...plans.map((plan) => plan.amount)) * 12, plans,
});
const data = (id: string, name: string, country: Biller['country'], currency: Biller['currency'], plans: BillerPlan[]): Biller => ({
  id, name, country, currency, billType: 'data', accountRefType: 'phone', accountRefDescription: `The mobile number the bundle is for (E.164 or local ${country} format)`,
  minAmount: Math.min(...plans.map((plan) => plan.amount)), maxAmount: Math.max(...plans.map((plan) => plan.amount)), plans,
});

/** The biller catalogue for Nigeria, Ghana and Kenya. */
export const BILLERS: readonly Biller[] = [
  airtime('mtn-ng-airtime', 'MTN Nigeria Airtime', 'NG', 'NGN', 50, 50_000),
  airtime('airtel-ng-airtime', 'Airtel Nigeria Airtime', 'NG', 'NGN', 50, 50_000),
  airtime('glo-ng-airtime', 'Glo Airtime', 'NG', 'NGN', 50, 50_000),
  airtime('9mobile-ng-airtime', '9mobile Airtime', 'NG', 'NGN', 50, 50_000),
  electricity('ikedc-prepaid', 'Ikeja Electric Prepaid', 'NG', 'NGN', '^\\d{11,13}$', 500, 500_000, 209.5),
  electricity('ekedc-prepaid', 'Eko Electricity Prepaid', 'NG', 'NGN', '^\\d{11,13}$', 500, 500_000, 209.5),
  electricity('aedc-prepaid', 'Abuja Electricity Prepaid', 'NG', 'NGN', '^\\d{11,13}$', 500, 500_000, 209.5),
  cable('dstv-ng', 'DStv Nigeria', 'NG', 'NGN', '^\\d{10}$', [
    { code: 'padi', name: 'DStv Padi', amount: 4_400 },
    { code: 'yanga', name: 'DStv Yanga', amount: 6_000 },
    { code: 'confam', name: 'DStv Confam', amount: 11_000 },
    { code: 'compact', name: 'DStv Compact', amount: 19_000 },
  ]),
  cable('gotv-ng', 'GOtv Nigeria', 'NG', 'NGN', '^\\d{10}$', [
    { code: 'smallie', name: 'GOtv Smallie', amount: 1_900 },
    { code: 'jinja', name: 'GOtv Jinja', amount: 3_900 },
    { code: 'jolli', name: 'GOtv Jolli', amount: 5_800 },
    { code: 'max', name: 'GOtv Max', amount: 8_500 },
  ]),
  cable('startimes-ng', 'StarTimes Nigeria', 'NG', 'NGN', '^\\d{11}$', [
    { code: 'nova', name: 'Nova', amount: 1_900 },
    { code: 'basic', name: 'Basic', amount: 3_700 },
    { code: 'classic', name: 'Classic', amount: 5_500 },
  ]),
  data('mtn-ng-data', 'MTN Nigeria Data', 'NG', 'NGN', [
    { code: '1gb-1d', name: '1 GB, 1 day', amount: 500 },
    { code: '2gb-30d', name: '2 GB, 30 days', amount: 1_500 },
    { code: '10gb-30d', name: '10 GB, 30 days', amount: 4_500 },
  ]),
  data('airtel-ng-data', 'Airtel Nigeria Data', 'NG', 'NGN', [
    { code: '1gb-1d', name: '1 GB, 1 day', amount: 500 },
    { code: '3gb-30d', name: '3 GB, 30 days', amount: 2_000 },
  ]),

  airtime('mtn-gh-airtime', 'MTN Ghana Airtime', 'GH', 'GHS', 1, 1_000),
  airtime('telecel-gh-airtime', 'Telecel Ghana Airtime', 'GH', 'GHS', 1, 1_000),
  airtime('airteltigo-gh-airtime', 'AirtelTigo Airtime', 'GH', 'GHS', 1, 1_000),
  electricity('ecg-prepaid', 'ECG Prepaid (Electricity Company of Ghana)', 'GH', 'GHS', '^\\d{11,13}$', 5, 10_000, 1.8),
  electricity('nedco-prepaid', 'NEDCo Prepaid', 'GH', 'GHS', '^\\d{11,13}$', 5, 10_000, 1.8),
  cable('dstv-gh', 'DStv Ghana', 'GH', 'GHS', '^\\d{10}$', [
    { code: 'padi', name: 'DStv Padi', amount: 85 },
    { code: 'compact', name: 'DStv Compact', amount: 300 },
  ]),
  cable('gotv-gh', 'GOtv Ghana', 'GH', 'GHS', '^\\d{10}$', [
    { code: 'lite', name: 'GOtv Lite', amount: 30 },
    { code: 'max', name: 'GOtv Max', amount: 120 },
  ]),
  data('mtn-gh-data', 'MTN Ghana Data', 'GH', 'GHS', [
    { code: '1gb', name: '1 GB', amount: 10 },
    { code: '5gb', name: '5 GB', amount: 40 },
  ]),

  airtime('safaricom-ke-airtime', 'Safaricom Airtime', 'KE', 'KES', 10, 10_000),
  airtime('airtel-ke-airtime', 'Airtel Kenya Airtime', 'KE', 'KES', 10, 10_000),
  airtime('telkom-ke-airtime', 'Telkom Kenya Airtime', 'KE', 'KES', 10, 10_000),
  electricity('kplc-prepaid', 'Kenya Power Prepaid (KPLC tokens)', 'KE', 'KES', '^\\d{11}$', 100, 150_000, 28.7),
  cable('dstv-ke', 'DStv Kenya', 'KE', 'KES', '^\\d{10}$', [
    { code: 'lite', name: 'DStv Lite', amount: 700 },
    { code: 'compact', name: 'DStv Compact', amount: 2_500 },
  ]),
  cable('gotv-ke', 'GOtv Kenya', 'KE', 'KES', '^\\d{10}$', [
    { code: 'lite', name: 'GOtv Lite', amount: 400 },
    { code: 'max', name: 'GOtv Max', amount: 1_400 },
  ]),
  cable('startimes-ke', 'StarTimes Kenya', 'KE', 'KES', '^\\d{11}$', [
    { code: 'nyota', name: 'Nyota', amount: 399 },
    { code: 'smart', name: 'Smart', amount: 999 },
  ]),
  data('safaricom-ke-data', 'Safaricom Data Bundles', 'KE', 'KES', [
    { code: '1gb-1h', name: '1 GB, 1 hour', amount: 19 },
    { code: '1.5gb-3h', name: '1.5 GB, 3 hours', amount: 50 },
    { code: '2gb-24h', name: '2 GB, 24 hours', amount: 100 },
  ]),
];

export const BILL_COUNTRIES = ['NG', 'GH', 'KE'] as const;

export function findBiller(id: string): Biller | undefined {
  return BILLERS.find((biller) => biller.id === id);
}
