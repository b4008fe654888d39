// The fake's mobile money charges: POST /charge with `mobile_money: {phone, provider}`, GET
// /charge/{reference} (check pending charge) and GET /transaction/verify/{reference}, and the
// signed `charge.success` webhook. Built on Paystack's own samples (vendor/paystack/charges/ and
// events/charge-success-mobile-money.json): a charge on MTN, AirtelTigo or M-PESA answers
// `pay_offline` with its display_text (the customer approves on the phone), one on Vodafone
// (Telecel) answers `send_otp` (the voucher sample) and stays so; the phone's last digit picks
// what the customer then does (scenarios.ts CHARGE_SCENARIOS).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type ChargeScenarioName, chargeScenarioOf } from './scenarios.ts';

type Reply = (status: number, body: Record<string, unknown>) => void;

export interface FakeCharge {
  reference: string;
  amount: number;
  currency: string;
  email: string;
  phone: string;
  provider: string;
  scenario: ChargeScenarioName;
  /** pay_offline / send_otp while the customer has not finished; then success or failed. */
  status: string;
  /** How many times the customer's money was taken under this reference (exactly once means 1). */
  charged: number;
  message: string | null;
  gatewayResponse: string;
  id: number;
  createdAt: string;
  paidAt: string | null;
  customerCode: string;
}

export interface ChargeDeskDeps {
  /** Runs after ms × the fake's delay scale (nothing once the fake is stopped). */
  later(ms: number, run: () => void | Promise<void>): void;
  /** Sends a signed webhook `times` times. */
  notify(event: 'charge.success', reference: string, body: Record<string, unknown>, times: number): Promise<void>;
}

const SETTLE_MS = 1_000;
const HOLD_MS = 30_000;
const INTEGRATION_DOMAIN = 'test';

/** Paystack's mobile money operators per currency (the bank list's codes, sent in lower case by the charge examples). */
const OPERATORS: Readonly<Record<string, { currency: string; bank: string; phone: RegExp }>> = {
  mtn: { currency: 'GHS', bank: 'MTN Mobile Money', phone: /^0\d{9}$/ },
  atl: { currency: 'GHS', bank: 'AirtelTigo Money', phone: /^0\d{9}$/ },
  vod: { currency: 'GHS', bank: 'Vodafone Cash', phone: /^0\d{9}$/ },
  mpesa: { currency: 'KES', bank: 'M-PESA', phone: /^254\d{9}$/ },
};

// Paystack's words (openapi.yaml ErrorMeta example; api-errors.json) where it has them.
const MESSAGES = {
  email: 'Email address is required to create charge',
  duplicate: 'Duplicate Transaction Reference',
  notFound: 'Transaction reference not found',
  insufficient: 'Insufficient funds',
} as const;

function sample(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(`../../../vendor/paystack/${path}`, import.meta.url), 'utf8')) as Record<string, unknown>;
}

const code = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex').slice(0, 15)}`;
const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '');

export function chargeDesk(deps: ChargeDeskDeps) {
  const charges = new Map<string, FakeCharge>();
  let received = 0;
  let nextId = 59_000;

  /** The charge as GET /transaction/verify shows it (VerifyResponse.data, the verify sample's keys). */
  function transactionJson(c: FakeCharge): Record<string, unknown> {
    const operator = OPERATORS[c.provider]!;
    return {
      id: c.id,
      domain: INTEGRATION_DOMAIN,
      status: c.status === 'pay_offline' ? 'pending' : c.status,
      reference: c.reference,
      receipt_number: null,
      amount: c.amount,
      message: c.message,
      gateway_response: c.gatewayResponse,
      paid_at: c.paidAt,
      created_at: c.createdAt,
      channel: 'mobile_money',
      currency: c.currency,
      ip_address: '127.0.0.1',
      metadata: '',
      log: null,
      fees: c.status === 'success' ? Math.ceil(c.amount / 100) : null,
      fees_split: null,
      authorization: {
        authorization_code: code('AUTH'),
        bin: `${c.phone.slice(0, 3)}XXX`,
        last4: `X${c.phone.slice(-3)}`,
        exp_month: '12',
        exp_year: '9999',
        channel: 'mobile_money',
        card_type: '',
        bank: operator.bank,
        country_code: c.currency === 'GHS' ? 'GH' : 'KE',
        brand: operator.bank.toLowerCase(),
        reusable: false,
        signature: '',
        account_name: null,
        receiver_bank_account_number: null,
        receiver_bank: null,
      },
      customer: { id: c.id + 1, first_name: null, last_name: null, email: c.email, customer_code: c.customerCode, phone: null, metadata: null, risk_action: 'default', international_format_phone: null },
      plan: null,
      split: {},
      order_id: null,
      paidAt: c.paidAt,
      createdAt: c.createdAt,
      requested_amount: c.amount,
      pos_transaction_data: null,
      source: null,
      fees_breakdown: null,
      connect: null,
      transaction_date: c.createdAt,
      plan_object: {},
      subaccount: {},
    };
  }

  /** charge.success built on Paystack's mobile money sample: its keys, this charge's values. */
  function successEvent(c: FakeCharge): Record<string, unknown> {
    const body = sample('events/charge-success-mobile-money.json');
    const data = body.data as Record<string, unknown>;
    const operator = OPERATORS[c.provider]!;
    Object.assign(data, { id: c.id, domain: INTEGRATION_DOMAIN, status: 'success', reference: c.reference, amount: c.amount, gateway_response: c.gatewayResponse, paid_at: c.paidAt, created_at: c.createdAt, currency: c.currency, ip_address: '127.0.0.1', fees: Math.ceil(c.amount / 100), paidAt: c.paidAt });
    Object.assign(data.authorization as Record<string, unknown>, { authorization_code: code('AUTH'), bin: `${c.phone.slice(0, 3)}XXX`, last4: `X${c.phone.slice(-3)}`, bank: operator.bank, brand: operator.bank.toLowerCase(), country_code: c.currency === 'GHS' ? 'GH' : 'KE', account_name: null });
    Object.assign(data.customer as Record<string, unknown>, { id: c.id + 1, first_name: null, last_name: null, email: c.email, customer_code: c.customerCode, phone: '', risk_action: 'default' });
    return body;
  }

  async function succeed(c: FakeCharge): Promise<void> {
    if (c.status !== 'pay_offline') return;
    c.status = 'success';
    c.gatewayResponse = 'Approved';
    c.message = 'madePayment';
    c.paidAt = new Date().toISOString();
    c.charged += 1;
    if (c.scenario === 'callback_lost') return;
    await deps.notify('charge.success', c.reference, successEvent(c), c.scenario === 'duplicate_callback' ? 2 : 1);
  }

  /** What the customer does with the prompt: approve, decline, run short, or nothing. */
  async function settle(c: FakeCharge): Promise<void> {
    if (c.status !== 'pay_offline') return;
    if (c.scenario === 'no_answer') return;
    if (c.scenario === 'declined' || c.scenario === 'insufficient_funds') {
      c.status = 'failed';
      c.gatewayResponse = 'Declined';
      c.message = c.scenario === 'declined' ? 'Declined by the customer' : MESSAGES.insufficient;
      return;
    }
    await succeed(c);
  }

  /** POST /charge (mobile money only: any other channel is not faked). */
  function create(body: Record<string, unknown>, reply: Reply): void {
    const email = text(body.email);
    if (!email) return reply(400, { status: false, message: MESSAGES.email });
    const amount = body.amount;
    if (typeof amount !== 'number' || !Number.isInteger(amount) || amount <= 0) return reply(400, { status: false, message: 'Invalid amount' });
    const mobile = body.mobile_money as Record<string, unknown> | undefined;
    if (typeof mobile !== 'object' || mobile === null) return reply(400, { status: false, message: 'The fake charges mobile money only' });
    const reference = typeof body.reference === 'string' ? body.reference : '';
    // ChargeCreate.reference: "Only -, ., = and alphanumeric characters allowed."
    if (!/^[A-Za-z0-9.=-]+$/.test(reference)) return reply(400, { status: false, message: 'Invalid transaction reference' });
    if (charges.has(reference)) return reply(400, { status: false, message: MESSAGES.duplicate, meta: { nextStep: 'Try and create the Transaction or Charge with a new reference' }, type: 'validation_error' });
    const provider = text(mobile.provider).toLowerCase();
    const operator = OPERATORS[provider];
    const currency = text(body.currency).toUpperCase() || 'NGN';
    if (!operator || operator.currency !== currency) return reply(400, { status: false, message: `Mobile money provider ${provider || '(none)'} is not available for ${currency}` });
    const phone = text(mobile.phone);
    if (!operator.phone.test(phone)) return reply(400, { status: false, message: 'Invalid phone number' });
    received += 1;
    const c: FakeCharge = {
      reference,
      amount,
      currency,
      email,
      phone,
      provider,
      scenario: chargeScenarioOf(phone),
      // Vodafone (Telecel) asks for a voucher (Paystack's mobile-vodafone sample); the others prompt the phone.
      status: provider === 'vod' ? 'send_otp' : 'pay_offline',
      charged: 0,
      message: null,
      gatewayResponse: 'Awaiting the customer',
      id: nextId++,
      createdAt: new Date().toISOString(),
      paidAt: null,
      customerCode: code('CUS'),
    };
    charges.set(reference, c);
    const offline = sample(provider === 'vod' ? 'charges/mobile-vodafone.json' : 'charges/mobile-airtel-mtn.json');
    const answer = { ...offline, data: { ...(offline.data as Record<string, unknown>), reference } };
    if (c.status === 'send_otp') return reply(200, answer);
    if (c.scenario === 'held') {
      // The customer is prompted at once; the answer is held past the client's patience, then the
      // customer pays and the (unread) answer goes out.
      deps.later(HOLD_MS, async () => {
        await succeed(c);
        reply(200, answer);
      });
      return;
    }
    reply(200, answer);
    deps.later(SETTLE_MS, () => settle(c));
  }

  /** GET /charge/{reference}: Paystack's check answer (api/charges/check): reference and status, a failed one's message. */
  function check(reference: string, reply: Reply): void {
    const c = charges.get(reference);
    if (!c) return reply(404, { status: false, message: MESSAGES.notFound });
    reply(200, { status: true, message: 'Reference check successful', data: { reference, status: c.status === 'pay_offline' ? 'pending' : c.status, ...(c.status === 'failed' ? { message: c.message } : {}) } });
  }

  function verify(reference: string, reply: Reply): void {
    const c = charges.get(reference);
    if (!c) return reply(404, { status: false, message: MESSAGES.notFound });
    reply(200, { status: true, message: 'Verification successful', data: transactionJson(c) });
  }

  return {
    create,
    check,
    verify,
    /** Every charge as GET /transaction/verify shows it (what GET /transaction lists). */
    transactions: (): Record<string, unknown>[] => [...charges.values()].map(transactionJson),
    received: () => received,
    charges: (): FakeCharge[] => [...charges.values()].map((c) => ({ ...c })),
    /**
     * Changes Paystack's record of a charge after the fact (a reconciliation test makes the
     * provider's side disagree with ours: a charge it now shows failed, or for another amount).
     * What GET /transaction/verify answers from then on; no webhook is sent. False when unknown.
     */
    rewrite: (reference: string, patch: { status?: 'success' | 'failed'; amount?: number }): boolean => {
      const c = charges.get(reference);
      if (!c) return false;
      if (patch.status !== undefined) c.status = patch.status;
      if (patch.amount !== undefined) c.amount = patch.amount;
      return true;
    },
  };
}
