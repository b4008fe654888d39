// Transaction Status: how poll and lookup learn what became of a payout.
// Page: vendor/daraja/TransactionStatus.md. The query is asynchronous: Daraja acknowledges it,
// then POSTs the answer to the query's own ResultURL (/api/rails/mpesa/status/result/<paymentId>/<token>).
//
//  - poll sends a status query (at most one outstanding per STATUS_REQUERY_MS per payout) and
//    answers `processing`; the status result, once its token verifies and the original ids it
//    carries match the payment, is a callback verdict with the final state. The next poll answers
//    from memory too.
//  - lookup sends a status query and waits a short while (deps.timeoutMs) for its result to come
//    back through callback(); when it does not come in time lookup throws ("cannot tell now"),
//    and the next lookup uses the answer if it has arrived meanwhile.
//  - lookup answers undefined only when the status result says Daraja has no such transaction.
//    The page lists no result code for that (its result codes: 0 and SFC_IC0003 "The operator
//    does not exist", a wrong party, not an unknown id). We take `R000002` for it, the code the
//    Reversal page gives for "The TransactionID provided is invalid or does not exist on M-PESA";
//    any other failure of the query means "cannot tell", never "unknown".
import type { CallbackVerdict, PayoutRequest, PayoutUpdate } from '../types.ts';
import { type MpesaContext, PATHS, code, ignored, refused } from './context.ts';
import { STATUS_QUERIES_MAX, type StatusAnswer, payoutMemory } from './memory.ts';
import { type DarajaResult, parameterNumber, parameterText } from './results.ts';
import { PURPOSE, callbackUrl, keyOf } from './wire.ts';

/** A status query without an answer is sent again after this long. */
export const STATUS_REQUERY_MS = 30_000;
/** The status result code read as "Daraja has no such transaction" (see the header). */
export const UNKNOWN_TRANSACTION_CODE = 'R000002';

/**
 * TransactionStatus values: TransactionStatus.md FAQ 3 names Initiated, Authorized / Pending
 * Authorized, and the final Cancelled, Declined, Completed, Expired. "Reversed" is not on the
 * page (B2C reversals are made by hand on the M-PESA portal, BusinessToCustomer.md FAQ 17); it is
 * read as reversed should Daraja report it.
 */
export function updateOfStatus(transactionStatus: string | undefined, receipt: string | undefined, reason: string | undefined): PayoutUpdate {
  const status = (transactionStatus ?? '').trim();
  const because = reason ? `: ${reason}` : '';
  const reference = receipt ? { providerReference: receipt } : {};
  switch (status.toLowerCase()) {
    case 'completed':
      return { status: 'completed', ...reference };
    case 'reversed':
      return { status: 'reversed', failureReason: `M-Pesa reports the payout reversed${receipt ? ` (receipt ${receipt})` : ''}${because}`, ...reference };
    case 'cancelled':
    case 'declined':
    case 'expired':
    case 'failed':
      return { status: 'failed', failureReason: `M-Pesa reports the payout ${status}${because}`, ...reference };
    default:
      return { status: 'processing', ...reference };
  }
}

export function createStatus(context: MpesaContext) {
  const { config, deps, client } = context;

  /** Sends a Transaction Status query for the payout's OriginatorConversationID; throws if Daraja does not acknowledge it. */
  async function sendQuery(paymentId: string): Promise<void> {
    const memory = payoutMemory(context.payouts, paymentId);
    const now = deps.now().getTime();
    if (memory.statusQueryAt && now - memory.statusQueryAt < STATUS_REQUERY_MS && memory.statusAnswerAt < memory.statusQueryAt) return;
    const token = deps.callbackToken(PURPOSE.status, paymentId);
    // Field names from the page's parameter table (CommandID, TransactionID); its sample body
    // writes "Command ID" and "Transaction ID" with a space, which reads as a typesetting slip.
    // TransactionID (the receipt) is not sent: FAQ 1 says TransactionID OR OriginalConversationID.
    const body = {
      Initiator: config.initiatorName,
      SecurityCredential: context.securityCredential,
      CommandID: 'TransactionStatusQuery',
      OriginalConversationID: keyOf(paymentId),
      PartyA: config.shortcode,
      IdentifierType: '4',
      ResultURL: callbackUrl(deps.publicBaseUrl, 'status/result', paymentId, token),
      QueueTimeOutURL: callbackUrl(deps.publicBaseUrl, 'status/timeout', paymentId, token),
      Remarks: 'Tapline status check',
    };
    const answer = await client.post(PATHS.transactionStatus, body);
    const responseCode = code(answer.body?.ResponseCode);
    if (answer.status >= 200 && answer.status < 300 && responseCode === '0') {
      const conversationId = typeof answer.body?.ConversationID === 'string' ? answer.body.ConversationID : undefined;
      if (conversationId) memory.statusQueries = [...memory.statusQueries, conversationId].slice(-STATUS_QUERIES_MAX);
      memory.statusQueryAt = deps.now().getTime();
      return;
    }
    const detail = responseCode !== undefined ? `${client.redact(String(answer.body?.ResponseDescription ?? ''))} (response code ${responseCode})` : client.describe(answer);
    throw new Error(`M-Pesa transaction status query was not accepted: HTTP ${answer.status} ${detail} (cannot tell now)`);
  }

  /**
   * poll: asks Daraja (a status query, whose result comes as a callback verdict) and answers what
   * this process knows now: processing, or the verified final state. A payout known completed is
   * still asked about, because Daraja sends nothing when a B2C payment is later reversed (by hand,
   * on the M-PESA portal): only a status query can tell. Failed and reversed are not asked again.
   */
  async function poll(request: PayoutRequest, providerReference: string | null): Promise<PayoutUpdate> {
    const memory = payoutMemory(context.payouts, request.paymentId);
    if (memory.final && memory.final.status !== 'completed') return memory.final;
    if (memory.final) {
      await sendQuery(request.paymentId).catch((error: unknown) => {
        deps.log('mpesa: status query for a completed payout could not be sent', { paymentId: request.paymentId, error: String((error as Error).message ?? error) });
      });
      return memory.final;
    }
    await sendQuery(request.paymentId);
    const reference = memory.conversationId ?? providerReference ?? undefined;
    return { status: 'processing', ...(reference ? { providerReference: reference } : {}) };
  }

  function fromAnswer(answer: StatusAnswer): PayoutUpdate | undefined {
    if (answer.kind === 'known') return answer.update;
    if (answer.kind === 'unknown') return undefined;
    throw new Error(answer.reason);
  }

  /** lookup: see the header. Throws when Daraja cannot tell yet. */
  async function lookup(request: PayoutRequest): Promise<PayoutUpdate | undefined> {
    const memory = payoutMemory(context.payouts, request.paymentId);
    if (memory.final) return memory.final;
    if (memory.statusAnswer && memory.statusAnswerAt >= memory.statusQueryAt && memory.statusQueryAt > 0) {
      const answer = memory.statusAnswer;
      memory.statusAnswer = undefined;
      return fromAnswer(answer);
    }
    const waiting = context.waiters.wait(request.paymentId, Math.max(deps.timeoutMs, 1));
    await sendQuery(request.paymentId).catch((error: unknown) => {
      context.waiters.answer(request.paymentId, { kind: 'error', reason: String((error as Error).message ?? error) });
    });
    const answer = await waiting;
    if (!answer) throw new Error('M-Pesa transaction status query sent; its result has not arrived yet (cannot tell now)');
    if (memory.statusAnswer === answer) memory.statusAnswer = undefined;
    return fromAnswer(answer);
  }

  function remember(paymentId: string, answer: StatusAnswer): void {
    const memory = payoutMemory(context.payouts, paymentId);
    memory.statusAnswer = answer;
    memory.statusAnswerAt = deps.now().getTime();
    if (answer.kind === 'known' && answer.update.status !== 'processing') memory.final = answer.update;
    context.waiters.answer(paymentId, answer);
  }

  /**
   * A status result at /status/result/<paymentId>/<token>, once the token has verified. Its
   * Result.ConversationID is the query's (checked against the queries this process sent, when it
   * remembers them); the payout's own ids are in ResultParameters (OriginatorConversationID must be
   * keyOf(paymentId); ConversationID and Amount must match the submit, when remembered).
   */
  function statusResult(paymentId: string, result: DarajaResult): CallbackVerdict {
    const memory = payoutMemory(context.payouts, paymentId);
    if (memory.statusQueries.length > 0 && !memory.statusQueries.includes(result.conversationId)) return refused('status result for a query we did not send');
    if (result.resultCode === UNKNOWN_TRANSACTION_CODE) {
      // A payout Daraja acknowledged but cannot find stays processing (poll keeps asking): never
      // failed on this answer alone, as a queued request may not be findable yet.
      if (memory.conversationId) deps.log('mpesa: Daraja acknowledged this payout but its transaction status does not know it', { paymentId });
      remember(paymentId, { kind: 'unknown' });
      return ignored(`M-Pesa has no transaction with OriginatorConversationID ${keyOf(paymentId)}`);
    }
    if (result.resultCode !== '0') {
      const reason = `M-Pesa could not answer the status query: ${client.redact(result.resultDesc || 'no description')} (result code ${result.resultCode})`;
      deps.log('mpesa: transaction status query failed', { paymentId, resultCode: result.resultCode });
      remember(paymentId, { kind: 'error', reason });
      return ignored(reason);
    }
    if (parameterText(result, 'OriginatorConversationID') !== keyOf(paymentId)) return refused('status result about another transaction');
    const conversationId = parameterText(result, 'ConversationID');
    if (memory.conversationId && conversationId && conversationId !== memory.conversationId) return refused('status result about another ConversationID');
    const amount = parameterNumber(result, 'Amount');
    if (memory.amountKes !== undefined && amount !== undefined && amount !== memory.amountKes) return refused('status result amount differs from the payout');
    const receipt = parameterText(result, 'ReceiptNo') ?? (result.transactionId && !/^[A-Z0-9]{3}0+$/.test(result.transactionId) ? result.transactionId : undefined);
    const reason = parameterText(result, 'TransactionReason');
    const update = updateOfStatus(parameterText(result, 'TransactionStatus'), receipt, reason ? client.redact(reason) : undefined);
    if (conversationId) memory.conversationId ??= conversationId;
    if (update.status === 'processing' && memory.final) return ignored(`status result says ${parameterText(result, 'TransactionStatus') ?? 'in progress'}; the payout is already ${memory.final.status}`);
    remember(paymentId, { kind: 'known', update });
    return { kind: 'payout', paymentId, update };
  }

  /** The status query's QueueTimeOutURL: nothing learnt; the next poll or lookup asks again. */
  function statusTimeout(paymentId: string): CallbackVerdict {
    const memory = payoutMemory(context.payouts, paymentId);
    memory.statusQueryAt = 0;
    remember(paymentId, { kind: 'error', reason: 'M-Pesa timed out answering the status query (cannot tell now)' });
    return ignored('status query timed out in M-Pesa\'s queue; it will be asked again');
  }

  return { sendQuery, poll, lookup, statusResult, statusTimeout };
}

export type Status = ReturnType<typeof createStatus>;
