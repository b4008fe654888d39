// M-Pesa Express (STK push) collections: the push, its query, and its callback.
// Pages: vendor/daraja/MpesaExpressSimulate.md and MpesaExpressQuery.md.
//
// A CollectionRequest carries no CheckoutRequestID back to us. This process remembers the one each
// push got; after a restart it learns it again from the callback (whose URL carries our
// collectionId and token, and whose body carries the CheckoutRequestID), or from the caller:
// collectionStatus takes the providerReference collect returned as an optional second argument.
// Without any of these it answers `pending` with the reason in failureReason.
import type { CallbackVerdict, CollectionRequest, CollectionUpdate } from '../types.ts';
import { type MpesaContext, PATHS, code, refused } from './context.ts';
import type { CollectionMemory } from './memory.ts';
import type { StkCallback } from './results.ts';
import { PURPOSE, callbackUrl, formatKes, kenyaTimestamp, msisdnOf, plainText, stkPassword, wholeShillings } from './wire.ts';

/** MpesaExpressSimulate.md: AccountReference "Max 12 characters", TransactionDesc "Max 13 characters". */
const ACCOUNT_REFERENCE_MAX = 12;
const TRANSACTION_DESC_MAX = 13;

/** The STK query's answer while the customer has not finished (see queryStk). */
const BEING_PROCESSED = /being processed/i;

type QueryOutcome =
  | { kind: 'final'; resultCode: string; resultDesc: string; merchantRequestId?: string; checkoutRequestId?: string }
  | { kind: 'pending' }
  | { kind: 'unknown-id'; reason: string };

function failed(failureReason: string, providerReference?: string): CollectionUpdate {
  return { status: 'failed', failureReason, ...(providerReference ? { providerReference } : {}) };
}

export function createCollections(context: MpesaContext, passkey: string) {
  const { config, deps, client } = context;

  function credentials(): { BusinessShortCode: number | string; Password: string; Timestamp: string } {
    const timestamp = kenyaTimestamp(deps.now());
    // The page's sample sends BusinessShortCode as a number (174379).
    const shortcode = /^\d+$/.test(config.shortcode) ? Number(config.shortcode) : config.shortcode;
    return { BusinessShortCode: shortcode, Password: stkPassword(config.shortcode, passkey, timestamp), Timestamp: timestamp };
  }

  /**
   * Sends the push once per collection in this process: there is no idempotency key in M-Pesa
   * Express, so a second push would prompt (and could charge) the customer twice. A push whose
   * answer never came throws (unknown: the customer may have been prompted); the caller should
   * ask collectionStatus, not push again.
   */
  async function collect(request: CollectionRequest): Promise<CollectionUpdate> {
    if (request.currency !== 'KES') return failed(`M-Pesa collects Kenyan shillings only, not ${request.currency}`);
    const msisdn = msisdnOf(request.phone);
    if (!msisdn) return failed(`${request.phone} is not a Kenyan mobile number M-Pesa can prompt`);
    const amountKes = wholeShillings(request.amount);
    if (amountKes === undefined || amountKes < 1) return failed(`M-Pesa collects whole shillings only (at least KES 1); ${formatKes(request.amount)} was not requested`);
    const known = context.collections.get(request.collectionId);
    if (known?.final) return known.final;
    if (known) return { status: 'pending', providerReference: known.checkoutRequestId };
    const token = deps.callbackToken(PURPOSE.stk, request.collectionId);
    const accountReference = plainText(request.description, 64).replace(/[^A-Za-z0-9]/g, '').slice(0, ACCOUNT_REFERENCE_MAX) || 'Tapline';
    const body = {
      ...credentials(),
      TransactionType: 'CustomerPayBillOnline',
      Amount: String(amountKes),
      PartyA: msisdn,
      PartyB: config.shortcode,
      PhoneNumber: msisdn,
      CallBackURL: callbackUrl(deps.publicBaseUrl, 'stk', request.collectionId, token),
      AccountReference: accountReference,
      TransactionDesc: plainText(request.description, TRANSACTION_DESC_MAX) || 'Payment',
    };
    const answer = await client.post(PATHS.stkPush, body);
    const responseCode = code(answer.body?.ResponseCode);
    if (answer.status >= 200 && answer.status < 300 && responseCode !== undefined) {
      const checkoutRequestId = typeof answer.body?.CheckoutRequestID === 'string' ? answer.body.CheckoutRequestID : undefined;
      if (responseCode === '0' && checkoutRequestId) {
        const merchantRequestId = typeof answer.body?.MerchantRequestID === 'string' ? answer.body.MerchantRequestID : undefined;
        context.collections.set(request.collectionId, { checkoutRequestId, amountKes, ...(merchantRequestId ? { merchantRequestId } : {}) });
        return { status: 'pending', providerReference: checkoutRequestId };
      }
      if (responseCode !== '0') return failed(`M-Pesa did not prompt the customer: ${client.redact(String(answer.body?.ResponseDescription ?? ''))} (response code ${responseCode})`);
    }
    const errorCode = String(answer.body?.errorCode ?? '');
    // 400.002.02 "Bad Request - Invalid X" and 500.001.1001 ("Merchant does not exist", "Wrong
    // credentials", "Unable to lock subscriber, a transaction is already in process"): the push
    // was not sent. Other answers (500.003.* busy, spike arrest, internal error; a bare 5xx) leave
    // it unknown.
    if (answer.status === 400 || errorCode === '500.001.1001') return failed(`M-Pesa did not prompt the customer: ${client.describe(answer)}`);
    throw new Error(`M-Pesa Express answered HTTP ${answer.status}: ${client.describe(answer)} (outcome unknown)`);
  }

  /**
   * The M-Pesa Express query. While the customer has not answered, Daraja answers with an error
   * body `500.001.1001 "The transaction is being processed"`: MpesaExpressQuery.md is silent on
   * this; it is Daraja's known answer (safaricom/LNMOnlineAndroidSample issue 13) and the fake
   * follows it. A 400 about the CheckoutRequestID means Daraja does not know it.
   */
  async function queryStk(checkoutRequestId: string): Promise<QueryOutcome> {
    const answer = await client.post(PATHS.stkQuery, { ...credentials(), CheckoutRequestID: checkoutRequestId });
    const resultCode = code(answer.body?.ResultCode);
    if (answer.status >= 200 && answer.status < 300 && resultCode !== undefined && code(answer.body?.ResponseCode) === '0') {
      return {
        kind: 'final',
        resultCode,
        resultDesc: client.redact(String(answer.body?.ResultDesc ?? '')),
        ...(typeof answer.body?.MerchantRequestID === 'string' ? { merchantRequestId: answer.body.MerchantRequestID } : {}),
        ...(typeof answer.body?.CheckoutRequestID === 'string' ? { checkoutRequestId: answer.body.CheckoutRequestID } : {}),
      };
    }
    const errorMessage = String(answer.body?.errorMessage ?? '');
    if (BEING_PROCESSED.test(errorMessage)) return { kind: 'pending' };
    if (answer.status === 400 && /checkoutrequestid/i.test(errorMessage)) return { kind: 'unknown-id', reason: client.describe(answer) };
    throw new Error(`M-Pesa Express query answered HTTP ${answer.status}: ${client.describe(answer)} (cannot tell now)`);
  }

  function updateOf(outcome: Extract<QueryOutcome, { kind: 'final' }>, memory: CollectionMemory): CollectionUpdate {
    if (outcome.resultCode === '0') return { status: 'completed', providerReference: memory.receipt ?? memory.checkoutRequestId };
    return failed(`The customer did not pay: ${outcome.resultDesc || 'no description'} (result code ${outcome.resultCode})`, memory.checkoutRequestId);
  }

  /** Where the collection stands, from the M-Pesa Express query. */
  async function collectionStatus(request: CollectionRequest, checkoutRequestId?: string): Promise<CollectionUpdate> {
    let memory = context.collections.get(request.collectionId);
    if (memory?.final) return memory.final;
    const id = checkoutRequestId ?? memory?.checkoutRequestId;
    if (!id) {
      return {
        status: 'pending',
        // Read by people: the collections module puts it in the reason of an expiry.
        failureReason: 'M-Pesa\'s answer to the push never arrived (the server restarted or timed out while asking), so its CheckoutRequestID is unknown and its status cannot be queried; if the customer paid, M-Pesa\'s callback, which carries it, still completes the collection',
      };
    }
    if (!memory || memory.checkoutRequestId !== id) memory = context.collections.set(request.collectionId, { checkoutRequestId: id });
    const outcome = await queryStk(id);
    if (outcome.kind === 'pending') return { status: 'pending', providerReference: id };
    if (outcome.kind === 'unknown-id') throw new Error(`M-Pesa does not know CheckoutRequestID ${id}: ${outcome.reason}`);
    const update = updateOf(outcome, memory);
    memory.final = update;
    return update;
  }

  /**
   * The M-Pesa Express callback at /stk/<collectionId>/<token>, once the token verified. Unsigned:
   * its ids must match the push this process remembers (if it does), and its outcome is confirmed
   * with the M-Pesa Express query (synchronous) before a final verdict. The receipt number and
   * amount come from the callback (the query does not return them).
   */
  async function stkCallback(collectionId: string, callback: StkCallback): Promise<CallbackVerdict> {
    const known = context.collections.get(collectionId);
    if (known && known.checkoutRequestId !== callback.checkoutRequestId) return refused('M-Pesa Express callback for another CheckoutRequestID');
    if (known?.merchantRequestId && known.merchantRequestId !== callback.merchantRequestId) return refused('M-Pesa Express callback for another MerchantRequestID');
    if (callback.resultCode === '0' && known?.amountKes !== undefined && callback.amount !== undefined && callback.amount !== known.amountKes) {
      return refused('M-Pesa Express callback amount differs from the request');
    }
    let outcome: QueryOutcome;
    try {
      outcome = await queryStk(callback.checkoutRequestId);
    } catch (error) {
      deps.log('mpesa: could not confirm an M-Pesa Express callback with the query; it stays pending', { collectionId, error: String((error as Error).message ?? error) });
      outcome = { kind: 'pending' };
    }
    if (outcome.kind === 'unknown-id') return refused('M-Pesa does not know the callback\'s CheckoutRequestID');
    if (outcome.kind === 'final' && outcome.checkoutRequestId && outcome.checkoutRequestId !== callback.checkoutRequestId) return refused('M-Pesa Express query answered for another CheckoutRequestID');
    const memory: CollectionMemory = known ?? context.collections.set(collectionId, { checkoutRequestId: callback.checkoutRequestId, merchantRequestId: callback.merchantRequestId });
    // The receipt is taken from the callback only once the query confirms the payment.
    if (outcome.kind === 'final' && outcome.resultCode === '0' && callback.resultCode === '0' && callback.receipt) memory.receipt = callback.receipt;
    if (outcome.kind === 'pending') return { kind: 'collection', collectionId, update: { status: 'pending', providerReference: callback.checkoutRequestId } };
    const update = updateOf(outcome, memory);
    memory.final = update;
    return { kind: 'collection', collectionId, update };
  }

  /**
   * The M-Pesa Express query of a collection's CheckoutRequestID for the reconciliation, asked
   * every time (this process's memory of a final answer is not the provider's record): the one
   * this process remembers, else the one the caller stored (the reconciliation passes the
   * collection's provider_request_id, the CheckoutRequestID kept after the reference became the
   * receipt). Undefined when Daraja does not know it,
   * or when no push of it was ever accepted (no CheckoutRequestID anywhere). The query carries no
   * amount.
   */
  async function collectionRecord(request: CollectionRequest, providerReference: string | null): Promise<CollectionUpdate | undefined> {
    const memory = context.collections.get(request.collectionId);
    const id = memory?.checkoutRequestId ?? providerReference ?? undefined;
    if (!id) return undefined;
    const outcome = await queryStk(id);
    if (outcome.kind === 'unknown-id') return undefined;
    if (outcome.kind === 'pending') return { status: 'pending', providerReference: id };
    return updateOf(outcome, memory ?? { checkoutRequestId: id });
  }

  return { collect, collectionStatus, collectionRecord, stkCallback };
}

export type Collections = ReturnType<typeof createCollections>;
