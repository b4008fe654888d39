// Flutterwave as a live BillerProvider for our Nigerian billers (Node-v3 lib/rave.bills.js and
// documentation/billPayments.md):
//   GET  /v3/bill-categories                       the items (bill-items.ts finds ours)
//   GET  /v3/bill-items/{item_code}/validate?code={biller_code}&customer=   the meter, smartcard or phone
//   POST /v3/bills { country, customer, amount, recurrence, type, reference }
//   GET  /v3/bills/{reference}                     the status
// `reference` is keyOf(billId), so a second call for the same bill finds the first one's payment
// (asked before anything else) instead of paying again. When that status query cannot answer, pay
// throws (the bill service keeps the bill pending). After it, a refusal or no answer while listing
// items or validating the customer is a failed bill (nothing was paid), as is a refusal by
// POST /v3/bills; no answer or a 5xx from POST /v3/bills throws (the outcome is unknown).
// The documents show no token field: the status sample's `extra` is null for airtime. This adapter
// reads a prepaid token and units from `extra` (text such as "Token: 1234-5678-... Units: 23.8 kWh",
// or an object with token and units) or from a `token` / `recharge_token` field, in the payment's
// answer or its status; the fake sends them in `extra`.
// The daily reconciliation asks GET /v3/bills/{reference} about each of our live bills of the day
// (billRecord): a record is the bill paid unless its `status` (the documented status sample has
// none; the bill history's items say "Successful") says failed or still pending; its `amount`
// (major units, text such as "1800.00") and `currency` are what Flutterwave paid. The SDK's bill
// history (GET /v3/bills?from=&to=, documentation/billPayments.md "Get bill payments") answers
// per-currency sums only, no bill under a reference, so the reconciliation cannot use it.
import { isSupportedCurrency, toMajor, toMinor } from '@tapline/shared/money';
import type { BillerProvider } from '../../modules/bills/index.ts';
import type { RailAdapterDeps } from '../types.ts';
import { type ClientDeps, type FlutterwaveClient, FlutterwaveError, createClient, errorOf, isRefusal, successData } from './client.ts';
import type { FlutterwaveConfig } from './config.ts';
import { BILL_ITEM_RULES, type BillCategory, type BillCategoryFlag, type BillItemRule, readCategory } from './bill-items.ts';
import { keyOf } from './keys.ts';

type Biller = Parameters<BillerProvider['supports']>[0];
type BillRequest = Parameters<BillerProvider['pay']>[0];
type BillResult = Awaited<ReturnType<BillerProvider['pay']>>;
type BillQuestion = Parameters<NonNullable<BillerProvider['billRecord']>>[0];
type BillRecord = NonNullable<Awaited<ReturnType<NonNullable<BillerProvider['billRecord']>>>>;

export type BillerDeps = ClientDeps & Pick<RailAdapterDeps, 'now' | 'log'>;

const CATEGORY_TTL_MS = 10 * 60_000;

/** A prepaid token and units from whatever field carries them. */
export function tokenOf(...sources: unknown[]): { token?: string; units?: string } {
  for (const source of sources) {
    if (!source || typeof source !== 'object') continue;
    const record = source as Record<string, unknown>;
    for (const value of [record.extra, record.token, record.recharge_token]) {
      let text: string | undefined;
      let units: string | undefined;
      if (typeof value === 'string') text = value;
      else if (value && typeof value === 'object' && !Array.isArray(value)) {
        const inner = value as Record<string, unknown>;
        const token = inner.token ?? inner.recharge_token;
        if (typeof token === 'string' || typeof token === 'number') text = `Token: ${token}`;
        const innerUnits = inner.units ?? inner.unit;
        if (typeof innerUnits === 'string' || typeof innerUnits === 'number') units = String(innerUnits);
      }
      if (!text) continue;
      const digits = /(?:token[^0-9]*)?([0-9][0-9 -]{8,}[0-9])/i.exec(text)?.[1]?.replace(/[^0-9]/g, '');
      if (!digits || digits.length < 10) continue;
      units ??= /units?\s*[:=]?\s*([0-9]+(?:\.[0-9]+)?)/i.exec(text)?.[1] ?? /([0-9]+(?:\.[0-9]+)?)\s*kwh/i.exec(text)?.[1];
      return { token: digits.match(/.{1,4}/g)!.join('-'), ...(units ? { units } : {}) };
    }
  }
  return {};
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() ? value.trim().slice(0, 120) : undefined);

export function createFlutterwaveBiller(config: FlutterwaveConfig, deps: BillerDeps): BillerProvider {
  const client: FlutterwaveClient = createClient(config, deps);
  const categories = new Map<BillCategoryFlag, { at: number; items: BillCategory[] }>();

  async function itemsOf(flag: BillCategoryFlag): Promise<BillCategory[]> {
    const cached = categories.get(flag);
    const now = deps.now().getTime();
    if (cached && now - cached.at < CATEGORY_TTL_MS) return cached.items;
    const data = successData(client, await client.request('GET', '/v3/bill-categories', { query: { [flag]: 1 } }), 'GET /v3/bill-categories');
    if (!Array.isArray(data)) throw new FlutterwaveError('malformed', "Flutterwave's bill categories are not a list");
    const items = data.map(readCategory).filter((item): item is BillCategory => item !== undefined && item.country === 'NG');
    categories.set(flag, { at: now, items });
    return items;
  }

  async function findItem(rule: BillItemRule, amount: number): Promise<BillCategory | undefined> {
    return (await itemsOf(rule.flag)).find((item) => rule.matches(item, amount));
  }

  /** GET /v3/bills/{reference}: the record, or undefined when Flutterwave holds none under it. */
  async function billStatus(reference: string): Promise<Record<string, unknown> | undefined> {
    const answer = await client.request('GET', `/v3/bills/${encodeURIComponent(reference)}`);
    if (answer.httpStatus >= 200 && answer.httpStatus < 300 && answer.body.status === 'success') {
      const data = answer.body.data;
      return data && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : undefined;
    }
    // The documents do not show the answer for an unknown reference: any refusal or 404 means "none".
    if (answer.httpStatus === 404 || isRefusal(answer)) return undefined;
    throw errorOf(client, answer, 'GET /v3/bills/{reference}');
  }

  function fromStatus(record: Record<string, unknown>, reference: string, customerName?: string): BillResult {
    const providerReference = text(record.tx_ref) ?? text(record.flw_ref) ?? reference;
    const state = typeof record.status === 'string' ? record.status : '';
    if (/fail|reject|declin|revers/i.test(state)) return { status: 'failed', providerReference, failureReason: `Flutterwave reported the bill payment ${state.toLowerCase()}` };
    return { status: 'completed', providerReference, ...tokenOf(record), ...(customerName ? { customerName } : {}) };
  }

  async function pay(request: BillRequest): Promise<BillResult> {
    const { biller } = request;
    const reference = keyOf(request.billId);
    const rule = BILL_ITEM_RULES[biller.id];
    if (!rule || biller.country !== 'NG') return { status: 'failed', providerReference: reference, failureReason: `Flutterwave does not pay ${biller.name}` };
    const amount = toMajor(request.amount, biller.currency);

    // A payment Flutterwave already holds under this bill's reference answers for itself.
    const earlier = await billStatus(reference);
    if (earlier) return fromStatus(earlier, reference);

    // Nothing is paid before POST /v3/bills, and Flutterwave holds no earlier payment of this bill:
    // if it cannot list or validate now, the bill fails (and is refunded) rather than hanging.
    let item: BillCategory | undefined;
    let validated: Record<string, unknown>;
    const customer = request.accountRef;
    const what = biller.accountRefType === 'meter' ? 'meter number' : biller.accountRefType === 'smartcard' ? 'smartcard number' : 'phone number';
    try {
      item = await findItem(rule, amount);
      if (!item) return { status: 'failed', providerReference: reference, failureReason: `Flutterwave lists no bill item for ${biller.name}${request.planCode ? ` plan ${request.planCode}` : ''}` };
      const validation = await client.request('GET', `/v3/bill-items/${encodeURIComponent(item.item_code)}/validate`, { query: { code: item.biller_code, customer } });
      const data = validation.httpStatus >= 200 && validation.httpStatus < 300 && validation.body.status === 'success' ? (validation.body.data as Record<string, unknown> | null) : undefined;
      if (!data || data.response_code !== '00') {
        if (data || isRefusal(validation) || validation.httpStatus === 404) {
          const said = client.messageOf(validation.body) ?? text(data?.response_message);
          return { status: 'failed', providerReference: reference, failureReason: `Flutterwave could not validate the ${what} ${customer} for ${biller.name}${said ? `: ${said}` : ''}` };
        }
        throw errorOf(client, validation, 'GET /v3/bill-items/{item_code}/validate');
      }
      validated = data;
    } catch (error) {
      if (!(error instanceof FlutterwaveError)) throw error;
      deps.log('flutterwave: a bill could not be prepared; nothing was paid', { billId: request.billId, error: error.message });
      return { status: 'failed', providerReference: reference, failureReason: `Flutterwave could not check the bill for ${biller.name} now; nothing was paid` };
    }
    const customerName = biller.accountRefType === 'phone' ? undefined : text(validated.name);

    const answer = await client.request('POST', '/v3/bills', { body: { country: 'NG', customer, amount, recurrence: 'ONCE', type: item.biller_name, reference } });
    if (!(answer.httpStatus >= 200 && answer.httpStatus < 300 && answer.body.status === 'success')) {
      if (!isRefusal(answer)) throw errorOf(client, answer, 'POST /v3/bills');
      const held = await billStatus(reference);
      if (held) return fromStatus(held, reference, customerName);
      const said = client.messageOf(answer.body);
      return { status: 'failed', providerReference: reference, failureReason: said ? `Flutterwave refused the bill payment: ${said}` : `Flutterwave refused the bill payment (HTTP ${answer.httpStatus})` };
    }
    const paid = (answer.body.data && typeof answer.body.data === 'object' ? answer.body.data : {}) as Record<string, unknown>;
    let status: Record<string, unknown> | undefined;
    try {
      status = await billStatus(reference);
    } catch (error) {
      deps.log('flutterwave: a paid bill\'s status could not be read (its token may be missing)', { billId: request.billId, error: error instanceof Error ? error.message : String(error) });
    }
    const providerReference = text(paid.flw_ref) ?? text(paid.tx_ref) ?? text(status?.tx_ref) ?? reference;
    return { status: 'completed', providerReference, ...tokenOf(paid, status), ...(customerName ? { customerName } : {}) };
  }

  /**
   * The daily reconciliation's question: Flutterwave's record of one of our bills by its reference
   * (keyOf(billId)); undefined when it holds none. Throws when it cannot tell now, or when a record
   * it says paid carries no amount that can be read.
   */
  async function billRecord(question: BillQuestion): Promise<BillRecord | undefined> {
    const record = await billStatus(keyOf(question.billId));
    if (!record) return undefined;
    const providerReference = text(record.tx_ref) ?? text(record.flw_ref);
    const state = typeof record.status === 'string' ? record.status : '';
    if (/fail|reject|declin|revers/i.test(state)) return { status: 'failed', providerReference };
    if (/pend|process|initiat|queue/i.test(state)) return { status: 'pending', providerReference };
    const currency = typeof record.currency === 'string' && isSupportedCurrency(record.currency.toUpperCase()) ? record.currency.toUpperCase() : question.currency;
    let amount: number;
    try {
      // Major units, as text ("1800.00", the fake's "500.0000": trailing zeros are no decimals).
      amount = toMinor(typeof record.amount === 'number' || typeof record.amount === 'string' ? record.amount : NaN, currency);
    } catch {
      throw new FlutterwaveError('malformed', `Flutterwave's record of bill ${question.billId} carries no amount that can be read`);
    }
    return { status: 'completed', providerReference, paid: { amount, currency } };
  }

  return {
    name: 'flutterwave',
    supports: (biller: Biller) => biller.country === 'NG' && BILL_ITEM_RULES[biller.id] !== undefined,
    pay,
    billRecord,
  };
}
