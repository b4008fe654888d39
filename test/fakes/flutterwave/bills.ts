// The fake's bills: GET /v3/bill-categories, GET /v3/bill-items/{item_code}/validate,
// POST /v3/bills, GET /v3/bills/{reference}. Shapes from Flutterwave/Node-v3
// documentation/billPayments.md, rules from services/schema/bill.js (createSchema, validateSchema).
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { fail, send } from './http.ts';
import { billOutcomeOf } from './scenarios.ts';

type Kind = 'airtime' | 'data_bundle' | 'power' | 'cable' | 'other';

interface Category {
  id: number;
  biller_code: string;
  name: string;
  default_commission: number;
  date_added: string;
  country: string;
  is_airtime: boolean;
  biller_name: string;
  item_code: string;
  short_name: string;
  fee: number;
  commission_on_fee: boolean;
  label_name: string;
  amount: number;
}

const entry = (id: number, kind: Kind, country: string, biller_code: string, item_code: string, name: string, biller_name: string, short_name: string, label_name: string, amount = 0): { kind: Kind; category: Category } => ({
  kind,
  category: { id, biller_code, name, default_commission: 0.025, date_added: '2018-07-03T00:00:00Z', country, is_airtime: kind === 'airtime', biller_name, item_code, short_name, fee: kind === 'airtime' ? 0 : 100, commission_on_fee: kind !== 'airtime', label_name, amount },
});

/**
 * The items of the documentation's bill-categories sample that concern us (ids 1-5, 7, 9, 13, 14,
 * codes as documented), then the fake's own items for billers the documents do not show: their
 * codes have an X (BILX.., UBX.., CBX.., MDX.., ADX..) so nobody takes them for Flutterwave's.
 */
const CATEGORIES = [
  entry(1, 'airtime', 'NG', 'BIL099', 'AT099', 'MTN NIgeria', 'AIRTIME', 'MTN', 'Mobile Number'),
  entry(2, 'airtime', 'NG', 'BIL099', 'AT099', 'GLO Nigeria', 'AIRTIME', 'GLO', 'Mobile Number'),
  entry(3, 'airtime', 'NG', 'BIL099', 'AT099', '9Mobile', 'AIRTIME', '9mobile', 'Mobile Number'),
  entry(4, 'airtime', 'NG', 'BIL099', 'AT099', 'Airtel Nigeria', 'AIRTIME', 'Airtel', 'Mobile Number'),
  entry(5, 'airtime', 'GH', 'BIL132', 'AT217', 'Airtime', 'AIRTIME', 'Airtime', 'Mobile Number'),
  entry(7, 'cable', 'NG', 'BIL119', 'CB141', 'DSTV Payment', 'DSTV', 'DSTV', 'Smart Card Number'),
  entry(9, 'cable', 'NG', 'BIL119', 'CB140', 'DSTV BoxOffice', 'DSTV BOX OFFICE', 'Box Office', 'Smart Card Number'),
  entry(13, 'power', 'NG', 'BIL110', 'UB134', 'EKO PREPAID', 'EKEDC PREPAID TOPUP', 'EKO PREPAID', 'Meter Number'),
  entry(14, 'power', 'NG', 'BIL110', 'UB135', 'EKO PPOSTPAID', 'EKEDC POSTPAID TOPUP', 'EKO POSTPAID', 'Meter Number'),
  entry(901, 'power', 'NG', 'BILX01', 'UBX01', 'IKEDC PREPAID', 'IKEDC PREPAID TOPUP', 'IKEDC PREPAID', 'Meter Number'),
  entry(902, 'power', 'NG', 'BILX02', 'UBX02', 'AEDC PREPAID', 'AEDC PREPAID TOPUP', 'AEDC PREPAID', 'Meter Number'),
  entry(903, 'cable', 'NG', 'BILX03', 'CBX03', 'GOTV Payment', 'GOTV', 'GOTV', 'IUC Number'),
  entry(904, 'cable', 'NG', 'BILX04', 'CBX04', 'STARTIMES Payment', 'STARTIMES', 'STARTIMES', 'Smart Card Number'),
  entry(905, 'data_bundle', 'NG', 'BILX05', 'MDX01', 'MTN 1GB 1 day', 'MTN 1 GB DATA', 'MTN', 'Mobile Number', 500),
  entry(906, 'data_bundle', 'NG', 'BILX05', 'MDX02', 'MTN 2GB 30 days', 'MTN 2 GB DATA', 'MTN', 'Mobile Number', 1500),
  entry(907, 'data_bundle', 'NG', 'BILX05', 'MDX03', 'MTN 10GB 30 days', 'MTN 10 GB DATA', 'MTN', 'Mobile Number', 4500),
  entry(908, 'data_bundle', 'NG', 'BILX06', 'ADX01', 'Airtel 1GB 1 day', 'AIRTEL 1 GB DATA', 'Airtel', 'Mobile Number', 500),
  entry(909, 'data_bundle', 'NG', 'BILX06', 'ADX02', 'Airtel 3GB 30 days', 'AIRTEL 3 GB DATA', 'Airtel', 'Mobile Number', 2000),
];

/** The fake's tariff for prepaid units (naira per kWh). */
const TARIFF_PER_KWH = 209.5;

export interface FakeBill {
  reference: string;
  type: string;
  customer: string;
  amount: number;
  flwRef: string;
  token: string | null;
  units: string | null;
}

function tokenFor(reference: string): string {
  const digest = createHash('sha256').update(`fake-flutterwave:${reference}`).digest();
  let digits = '';
  for (const byte of digest) {
    digits += String(byte % 10);
    if (digits.length === 20) break;
  }
  return digits.match(/.{4}/g)!.join('-');
}

export function createBillDesk() {
  const bills = new Map<string, FakeBill & { kind: Kind; shortName: string; at: string }>();
  let serial = 0;
  /** GET /v3/bills/{reference} answering 500 (a test of a provider that cannot be asked now). */
  let statusDown = false;

  /** GET /v3/bill-categories, narrowed by the SDK listSchema's flags (airtime, data_bundle, power, cable =1) and country. */
  function categories(res: ServerResponse, query: URLSearchParams): void {
    let items = CATEGORIES;
    for (const flag of ['airtime', 'data_bundle', 'power', 'cable'] as const) if (query.get(flag) === '1') items = items.filter((item) => item.kind === flag);
    const country = query.get('country');
    if (country) items = items.filter((item) => item.category.country === country.toUpperCase());
    send(res, 200, { status: 'success', message: 'bill categories retrieval successful', data: items.map((item) => item.category) });
  }

  /** GET /v3/bill-items/{item_code}/validate?code=&customer=. */
  function validate(res: ServerResponse, itemCode: string, query: URLSearchParams): void {
    const code = query.get('code');
    const customer = query.get('customer');
    if (!code || !customer) return fail(res, 400, 'code and customer are required');
    const item = CATEGORIES.find((candidate) => candidate.category.item_code === itemCode && candidate.category.biller_code === code);
    if (!item) return fail(res, 400, 'Invalid biller code or item code');
    if (billOutcomeOf(customer) === 'invalid') return fail(res, 400, `Invalid customer: ${customer} is not a valid ${item.category.label_name.toLowerCase()}`);
    send(res, 200, {
      status: 'success',
      message: 'Item validated successfully',
      data: {
        response_code: '00', address: null, response_message: 'Successful',
        name: item.kind === 'airtime' || item.kind === 'data_bundle' ? item.category.short_name : 'ADA OBI (FAKE)',
        biller_code: item.category.biller_code, customer, product_code: item.category.item_code, email: null, fee: item.category.fee, maximum: 0, minimum: 0,
      },
    });
  }

  /** POST /v3/bills { country, customer, amount, recurrence, type, reference }. */
  function pay(res: ServerResponse, body: Record<string, unknown>): void {
    const customer = typeof body.customer === 'string' ? body.customer.trim() : '';
    const type = typeof body.type === 'string' ? body.type.trim() : '';
    const reference = typeof body.reference === 'string' ? body.reference.trim() : '';
    const amount = body.amount;
    const country = typeof body.country === 'string' ? body.country.toUpperCase() : 'NG';
    if (!customer) return fail(res, 400, 'customer is required');
    if (typeof amount !== 'number' || !(amount > 0)) return fail(res, 400, 'amount is required and must be a positive number');
    if (typeof body.recurrence !== 'string' || !body.recurrence) return fail(res, 400, 'recurrence is required');
    if (!reference) return fail(res, 400, 'reference is required');
    if (reference.length > 100) return fail(res, 400, 'reference length must be less than or equal to 100 characters long');
    const candidates = CATEGORIES.filter((item) => item.category.country === country && item.category.biller_name.toLowerCase() === type.toLowerCase());
    if (candidates.length === 0) return fail(res, 400, `Invalid bill type ${type}`);
    const fixed = candidates.find((item) => item.category.amount > 0);
    if (fixed && fixed.category.amount !== amount) return fail(res, 400, `${type} costs ${fixed.category.amount}`);
    if (bills.has(reference)) return fail(res, 400, 'Duplicate reference');
    if (billOutcomeOf(customer) === 'failure') return fail(res, 400, 'Bill payment failed: the biller declined the transaction');
    const item = candidates[0]!;
    serial += 1;
    const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
    const power = item.kind === 'power';
    const bill = {
      reference, type: item.category.biller_name, customer, amount, kind: item.kind, shortName: item.category.short_name,
      flwRef: `CF-FLYAPI-${stamp}${String(serial).padStart(6, '0')}`,
      token: power ? tokenFor(reference) : null,
      units: power ? (Math.floor((amount / TARIFF_PER_KWH) * 10) / 10).toFixed(1) : null,
      at: new Date().toISOString(),
    };
    bills.set(reference, bill);
    send(res, 200, {
      status: 'success',
      message: 'Bill payment successful',
      data: { phone_number: customer, amount, network: item.category.short_name.toUpperCase(), flw_ref: bill.flwRef, tx_ref: `BPUSSD${Date.now()}${serial}`, reference: null },
    });
  }

  /** GET /v3/bills/{reference}. */
  function status(res: ServerResponse, reference: string): void {
    if (statusDown) return fail(res, 500, 'An error occurred. Please contact support');
    const bill = bills.get(reference);
    if (!bill) return fail(res, 404, 'No bill payment found with this reference');
    send(res, 200, {
      status: 'success',
      message: 'Bill status fetch successful',
      data: {
        currency: 'NGN', customer_id: bill.customer.replace(/^\+/, ''), frequency: 'One Time', amount: bill.amount.toFixed(4), product: bill.type, product_name: bill.shortName,
        commission: 0, transaction_date: bill.at, country: 'NG', tx_ref: bill.flwRef,
        extra: bill.token ? `Token: ${bill.token} Units: ${bill.units} kWh` : null,
        product_details: `FLY-API-NG-${bill.type.replace(/\s+/g, '-')}-${bill.shortName.replace(/\s+/g, '-')}`.toUpperCase(),
      },
    });
  }

  return {
    categories,
    validate,
    pay,
    status,
    /** Rewrites the fake's record of a bill (amount in major units) for a test that needs Flutterwave to disagree; false when unknown. */
    rewrite(reference: string, patch: { amount?: number }): boolean {
      const bill = bills.get(reference);
      if (!bill) return false;
      if (patch.amount !== undefined) bill.amount = patch.amount;
      return true;
    },
    /** While down, GET /v3/bills/{reference} answers 500 to every question. */
    setStatusDown(down: boolean): void {
      statusDown = down;
    },
    bills: (): FakeBill[] => [...bills.values()].map(({ reference, type, customer, amount, flwRef, token, units }) => ({ reference, type, customer, amount, flwRef, token, units })),
  };
}
