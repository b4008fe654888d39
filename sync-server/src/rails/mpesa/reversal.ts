// Reversal: an optional adapter member, reverse(paymentId, transactionId, amount).
// Page: vendor/daraja/Reversal.md. Caution from the pages themselves: the Reversal API "enables
// the reversal of Customer-to-Business (C2B) transactions", and both Reversal.md and
// BusinessToCustomer.md (FAQ 17) say a B2C payment cannot be reversed through it ("B2C reversals
// are done manually on the M-PESA portal"). So for a B2C payout, expect Daraja's result to refuse
// it; the adapter still sends it faithfully and reports what Daraja answers.
import type { CallbackVerdict } from '../types.ts';
import { type MpesaContext, PATHS, code, ignored, refused } from './context.ts';
import { payoutMemory } from './memory.ts';
import { type DarajaResult, parameterNumber, parameterText } from './results.ts';
import { PURPOSE, callbackUrl, formatKes, wholeShillings } from './wire.ts';

export interface ReversalRequested {
  /** true: Daraja acknowledged the request; its result arrives at /reversal/result/<paymentId>/<token>. */
  accepted: boolean;
  conversationId?: string;
  /** With accepted false: why Daraja refused the request. */
  reason?: string;
}

export function createReversals(context: MpesaContext) {
  const { config, deps, client } = context;

  /**
   * Asks Daraja to reverse the M-Pesa transaction `transactionId` (its receipt number) of
   * `amount` minor units, for our payment `paymentId`. Throws when the outcome is unknown
   * (no answer, 5xx); a refusal is `{ accepted: false, reason }`.
   */
  async function reverse(paymentId: string, transactionId: string, amount: number): Promise<ReversalRequested> {
    const amountKes = wholeShillings(amount);
    if (amountKes === undefined || amountKes <= 0) return { accepted: false, reason: `M-Pesa reverses whole shillings only, not ${formatKes(amount)}` };
    if (!/^[A-Za-z0-9]{6,20}$/.test(transactionId)) return { accepted: false, reason: 'An M-Pesa receipt number is 6 to 20 letters and digits' };
    const token = deps.callbackToken(PURPOSE.reversal, paymentId);
    const body = {
      Initiator: config.initiatorName,
      SecurityCredential: context.securityCredential,
      CommandID: 'TransactionReversal',
      TransactionID: transactionId,
      Amount: String(amountKes),
      ReceiverParty: config.shortcode,
      // Spelt as the page spells it ("Reciever").
      RecieverIdentifierType: '11',
      ResultURL: callbackUrl(deps.publicBaseUrl, 'reversal/result', paymentId, token),
      QueueTimeOutURL: callbackUrl(deps.publicBaseUrl, 'reversal/timeout', paymentId, token),
      Remarks: 'Tapline reversal',
    };
    const answer = await client.post(PATHS.reversal, body);
    const responseCode = code(answer.body?.ResponseCode);
    if (answer.status >= 200 && answer.status < 300 && responseCode !== undefined) {
      if (responseCode !== '0') return { accepted: false, reason: `M-Pesa refused the reversal: ${client.redact(String(answer.body?.ResponseDescription ?? ''))} (response code ${responseCode})` };
      const conversationId = typeof answer.body?.ConversationID === 'string' ? answer.body.ConversationID : undefined;
      payoutMemory(context.payouts, paymentId).reversal = { transactionId, amountKes, ...(conversationId ? { conversationId } : {}) };
      return { accepted: true, ...(conversationId ? { conversationId } : {}) };
    }
    if (answer.status === 400) return { accepted: false, reason: `M-Pesa refused the reversal request: ${client.describe(answer)}` };
    throw new Error(`M-Pesa reversal answered HTTP ${answer.status}: ${client.describe(answer)} (outcome unknown)`);
  }

  /** The reversal result, once its token verified: ResultCode 0 → the payout is reversed. */
  function reversalResult(paymentId: string, result: DarajaResult): CallbackVerdict {
    const memory = payoutMemory(context.payouts, paymentId);
    const asked = memory.reversal;
    if (asked?.conversationId && result.conversationId !== asked.conversationId) return refused('reversal result for another ConversationID');
    if (result.resultCode !== '0') {
      const reason = `M-Pesa did not reverse the payout: ${client.redact(result.resultDesc || 'no description')} (result code ${result.resultCode})`;
      deps.log('mpesa: reversal refused', { paymentId, resultCode: result.resultCode });
      return ignored(reason);
    }
    const original = parameterText(result, 'OriginalTransactionID');
    if (!original || (asked && original !== asked.transactionId)) return refused('reversal result about another transaction');
    const amount = parameterNumber(result, 'Amount');
    if (asked && amount !== undefined && amount !== asked.amountKes) return refused('reversal result amount differs from the request');
    const update = { status: 'reversed' as const, failureReason: `Reversed on M-Pesa: transaction ${original} reversed by ${result.transactionId ?? 'a reversal'}` };
    memory.final = update;
    return { kind: 'payout', paymentId, update };
  }

  return { reverse, reversalResult };
}

export type Reversals = ReturnType<typeof createReversals>;
