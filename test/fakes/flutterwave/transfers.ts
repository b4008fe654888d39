// The fake's transfers: POST /v3/transfers, GET /v3/transfers/{id}, GET /v3/transfers (reference,
// status, from, to, page), GET /v3/transfers/rates, and the transfer.completed webhooks.
// Shapes from Flutterwave/Node-v3 documentation/transfers.md (create, list, wallet transfer
// answers), rules from services/schema/create.js (transferSchema) and the developer pages named in
// README.md. Where the documents are silent the fake decides, and README.md says what.
import type { ServerResponse } from 'node:http';
import { fail, send } from './http.ts';
import { type ScenarioName, scenarioOf } from './scenarios.ts';

export interface FakeTransfer {
  id: number;
  account_number: string;
  bank_code: string;
  full_name: string;
  created_at: string;
  currency: string;
  debit_currency: string | null;
  amount: number;
  fee: number;
  status: 'NEW' | 'PENDING' | 'SUCCESSFUL' | 'FAILED' | 'REVERSED';
  reference: string;
  meta: unknown;
  narration: string | null;
  approver: null;
  complete_message: string;
  requires_approval: number;
  is_approved: number;
  bank_name: string;
}

interface Held {
  record: FakeTransfer;
  scenario: ScenarioName;
  callbackUrl: string | undefined;
  timesPaid: number;
  webhooksSent: number;
}

export interface FakePayout {
  key: string;
  /** Major units, as Flutterwave takes them. */
  amount: number;
  currency: string;
  destination: { accountBank: string; accountNumber: string };
  /** How many times the money went out for this reference: exactly-once means 1. */
  timesPaid: number;
  status: FakeTransfer['status'];
}

export interface TransferTiming {
  settleMs: number;
  holdMs: number;
  reversalMs: number;
  duplicateGapMs: number;
}

/** Operator codes of "Mobile Money Transfer" (v3.0 docs): a transfer to one of them needs beneficiary_name. */
const MOBILE_OPERATORS = new Set(['MPS', 'MTN', 'ORANGEMONEY', 'ORANGE', 'MOOV', 'WAVE', 'AMOLEMONEY', 'AIRTELTIGO', 'VODAFONE', 'TELECEL', 'AIRTEL', 'HALOPESA', 'TIGO', 'VODACOM', 'FMM']);
const BANK_NAMES: Record<string, string> = { '044': 'ACCESS BANK NIGERIA', '058': 'GTBANK PLC', '057': 'ZENITH BANK PLC', '033': 'UNITED BANK FOR AFRICA', '011': 'FIRST BANK OF NIGERIA' };

/** Units of each currency per US dollar, for the fake's transfer rates. */
const PER_USD: Record<string, number> = { USD: 1, EUR: 0.92, GBP: 0.79, NGN: 1550, KES: 129.5, GHS: 15.2, UGX: 3700, TZS: 2650, RWF: 1420, ZMW: 26.5, XOF: 600, XAF: 600, ETB: 125, ZAR: 18.4 };

export function createTransferDesk(options: { timing: TransferTiming; callbackBase: string | undefined; secretHash: string; schedule: (ms: number, run: () => void) => void }) {
  const byReference = new Map<string, Held>();
  const byId = new Map<number, Held>();
  let nextId = 396_000;

  const publicView = (held: Held): FakeTransfer => ({ ...held.record });

  async function webhook(held: Held): Promise<void> {
    const target = held.callbackUrl ?? options.callbackBase;
    if (!target) return;
    held.webhooksSent += 1;
    try {
      await fetch(target, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'verif-hash': options.secretHash },
        body: JSON.stringify({ event: 'transfer.completed', 'event.type': 'Transfer', data: publicView(held) }),
        signal: AbortSignal.timeout(10_000),
      });
    } catch {
      // Delivered or not, the fake does not retry (Flutterwave retries only when asked to in the dashboard).
    }
  }

  function settle(held: Held): void {
    const { record, scenario } = held;
    if (record.status !== 'NEW' && record.status !== 'PENDING') return;
    if (scenario === 'failure') {
      record.status = 'FAILED';
      record.complete_message = "DISBURSE FAILED: The beneficiary's bank declined the transfer";
    } else if (scenario === 'insufficient_balance') {
      record.status = 'FAILED';
      record.complete_message = 'DISBURSE FAILED: Insufficient funds in customer wallet';
    } else if (MOBILE_OPERATORS.has(record.bank_code) && record.full_name === 'N/A') {
      // As in transfers.md's list: a mobile money transfer without beneficiary_name fails.
      record.status = 'FAILED';
      record.complete_message = 'beneficiary_name is required';
    } else {
      record.status = 'SUCCESSFUL';
      record.complete_message = 'Transaction was successful';
      held.timesPaid += 1;
    }
    if (scenario === 'callback_lost') return;
    void webhook(held);
    if (scenario === 'duplicate_callback') options.schedule(options.timing.duplicateGapMs, () => void webhook(held));
    if (scenario === 'reversal_after_success' && record.status === 'SUCCESSFUL') {
      options.schedule(options.timing.reversalMs, () => {
        record.status = 'REVERSED';
        record.complete_message = 'Transfer reversed: the beneficiary bank returned the funds';
        void webhook(held);
      });
    }
  }

  /** POST /v3/transfers. */
  async function create(res: ServerResponse, body: Record<string, unknown>, sleep: (ms: number) => Promise<void>): Promise<void> {
    const str = (key: string): string | undefined => (typeof body[key] === 'string' ? (body[key] as string).trim() : undefined);
    const currency = str('currency')?.toUpperCase();
    const amount = body.amount;
    if (typeof amount !== 'number' || !(amount > 0)) return fail(res, 400, 'amount is required and must be a positive number');
    if (!currency || !/^[A-Z]{3}$/.test(currency)) return fail(res, 400, 'currency is required');
    const optionalAccount = ['EUR', 'GBP', 'USD', 'KES'].includes(currency);
    const accountBank = str('account_bank');
    const accountNumber = str('account_number');
    if (!accountBank && !optionalAccount) return fail(res, 400, 'account_bank is required');
    if (!accountNumber && !optionalAccount) return fail(res, 400, 'account_number is required');
    if (accountNumber && accountNumber.length > 20) return fail(res, 400, 'account_number length must be less than or equal to 20 characters long');
    for (const key of ['narration', 'reference', 'beneficiary_name', 'callback_url']) {
      if (body[key] !== undefined && typeof body[key] !== 'string') return fail(res, 400, `${key} must be a string`);
      if ((str(key) ?? '').length > 100) return fail(res, 400, `${key} length must be less than or equal to 100 characters long`);
    }
    if (currency === 'KES') {
      const meta = body.meta as Record<string, unknown> | undefined;
      for (const key of ['sender', 'sender_country', 'mobile_number']) if (!meta || typeof meta[key] !== 'string' || !meta[key]) return fail(res, 400, `meta.${key} is required for KES transfers`);
    }
    const reference = str('reference') || `FAKE-TRF-${nextId + 1}`;
    if (byReference.has(reference)) return fail(res, 400, 'A transfer with this reference already exists');
    const scenario = scenarioOf(accountNumber ?? '');
    if (scenario === 'invalid_account') return fail(res, 400, 'Account resolve failed');

    nextId += 1;
    const mobile = MOBILE_OPERATORS.has(accountBank ?? '');
    const record: FakeTransfer = {
      id: nextId,
      account_number: accountNumber ?? '',
      bank_code: accountBank ?? '',
      full_name: str('beneficiary_name') || (mobile ? 'N/A' : 'FAKE ACCOUNT HOLDER'),
      created_at: new Date().toISOString(),
      currency,
      debit_currency: str('debit_currency')?.toUpperCase() ?? currency,
      amount,
      fee: currency === 'NGN' ? 10.75 : 0,
      status: 'NEW',
      reference,
      meta: body.meta ?? null,
      narration: str('narration') ?? null,
      approver: null,
      complete_message: '',
      requires_approval: 0,
      is_approved: 1,
      bank_name: mobile ? 'N/A' : (BANK_NAMES[accountBank ?? ''] ?? 'N/A'),
    };
    const held: Held = { record, scenario, callbackUrl: str('callback_url') || undefined, timesPaid: 0, webhooksSent: 0 };
    byReference.set(reference, held);
    byId.set(record.id, held);
    const queued = { ...publicView(held) };

    if (scenario === 'no_answer') {
      // Held past any client timeout; the transfer is queued meanwhile and paid when the hold ends.
      await sleep(options.timing.holdMs);
      settle(held);
      return send(res, 200, { status: 'success', message: 'Transfer Queued Successfully', data: queued });
    }
    options.schedule(options.timing.settleMs, () => settle(held));
    if (scenario === 'error_then_success') {
      // "Handling Error Timeouts": a 503 after which the transfer may still go through; it does.
      return fail(res, 503, 'An error occurred. Please contact support');
    }
    return send(res, 200, { status: 'success', message: 'Transfer Queued Successfully', data: queued });
  }

  /** GET /v3/transfers/{id}. */
  function fetchOne(res: ServerResponse, id: string): void {
    const held = /^\d+$/.test(id) ? byId.get(Number(id)) : undefined;
    if (!held) return fail(res, 404, 'No transfer found');
    send(res, 200, { status: 'success', message: 'Transfer fetched', data: publicView(held) });
  }

  /** GET /v3/transfers: 10 a page, newest first. */
  function list(res: ServerResponse, query: URLSearchParams): void {
    let all = [...byId.values()].sort((a, b) => b.record.id - a.record.id);
    const reference = query.get('reference');
    if (reference) all = all.filter((held) => held.record.reference === reference);
    const status = query.get('status');
    if (status) all = all.filter((held) => held.record.status.toLowerCase() === status.toLowerCase());
    const from = query.get('from');
    const to = query.get('to');
    for (const [name, value] of [['from', from], ['to', to]] as const) {
      if (value && Number.isNaN(Date.parse(value))) return fail(res, 400, `${name} must be a valid ISO date`);
    }
    if (from) all = all.filter((held) => held.record.created_at.slice(0, 10) >= from.slice(0, 10));
    if (to) all = all.filter((held) => held.record.created_at.slice(0, 10) <= to.slice(0, 10));
    const page = Math.max(1, Number.parseInt(query.get('page') ?? '1', 10) || 1);
    const totalPages = Math.ceil(all.length / 10);
    send(res, 200, {
      status: 'success',
      message: 'Transfers fetched',
      meta: { page_info: { total: all.length, current_page: page, total_pages: totalPages } },
      data: all.slice((page - 1) * 10, page * 10).map(publicView),
    });
  }

  /** GET /v3/transfers/rates ("Transfer Rates": source.amount = amount x rate). */
  function rates(res: ServerResponse, query: URLSearchParams): void {
    const amount = Number(query.get('amount'));
    const destination = query.get('destination_currency')?.toUpperCase() ?? '';
    const source = query.get('source_currency')?.toUpperCase() ?? '';
    if (!(amount > 0)) return fail(res, 400, 'amount is required');
    const perSource = PER_USD[source];
    const perDestination = PER_USD[destination];
    if (!perSource || !perDestination) return fail(res, 400, 'Unable to fetch rates at the moment');
    const rate = Number((perSource / perDestination).toFixed(4));
    send(res, 200, {
      status: 'success',
      message: 'Transfer amount fetched',
      data: { rate, source: { currency: source, amount: Number((amount * rate).toFixed(2)) }, destination: { currency: destination, amount } },
    });
  }

  function payouts(): FakePayout[] {
    return [...byReference.values()]
      .filter((held) => held.timesPaid > 0)
      .map((held) => ({
        key: held.record.reference,
        amount: held.record.amount,
        currency: held.record.currency,
        destination: { accountBank: held.record.bank_code, accountNumber: held.record.account_number },
        timesPaid: held.timesPaid,
        status: held.record.status,
      }));
  }

  return {
    create,
    fetchOne,
    list,
    rates,
    payouts,
    transfer: (reference: string): FakeTransfer | undefined => {
      const held = byReference.get(reference);
      return held ? publicView(held) : undefined;
    },
    webhooksSent: (reference: string): number => byReference.get(reference)?.webhooksSent ?? 0,
  };
}
