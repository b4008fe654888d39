// The fake's virtual account numbers and the bank transfers into them:
//
//   POST /v3/virtual-account-numbers            SDK services/virtual-account/rave.create.js, accountSchema
//                                               (services/schema/create.js); the answer of SDK
//                                               documentation/virtualAccount.md ("Virtual account created")
//   GET  /v3/virtual-account-numbers/{order_ref} developer.flutterwave.com "Get a virtual account number"
//                                               (answer: the SDK's "Virtual nuban fetched" sample)
//   GET  /v3/transactions/{id}/verify           SDK services/transactions/rave.verify.js; answer of SDK
//                                               documentation/transactions.md "Verify transaction"
//   GET  /v3/transactions?from&to&tx_ref&page   transactions.ts lists these transfers with the charges
//   POST /v3/transactions/{id}/resend-hook      SDK services/transactions/rave.resend-hooks.js ("hook sent successfully")
//
// Tests "send a bank transfer" with sendBankTransfer(accountNumber, amountMajor, options): a
// successful transaction (payment_type "bank_transfer", the account's tx_ref, the sender in meta)
// and its charge.completed with the verif-hash header, shaped like a merchant's logged bank-transfer
// webhook (`event.type` "BANK_TRANSFER_TRANSACTION", `meta_data` with originatorname, bankname,
// originatoraccountnumber). Options lose the webhook, send it twice, make the webhook claim another
// amount than the record, or make verify fail (503) the first N times for this transaction. Unlike
// the transfer and charge webhooks, these are delivered again on a non-2xx answer (up to 3 tries),
// as the docs' "Webhooks" page says Flutterwave does.
//
// Where the documents are silent the fake decides: a repeated tx_ref answers the account already
// made under it (the same account, never a second); is_permanent false (dynamic accounts) is not
// made (400); an unknown order_ref or transaction id is 404.
import type { ServerResponse } from 'node:http';
import { fail, send } from './http.ts';

type Json = Record<string, unknown>;

export interface FakeVirtualAccount {
  orderRef: string;
  flwRef: string;
  txRef: string;
  email: string;
  bvn: string;
  narration: string;
  accountNumber: string;
  bankName: string;
  createdAt: string;
  /** How many POSTs asked for it (a repeat answers the same account). */
  timesAsked: number;
}

export interface FakeBankTransferIn {
  id: number;
  txRef: string;
  flwRef: string;
  accountNumber: string;
  /** Major units (NGN), as Flutterwave writes them. */
  amount: number;
  senderName: string;
  senderBank: string;
  senderAccount: string;
  createdAt: string;
  /** What each delivery of its webhook was answered (HTTP status, or 0 when nothing answered). */
  deliveries: number[];
}

export interface SendBankTransferOptions {
  senderName?: string;
  /** Paid in, but the webhook never arrives (a requery's resend-hook sends it). */
  lostWebhook?: boolean;
  /** The webhook twice. */
  duplicateWebhook?: boolean;
  /** The webhook's data.amount claims this (major units) while the record says the real amount. */
  webhookAmount?: number;
  /** GET /v3/transactions/{id}/verify answers 503 this many times first. */
  verifyFailures?: number;
}

const BANK = 'WEMA BANK';
const ACCOUNT_ID = 20937;

export function createVirtualAccountDesk(options: { callbackBase: string | undefined; secretHash: string; retryMs: number; schedule: (ms: number, run: () => void) => void }) {
  const byTxRef = new Map<string, FakeVirtualAccount>();
  const transfers = new Map<number, FakeBankTransferIn>();
  const verifyFailuresLeft = new Map<number, number>();
  const posted: Json[] = [];
  let nextAccount = 7_824_822_500;
  let nextId = 5_120_000;

  /** The account as the create and fetch answers show it (documentation/virtualAccount.md). */
  function accountJson(a: FakeVirtualAccount): Json {
    return {
      response_code: '02',
      response_message: 'Transaction in progress',
      flw_ref: a.flwRef,
      order_ref: a.orderRef,
      account_number: a.accountNumber,
      frequency: 'N/A',
      bank_name: BANK,
      created_at: a.createdAt.replace('T', ' ').slice(0, 19),
      expiry_date: 'N/A',
      note: `Please make a bank transfer to ${a.narration}`,
      amount: null,
    };
  }

  /** POST /v3/virtual-account-numbers */
  function create(res: ServerResponse, body: Json): void {
    posted.push(body);
    const str = (key: string) => (typeof body[key] === 'string' ? (body[key] as string).trim() : undefined);
    const email = str('email');
    if (!email || email.length > 100 || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) return fail(res, 400, 'email is required and must be a valid email');
    if (typeof body.is_permanent !== 'boolean') return fail(res, 400, 'is_permanent is required');
    if (!body.is_permanent) return fail(res, 400, 'The fake makes permanent (static) account numbers only');
    const bvn = str('bvn');
    if (!bvn || bvn.length !== 11) return fail(res, 400, 'bvn is required for permanent account numbers (11 characters)');
    const txRef = str('tx_ref');
    if (!txRef || txRef.length > 100) return fail(res, 400, 'tx_ref must be at most 100 characters');
    const narration = str('narration') ?? '';
    if (narration.length > 100) return fail(res, 400, 'narration must be at most 100 characters');
    let account = byTxRef.get(txRef);
    if (!account) {
      nextAccount += 1;
      account = {
        orderRef: `URF_${Date.now()}_${nextAccount % 1_000_000}`,
        flwRef: `FLW-${Math.random().toString(16).slice(2, 14)}${nextAccount}`,
        txRef,
        email,
        bvn,
        narration: narration || email,
        accountNumber: String(nextAccount),
        bankName: BANK,
        createdAt: new Date().toISOString(),
        timesAsked: 0,
      };
      byTxRef.set(txRef, account);
    }
    account.timesAsked += 1;
    send(res, 200, { status: 'success', message: 'Virtual account created', data: accountJson(account) });
  }

  /** GET /v3/virtual-account-numbers/{order_ref} */
  function fetchOne(res: ServerResponse, orderRef: string): void {
    const account = [...byTxRef.values()].find((a) => a.orderRef === orderRef);
    if (!account) return fail(res, 404, 'Virtual account not found');
    send(res, 200, { status: 'success', message: 'Virtual nuban fetched', data: accountJson(account) });
  }

  /** The transaction as verify and the list show it (documentation/transactions.md's keys), with the sender in meta. */
  function record(t: FakeBankTransferIn): Json {
    const account = [...byTxRef.values()].find((a) => a.txRef === t.txRef)!;
    return {
      id: t.id,
      tx_ref: t.txRef,
      flw_ref: t.flwRef,
      device_fingerprint: 'N/A',
      amount: t.amount,
      currency: 'NGN',
      charged_amount: t.amount,
      app_fee: Number(Math.min(t.amount * 0.01, 2000).toFixed(2)),
      merchant_fee: 0,
      processor_response: 'success',
      auth_model: 'AUTH',
      ip: '::ffff:127.0.0.1',
      narration: `${t.senderName} ${t.senderAccount.slice(-4)}`,
      status: 'successful',
      payment_type: 'bank_transfer',
      created_at: t.createdAt,
      account_id: ACCOUNT_ID,
      meta: { originatoraccountnumber: `${t.senderAccount.slice(0, 3)}*******${t.senderAccount.slice(-2)}`, originatorname: t.senderName, bankname: t.senderBank, originatoramount: 'N/A' },
      amount_settled: Number((t.amount - Math.min(t.amount * 0.01, 2000)).toFixed(2)),
      customer: { id: t.id + 1, name: account.narration, phone_number: 'N/A', email: account.email, created_at: account.createdAt },
    };
  }

  /** charge.completed as a merchant's logged bank-transfer webhook has it: data without meta, the sender in meta_data. */
  function webhookBody(t: FakeBankTransferIn, claimed?: number): Json {
    const { meta, amount_settled: _settled, ...data } = record(t);
    return { event: 'charge.completed', data: { ...data, ...(claimed === undefined ? {} : { amount: claimed, charged_amount: claimed }) }, meta_data: meta, 'event.type': 'BANK_TRANSFER_TRANSACTION' };
  }

  /** Delivers the webhook; a non-2xx answer or none is delivered again, up to 3 tries in all. */
  async function deliver(t: FakeBankTransferIn, body: Json, attempt = 1): Promise<void> {
    if (!options.callbackBase) return;
    let status = 0;
    try {
      const answer = await fetch(options.callbackBase, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'verif-hash': options.secretHash },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
      status = answer.status;
      await answer.arrayBuffer();
    } catch {
      status = 0;
    }
    t.deliveries.push(status);
    if ((status < 200 || status >= 300) && attempt < 3) {
      await new Promise<void>((resolve) => options.schedule(options.retryMs, resolve));
      await deliver(t, body, attempt + 1);
    }
  }

  async function sendBankTransfer(accountNumber: string, amount: number, opts: SendBankTransferOptions = {}): Promise<FakeBankTransferIn> {
    const account = [...byTxRef.values()].find((a) => a.accountNumber === accountNumber);
    if (!account) throw new Error(`The fake has no virtual account number ${accountNumber}`);
    nextId += 1;
    const senderAccount = String(Math.floor(1_000_000_000 + Math.random() * 8_999_999_999));
    const t: FakeBankTransferIn = {
      id: nextId,
      txRef: account.txRef,
      flwRef: `${senderAccount}${Date.now()}`,
      accountNumber,
      amount,
      senderName: opts.senderName ?? 'JOHN DOE',
      senderBank: 'Access Bank',
      senderAccount,
      createdAt: new Date().toISOString(),
      deliveries: [],
    };
    transfers.set(t.id, t);
    if (opts.verifyFailures) verifyFailuresLeft.set(t.id, opts.verifyFailures);
    if (!opts.lostWebhook) {
      const body = webhookBody(t, opts.webhookAmount);
      await deliver(t, body);
      if (opts.duplicateWebhook) await deliver(t, body);
    }
    return { ...t, deliveries: [...t.deliveries] };
  }

  /** GET /v3/transactions/{id}/verify */
  function verify(res: ServerResponse, id: string): void {
    const t = transfers.get(Number(id));
    if (!t) return fail(res, 404, 'No transaction was found for this id');
    const failures = verifyFailuresLeft.get(t.id) ?? 0;
    if (failures > 0) {
      verifyFailuresLeft.set(t.id, failures - 1);
      return fail(res, 503, 'An error occurred. Please contact support');
    }
    send(res, 200, { status: 'success', message: 'Transaction fetched successfully', data: record(t) });
  }

  /** POST /v3/transactions/{id}/resend-hook: answers at once, then delivers the webhook again. */
  function resendHook(res: ServerResponse, id: string): void {
    const t = transfers.get(Number(id));
    if (!t) return fail(res, 404, 'No transaction was found for this id');
    send(res, 200, { status: 'success', message: 'hook sent successfully', data: 'hook sent' });
    options.schedule(0, () => void deliver(t, webhookBody(t)));
  }

  return {
    create,
    fetchOne,
    verify,
    /** Every transfer in as verify shows it (what GET /v3/transactions lists, transactions.ts). */
    records: (): Json[] => [...transfers.values()].map(record),
    resendHook,
    sendBankTransfer,
    /** Every account made, with how many POSTs asked for it. */
    accounts: (): FakeVirtualAccount[] => [...byTxRef.values()].map((a) => ({ ...a })),
    /** Every POST /v3/virtual-account-numbers body received, as sent. */
    accountRequests: (): Json[] => posted.map((body) => ({ ...body })),
    /** A transfer in, with what each delivery of its webhook was answered. */
    bankTransfer: (id: number): FakeBankTransferIn | undefined => {
      const t = transfers.get(id);
      return t ? { ...t, deliveries: [...t.deliveries] } : undefined;
    },
  };
}
