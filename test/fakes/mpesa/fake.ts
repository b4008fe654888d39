// A local fake of Safaricom Daraja, built from the pages in vendor/daraja/: OAuth, B2C v3,
// Transaction Status, Reversal, M-Pesa Express (STK push) and its query. A plain node:http
// server; results are POSTed, unsigned as Daraja's are, to the URLs each request names, after a
// short delay × delayScale. Magic phone numbers choose the outcome (scenarios.ts).
import { randomBytes, randomInt } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decryptCredential, makeCertificate } from './credentials.ts';
import { type CollectionScenario, type PayoutScenario, collectionScenarioOf, payoutScenarioOf } from './scenarios.ts';

export interface MpesaFakeOptions {
  port?: number;
  /**
   * Daraja posts results to the URLs in each request. When set, the fake sends them to this
   * origin instead (same path and query), for a server whose public URL the fake cannot reach.
   */
  callbackBase?: string;
  /** Multiplies every delay (result 1 s, no_answer hold 30 s, STK timeout 60 s). Default 1. */
  delayScale?: number;
  /** expires_in of the access tokens (Authorization.md: 3599). */
  tokenTtlSeconds?: number;
  /** How long a held request (a no_answer payout, a push_held push) waits for its answer; default 30 s × delayScale. */
  holdMs?: number;
}

export interface FakePayout {
  /** The OriginatorConversationID (the adapter's keyOf(paymentId)). */
  key: string;
  /** Whole shillings, as on the wire. */
  amount: number;
  amountMinor: number;
  currency: 'KES';
  /** PartyB, 2547XXXXXXXX. */
  destination: string;
  /** How many times this key was paid (exactly-once means 1). */
  times: number;
  receipt: string;
  reversed: boolean;
}

export interface FakeCollection {
  checkoutRequestId: string;
  merchantRequestId: string;
  phone: string;
  amount: number;
  accountReference: string;
  transactionDesc: string | undefined;
  timestamp: string;
  state: 'pending' | 'completed' | 'failed';
  resultCode: number | undefined;
  receipt: string | undefined;
  reversed: boolean;
}

export interface FakeDelivery {
  url: string;
  body: unknown;
  status: number | undefined;
  error?: string;
}

export interface MpesaFake {
  url: string;
  /** MPESA_* variables that point the adapter at this fake (credentials included). */
  env: Record<string, string>;
  payouts(): FakePayout[];
  collections(): FakeCollection[];
  /** Every callback the fake posted (or tried to). */
  deliveries(): FakeDelivery[];
  /** Every request the fake received: method, path and parsed JSON body. */
  requests(): { method: string; path: string; body: unknown }[];
  /** How many access tokens were issued. */
  tokensIssued(): number;
  /** Invalidates every token issued so far (as an expiry would). */
  revokeTokens(): void;
  /** Answers every held request now (as if its hold had ended); answers how many. */
  releaseHeld(): number;
  /** From now on every callback is lost on the way (recorded with error 'dropped'), or again delivered. */
  dropCallbacks(drop: boolean): void;
  /** The Safaricom-side key pair (for tests of the SecurityCredential). */
  certificatePem: string;
  privateKeyPem: string;
  stop(): Promise<void>;
}

type Json = Record<string, unknown>;

interface B2cRecord {
  key: string;
  conversationId: string;
  destination: string;
  amount: number;
  scenario: PayoutScenario;
  state: 'initiated' | 'completed' | 'declined' | 'reversed';
  resultCode: number;
  resultDesc: string;
  receipt: string;
  timesPaid: number;
  resultUrl: string;
  initiatedAt: Date;
  finalisedAt: Date | undefined;
}

interface StkRecord extends FakeCollection {
  scenario: CollectionScenario;
  callbackUrl: string;
  resultDesc: string | undefined;
}

const B2C_COMMANDS = new Set(['BusinessPayment', 'SalaryPayment', 'PromotionPayment']);
const STK_TYPES = new Set(['CustomerPayBillOnline', 'CustomerBuyGoodsOnline']);
/** BusinessToCustomer.md FAQ 9: minimum Ksh 10, maximum per transaction Ksh 250,000. */
const B2C_MIN = 10;
const B2C_MAX = 250_000;
const ACK = 'Accept the service request successfully.';

function hex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

function requestId(): string {
  return `${hex(2)}-${hex(2)}-${hex(2)}-${hex(8)}${randomInt(1_000_000, 9_999_999)}`;
}

function compactDate(date: Date): string {
  return date.toISOString().slice(0, 10).replace(/-/g, '');
}

/** YYYYMMDDHHmmss in Kenya time (EAT, UTC+3), as the pages' TransactionDate and FinalisedTime read. */
function kenyaTime(date: Date): string {
  return new Date(date.getTime() + 3 * 3_600_000).toISOString().replace(/[-T:]/g, '').slice(0, 14);
}

/** DD.MM.YYYY HH:mm:ss in Kenya time, as the B2C result's TransactionCompletedDateTime reads. */
function dottedKenyaTime(date: Date): string {
  const t = kenyaTime(date);
  return `${t.slice(6, 8)}.${t.slice(4, 6)}.${t.slice(0, 4)} ${t.slice(8, 10)}:${t.slice(10, 12)}:${t.slice(12, 14)}`;
}

function conversationId(): string {
  return `AG_${compactDate(new Date())}_${hex(10)}`;
}

function originatorId(): string {
  return `${hex(2)}-${hex(2)}-${hex(2)}-${hex(6)}${randomInt(100_000, 999_999)}`;
}

function receiptNumber(): string {
  const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  let out = 'T';
  for (let i = 0; i < 9; i += 1) out += letters[randomInt(letters.length)];
  return out;
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string' && value.trim() !== '') return value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

function wholeNumber(value: unknown): number | undefined {
  const raw = text(value);
  if (raw === undefined || !/^\d+(?:\.0+)?$/.test(raw)) return undefined;
  return Number(raw);
}

function isUrl(value: string | undefined): boolean {
  if (!value) return false;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

function stkPassword(shortcode: string, passkey: string, timestamp: string): string {
  return Buffer.from(`${shortcode}${passkey}${timestamp}`, 'utf8').toString('base64');
}

export async function startMpesaFake(options: MpesaFakeOptions = {}): Promise<MpesaFake> {
  const scale = options.delayScale ?? 1;
  const resultDelayMs = 1_000 * scale;
  const ttlSeconds = options.tokenTtlSeconds ?? 3599;
  const { certificatePem, privateKeyPem } = await makeCertificate();
  const secrets = {
    consumerKey: `fake-key-${hex(8)}`,
    consumerSecret: `fake-secret-${hex(12)}`,
    shortcode: '600997',
    passkey: hex(32),
    initiatorName: 'tapline_api',
    // BusinessToCustomer.md prerequisite 6: only #, &, % and $ as special characters.
    initiatorPassword: `Tapline#${hex(4)}&2024`,
  };

  let token: { value: string; expiresAt: number } | undefined;
  let tokensIssued = 0;
  const b2c = new Map<string, B2cRecord>();
  const erroredOnce = new Set<string>();
  const stk = new Map<string, StkRecord>();
  const receipts = new Map<string, { kind: 'b2c'; key: string } | { kind: 'c2b'; checkoutRequestId: string }>();
  const reversals = new Set<string>();
  const deliveries: FakeDelivery[] = [];
  const requests: { method: string; path: string; body: unknown }[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const holds = new Set<{ timer: NodeJS.Timeout; run: () => void }>();
  const holdMs = options.holdMs ?? 30_000 * scale;
  let dropping = false;
  let stopped = false;

  /** Runs `run` when the hold ends (holdMs) or at releaseHeld(), once. */
  function hold(run: () => void): void {
    const entry = {
      timer: setTimeout(() => {
        holds.delete(entry);
        if (!stopped) run();
      }, holdMs),
      run,
    };
    holds.add(entry);
  }

  function later(ms: number, job: () => void | Promise<void>): void {
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!stopped) void Promise.resolve().then(job).catch(() => undefined);
    }, ms);
    timers.add(timer);
  }

  function target(url: string): string {
    if (!options.callbackBase) return url;
    const given = new URL(url);
    return new URL(`${given.pathname}${given.search}`, options.callbackBase).toString();
  }

  /** POSTs a result, unsigned, as Daraja does; failures are recorded, never retried (AccountBalance.md FAQ 6). */
  async function deliver(url: string, body: unknown): Promise<void> {
    const delivery: FakeDelivery = { url, body, status: undefined };
    deliveries.push(delivery);
    if (dropping) {
      delivery.error = 'dropped';
      return;
    }
    try {
      const response = await fetch(target(url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(10_000) });
      delivery.status = response.status;
      await response.arrayBuffer();
    } catch (error) {
      delivery.error = String((error as Error).message ?? error);
    }
  }

  function send(response: ServerResponse, status: number, body: unknown): void {
    if (response.writableEnded || response.destroyed) return;
    const text = JSON.stringify(body);
    response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    response.end(text);
  }

  function error(response: ServerResponse, status: number, errorCode: string, errorMessage: string): void {
    send(response, status, { requestId: requestId(), errorCode, errorMessage });
  }

  const badRequest = (response: ServerResponse, field: string): void => error(response, 400, '400.002.02', `Bad Request - Invalid ${field}`);

  function initiatorValid(name: unknown, credential: unknown): boolean {
    const password = typeof credential === 'string' ? decryptCredential(credential, privateKeyPem) : undefined;
    return name === secrets.initiatorName && password === secrets.initiatorPassword;
  }

  // ---- OAuth (Authorization.md) ----
  function oauth(request: IncomingMessage, url: URL, response: ServerResponse): void {
    if (request.method !== 'GET') return error(response, 405, '405.001', 'Method Not Allowed');
    if (url.searchParams.get('grant_type') !== 'client_credentials') return error(response, 400, '400.008.02', 'Invalid grant type passed');
    const header = request.headers.authorization ?? '';
    if (!/^Basic\s+/i.test(header)) return error(response, 400, '400.008.01', 'Invalid authentication type passed');
    const [key, secret] = Buffer.from(header.replace(/^Basic\s+/i, ''), 'base64').toString('utf8').split(':');
    // The page documents no answer for a wrong key or secret; the fake answers 400 with 400.008.01.
    if (key !== secrets.consumerKey || secret !== secrets.consumerSecret) return error(response, 400, '400.008.01', 'Invalid Authentication passed');
    // Authorization.md FAQ 3: each new token invalidates the previous one.
    token = { value: hex(14), expiresAt: Date.now() + ttlSeconds * 1000 };
    tokensIssued += 1;
    send(response, 200, { access_token: token.value, expires_in: ttlSeconds });
  }

  function bearerValid(request: IncomingMessage): boolean {
    const header = request.headers.authorization ?? '';
    const given = /^Bearer\s+(.+)$/i.exec(header)?.[1];
    return !!token && given === token.value && Date.now() < token.expiresAt;
  }

  // ---- B2C (BusinessToCustomer.md) ----
  function b2cResultBody(record: B2cRecord): Json {
    const base: Json = {
      ResultType: 0,
      ResultCode: record.resultCode,
      ResultDesc: record.resultDesc,
      OriginatorConversationID: record.key,
      ConversationID: record.conversationId,
      TransactionID: record.receipt,
    };
    const reference = { ReferenceData: { ReferenceItem: { Key: 'QueueTimeoutURL', Value: 'https://internalsandbox.safaricom.co.ke/mpesa/b2cresults/v1/submit' } } };
    if (record.resultCode !== 0) return { Result: { ...base, ...reference } };
    return {
      Result: {
        ...base,
        ResultParameters: {
          ResultParameter: [
            { Key: 'TransactionAmount', Value: record.amount },
            { Key: 'TransactionReceipt', Value: record.receipt },
            { Key: 'ReceiverPartyPublicName', Value: `${record.destination} - FAKE CUSTOMER` },
            { Key: 'TransactionCompletedDateTime', Value: dottedKenyaTime(record.finalisedAt ?? new Date()) },
            { Key: 'B2CUtilityAccountAvailableFunds', Value: 1_000_000 },
            { Key: 'B2CWorkingAccountAvailableFunds', Value: 500_000 },
            { Key: 'B2CRecipientIsRegisteredCustomer', Value: 'Y' },
            { Key: 'B2CChargesPaidAccountAvailableFunds', Value: 0 },
          ],
        },
        ...reference,
      },
    };
  }

  function processB2c(record: B2cRecord, body: Json): void {
    let outcome: [number, string] = [0, 'The service request is processed successfully.'];
    if (!initiatorValid(body.InitiatorName, body.SecurityCredential)) outcome = [2001, 'The initiator information is invalid.'];
    else if (text(body.PartyA) !== secrets.shortcode) outcome = [2028, 'The request is not permitted according to product assignment.'];
    else if (record.amount < B2C_MIN) outcome = [2, 'Declined due to limit rule'];
    else if (record.amount > B2C_MAX) outcome = [3, 'Declined due to limit rule: greater than the maximum transaction amount.'];
    else if (record.scenario === 'failure') outcome = [8, 'Declined due to limit rule: would exceed the maximum balance.'];
    else if (record.scenario === 'insufficient_balance') outcome = [1, 'The balance is insufficient for the transaction.'];
    else if (record.scenario === 'invalid_account') outcome = [2040, "Credit Party customer type (Unregistered or Registered Customer) can't be supported by the service."];
    [record.resultCode, record.resultDesc] = outcome;
    record.finalisedAt = new Date();
    if (outcome[0] === 0) {
      record.state = 'completed';
      record.timesPaid += 1;
      record.receipt = receiptNumber();
      receipts.set(record.receipt, { kind: 'b2c', key: record.key });
    } else {
      record.state = 'declined';
      record.receipt = `${record.receipt.slice(0, 3)}0000000`;
    }
    const result = b2cResultBody(record);
    if (record.scenario !== 'callback_lost') void deliver(record.resultUrl, result);
    if (record.scenario === 'duplicate_callback') later(resultDelayMs / 2, () => deliver(record.resultUrl, result));
    if (record.scenario === 'reversal_after_success' && record.state === 'completed') {
      // B2C reversals are done by hand on the M-PESA portal (BusinessToCustomer.md FAQ 17): no
      // callback; Transaction Status reports the payout Reversed afterwards.
      later(resultDelayMs * 2, () => {
        record.state = 'reversed';
      });
    }
  }

  function b2cRequest(body: Json, response: ServerResponse): void {
    for (const field of ['OriginatorConversationID', 'InitiatorName', 'SecurityCredential', 'CommandID', 'Amount', 'PartyA', 'PartyB', 'Remarks', 'QueueTimeOutURL', 'ResultURL']) {
      if (text(body[field]) === undefined) return badRequest(response, field);
    }
    if (!B2C_COMMANDS.has(String(body.CommandID))) return badRequest(response, 'CommandID');
    const amount = wholeNumber(body.Amount);
    if (amount === undefined || amount <= 0) return badRequest(response, 'Amount');
    if (!/^\d{5,9}$/.test(text(body.PartyA)!)) return badRequest(response, 'PartyA');
    const destination = text(body.PartyB)!;
    if (!/^254\d{9}$/.test(destination)) return badRequest(response, 'PartyB');
    const remarks = text(body.Remarks)!;
    if (remarks.length < 2 || remarks.length > 100) return badRequest(response, 'Remarks');
    if (body.Occassion !== undefined && (String(body.Occassion).length < 1 || String(body.Occassion).length > 100)) return badRequest(response, 'Occassion');
    if (!isUrl(text(body.ResultURL)) || !isUrl(text(body.QueueTimeOutURL))) return badRequest(response, 'ResultURL');
    const key = text(body.OriginatorConversationID)!;
    if (b2c.has(key)) return error(response, 500, '500.002.1001', 'Duplicate OriginatorConversationID.');
    const scenario = payoutScenarioOf(destination);
    if (scenario === 'error_then_success' && !erroredOnce.has(key)) {
      // Decided: the gateway failed before M-PESA saw the request: nothing recorded, nothing paid.
      erroredOnce.add(key);
      return error(response, 500, '500.003.1001', 'Internal Server Error');
    }
    const record: B2cRecord = {
      key,
      conversationId: conversationId(),
      destination,
      amount,
      scenario,
      state: 'initiated',
      resultCode: -1,
      resultDesc: '',
      receipt: receiptNumber(),
      timesPaid: 0,
      resultUrl: text(body.ResultURL)!,
      initiatedAt: new Date(),
      finalisedAt: undefined,
    };
    // Seen from the moment it arrives: a repeat is a duplicate, a status query finds it Initiated.
    b2c.set(key, record);
    const acknowledge = (): void => send(response, 200, { ConversationID: record.conversationId, OriginatorConversationID: key, ResponseCode: '0', ResponseDescription: ACK });
    if (scenario === 'no_answer') {
      hold(() => {
        acknowledge();
        processB2c(record, body);
      });
      return;
    }
    acknowledge();
    later(resultDelayMs, () => processB2c(record, body));
  }

  // ---- Transaction Status (TransactionStatus.md) ----
  function statusResultBody(query: { originatorId: string; conversationId: string }, record: B2cRecord | undefined, initiatorOk: boolean): Json {
    const head = { OriginatorConversationID: query.originatorId, ConversationID: query.conversationId, ResultType: 0, ReferenceData: { ReferenceItem: { Key: 'Occasion' } } };
    if (!initiatorOk) return { Result: { ...head, ResultCode: 2001, ResultDesc: 'The initiator information is invalid.', TransactionID: 'TAA0000000' } };
    // The page lists no code for an unknown transaction; the fake uses the Reversal page's R000002.
    if (!record) return { Result: { ...head, ResultCode: 'R000002', ResultDesc: 'The OriginalTransactionID is invalid.', TransactionID: 'TAA0000000' } };
    const status = record.state === 'initiated' ? 'Initiated' : record.state === 'completed' ? 'Completed' : record.state === 'reversed' ? 'Reversed' : 'Declined';
    const parameters: { Key: string; Value?: unknown }[] = [
      { Key: 'DebitPartyName', Value: `${secrets.shortcode} - Tapline Fake` },
      { Key: 'CreditPartyName', Value: `${record.destination} - FAKE CUSTOMER` },
      { Key: 'OriginatorConversationID', Value: record.key },
      { Key: 'InitiatedTime', Value: kenyaTime(record.initiatedAt) },
      { Key: 'DebitAccountType', Value: 'Utility Account' },
      { Key: 'DebitPartyCharges', Value: record.state === 'completed' || record.state === 'reversed' ? 'Fee For B2C Payment|KES|22.40' : '' },
      record.state === 'declined' ? { Key: 'TransactionReason', Value: record.resultDesc } : { Key: 'TransactionReason' },
      { Key: 'ReasonType', Value: 'Business Payment to Customer via API' },
      { Key: 'TransactionStatus', Value: status },
      { Key: 'FinalisedTime', Value: record.finalisedAt ? kenyaTime(record.finalisedAt) : '' },
      { Key: 'Amount', Value: String(record.amount) },
      { Key: 'ConversationID', Value: record.conversationId },
      { Key: 'ReceiptNo', Value: record.state === 'initiated' ? '' : record.receipt },
    ];
    return { Result: { ...head, ResultCode: 0, ResultDesc: 'The service request is processed successfully.', ResultParameters: { ResultParameter: parameters }, TransactionID: record.receipt } };
  }

  function statusRequest(body: Json, response: ServerResponse): void {
    for (const field of ['Initiator', 'SecurityCredential', 'PartyA', 'IdentifierType', 'ResultURL', 'QueueTimeOutURL', 'Remarks']) {
      if (text(body[field]) === undefined) return badRequest(response, field);
    }
    // The page's table says CommandID and TransactionID; its sample writes "Command ID" and "Transaction ID".
    const command = text(body.CommandID) ?? text(body['Command ID']);
    if (command !== 'TransactionStatusQuery') return badRequest(response, 'CommandID');
    const transactionId = text(body.TransactionID) ?? text(body['Transaction ID']);
    const original = text(body.OriginalConversationID);
    if (!transactionId && !original) return badRequest(response, 'TransactionID');
    // PartyA: "Short code (6-9 digits) MSISDN (12 Digits)"; IdentifierType 4 for a short code.
    if (!/^(?:\d{5,9}|254\d{9})$/.test(text(body.PartyA)!)) return badRequest(response, 'PartyA');
    if (!isUrl(text(body.ResultURL))) return badRequest(response, 'ResultURL');
    if (text(body.Remarks)!.length > 100) return badRequest(response, 'Remarks');
    const query = { originatorId: originatorId(), conversationId: conversationId() };
    send(response, 200, { OriginatorConversationID: query.originatorId, ConversationID: query.conversationId, ResponseCode: '0', ResponseDescription: ACK });
    const initiatorOk = initiatorValid(body.Initiator, body.SecurityCredential);
    later(resultDelayMs, () => {
      let record = original ? b2c.get(original) : undefined;
      if (!record && transactionId) {
        const found = receipts.get(transactionId);
        if (found?.kind === 'b2c') record = b2c.get(found.key);
      }
      return deliver(text(body.ResultURL)!, statusResultBody(query, record, initiatorOk));
    });
  }

  // ---- Reversal (Reversal.md) ----
  function reversalRequest(body: Json, response: ServerResponse): void {
    for (const field of ['Initiator', 'SecurityCredential', 'CommandID', 'TransactionID', 'Amount', 'ReceiverParty', 'RecieverIdentifierType', 'ResultURL', 'QueueTimeOutURL', 'Remarks']) {
      if (text(body[field]) === undefined) return badRequest(response, field);
    }
    if (body.CommandID !== 'TransactionReversal') return badRequest(response, 'CommandID');
    const amount = wholeNumber(body.Amount);
    if (amount === undefined || amount <= 0) return badRequest(response, 'Amount');
    if (text(body.RecieverIdentifierType) !== '11') return badRequest(response, 'RecieverIdentifierType');
    const remarks = text(body.Remarks)!;
    if (remarks.length < 2 || remarks.length > 100) return badRequest(response, 'Remarks');
    if (!isUrl(text(body.ResultURL))) return badRequest(response, 'ResultURL');
    const ids = { originatorId: originatorId(), conversationId: conversationId() };
    send(response, 200, { OriginatorConversationID: ids.originatorId, ConversationID: ids.conversationId, ResponseCode: '0', ResponseDescription: ACK });
    const initiatorOk = initiatorValid(body.Initiator, body.SecurityCredential);
    const transactionId = text(body.TransactionID)!;
    later(resultDelayMs, () => {
      const head = { ResultType: 0, OriginatorConversationID: ids.originatorId, ConversationID: ids.conversationId };
      const reference = { ReferenceData: { ReferenceItem: { Key: 'QueueTimeoutURL', Value: 'https://internalsandbox.safaricom.co.ke/mpesa/reversalresults/v1/submit' } } };
      const refusal = (resultCode: number | string, resultDesc: string): Promise<void> =>
        deliver(text(body.ResultURL)!, { Result: { ...head, ResultCode: resultCode, ResultDesc: resultDesc, TransactionID: 'TAA0000000', ...reference } });
      if (!initiatorOk) return refusal(2001, 'The initiator information is invalid');
      const found = receipts.get(transactionId);
      if (!found) return refusal('R000002', 'The OriginalTransactionID is invalid.');
      if (reversals.has(transactionId)) return refusal('R000001', 'The transaction has already been reversed');
      // Reversal.md and BusinessToCustomer.md FAQ 17: B2C payments are not reversed by this API.
      if (found.kind === 'b2c') return refusal(2028, 'The request is not permitted according to product assignment.');
      const collection = stk.get(found.checkoutRequestId);
      if (!collection || collection.state !== 'completed') return refusal('R000002', 'The OriginalTransactionID is invalid.');
      reversals.add(transactionId);
      collection.reversed = true;
      const reversalReceipt = receiptNumber();
      return deliver(text(body.ResultURL)!, {
        Result: {
          ...head,
          ResultCode: 0,
          ResultDesc: 'The service request is processed successfully.',
          TransactionID: reversalReceipt,
          ResultParameters: {
            ResultParameter: [
              { Key: 'DebitAccountBalance', Value: 'Utility Account|KES|1000000.00|1000000.00|0.00|0.00' },
              { Key: 'Amount', Value: amount },
              { Key: 'TransCompletedTime', Value: Number(kenyaTime(new Date())) },
              { Key: 'OriginalTransactionID', Value: transactionId },
              { Key: 'Charge', Value: 0 },
              { Key: 'CreditPartyPublicName', Value: `${collection.phone} - FAKE CUSTOMER` },
              { Key: 'DebitPartyPublicName', Value: `${secrets.shortcode} - Tapline Fake` },
            ],
          },
          ...reference,
        },
      });
    });
  }

  // ---- M-Pesa Express (MpesaExpressSimulate.md, MpesaExpressQuery.md) ----
  /** Shortcode, Password and Timestamp, as both STK endpoints check them; true when the answer was sent. */
  function stkCredentialsRefused(body: Json, response: ServerResponse): boolean {
    for (const field of ['BusinessShortCode', 'Password', 'Timestamp']) {
      if (text(body[field]) === undefined) {
        badRequest(response, field);
        return true;
      }
    }
    const timestamp = text(body.Timestamp)!;
    if (!/^\d{14}$/.test(timestamp)) {
      badRequest(response, 'Timestamp');
      return true;
    }
    if (text(body.BusinessShortCode) !== secrets.shortcode) {
      error(response, 500, '500.001.1001', 'Merchant does not exist');
      return true;
    }
    if (body.Password !== stkPassword(secrets.shortcode, secrets.passkey, timestamp)) {
      error(response, 500, '500.001.1001', 'Wrong credentials');
      return true;
    }
    return false;
  }

  function finishStk(record: StkRecord, partyB: string | undefined): void {
    let outcome: [number, string] = [0, 'The service request is processed successfully.'];
    if (partyB !== secrets.shortcode) outcome = [2028, 'The request is not permitted according to product assignment.'];
    else if (record.scenario === 'cancelled') outcome = [1032, 'Request cancelled by user'];
    else if (record.scenario === 'insufficient_funds') outcome = [1, 'The balance is insufficient for the transaction.'];
    else if (record.scenario === 'no_answer') outcome = [1037, 'DS timeout user cannot be reached'];
    [record.resultCode, record.resultDesc] = outcome;
    const stkCallback: Json = { MerchantRequestID: record.merchantRequestId, CheckoutRequestID: record.checkoutRequestId, ResultCode: outcome[0], ResultDesc: outcome[1] };
    if (outcome[0] === 0) {
      record.state = 'completed';
      record.receipt = receiptNumber();
      receipts.set(record.receipt, { kind: 'c2b', checkoutRequestId: record.checkoutRequestId });
      stkCallback.CallbackMetadata = {
        Item: [
          { Name: 'Amount', Value: record.amount },
          { Name: 'MpesaReceiptNumber', Value: record.receipt },
          { Name: 'TransactionDate', Value: Number(kenyaTime(new Date())) },
          { Name: 'PhoneNumber', Value: Number(record.phone) },
        ],
      };
    } else {
      record.state = 'failed';
    }
    if (record.scenario !== 'callback_lost') void deliver(record.callbackUrl, { Body: { stkCallback } });
  }

  function stkPush(body: Json, response: ServerResponse): void {
    for (const field of ['BusinessShortCode', 'Password', 'Timestamp', 'TransactionType', 'Amount', 'PartyA', 'PartyB', 'PhoneNumber', 'CallBackURL', 'AccountReference']) {
      if (text(body[field]) === undefined) return badRequest(response, field);
    }
    if (stkCredentialsRefused(body, response)) return;
    if (!STK_TYPES.has(String(body.TransactionType))) return badRequest(response, 'TransactionType');
    const amount = wholeNumber(body.Amount);
    if (amount === undefined || amount < 1) return badRequest(response, 'Amount');
    const phone = text(body.PhoneNumber)!;
    // The page says 2547XXXXXXXX; Safaricom's 2541XXXXXXXX numbers are accepted too.
    if (!/^254[17]\d{8}$/.test(phone)) return badRequest(response, 'PhoneNumber');
    if (!/^254[17]\d{8}$/.test(text(body.PartyA)!)) return badRequest(response, 'PartyA');
    if (!isUrl(text(body.CallBackURL))) return badRequest(response, 'CallBackURL');
    const accountReference = text(body.AccountReference)!;
    if (accountReference.length > 12) return badRequest(response, 'AccountReference');
    const transactionDesc = text(body.TransactionDesc);
    if (transactionDesc !== undefined && transactionDesc.length > 13) return badRequest(response, 'TransactionDesc');
    if ([...stk.values()].some((record) => record.phone === phone && record.state === 'pending')) {
      return error(response, 500, '500.001.1001', 'Unable to lock subscriber, a transaction is already in process for the current subscriber');
    }
    const scenario = collectionScenarioOf(phone);
    const record: StkRecord = {
      checkoutRequestId: `ws_CO_${kenyaTime(new Date())}${randomInt(100_000_000, 999_999_999)}`,
      merchantRequestId: originatorId(),
      phone,
      amount,
      accountReference,
      transactionDesc,
      timestamp: text(body.Timestamp)!,
      state: 'pending',
      resultCode: undefined,
      receipt: undefined,
      reversed: false,
      scenario,
      callbackUrl: text(body.CallBackURL)!,
      resultDesc: undefined,
    };
    // Taken on arrival: the prompt is on the phone even when the answer is held (push_held).
    stk.set(record.checkoutRequestId, record);
    const accepted = 'Success. Request accepted for processing';
    const acknowledge = (): void => {
      send(response, 200, { MerchantRequestID: record.merchantRequestId, CheckoutRequestID: record.checkoutRequestId, ResponseCode: '0', ResponseDescription: accepted, CustomerMessage: accepted });
      later(scenario === 'no_answer' ? 60_000 * scale : resultDelayMs, () => finishStk(record, text(body.PartyB)));
    };
    if (scenario === 'push_held') hold(acknowledge);
    else acknowledge();
  }

  function stkQuery(body: Json, response: ServerResponse): void {
    if (stkCredentialsRefused(body, response)) return;
    const checkoutRequestId = text(body.CheckoutRequestID);
    const record = checkoutRequestId ? stk.get(checkoutRequestId) : undefined;
    if (!record) return badRequest(response, 'CheckoutRequestID');
    // The page is silent on a query made before the customer has answered; Daraja answers this
    // (safaricom/LNMOnlineAndroidSample issue 13).
    if (record.state === 'pending') return error(response, 500, '500.001.1001', 'The transaction is being processed');
    send(response, 200, {
      ResponseCode: '0',
      ResponseDescription: 'The service request has been accepted successfully',
      MerchantRequestID: record.merchantRequestId,
      CheckoutRequestID: record.checkoutRequestId,
      ResultCode: String(record.resultCode),
      ResultDesc: record.resultDesc,
    });
  }

  const routes: Record<string, (body: Json, response: ServerResponse) => void> = {
    '/mpesa/b2c/v3/paymentrequest': b2cRequest,
    '/mpesa/transactionstatus/v1/query': statusRequest,
    '/mpesa/reversal/v1/request': reversalRequest,
    '/mpesa/stkpush/v1/processrequest': stkPush,
    '/mpesa/stkpushquery/v1/query': stkQuery,
  };

  /** The field a wrong Content-Type is reported against (BusinessToCustomer.md FAQ 18, MpesaExpressSimulate.md FAQ 9). */
  const firstField: Record<string, string> = {
    '/mpesa/b2c/v3/paymentrequest': 'InitiatorName',
    '/mpesa/transactionstatus/v1/query': 'Initiator',
    '/mpesa/reversal/v1/request': 'Initiator',
    '/mpesa/stkpush/v1/processrequest': 'BusinessShortCode',
    '/mpesa/stkpushquery/v1/query': 'BusinessShortCode',
  };

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://fake.invalid');
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of request) {
      size += (chunk as Buffer).length;
      if (size > 1_000_000) return error(response, 413, '413.001', 'Payload Too Large');
      chunks.push(chunk as Buffer);
    }
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = undefined;
    }
    requests.push({ method: request.method ?? '', path: url.pathname, body });
    if (url.pathname === '/oauth/v1/generate') return oauth(request, url, response);
    const route = routes[url.pathname];
    if (!route) return error(response, 404, '404.001.01', 'Resource not found');
    // 404.001.04 "Invalid Authentication Header": every API but OAuth is a POST (TransactionStatus.md).
    if (request.method !== 'POST') return error(response, 405, '405.001', 'Method Not Allowed');
    if (!bearerValid(request)) return error(response, 404, '404.001.03', 'Invalid Access Token');
    if (!/application\/json/i.test(request.headers['content-type'] ?? '')) return badRequest(response, firstField[url.pathname]!);
    if (!body || typeof body !== 'object' || Array.isArray(body)) return error(response, 400, '400.002.05', 'Invalid Request Payload');
    route(body as Json, response);
  }

  const server: Server = createServer((request, response) => {
    handle(request, response).catch(() => error(response, 500, '500.003.1001', 'Internal Server Error'));
  });
  // Idle keep-alive connections stay open until the client (or stop()) closes them: a server
  // closing one just as a loaded test machine's client reuses it would fail that request with
  // a network error the test did not ask for.
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    env: {
      MPESA_CONSUMER_KEY: secrets.consumerKey,
      MPESA_CONSUMER_SECRET: secrets.consumerSecret,
      MPESA_SHORTCODE: secrets.shortcode,
      MPESA_PASSKEY: secrets.passkey,
      MPESA_INITIATOR_NAME: secrets.initiatorName,
      MPESA_INITIATOR_PASSWORD: secrets.initiatorPassword,
      MPESA_CERTIFICATE: certificatePem,
      MPESA_BASE_URL: url,
    },
    payouts: () =>
      [...b2c.values()]
        .filter((record) => record.timesPaid > 0)
        .map((record) => ({
          key: record.key,
          amount: record.amount,
          amountMinor: record.amount * 100,
          currency: 'KES' as const,
          destination: record.destination,
          times: record.timesPaid,
          receipt: record.receipt,
          reversed: record.state === 'reversed',
        })),
    collections: () =>
      [...stk.values()].map((record) => ({
        checkoutRequestId: record.checkoutRequestId,
        merchantRequestId: record.merchantRequestId,
        phone: record.phone,
        amount: record.amount,
        accountReference: record.accountReference,
        transactionDesc: record.transactionDesc,
        timestamp: record.timestamp,
        state: record.state,
        resultCode: record.resultCode,
        receipt: record.receipt,
        reversed: record.reversed,
      })),
    deliveries: () => [...deliveries],
    requests: () => [...requests],
    tokensIssued: () => tokensIssued,
    revokeTokens: () => {
      token = undefined;
    },
    releaseHeld: () => {
      const all = [...holds];
      holds.clear();
      for (const entry of all) {
        clearTimeout(entry.timer);
        entry.run();
      }
      return all.length;
    },
    dropCallbacks: (drop) => {
      dropping = drop;
    },
    certificatePem,
    privateKeyPem,
    stop: async () => {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const entry of holds) clearTimeout(entry.timer);
      holds.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
