// A local Paystack for tests: a plain node:http server with Paystack's paths, Bearer auth, JSON
// envelopes `{ status, message, data, meta }`, status codes and signed transfer webhooks, built
// from vendor/paystack/ (openapi.yaml, api-errors.json, events/*.json, charges/*.json). Magic
// receivers choose what happens to a transfer, magic payers to a mobile money charge
// (scenarios.ts; the charges in charges.ts). See README.md for what it does not do.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BANK_LIST_COUNTRIES, BANKS, bankJson, type FakeBank } from './banks.ts';
import { chargeDesk, type FakeCharge } from './charges.ts';
import type { Exchange } from './contract.ts';
import { type ScenarioName, scenarioOf } from './scenarios.ts';
import { type FakeBankTransfer, type SendBankTransferOptions, virtualAccountDesk } from './virtual-accounts.ts';
import { deliver, eventBody, type SentWebhook, type TransferEvent, type WebhookTransfer } from './webhooks.ts';

export interface PaystackFakeOptions {
  port?: number;
  /** Where webhooks go, e.g. http://127.0.0.1:3000/api/rails/paystack/webhook; none sent without it. */
  callbackBase?: string;
  /** Multiplies every delay (settling 1 s, no_answer's hold 30 s, the reversal 1 s after success); default 1. */
  delayScale?: number;
  /** The integration's secret key; a random sk_test_ key by default. */
  secretKey?: string;
  /**
   * The most transactions GET /transaction answers a page, whatever per_page asks (default 50, the
X
   */
  listPageSize?: number;
}

export interface FakePayout {
  /** The transfer's reference (the adapter's idempotency key). */
  key: string;
  amount: number;
  currency: string;
  destination: { type: string; accountNumber: string; bankCode: string };
  /** How many times money went out under this key (exactly-once means 1). */
  times: number;
  /** Where the transfer stands now: success, or reversed after it. */
  status: string;
}

export interface FakeTransferView {
  reference: string;
  transferCode: string;
  status: string;
  amount: number;
  currency: string;
  recipientCode: string;
}

export interface PaystackFake {
  url: string;
  /** The adapter's environment variables pointing at this fake, the secret key included. */
  env: { PAYSTACK_SECRET_KEY: string; PAYSTACK_BASE_URL: string };
  secretKey: string;
  /** How many transfers it has taken in, answered or not (a held no_answer one too). */
  transfersReceived(): number;
  /** Every transfer that actually paid out. */
  payouts(): FakePayout[];
  /** The transfer under a reference, whatever its state. */
  transfer(reference: string): FakeTransferView | undefined;
  /** Every request and the answer the fake gave, in order (for the contract check). */
  exchanges(): Exchange[];
  /** Every webhook sent, with the exact bytes and signature. */
  webhooks(): SentWebhook[];
  /** How many mobile money charges it has taken in (POST /charge accepted), answered or not. */
  chargesReceived(): number;
  /** Every mobile money charge, with how many times the customer's money was taken under its reference. */
  charges(): FakeCharge[];
  /** Rewrites its record of a charge (status, amount in minor units) for a test that needs the provider to disagree; false when unknown. */
  rewriteCharge(reference: string, patch: { status?: 'success' | 'failed'; amount?: number }): boolean;
  /** Dedicated virtual accounts made (virtual-accounts.ts). */
  virtualAccounts(): { id: number; accountNumber: string; accountName: string; bank: string; customerEmail: string; currency: string }[];
  /** "Sends a bank transfer" into a dedicated virtual account: a dedicated_nuban transaction and its signed charge.success. */
  sendBankTransfer(accountNumber: string, amount: number, options?: SendBankTransferOptions): Promise<FakeBankTransfer>;
  /** How many GET /transaction/verify requests for a bank transfer it has taken in, answered or not. */
  bankTransferVerifies(): number;
  /** true: GET /transaction/verify of a bank transfer is held unanswered; false: the held ones are answered now, and later ones at once. */
  holdBankTransferVerify(hold: boolean): void;
  /** Sends the last webhook of a reference again, the same bytes and signature (as Paystack retries a delivery). */
  resendWebhook(reference: string): Promise<SentWebhook>;
  stop(): Promise<void>;
}

interface Recipient {
  id: number;
  code: string;
  type: string;
  name: string;
  accountNumber: string;
  accountName: string | null;
  bank: FakeBank;
  currency: string;
  createdAt: string;
}

interface Transfer {
  id: number;
  request: number;
  reference: string;
  transferCode: string;
  amount: number;
  currency: string;
  reason: string;
  status: string;
  recipient: Recipient;
  scenario: ScenarioName;
  createdAt: string;
  updatedAt: string;
  transferredAt: string | null;
  gatewayResponse: string | null;
  session: { provider: string | null; id: string | null };
  paid: number;
}

const INTEGRATION = 463433;
const SETTLE_MS = 1_000;
const HOLD_MS = 30_000;
const REVERSE_MS = 1_000;
// Paystack's messages (api-errors.json) where it has one; the others are the fake's wording.
const MESSAGES = {
  noHeader: 'No Authorization Header was found',
  format: 'Format is Authorization Bearer [secret key]',
  invalidKey: 'Invalid key',
  duplicateReference: 'Please provide a unique reference. Reference already exists on a transfer',
  illegalReference: 'Your reference contains illegal special characters',
  balance: 'Your balance is not enough to fulfill this request',
  recipientInvalid: 'Recipient specified is invalid',
  cannotResolve: 'Cannot resolve account',
  unknownBank: 'Unknown bank code',
  accountRequired: 'Account number is required',
  bankCodeRequired: 'bank_code is required',
  resolveFailed: 'Could not resolve account name. Check parameters or try again.',
  numeric: 'Account number should be numeric',
  amount: 'Amount must be an integer',
  transferNotFound: 'Transfer not found',
} as const;

const code = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex').replace(/[0-9]/g, (d) => 'abcdefghij'[Number(d)]!).slice(0, 15)}`;
const now = () => new Date().toISOString();

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

export async function startPaystackFake(options: PaystackFakeOptions = {}): Promise<PaystackFake> {
  const secretKey = options.secretKey ?? `sk_test_${randomBytes(20).toString('hex')}`;
  const scale = options.delayScale ?? 1;
  const listPageSize = Math.max(1, options.listPageSize ?? 100);
  const recipients = new Map<string, Recipient>();
  const recipientByAccount = new Map<string, Recipient>();
  const transfers = new Map<string, Transfer>();
  const failedOnce = new Set<string>();
  const exchanges: Exchange[] = [];
  const webhooks: SentWebhook[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const inFlight = new Set<Promise<unknown>>();
  let nextId = 1000;
  let stopped = false;
  let bankTransferVerifies = 0;
  let holdingVerify = false;
  const heldVerifies: (() => void)[] = [];

  const later = (ms: number, run: () => void | Promise<void>) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (stopped) return;
      const done = Promise.resolve(run()).catch(() => undefined);
      inFlight.add(done);
      void done.finally(() => inFlight.delete(done));
    }, ms * scale);
    timers.add(timer);
  };

  function recipientJson(r: Recipient): Record<string, unknown> {
    return {
      active: true,
      createdAt: r.createdAt,
      currency: r.currency,
      // Real answers carry null here (doc-code-snippets transfer-recipient-mpesa) where the schema says string.
      description: null,
      domain: 'test',
      email: null,
      id: r.id,
      integration: INTEGRATION,
      metadata: null,
      name: r.name,
      recipient_code: r.code,
      type: r.type,
      updatedAt: r.createdAt,
      is_deleted: false,
      isDeleted: false,
      details: { authorization_code: null, account_number: r.accountNumber, account_name: r.accountName, bank_code: r.bank.code, bank_name: r.bank.name },
    };
  }

  /** A transfer as GET /transfer/verify and GET /transfer show it. */
  function transferJson(t: Transfer): Record<string, unknown> {
    return {
      amount: t.amount,
      createdAt: t.createdAt,
      currency: t.currency,
      domain: 'test',
      failures: null,
      id: t.id,
      integration: INTEGRATION,
      reason: t.reason,
      reference: t.reference,
      source: 'balance',
      source_details: null,
      status: t.status,
      titan_code: null,
      transfer_code: t.transferCode,
      request: t.request,
      transferred_at: t.transferredAt,
      updatedAt: t.updatedAt,
      recipient: recipientJson(t.recipient),
      session: { ...t.session },
      fee_charged: 0,
      fees_breakdown: null,
      gateway_response: t.gatewayResponse,
    };
  }

  /** A transfer as POST /transfer answers it (TransferCreateResponse: the recipient by id). */
  function createdJson(t: Transfer): Record<string, unknown> {
    return {
      transfersessionid: [],
      transfertrials: [],
      domain: 'test',
      amount: t.amount,
      currency: t.currency,
      reference: t.reference,
      source: 'balance',
      source_details: null,
      reason: t.reason,
      status: t.status,
      failures: null,
      transfer_code: t.transferCode,
      titan_code: null,
      transferred_at: t.transferredAt,
      id: t.id,
      integration: INTEGRATION,
      request: t.request,
      recipient: t.recipient.id,
      createdAt: t.createdAt,
      updatedAt: t.updatedAt,
    };
  }

  function webhookTransfer(t: Transfer): WebhookTransfer {
    const r = t.recipient;
    return {
      id: t.id,
      integration: INTEGRATION,
      amount: t.amount,
      currency: t.currency,
      reason: t.reason,
      reference: t.reference,
      status: t.status,
      transferCode: t.transferCode,
      transferredAt: t.transferredAt,
      createdAt: t.createdAt,
      updatedAt: t.updatedAt,
      gatewayResponse: t.gatewayResponse,
      session: { ...t.session },
      recipient: {
        id: r.id,
        name: r.name,
        recipientCode: r.code,
        type: r.type,
        currency: r.currency,
        createdAt: r.createdAt,
        accountNumber: r.accountNumber,
        accountName: r.accountName,
        bankCode: r.bank.code,
        bankName: r.bank.name,
      },
    };
  }

  async function notify(t: Transfer, event: TransferEvent, times = 1): Promise<void> {
    if (!options.callbackBase) return;
    const body = eventBody(event, webhookTransfer(t));
    for (let i = 0; i < times && !stopped; i += 1) webhooks.push(await deliver(options.callbackBase, secretKey, event, t.reference, body));
  }

  const desk = chargeDesk({
    later,
    async notify(event, reference, body, times) {
      if (!options.callbackBase) return;
      for (let i = 0; i < times && !stopped; i += 1) webhooks.push(await deliver(options.callbackBase, secretKey, event, reference, body));
    },
  });

  const dva = virtualAccountDesk({
    async notify(event, reference, body, times) {
      if (!options.callbackBase) return;
      for (let i = 0; i < times && !stopped; i += 1) webhooks.push(await deliver(options.callbackBase, secretKey, event, reference, body));
    },
  });

  async function succeed(t: Transfer): Promise<void> {
    t.status = 'success';
    t.transferredAt = now();
    t.updatedAt = t.transferredAt;
    t.gatewayResponse = 'Approved';
    if (t.currency === 'NGN') t.session = { provider: 'nip', id: `${Date.now()}${t.id}` };
    t.paid += 1;
    if (t.scenario !== 'callback_lost') await notify(t, 'transfer.success', t.scenario === 'duplicate_callback' ? 2 : 1);
    if (t.scenario === 'reversal_after_success') {
      later(REVERSE_MS, async () => {
        t.status = 'reversed';
        t.updatedAt = now();
        t.gatewayResponse = 'Reversed by the receiving institution';
        await notify(t, 'transfer.reversed');
      });
    }
  }

  async function settle(t: Transfer): Promise<void> {
    if (t.status !== 'pending') return;
    if (t.scenario === 'failure') {
      t.status = 'failed';
      t.updatedAt = now();
      t.gatewayResponse = 'Account closed';
      await notify(t, 'transfer.failed');
      return;
    }
    await succeed(t);
  }

  function nameFor(accountNumber: string): string {
    return `TAPLINE TEST ${accountNumber.slice(-4)}`;
  }

  type Reply = (status: number, body: Record<string, unknown>) => void;
  const fail = (reply: Reply, status: number, message: string) => reply(status, { status: false, message });
  const text = (value: unknown) => (typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '');

  function listBanks(query: URLSearchParams, reply: Reply): void {
    let banks = [...BANKS];
    const country = query.get('country');
    if (country !== null) banks = banks.filter((b) => b.country === BANK_LIST_COUNTRIES[country.toLowerCase()]);
    const currency = query.get('currency');
    if (currency !== null) banks = banks.filter((b) => b.currency === currency.toUpperCase());
    const type = query.get('type');
    // The document's enum spells Ghana's channel `ghipps`; the recipients' `ghipss`.
    if (type !== null) banks = banks.filter((b) => b.type === (type === 'ghipps' ? 'ghipss' : type));
    const perPage = Math.max(1, Number(query.get('perPage') ?? 50) || 50);
    const page = Math.max(1, Number(query.get('page') ?? 1) || 1);
    const created = '2016-07-14T10:04:29.000Z';
    reply(200, { status: true, message: 'Banks retrieved', data: banks.slice((page - 1) * perPage, page * perPage).map((b) => bankJson(b, created)) });
  }

  function resolveAccount(query: URLSearchParams, reply: Reply): void {
    const accountNumber = query.get('account_number') ?? '';
    const bankCode = query.get('bank_code') ?? '';
    if (!accountNumber) return fail(reply, 400, MESSAGES.accountRequired);
    if (!bankCode) return fail(reply, 400, MESSAGES.bankCodeRequired);
    if (!/^\d+$/.test(accountNumber)) return fail(reply, 422, MESSAGES.numeric);
    const bank = BANKS.find((b) => b.code === bankCode && b.type !== 'mobile_money' && b.type !== 'mobile_money_business');
    if (!bank || scenarioOf(accountNumber) === 'invalid_account') return fail(reply, 422, MESSAGES.resolveFailed);
    reply(200, { status: true, message: 'Account number resolved', data: { account_number: accountNumber, account_name: nameFor(accountNumber), bank_id: bank.id } });
  }

  const RECIPIENT_TYPES = new Set(['nuban', 'ghipss', 'basa', 'kepss', 'mobile_money', 'mobile_money_business']);

  function createRecipient(body: Record<string, unknown>, reply: Reply): void {
    const type = text(body.type);
    const name = text(body.name);
    const accountNumber = text(body.account_number);
    const bankCode = text(body.bank_code);
    const currency = text(body.currency).toUpperCase();
    if (!RECIPIENT_TYPES.has(type)) return fail(reply, 400, `Invalid recipient type ${type || '(none)'}`);
    if (!name) return fail(reply, 400, 'Name is required');
    if (!accountNumber) return fail(reply, 400, MESSAGES.accountRequired);
    if (!bankCode) return fail(reply, 400, MESSAGES.bankCodeRequired);
    const bank = BANKS.find((b) => b.code === bankCode && (!currency || b.currency === currency));
    if (!bank) return fail(reply, 400, MESSAGES.unknownBank);
    if (bank.type !== type) return fail(reply, 400, `Bank code ${bankCode} does not take ${type} recipients`);
    if (!/^\d+$/.test(accountNumber)) return fail(reply, 400, MESSAGES.numeric);
    if (scenarioOf(accountNumber) === 'invalid_account') return fail(reply, 400, MESSAGES.cannotResolve);
    // "A duplicate account number will lead to the retrieval of the existing record."
    const key = `${type}|${bankCode}|${accountNumber}`;
    let recipient = recipientByAccount.get(key);
    if (!recipient) {
      const banked = type !== 'mobile_money' && type !== 'mobile_money_business';
      recipient = { id: nextId++, code: code('RCP'), type, name, accountNumber, accountName: banked ? nameFor(accountNumber) : null, bank, currency: bank.currency, createdAt: now() };
      recipients.set(recipient.code, recipient);
      recipientByAccount.set(key, recipient);
    }
    reply(201, { status: true, message: 'Transfer recipient created successfully', data: recipientJson(recipient) });
  }

  function initiateTransfer(body: Record<string, unknown>, reply: Reply): void {
    if (text(body.source) !== 'balance') return fail(reply, 400, 'Invalid source: only balance is supported');
    const amount = body.amount;
    if (typeof amount !== 'number' || !Number.isInteger(amount) || amount <= 0) return fail(reply, 400, MESSAGES.amount);
    const reference = typeof body.reference === 'string' ? body.reference : '';
    if (!reference) return fail(reply, 400, 'Reference is required');
    if (!/^[a-z0-9_-]+$/.test(reference)) return fail(reply, 400, MESSAGES.illegalReference);
    // TransferBase.reference: `minimum: 16` (read as a minimum length).
    if (reference.length < 16) return fail(reply, 400, 'Reference must be at least 16 characters');
    const recipient = recipients.get(text(body.recipient));
    if (!recipient) return fail(reply, 400, MESSAGES.recipientInvalid);
    const currency = text(body.currency).toUpperCase() || 'NGN';
    if (currency !== recipient.currency) return fail(reply, 400, `Currency ${currency} does not match the recipient's ${recipient.currency}`);
    if (transfers.has(reference)) return fail(reply, 400, MESSAGES.duplicateReference);
    const scenario = scenarioOf(recipient.accountNumber);
    if (scenario === 'error_then_success' && !failedOnce.has(reference)) {
      // The fake's reading of a 5xx: nothing was created (api-errors.json "System Malfunction":
      // "The transfer should be retried"). The adapter treats it as unknown all the same.
      failedOnce.add(reference);
      return fail(reply, 500, 'An error occurred');
    }
    if (scenario === 'insufficient_balance') return fail(reply, 400, MESSAGES.balance);
    const at = now();
    const transfer: Transfer = {
      id: nextId++,
      request: nextId++,
      reference,
      transferCode: code('TRF'),
      amount,
      currency,
      reason: text(body.reason),
      status: 'pending',
      recipient,
      scenario,
      createdAt: at,
      updatedAt: at,
      transferredAt: null,
      gatewayResponse: null,
      session: { provider: null, id: null },
      paid: 0,
    };
    transfers.set(reference, transfer);
    if (scenario === 'no_answer') {
      // Holds the answer past the client's patience, then pays and answers (to no one).
      later(HOLD_MS, async () => {
        await settle(transfer);
        reply(200, { status: true, message: 'Transfer has been queued', data: createdJson(transfer) });
      });
      return;
    }
    reply(200, { status: true, message: 'Transfer has been queued', data: createdJson(transfer) });
    later(SETTLE_MS, () => settle(transfer));
  }

  /**
   * A transaction as GET /transaction lists it (openapi.yaml TransactionListResponseArray): the
   * fields of its verify record the list carries, with the list's types (metadata an object or
   * null, plan/split/subaccount objects, the customer without international_format_phone).
   */
  function listedTransaction(verified: Record<string, unknown>): Record<string, unknown> {
    const customer = (verified.customer ?? {}) as Record<string, unknown>;
    const object = (value: unknown) => (typeof value === 'object' && value !== null && !Array.isArray(value) ? value : null);
    return {
      id: verified.id,
      domain: verified.domain,
      status: verified.status,
      reference: verified.reference,
      amount: verified.amount,
      message: verified.message,
      gateway_response: verified.gateway_response,
      paid_at: verified.paid_at,
      created_at: verified.created_at,
      channel: verified.channel,
      currency: verified.currency,
      ip_address: verified.ip_address,
      metadata: object(verified.metadata),
      log: verified.log ?? null,
      fees: verified.fees ?? null,
      fees_split: verified.fees_split ?? null,
      customer: { id: customer.id, first_name: customer.first_name ?? null, last_name: customer.last_name ?? null, email: customer.email, phone: customer.phone ?? null, metadata: object(customer.metadata), customer_code: customer.customer_code, risk_action: customer.risk_action },
      authorization: verified.authorization,
      plan: object(verified.plan) ?? {},
      split: object(verified.split) ?? {},
      subaccount: object(verified.subaccount) ?? {},
      order_id: null,
      // Null until paid, as paid_at (the document types paidAt a string: known-mismatches.ts).
      paidAt: verified.paidAt ?? null,
      createdAt: verified.createdAt,
      requested_amount: verified.requested_amount,
      source: null,
      connect: null,
      pos_transaction_data: null,
    };
  }

  /**
   * GET /transaction (transaction_list): the charges taken and the bank transfers into dedicated
   * accounts received, newest first; `from`/`to` inclusive on created_at, `status`, `channel`,
   * `per_page` (or perPage, Paystack's reference's name) up to listPageSize, `page`.
   */
  function listTransactions(query: URLSearchParams, reply: Reply): void {
    const from = query.get('from');
    const to = query.get('to');
    if (from !== null && Number.isNaN(Date.parse(from))) return fail(reply, 400, "Invalid 'from' date");
    if (to !== null && Number.isNaN(Date.parse(to))) return fail(reply, 400, "Invalid 'to' date");
    let list = [...desk.transactions(), ...dva.transactions()].sort((a, b) => String(b.created_at).localeCompare(String(a.created_at)) || Number(b.id) - Number(a.id));
    if (from !== null) list = list.filter((t) => Date.parse(String(t.created_at)) >= Date.parse(from));
    if (to !== null) list = list.filter((t) => Date.parse(String(t.created_at)) <= Date.parse(to));
    const status = query.get('status');
    if (status !== null) list = list.filter((t) => t.status === status);
    const channel = query.get('channel');
    if (channel !== null) list = list.filter((t) => t.channel === channel);
    const perPage = Math.min(Math.max(1, Number(query.get('per_page') ?? query.get('perPage') ?? 50) || 50), listPageSize);
    const page = Math.max(1, Number(query.get('page') ?? 1) || 1);
    const skipped = (page - 1) * perPage;
    const volume = list.filter((t) => t.status === 'success').reduce((sum, t) => sum + Number(t.amount), 0);
    reply(200, {
      status: true,
      message: 'Transactions retrieved',
      data: list.slice(skipped, skipped + perPage).map(listedTransaction),
      meta: { total: list.length, total_volume: volume, skipped, perPage, page, pageCount: Math.ceil(list.length / perPage) },
    });
  }

  function listTransfers(query: URLSearchParams, reply: Reply): void {
    const from = query.get('from');
    const to = query.get('to');
    if (from !== null && Number.isNaN(Date.parse(from))) return fail(reply, 400, "Invalid 'from' date");
    if (to !== null && Number.isNaN(Date.parse(to))) return fail(reply, 400, "Invalid 'to' date");
    let list = [...transfers.values()].sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id - a.id);
    if (from !== null) list = list.filter((t) => Date.parse(t.createdAt) >= Date.parse(from));
    if (to !== null) list = list.filter((t) => Date.parse(t.createdAt) <= Date.parse(to));
    const status = query.get('status');
    if (status !== null) list = list.filter((t) => t.status === status);
    const recipient = query.get('recipient');
    if (recipient !== null) list = list.filter((t) => t.recipient.code === recipient);
    const perPage = Math.max(1, Number(query.get('perPage') ?? query.get('per_page') ?? 50) || 50);
    const page = Math.max(1, Number(query.get('page') ?? 1) || 1);
    const skipped = (page - 1) * perPage;
    reply(200, {
      status: true,
      message: 'Transfers retrieved',
      data: list.slice(skipped, skipped + perPage).map(transferJson),
      meta: { total: list.length, skipped, perPage, page, pageCount: Math.ceil(list.length / perPage) },
    });
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://fake.invalid');
    const raw = await readBody(request);
    const contentType = request.headers['content-type'];
    let parsed: unknown;
    let unreadable = false;
    if (raw.length > 0) {
      try {
        parsed = contentType?.startsWith('application/x-www-form-urlencoded') ? Object.fromEntries(new URLSearchParams(raw.toString('utf8'))) : JSON.parse(raw.toString('utf8'));
      } catch {
        unreadable = true;
      }
    }
    const exchange: Exchange = { method: request.method ?? 'GET', pathname: url.pathname, query: Object.fromEntries(url.searchParams), contentType, requestBody: parsed, status: 0, responseBody: undefined };
    const reply: Reply = (status, body) => {
      exchange.status = status;
      exchange.responseBody = body;
      exchanges.push(exchange);
      if (response.writableEnded || response.destroyed) return;
      response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      response.end(JSON.stringify(body));
    };
    const authorization = request.headers.authorization;
    if (!authorization) return fail(reply, 401, MESSAGES.noHeader);
    const bearer = /^Bearer (\S+)$/.exec(authorization);
    if (!bearer) return fail(reply, 401, MESSAGES.format);
    if (bearer[1] !== secretKey) return fail(reply, 401, MESSAGES.invalidKey);
    if (unreadable) return fail(reply, 400, 'Invalid JSON body');
    const body = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
    const route = `${exchange.method} ${url.pathname.replace(/\/+$/, '') || '/'}`;
    const verify = /^GET \/transfer\/verify\/([^/]+)$/.exec(route);
    const verifyTransaction = /^GET \/transaction\/verify\/([^/]+)$/.exec(route);
    const checkCharge = /^GET \/charge\/([^/]+)$/.exec(route);
    if (route === 'POST /charge') return desk.create(body, reply);
    if (verifyTransaction) {
      const bankTransfer = dva.verify(decodeURIComponent(verifyTransaction[1]!));
      if (bankTransfer) {
        bankTransferVerifies += 1;
        if (holdingVerify) return void heldVerifies.push(() => reply(200, bankTransfer));
        return reply(200, bankTransfer);
      }
      return desk.verify(decodeURIComponent(verifyTransaction[1]!), reply);
    }
    if (route === 'POST /customer') return dva.createCustomer(body, reply);
    if (route === 'POST /dedicated_account') return dva.create(body, reply);
    if (route === 'POST /dedicated_account/assign') return dva.assign(body, reply);
    if (route === 'GET /dedicated_account') return dva.list(url.searchParams, reply);
    if (route === 'GET /dedicated_account/available_providers') return dva.availableProviders(reply);
    if (route === 'GET /dedicated_account/requery') return dva.requery(url.searchParams, reply, (run) => later(0, run));
    const fetchAccount = /^GET \/dedicated_account\/(\d+)$/.exec(route);
    if (fetchAccount) return dva.fetch(fetchAccount[1]!, reply);
    if (checkCharge) return desk.check(decodeURIComponent(checkCharge[1]!), reply);
    if (route === 'GET /bank') return listBanks(url.searchParams, reply);
    if (route === 'GET /bank/resolve') return resolveAccount(url.searchParams, reply);
    if (route === 'POST /transferrecipient') return createRecipient(body, reply);
    if (route === 'POST /transfer') return initiateTransfer(body, reply);
    if (route === 'GET /transfer') return listTransfers(url.searchParams, reply);
    if (route === 'GET /transaction') return listTransactions(url.searchParams, reply);
    if (verify) {
      const transfer = transfers.get(decodeURIComponent(verify[1]!));
      if (!transfer) return fail(reply, 404, MESSAGES.transferNotFound);
      return reply(200, { status: true, message: 'Transfer retrieved', data: transferJson(transfer) });
    }
    return fail(reply, 404, `The fake has no ${route}`);
  }

  const server = createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ status: false, message: 'fake failure' }));
    });
  });
  // Idle keep-alive connections stay open until the client (or stop()) closes them: a server
  // closing one just as a loaded test machine's client reuses it would fail that request with
  // a network error the test did not ask for.
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    env: { PAYSTACK_SECRET_KEY: secretKey, PAYSTACK_BASE_URL: url },
    secretKey,
    transfersReceived: () => transfers.size,
    payouts: () =>
      [...transfers.values()]
        .filter((t) => t.paid > 0)
        .map((t) => ({
          key: t.reference,
          amount: t.amount,
          currency: t.currency,
          destination: { type: t.recipient.type, accountNumber: t.recipient.accountNumber, bankCode: t.recipient.bank.code },
          times: t.paid,
          status: t.status,
        })),
    transfer(reference) {
      const t = transfers.get(reference);
      return t && { reference: t.reference, transferCode: t.transferCode, status: t.status, amount: t.amount, currency: t.currency, recipientCode: t.recipient.code };
    },
    exchanges: () => [...exchanges],
    webhooks: () => [...webhooks],
    chargesReceived: () => desk.received(),
    charges: () => desk.charges(),
    rewriteCharge: (reference, patch) => desk.rewrite(reference, patch),
    virtualAccounts: () => dva.accounts(),
    sendBankTransfer: (accountNumber, amount, sendOptions) => dva.sendBankTransfer(accountNumber, amount, sendOptions),
    bankTransferVerifies: () => bankTransferVerifies,
    holdBankTransferVerify(hold) {
      holdingVerify = hold;
      if (!hold) for (const answer of heldVerifies.splice(0)) answer();
    },
    async resendWebhook(reference) {
      const sent = webhooks.findLast((webhook) => webhook.reference === reference);
      if (!sent || !options.callbackBase) throw new Error(`The fake sent no webhook for ${reference}`);
      const again = await deliver(options.callbackBase, secretKey, sent.event, reference, JSON.parse(sent.body) as Record<string, unknown>);
      webhooks.push(again);
      return again;
    },
    async stop() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await Promise.allSettled([...inFlight]);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
