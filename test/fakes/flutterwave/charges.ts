// The fake's mobile money charges (Direct Charge): POST /v3/charges?type=..., GET
// /v3/transactions/verify_by_reference?tx_ref=..., and the charge.completed webhook carrying the
// `verif-hash` header. Built on Flutterwave/Node-v3: services/mobile-money/rave.*.js (the types),
// services/schema/create.js momoSchema (the body's rules), documentation/collections.md (each
// type's answer: `data` with status "pending" for mpesa, tanzania and franco; no data but
// meta.authorization {mode: "redirect"} for ghana, uganda, rwanda and zambia), and
// documentation/transactions.md (verify_by_reference's answer). Where the documents are silent the
// fake decides, and README.md says what. The phone's last digits pick what the customer does
// (scenarios.ts CHARGE_SCENARIO_DIGITS).
import type { ServerResponse } from 'node:http';
import { fail, send } from './http.ts';
import { type ChargeScenarioName, chargeScenarioOf } from './scenarios.ts';

/** The type query value to the currencies it takes (documentation/collections.md). */
const TYPES: Readonly<Record<string, readonly string[]>> = {
  mpesa: ['KES'],
  mobile_money_ghana: ['GHS'],
  mobile_money_uganda: ['UGX'],
  mobile_money_rwanda: ['RWF'],
  mobile_money_zambia: ['ZMW'],
  mobile_money_tanzania: ['TZS'],
  mobile_money_franco: ['XAF', 'XOF'],
};
/** Types whose sample answers meta.authorization.mode "redirect" without data. */
const REDIRECT_TYPES = new Set(['mobile_money_ghana', 'mobile_money_uganda', 'mobile_money_rwanda', 'mobile_money_zambia']);
/** momoSchema's networks per currency. */
const NETWORKS: Readonly<Record<string, readonly string[]>> = {
  GHS: ['MTN', 'AIRTELTIGO', 'VODAFONE'],
  UGX: ['MTN', 'AIRTEL'],
  KES: ['SAFARICOM', 'AIRTEL'],
  RWF: ['MTN', 'AIRTEL'],
  TZS: ['HALOPESA', 'AIRTEL', 'TIGO', 'VODACOM'],
  ZMW: ['MTN', 'AIRTEL', 'ZAMTEL'],
  XOF: ['WAVE', 'MTN', 'ORANGEMONEY'],
};
const PAYMENT_TYPES: Readonly<Record<string, string>> = {
  mpesa: 'mpesa',
  mobile_money_ghana: 'mobilemoneygh',
  mobile_money_uganda: 'mobilemoneyug',
  mobile_money_rwanda: 'mobilemoneyrw',
  mobile_money_zambia: 'mobilemoneyzm',
  mobile_money_tanzania: 'mobilemoneytz',
  mobile_money_franco: 'mobilemoneysn',
};

export interface FakeCharge {
  id: number;
  tx_ref: string;
  flw_ref: string;
  type: string;
  /** Major units, as asked. */
  asked: number;
  /** Major units, as the record says was paid (another amount than asked in the amount_mismatch scenario). */
  amount: number;
  currency: string;
  phone_number: string;
  network: string | null;
  country: string | null;
  email: string;
  status: 'pending' | 'successful' | 'failed';
  processor_response: string;
  scenario: ChargeScenarioName;
  created_at: string;
  /** How many times the customer's money was taken under this tx_ref (exactly once means 1). */
  timesCharged: number;
  webhooksSent: number;
}

export interface ChargeTiming {
  settleMs: number;
  holdMs: number;
  duplicateGapMs: number;
}

const MESSAGES = {
  notFound: 'No transaction was found for this id',
  duplicate: 'Transaction reference already exists. Please use a unique reference',
  declined: 'Transaction declined by the customer',
  insufficient: 'Insufficient funds in the customer\'s mobile money wallet',
  pending: 'Transaction in progress',
  successful: 'Approved',
} as const;

export function createChargeDesk(options: { timing: ChargeTiming; callbackBase: string | undefined; secretHash: string; schedule: (ms: number, run: () => void) => void }) {
  const byRef = new Map<string, FakeCharge>();
  let nextId = 4_193_000;
  let received = 0;

  /** The charge as verify_by_reference and the webhook show it (documentation/transactions.md's keys). */
  function record(c: FakeCharge, status: FakeCharge['status'] = c.status): Record<string, unknown> {
    return {
      id: c.id,
      tx_ref: c.tx_ref,
      flw_ref: c.flw_ref,
      device_fingerprint: 'N/A',
      amount: c.amount,
      currency: c.currency,
      charged_amount: c.amount,
      app_fee: Number((c.amount * 0.029).toFixed(2)),
      merchant_fee: 0,
      processor_response: status === 'successful' ? MESSAGES.successful : c.processor_response,
      auth_model: c.type === 'mpesa' ? 'LIPA_MPESA' : 'MOBILEMONEY',
      ip: '::127.0.0.1',
      narration: 'Tapline fake',
      status,
      payment_type: PAYMENT_TYPES[c.type],
      created_at: c.created_at,
      account_id: 20937,
      customer: { id: c.id + 1, phone_number: c.phone_number, name: 'Anonymous customer', email: c.email, created_at: c.created_at },
    };
  }

  async function webhook(c: FakeCharge, status: FakeCharge['status'] = c.status): Promise<void> {
    if (!options.callbackBase) return;
    c.webhooksSent += 1;
    try {
      await fetch(options.callbackBase, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'verif-hash': options.secretHash },
        body: JSON.stringify({ event: 'charge.completed', data: record(c, status) }),
        signal: AbortSignal.timeout(10_000),
      });
    } catch {
      // The fake does not retry a delivery.
    }
  }

  /** What the customer does with the prompt. */
  function settle(c: FakeCharge): void {
    if (c.status !== 'pending') return;
    switch (c.scenario) {
      case 'no_answer':
        return;
      case 'declined':
      case 'insufficient_funds':
        c.status = 'failed';
        c.processor_response = c.scenario === 'declined' ? MESSAGES.declined : MESSAGES.insufficient;
        // Flutterwave sends charge.completed for failed charges too.
        void webhook(c);
        return;
      case 'webhook_disagrees':
        // The record says declined; a webhook with the right hash says successful.
        c.status = 'failed';
        c.processor_response = MESSAGES.declined;
        void webhook(c, 'successful');
        return;
      default:
        c.status = 'successful';
        c.timesCharged += 1;
        if (c.scenario === 'callback_lost') return;
        void webhook(c);
        if (c.scenario === 'duplicate_callback') options.schedule(options.timing.duplicateGapMs, () => void webhook(c));
    }
  }

  /** POST /v3/charges?type=... */
  async function create(res: ServerResponse, type: string | null, body: Record<string, unknown>, sleep: (ms: number) => Promise<void>): Promise<void> {
    received += 1;
    const str = (key: string): string | undefined => (typeof body[key] === 'string' ? (body[key] as string).trim() : undefined);
    if (!type || !Object.hasOwn(TYPES, type)) return fail(res, 400, `Invalid charge type ${type ?? '(none)'}`);
    const amount = typeof body.amount === 'number' ? body.amount : typeof body.amount === 'string' && body.amount.trim() !== '' ? Number(body.amount) : Number.NaN;
    if (!(amount > 0)) return fail(res, 400, 'amount is required and must be a positive number');
    const email = str('email');
    if (!email || email.length > 100 || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) return fail(res, 400, 'email is required and must be a valid email');
    const txRef = str('tx_ref');
    if (!txRef || txRef.length > 100) return fail(res, 400, 'tx_ref is required (at most 100 characters)');
    const currency = str('currency');
    if (!currency || !/^[A-Z]{3}$/.test(currency)) return fail(res, 400, 'currency is required (three upper-case letters)');
    if (!TYPES[type]!.includes(currency)) return fail(res, 400, `${type} charges ${TYPES[type]!.join(' or ')}, not ${currency}`);
    const phone = str('phone_number');
    if (!phone || phone.length > 50 || !/^\+?\d+$/.test(phone)) return fail(res, 400, 'phone number should be digits');
    const network = str('network')?.toUpperCase();
    const networks = NETWORKS[currency];
    if (network && networks && !networks.includes(network)) return fail(res, 400, `Only ${networks.join(', ')} are valid for ${currency}.`);
    if (type === 'mobile_money_franco' && !str('country')) return fail(res, 400, 'country is required for francophone mobile money');
    if (byRef.has(txRef)) return fail(res, 400, MESSAGES.duplicate);

    const scenario = chargeScenarioOf(phone);
    nextId += 1;
    const c: FakeCharge = {
      id: nextId,
      tx_ref: txRef,
      flw_ref: `FLWFAKE${nextId}${Math.floor(Math.random() * 1e9)}`,
      type,
      asked: amount,
      // The customer is charged one major unit less than asked (a tampered or partial payment).
      amount: scenario === 'amount_mismatch' ? Math.max(amount - 1, 0.01) : amount,
      currency,
      phone_number: phone,
      network: network ?? null,
      country: str('country')?.toUpperCase() ?? null,
      email,
      status: 'pending',
      processor_response: MESSAGES.pending,
      scenario,
      created_at: new Date().toISOString(),
      timesCharged: 0,
      webhooksSent: 0,
    };
    byRef.set(txRef, c);
    const answer = REDIRECT_TYPES.has(type)
      ? { status: 'success', message: 'Charge initiated', meta: { authorization: { redirect: `https://fake.flutterwave.local/captcha/verify/${c.id}`, mode: 'redirect' } } }
      : { status: 'success', message: 'Charge initiated', data: record(c), ...(type === 'mobile_money_franco' ? { meta: { authorization: { mode: 'callback', redirect_url: null } } } : {}) };
    if (scenario === 'held') {
      // The customer is prompted at once; the answer is held past the client's patience, then the
      // customer pays (with its webhook) and the (unread) answer goes out.
      await sleep(options.timing.holdMs);
      settle(c);
      return send(res, 200, answer);
    }
    options.schedule(options.timing.settleMs, () => settle(c));
    return send(res, 200, answer);
  }

  /** GET /v3/transactions/verify_by_reference?tx_ref=... */
  function verify(res: ServerResponse, query: URLSearchParams): void {
    const txRef = query.get('tx_ref');
    const c = txRef ? byRef.get(txRef) : undefined;
    if (!c) return fail(res, 400, MESSAGES.notFound);
    send(res, 200, { status: 'success', message: 'Transaction fetched successfully', data: record(c) });
  }

  return {
    create,
    verify,
    /** Every charge as verify_by_reference shows it (what GET /v3/transactions lists, transactions.ts). */
    records: (): Record<string, unknown>[] => [...byRef.values()].map((c) => record(c)),
    /** POST /v3/charges received, answered or not. */
    received: () => received,
    charges: (): FakeCharge[] => [...byRef.values()].map((c) => ({ ...c })),
    charge: (txRef: string): FakeCharge | undefined => {
      const c = byRef.get(txRef);
      return c ? { ...c } : undefined;
    },
    /**
     * Changes Flutterwave's record of a charge after the fact (a reconciliation test makes the
     * provider's side disagree with ours: a charge it now shows failed, or for another amount).
     * What verify_by_reference answers from then on; no webhook is sent. False when unknown.
     */
    rewrite: (txRef: string, patch: { status?: 'successful' | 'failed'; amount?: number }): boolean => {
      const c = byRef.get(txRef);
      if (!c) return false;
      if (patch.status !== undefined) c.status = patch.status;
      if (patch.amount !== undefined) c.amount = patch.amount;
      return true;
    },
  };
}
