// A local Flutterwave v3 for the rail adapter's tests: a plain node:http server with Flutterwave's
// paths, bearer authentication, envelopes, status codes and transfer.completed webhooks carrying
// the `verif-hash` header. README.md lists its sources, magic numbers and limits.
import { randomBytes } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type FakeBill, createBillDesk } from './bills.ts';
import { type FakeCharge, createChargeDesk } from './charges.ts';
import { fail, readBody } from './http.ts';
import { listTransactions } from './transactions.ts';
import { type FakePayout, type FakeTransfer, createTransferDesk } from './transfers.ts';
import { type FakeBankTransferIn, type FakeVirtualAccount, type SendBankTransferOptions, createVirtualAccountDesk } from './virtual-accounts.ts';

export { BILL_CUSTOMERS, CHARGE_SCENARIOS, CHARGE_SCENARIO_DIGITS, SCENARIOS, SCENARIO_DIGITS, mobileMoneyScenario, type ChargeScenarioName, type ScenarioName } from './scenarios.ts';
export type { FakeBankTransferIn, FakeBill, FakeCharge, FakePayout, FakeTransfer, FakeVirtualAccount, SendBankTransferOptions };

export interface FlutterwaveFakeOptions {
  port?: number;
  /** Where webhooks go (charges always; transfers that name no callback_url), e.g. http://127.0.0.1:3000/api/rails/flutterwave/webhook. */
  callbackBase?: string;
  /** Multiplies the fake's delays (settling 2 s, the no_answer hold 30 s, a reversal 3 s later). */
  delayScale?: number;
  /** Transactions a page of GET /v3/transactions (default 10, the SDK sample's): a test sets it small to make a list span pages. */
  listPageSize?: number;
}

export interface FlutterwaveFake {
  url: string;
  env: { FLUTTERWAVE_SECRET_KEY: string; FLUTTERWAVE_SECRET_HASH: string; FLUTTERWAVE_BASE_URL: string };
  /** Every transfer whose money went out, with how many times it did. */
  payouts(): FakePayout[];
  /** Every bill paid. */
  bills(): FakeBill[];
  /** Rewrites its record of a bill (amount in major units) for a test that needs the provider to disagree; false when unknown. */
  rewriteBill(reference: string, patch: { amount?: number }): boolean;
  /** While true, GET /v3/bills/{reference} answers 500 "An error occurred. Please contact support" to every question. */
  billStatusDown(down: boolean): void;
  /** A transfer as Flutterwave holds it, by reference. */
  transfer(reference: string): FakeTransfer | undefined;
  webhooksSent(reference: string): number;
  /** POST /v3/charges received (answered or not). */
  chargesReceived(): number;
  /** Every mobile money charge, with how many times the customer was charged (exactly once means 1). */
  charges(): FakeCharge[];
  /** A charge by its tx_ref. */
  charge(txRef: string): FakeCharge | undefined;
  /** Every virtual account number made (POST /v3/virtual-account-numbers), with how many POSTs asked for it. */
  virtualAccounts(): FakeVirtualAccount[];
  /** Every POST /v3/virtual-account-numbers body received. */
  virtualAccountRequests(): Record<string, unknown>[];
  /** A bank transfer into a virtual account number: the transaction and its charge.completed (see virtual-accounts.ts). */
  sendBankTransfer(accountNumber: string, amountMajor: number, options?: SendBankTransferOptions): Promise<FakeBankTransferIn>;
  /** A transfer in by its transaction id, with what each webhook delivery was answered. */
  bankTransfer(id: number): FakeBankTransferIn | undefined;
  /** Rewrites its record of a charge (status, amount in major units) for a test that needs the provider to disagree; false when unknown. */
  rewriteCharge(txRef: string, patch: { status?: 'successful' | 'failed'; amount?: number }): boolean;
  /** Requests seen, as "METHOD /path" (no query). */
  requests(): string[];
  stop(): Promise<void>;
}

export async function startFlutterwaveFake(options: FlutterwaveFakeOptions = {}): Promise<FlutterwaveFake> {
  const scale = options.delayScale ?? 1;
  const listPageSize = Math.max(1, options.listPageSize ?? 10);
  const secretKey = `FLWSECK_TEST-${randomBytes(16).toString('hex')}-X`;
  const secretHash = randomBytes(24).toString('base64url');
  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;
  const schedule = (ms: number, run: () => void): void => {
    if (stopped) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!stopped) run();
    }, ms);
    timers.add(timer);
  };
  const wait = (ms: number): Promise<void> => new Promise((resolve) => schedule(ms, resolve));
  const transfers = createTransferDesk({
    timing: { settleMs: 2000 * scale, holdMs: 30_000 * scale, reversalMs: 3000 * scale, duplicateGapMs: 300 * scale },
    callbackBase: options.callbackBase,
    secretHash,
    schedule,
  });
  const bills = createBillDesk();
  const charges = createChargeDesk({
    timing: { settleMs: 2000 * scale, holdMs: 30_000 * scale, duplicateGapMs: 300 * scale },
    callbackBase: options.callbackBase,
    secretHash,
    schedule,
  });
  const virtualAccounts = createVirtualAccountDesk({ callbackBase: options.callbackBase, secretHash, retryMs: 300 * scale, schedule });
  const seen: string[] = [];

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake.local');
    const method = req.method ?? 'GET';
    const path = url.pathname.replace(/\/+$/, '');
    seen.push(`${method} ${path}`);
    const auth = req.headers.authorization;
    if (!auth) return fail(res, 401, 'Authorization required');
    if (auth !== `Bearer ${secretKey}`) return fail(res, 401, 'Invalid authorization key');

    let body: Record<string, unknown> = {};
    if (method === 'POST') {
      const text = await readBody(req);
      try {
        const parsed: unknown = JSON.parse(text || '{}');
        if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
        body = parsed as Record<string, unknown>;
      } catch {
        return fail(res, 400, 'Invalid JSON body');
      }
    }

    if (method === 'POST' && path === '/v3/transfers') return transfers.create(res, body, wait);
    if (method === 'GET' && path === '/v3/transfers') return transfers.list(res, url.searchParams);
    if (method === 'GET' && path === '/v3/transfers/rates') return transfers.rates(res, url.searchParams);
    const transfer = /^\/v3\/transfers\/([^/]+)$/.exec(path);
    if (method === 'GET' && transfer) return transfers.fetchOne(res, decodeURIComponent(transfer[1]!));
    if (method === 'POST' && path === '/v3/charges') return charges.create(res, url.searchParams.get('type'), body, wait);
    if (method === 'GET' && path === '/v3/transactions/verify_by_reference') return charges.verify(res, url.searchParams);
    if (method === 'POST' && path === '/v3/virtual-account-numbers') return virtualAccounts.create(res, body);
    const account = /^\/v3\/virtual-account-numbers\/([^/]+)$/.exec(path);
    if (method === 'GET' && account) return virtualAccounts.fetchOne(res, decodeURIComponent(account[1]!));
    const verify = /^\/v3\/transactions\/([^/]+)\/verify$/.exec(path);
    if (method === 'GET' && verify) return virtualAccounts.verify(res, decodeURIComponent(verify[1]!));
    const resend = /^\/v3\/transactions\/([^/]+)\/resend-hook$/.exec(path);
    if (method === 'POST' && resend) return virtualAccounts.resendHook(res, decodeURIComponent(resend[1]!));
    if (method === 'GET' && path === '/v3/transactions') return listTransactions(res, url.searchParams, [...charges.records(), ...virtualAccounts.records()], listPageSize);
    if (method === 'GET' && path === '/v3/bill-categories') return bills.categories(res, url.searchParams);
    const validate = /^\/v3\/bill-items\/([^/]+)\/validate$/.exec(path);
    if (method === 'GET' && validate) return bills.validate(res, decodeURIComponent(validate[1]!), url.searchParams);
    if (method === 'POST' && path === '/v3/bills') return bills.pay(res, body);
    const bill = /^\/v3\/bills\/([^/]+)$/.exec(path);
    if (method === 'GET' && bill) return bills.status(res, decodeURIComponent(bill[1]!));
    return fail(res, 404, `No route ${method} ${path}`);
  }

  const server = createServer((req, res) => {
    route(req, res).catch(() => fail(res, 500, 'An error occurred. Please contact support'));
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
    env: { FLUTTERWAVE_SECRET_KEY: secretKey, FLUTTERWAVE_SECRET_HASH: secretHash, FLUTTERWAVE_BASE_URL: url },
    payouts: transfers.payouts,
    bills: bills.bills,
    rewriteBill: bills.rewrite,
    billStatusDown: bills.setStatusDown,
    transfer: transfers.transfer,
    webhooksSent: transfers.webhooksSent,
    chargesReceived: charges.received,
    charges: charges.charges,
    charge: charges.charge,
    virtualAccounts: virtualAccounts.accounts,
    virtualAccountRequests: virtualAccounts.accountRequests,
    sendBankTransfer: virtualAccounts.sendBankTransfer,
    bankTransfer: virtualAccounts.bankTransfer,
    rewriteCharge: charges.rewrite,
    requests: () => [...seen],
    async stop() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
