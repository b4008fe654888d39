// B2C payouts: the payment request and its asynchronous result.
// Page: vendor/daraja/BusinessToCustomer.md (request, acknowledgement, result, result codes).
import type { CallbackVerdict, PayoutRequest, PayoutUpdate } from '../types.ts';
import { type MpesaContext, PATHS, code, refused } from './context.ts';
import { payoutMemory } from './memory.ts';
import { type DarajaResult, parameterNumber, parameterText } from './results.ts';
import { PURPOSE, callbackUrl, formatKes, keyOf, msisdnOf, plainText, wholeShillings } from './wire.ts';

/** Remarks: "Any string between 2 and 100 chars" (mandatory). */
const REMARKS_MAX = 100;

function failed(failureReason: string, providerReference?: string): PayoutUpdate {
  return { status: 'failed', failureReason, ...(providerReference ? { providerReference } : {}) };
}

/** What we can check before asking Daraja: a definitive refusal as a failed update, or the wire values. */
export function checkPayout(request: PayoutRequest): { amountKes: number; msisdn: string } | PayoutUpdate {
  if (request.rail !== 'mobile_money' || request.toCountry !== 'KE') return failed(`M-Pesa pays mobile money in Kenya only, not ${request.rail} to ${request.toCountry}`);
  if (request.destinationCurrency !== 'KES') return failed(`M-Pesa pays Kenyan shillings only, not ${request.destinationCurrency}`);
  const operator = request.receiver.provider;
  if (operator && !/^(?:m-?pesa|safaricom)$/i.test(operator)) return failed(`The receiver's mobile money provider is ${operator}; M-Pesa pays M-Pesa accounts only`);
  const msisdn = msisdnOf(request.receiver.phone);
  if (!msisdn) return failed(`${request.receiver.phone ?? 'The receiver'} is not a Kenyan mobile number M-Pesa can pay`);
  const amountKes = wholeShillings(request.destinationAmount);
  if (amountKes === undefined || amountKes <= 0) {
    return failed(`M-Pesa pays whole shillings only; ${formatKes(request.destinationAmount)} has cents, so it was not sent (send a whole amount)`);
  }
  return { amountKes, msisdn };
}

function remarksOf(request: PayoutRequest): string {
  const remarks = plainText(request.reference ?? request.note, REMARKS_MAX);
  return remarks.length >= 2 ? remarks : 'Tapline payout';
}

export function createPayouts(context: MpesaContext) {
  const { config, deps, client } = context;

  /**
   * Sends the B2C payment request once. Never pays twice: a payout already acknowledged by this
   * process is not sent again, and Daraja itself refuses a second request with the same
   * OriginatorConversationID ("Duplicate OriginatorConversationID.", BusinessToCustomer.md), which
   * we read as "already accepted". The acknowledgement only means accepted: `processing` until
   * the result arrives at the ResultURL (or a status query finds it).
   */
  async function submit(request: PayoutRequest): Promise<PayoutUpdate> {
    const checked = checkPayout(request);
    if ('status' in checked) return checked;
    const memory = payoutMemory(context.payouts, request.paymentId);
    if (memory.final) return memory.final;
    if (memory.conversationId) return { status: 'processing', providerReference: memory.conversationId };
    const token = deps.callbackToken(PURPOSE.b2c, request.paymentId);
    const body = {
      OriginatorConversationID: keyOf(request.paymentId),
      InitiatorName: config.initiatorName,
      SecurityCredential: context.securityCredential,
      CommandID: 'BusinessPayment',
      // The page's sample sends Amount, PartyA and PartyB as strings; its table says Numeric.
      Amount: String(checked.amountKes),
      PartyA: config.shortcode,
      PartyB: checked.msisdn,
      Remarks: remarksOf(request),
      QueueTimeOutURL: callbackUrl(deps.publicBaseUrl, 'b2c/timeout', request.paymentId, token),
      ResultURL: callbackUrl(deps.publicBaseUrl, 'b2c/result', request.paymentId, token),
    };
    const answer = await client.post(PATHS.b2c, body);
    const responseCode = code(answer.body?.ResponseCode);
    if (answer.status >= 200 && answer.status < 300 && responseCode !== undefined) {
      if (responseCode === '0') {
        const conversationId = typeof answer.body?.ConversationID === 'string' ? answer.body.ConversationID : undefined;
        memory.amountKes = checked.amountKes;
        if (conversationId) memory.conversationId = conversationId;
        return { status: 'processing', ...(conversationId ? { providerReference: conversationId } : {}) };
      }
      const description = client.redact(String(answer.body?.ResponseDescription ?? 'no description'));
      return failed(`M-Pesa refused the payout: ${description} (response code ${responseCode})`);
    }
    const errorCode = String(answer.body?.errorCode ?? '');
    const errorMessage = String(answer.body?.errorMessage ?? '');
    if (errorCode === '500.002.1001' || /duplicate\s+originatorconversationid/i.test(errorMessage)) {
      // Daraja has this key already: it was accepted earlier (perhaps by a request whose answer
      // we never read). Its result, or a status query, tells what became of it.
      deps.log('mpesa: B2C request answered as a duplicate OriginatorConversationID; treating the payout as accepted earlier', { paymentId: request.paymentId });
      memory.amountKes = checked.amountKes;
      return { status: 'processing', ...(memory.conversationId ? { providerReference: memory.conversationId } : {}) };
    }
    if (answer.status === 400) return failed(`M-Pesa refused the payout request: ${client.describe(answer)}`);
    // 5xx, an unexpected 2xx, or a 4xx about our set-up (token, path, quota): the outcome is unknown
    // to the caller, who asks lookup before any resend.
    throw new Error(`M-Pesa B2C answered HTTP ${answer.status}: ${client.describe(answer)} (outcome unknown)`);
  }

  /**
   * The B2C result at ResultURL, once its path token has verified. Unsigned, and Daraja's status
   * query is itself asynchronous, so the best the pages allow is: the token bound to this payment
   * AND the ids matching it (OriginatorConversationID = keyOf(paymentId); ConversationID and
   * amount equal to what this process recorded at submit, when it still remembers them).
   */
  function b2cResult(paymentId: string, result: DarajaResult): CallbackVerdict {
    if (result.originatorConversationId !== keyOf(paymentId)) return refused('B2C result for another OriginatorConversationID');
    const memory = payoutMemory(context.payouts, paymentId);
    if (memory.conversationId && result.conversationId !== memory.conversationId) return refused('B2C result for another ConversationID');
    if (result.resultType === 1) return { kind: 'ignored', reason: 'B2C interim result (ResultType 1: waiting for further messages)' };
    let update: PayoutUpdate;
    if (result.resultCode === '0') {
      const amount = parameterNumber(result, 'TransactionAmount');
      if (memory.amountKes !== undefined && amount !== undefined && amount !== memory.amountKes) return refused('B2C result amount differs from the payout');
      const receipt = parameterText(result, 'TransactionReceipt') ?? result.transactionId;
      update = { status: 'completed', ...(receipt ? { providerReference: receipt } : {}) };
    } else {
      const description = client.redact(result.resultDesc || 'no description');
      update = failed(`M-Pesa did not pay: ${description} (result code ${result.resultCode})`, result.conversationId);
    }
    memory.conversationId ??= result.conversationId;
    memory.final = update;
    context.waiters.answer(paymentId, { kind: 'known', update });
    return { kind: 'payout', paymentId, update };
  }

  return { submit, b2cResult };
}

export type Payouts = ReturnType<typeof createPayouts>;
