// The fake's dedicated virtual accounts (openapi.yaml tag "Dedicated Virtual Account"), built on
// Paystack's own samples (vendor/paystack/dedicated-virtual-account/: the create and providers
// answers, and the DVA charge.success's authorization snippet):
//
//   POST /customer                              customers by e-mail (the same e-mail again answers the same customer: the fake's choice)
//   GET  /dedicated_account/available_providers the providers sample (access-bank, wema-bank)
//   POST /dedicated_account {customer, preferred_bank}   an NGN account; a customer that already has
//                                               an active one is refused (the fake's wording), so
//                                               a caller must look before making a second
//   POST /dedicated_account/assign              a customer and an account in one call
//   GET  /dedicated_account?customer&currency&active      the list
//   GET  /dedicated_account/{id}                one account
//   GET  /dedicated_account/requery?account_number        sends again the webhook of every transfer into it
//
// Tests "send a bank transfer" with sendBankTransfer(accountNumber, amount): a successful
// transaction on the dedicated_nuban channel (found by GET /transaction/verify/{reference}) and its
// signed charge.success, built on the mobile money charge.success sample with the DVA snippet's
// authorization. Options lose the webhook or send it twice.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';

type Reply = (status: number, body: Record<string, unknown>) => void;
type Json = Record<string, unknown>;

function sample(name: string): Json {
  return JSON.parse(readFileSync(new URL(`../../../vendor/paystack/${name}`, import.meta.url), 'utf8')) as Json;
}

const INTEGRATION = 463433;
const code = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex').slice(0, 15)}`;
const text = (value: unknown) => (typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '');

interface Customer {
  id: number;
  code: string;
  email: string;
  firstName: string;
  lastName: string;
  phone: string;
  createdAt: string;
}

interface Account {
  id: number;
  customer: Customer;
  accountNumber: string;
  accountName: string;
  bank: { name: string; id: number; slug: string };
  currency: string;
  active: boolean;
  createdAt: string;
}

export interface FakeBankTransfer {
  reference: string;
  accountNumber: string;
  amount: number;
  currency: string;
  senderName: string;
  senderBank: string;
  senderAccount: string;
  narration: string;
  paidAt: string;
  id: number;
}

export interface SendBankTransferOptions {
  senderName?: string;
  /** Paystack paid in, but its webhook never arrives (a requery sends it). */
  lostWebhook?: boolean;
  /** The same webhook twice (the same bytes). */
  duplicateWebhook?: boolean;
}

export interface VirtualAccountDeskDeps {
  notify(event: 'charge.success', reference: string, body: Json, times: number): Promise<void>;
}

export function virtualAccountDesk(deps: VirtualAccountDeskDeps) {
  const customers = new Map<string, Customer>();
  const accounts = new Map<number, Account>();
  const transfers = new Map<string, FakeBankTransfer>();
  const providers = ((sample('dedicated-virtual-account/providers-response.json').data as Json[]) ?? []).map((p) => ({ slug: text(p.provider_slug), name: text(p.bank_name), id: Number(p.bank_id) }));
  let nextId = 7_454_000;
  let nextAccount = 9_930_000_700;

  const customerByKey = (key: string) => [...customers.values()].find((c) => c.code === key || String(c.id) === key);

  function customerJson(c: Customer): Json {
    return { id: c.id, first_name: c.firstName, last_name: c.lastName, email: c.email, customer_code: c.code, phone: c.phone, metadata: {}, risk_action: 'default', international_format_phone: c.phone || null };
  }

  /** An account as POST /dedicated_account answers it (the create sample's keys). */
  function accountJson(a: Account): Json {
    const created = sample('dedicated-virtual-account/create-response.json').data as Json;
    return {
      ...created,
      bank: { ...a.bank },
      account_name: a.accountName,
      account_number: a.accountNumber,
      assigned: true,
      currency: a.currency,
      metadata: null,
      active: a.active,
      id: a.id,
      created_at: a.createdAt,
      updated_at: a.createdAt,
      assignment: { integration: INTEGRATION, assignee_id: a.customer.id, assignee_type: 'Customer', expired: false, account_type: 'PAY-WITH-TRANSFER-RECURRING', assigned_at: a.createdAt, expired_at: null },
      customer: customerJson(a.customer),
    };
  }

  /** An account as GET /dedicated_account/{id} and the list show it (DedicatedNubanFetchResponse.data). */
  function fetchedJson(a: Account): Json {
    return { customer: customerJson(a.customer), bank: { ...a.bank }, id: a.id, account_name: a.accountName, account_number: a.accountNumber, created_at: a.createdAt, updated_at: a.createdAt, currency: a.currency, split_config: null, active: a.active, assigned: true };
  }

  function createCustomer(body: Json, reply: Reply): void {
    const email = text(body.email).toLowerCase();
    if (!email || !email.includes('@')) return reply(400, { status: false, message: 'Invalid Email Address Passed' });
    let customer = customers.get(email);
    if (!customer) {
      customer = { id: nextId++, code: code('CUS'), email, firstName: text(body.first_name), lastName: text(body.last_name), phone: text(body.phone), createdAt: new Date().toISOString() };
      customers.set(email, customer);
    }
    const c = customer;
    reply(200, {
      status: true,
      message: 'Customer created',
      data: { transactions: [], subscriptions: [], authorizations: [], email: c.email, first_name: c.firstName, last_name: c.lastName, phone: c.phone, integration: INTEGRATION, domain: 'test', metadata: {}, customer_code: c.code, risk_action: 'default', id: c.id, createdAt: c.createdAt, updatedAt: c.createdAt, identified: false, identifications: null },
    });
  }

  function makeAccount(customer: Customer, slug: string): Account | string {
    const provider = providers.find((p) => p.slug === slug);
    if (!provider) return `Preferred bank ${slug || '(none)'} is not a dedicated account provider`;
    if ([...accounts.values()].some((a) => a.customer.id === customer.id && a.active)) return 'Customer already has an active dedicated account';
    const account: Account = {
      id: nextId++,
      customer,
      accountNumber: String(nextAccount++),
      accountName: `TAPLINE/${`${customer.firstName} ${customer.lastName}`.trim().toUpperCase()}`,
      bank: { name: provider.name, id: provider.id, slug: provider.slug },
      currency: 'NGN',
      active: true,
      createdAt: new Date().toISOString(),
    };
    accounts.set(account.id, account);
    return account;
  }

  function create(body: Json, reply: Reply): void {
    const customer = customerByKey(text(body.customer));
    if (!customer) return reply(400, { status: false, message: 'Customer not found' });
    const made = makeAccount(customer, text(body.preferred_bank));
    if (typeof made === 'string') return reply(400, { status: false, message: made });
    reply(200, { status: true, message: 'NUBAN successfully created', data: accountJson(made) });
  }

  function assign(body: Json, reply: Reply): void {
    for (const field of ['email', 'first_name', 'last_name', 'phone', 'preferred_bank', 'country']) {
      if (!text(body[field])) return reply(400, { status: false, message: `${field} is required` });
    }
    if (text(body.country) !== 'NG') return reply(400, { status: false, message: 'The fake assigns Nigerian (NGN) accounts only' });
    const email = text(body.email).toLowerCase();
    let customer = customers.get(email);
    if (!customer) {
      customer = { id: nextId++, code: code('CUS'), email, firstName: text(body.first_name), lastName: text(body.last_name), phone: text(body.phone), createdAt: new Date().toISOString() };
      customers.set(email, customer);
    }
    const made = makeAccount(customer, text(body.preferred_bank));
    if (typeof made === 'string') return reply(400, { status: false, message: made });
    reply(200, { status: true, message: 'Assign dedicated account Successful' });
  }

  function list(query: URLSearchParams, reply: Reply): void {
    let found = [...accounts.values()];
    const customer = query.get('customer');
    if (customer !== null) found = found.filter((a) => String(a.customer.id) === customer);
    const currency = query.get('currency');
    if (currency !== null) found = found.filter((a) => a.currency === currency.toUpperCase());
    const active = query.get('active');
    if (active !== null) found = found.filter((a) => a.active === (active === 'true'));
    reply(200, { status: true, message: 'Managed accounts successfully retrieved', data: found.map(fetchedJson), meta: { total: found.length, skipped: 0, perPage: 50, page: 1, pageCount: 1 } });
  }

  function fetch(id: string, reply: Reply): void {
    const account = accounts.get(Number(id));
    if (!account) return reply(404, { status: false, message: 'Dedicated account not found' });
    reply(200, { status: true, message: 'Customer retrieved', data: fetchedJson(account) });
  }

  function availableProviders(reply: Reply): void {
    reply(200, sample('dedicated-virtual-account/providers-response.json'));
  }

  /** The transaction as GET /transaction/verify shows it: a success on dedicated_nuban, the DVA snippet's authorization. */
  function transactionJson(t: FakeBankTransfer): Json {
    const account = [...accounts.values()].find((a) => a.accountNumber === t.accountNumber)!;
    const snippet = sample('dedicated-virtual-account/event-snippet.json').authorization as Json;
    return {
      id: t.id,
      domain: 'test',
      status: 'success',
      reference: t.reference,
      receipt_number: null,
      amount: t.amount,
      message: null,
      gateway_response: 'Approved',
      paid_at: t.paidAt,
      created_at: t.paidAt,
      channel: 'dedicated_nuban',
      currency: t.currency,
      ip_address: '127.0.0.1',
      metadata: '',
      log: null,
      fees: Math.min(Math.ceil(t.amount / 100), 30_000),
      fees_split: null,
      authorization: {
        ...snippet,
        authorization_code: code('AUTH'),
        bin: `${t.senderAccount.slice(0, 3)}XXX`,
        last4: `X${t.senderAccount.slice(-3)}`,
        bank: t.senderBank,
        sender_bank: t.senderBank,
        sender_bank_account_number: `XXXXXX${t.senderAccount.slice(-4)}`,
        sender_name: t.senderName,
        narration: t.narration,
        receiver_bank_account_number: t.accountNumber,
        receiver_bank: account.bank.name,
      },
      customer: customerJson(account.customer),
      plan: null,
      split: {},
      order_id: null,
      paidAt: t.paidAt,
      createdAt: t.paidAt,
      requested_amount: t.amount,
      pos_transaction_data: null,
      source: null,
      fees_breakdown: null,
      connect: null,
      transaction_date: t.paidAt,
      plan_object: {},
      subaccount: {},
    };
  }

  /** charge.success on the mobile money sample's keys, with this transfer's values and the DVA authorization. */
  function successEvent(t: FakeBankTransfer): Json {
    const body = sample('events/charge-success-mobile-money.json');
    const data = body.data as Json;
    const verified = transactionJson(t);
    for (const key of Object.keys(data)) if (key in verified) data[key] = verified[key];
    data.authorization = verified.authorization;
    data.customer = verified.customer;
    return body;
  }

  function verify(reference: string): Json | undefined {
    const t = transfers.get(reference);
    return t && { status: true, message: 'Verification successful', data: transactionJson(t) };
  }

  async function sendBankTransfer(accountNumber: string, amount: number, options: SendBankTransferOptions = {}): Promise<FakeBankTransfer> {
    const account = [...accounts.values()].find((a) => a.accountNumber === accountNumber && a.active);
    if (!account) throw new Error(`The fake has no active dedicated account ${accountNumber}`);
    const senderAccount = String(Math.floor(1_000_000_000 + Math.random() * 8_999_999_999));
    const t: FakeBankTransfer = {
      // Paystack's own transaction reference (its alphabet; never one of ours).
      reference: `${randomBytes(6).toString('hex')}${Date.now().toString(36)}`,
      accountNumber,
      amount,
      currency: account.currency,
      senderName: options.senderName ?? 'RANDALL AKANBI HORTON',
      senderBank: 'First City Monument Bank',
      senderAccount,
      narration: `NIP: ${options.senderName ?? 'RANDALL AKANBI HORTON'} -${senderAccount}`,
      paidAt: new Date().toISOString(),
      id: nextId++,
    };
    transfers.set(t.reference, t);
    if (!options.lostWebhook) await deps.notify('charge.success', t.reference, successEvent(t), options.duplicateWebhook ? 2 : 1);
    return t;
  }

  /** GET /dedicated_account/requery: Paystack's sample answer; then the webhook of every transfer into the account, again. */
  function requery(query: URLSearchParams, reply: Reply, later: (run: () => Promise<void>) => void): void {
    const accountNumber = query.get('account_number') ?? '';
    if (!/^\d{10}$/.test(accountNumber)) return reply(400, { status: false, message: 'Account number is invalid' });
    reply(200, sample('dedicated-virtual-account/requery-response.json'));
    later(async () => {
      for (const t of transfers.values()) if (t.accountNumber === accountNumber) await deps.notify('charge.success', t.reference, successEvent(t), 1);
    });
  }

  return {
    createCustomer,
    create,
    assign,
    list,
    fetch,
    availableProviders,
    requery,
    verify,
    /** Every transfer in as GET /transaction/verify shows it (what GET /transaction lists). */
    transactions: (): Json[] => [...transfers.values()].map(transactionJson),
    sendBankTransfer,
    accounts: () => [...accounts.values()].map((a) => ({ id: a.id, accountNumber: a.accountNumber, accountName: a.accountName, bank: a.bank.name, customerEmail: a.customer.email, currency: a.currency })),
    bankTransfers: () => [...transfers.values()].map((t) => ({ ...t })),
  };
}
