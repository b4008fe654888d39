// Daraja's callbacks, all POSTed, all unsigned. Each URL we hand Daraja carries our id and an
// unguessable token (deps.callbackToken(purpose, id)); a callback is read only once its token
// verifies for that purpose and id, and then its ids must match that payment or collection.
//
//   POST b2c/result/<paymentId>/<token>        B2C ResultURL            → payout completed / failed
//   POST b2c/timeout/<paymentId>/<token>       B2C QueueTimeOutURL      → ignored; a status query is sent
//   POST status/result/<paymentId>/<token>     Transaction Status result → payout update (or ignored)
//   POST status/timeout/<paymentId>/<token>    its QueueTimeOutURL      → ignored
//   POST reversal/result/<paymentId>/<token>   Reversal result          → payout reversed (or ignored)
//   POST reversal/timeout/<paymentId>/<token>  its QueueTimeOutURL      → ignored
//   POST stk/<collectionId>/<token>            M-Pesa Express CallBackURL → collection (confirmed by the query)
//
// Reply: `{"ResultCode":0,"ResultDesc":"Accepted"}` with 200 to anything genuine. The pages
// document no acknowledgement for ResultURL or CallBackURL; that body is the acknowledgement the
// C2B pages ask of a receiver (CustomerToBusinessRegisterURL.md, ResultCode 0, ResultDesc
// "Accepted"). Refused callbacks get 401 and the C2B rejection form (non-zero ResultCode, "Rejected").
import type { CallbackReply, CallbackVerdict, InboundCallback } from '../types.ts';
import type { Collections } from './collections.ts';
import { type MpesaContext, ignored, refused } from './context.ts';
import type { Payouts } from './payouts.ts';
import { parseJson, parseResult, parseStkCallback } from './results.ts';
import type { Reversals } from './reversal.ts';
import type { Status } from './status.ts';
import { PURPOSE, idOf, keyOf } from './wire.ts';

export const ACCEPTED: CallbackReply = { status: 200, body: { ResultCode: 0, ResultDesc: 'Accepted' } };
export const REJECTED: CallbackReply = { status: 401, body: { ResultCode: 1, ResultDesc: 'Rejected' } };

function segmentsOf(path: string): string[] | undefined {
  const bare = path.split('?')[0]!.replace(/^\/+/, '').replace(/^api\/rails\/mpesa\//, '').replace(/\/+$/, '');
  try {
    return bare.split('/').map((segment) => decodeURIComponent(segment));
  } catch {
    return undefined;
  }
}

/** Our ids as they may appear in a URL (the same alphabet keyOf accepts). */
function plausibleId(id: string): boolean {
  return id.length > 0 && id.length <= 200 && idOf(keyOf(id)) === id;
}

export function createCallbacks(context: MpesaContext, parts: { payouts: Payouts; status: Status; reversals: Reversals; collections: Collections | undefined }) {
  const { deps } = context;

  function verified(purpose: string, id: string, token: string): boolean {
    try {
      return plausibleId(id) && deps.verifyCallbackToken(purpose, id, token);
    } catch {
      return false;
    }
  }

  async function route(inbound: InboundCallback): Promise<CallbackVerdict> {
    if (inbound.method.toUpperCase() !== 'POST') return refused('Daraja callbacks are POSTs');
    const segments = segmentsOf(inbound.path);
    if (!segments) return refused('malformed callback path');
    const body = parseJson(inbound.rawBody);
    if (segments.length === 3 && segments[0] === 'stk') {
      const [, collectionId, token] = segments as [string, string, string];
      if (!verified(PURPOSE.stk, collectionId, token)) return refused('callback token does not verify');
      if (!parts.collections) return ignored('M-Pesa Express is not configured (no MPESA_PASSKEY)');
      const callback = parseStkCallback(body);
      if (!callback) return refused('not an M-Pesa Express callback body');
      return parts.collections.stkCallback(collectionId, callback);
    }
    if (segments.length !== 4) return refused('unknown callback path');
    const [family, kind, paymentId, token] = segments as [string, string, string, string];
    const purpose = family === 'b2c' ? PURPOSE.b2c : family === 'status' ? PURPOSE.status : family === 'reversal' ? PURPOSE.reversal : undefined;
    if (!purpose || (kind !== 'result' && kind !== 'timeout')) return refused('unknown callback path');
    if (!verified(purpose, paymentId, token)) return refused('callback token does not verify');
    if (kind === 'timeout') {
      // The pages document no body for QueueTimeOutURL; nothing in it is relied upon.
      if (family === 'status') return parts.status.statusTimeout(paymentId);
      if (family === 'reversal') return ignored('reversal request timed out in M-Pesa\'s queue');
      // "notification if the payment request times out while awaiting processing": not a verdict
      // by itself; ask Daraja what became of the payout (its answer comes as a status result).
      try {
        await parts.status.sendQuery(paymentId);
      } catch (error) {
        deps.log('mpesa: B2C queue timeout; the status query could not be sent', { paymentId, error: String((error as Error).message ?? error) });
      }
      return ignored('B2C request timed out in M-Pesa\'s queue; its status is being asked');
    }
    const result = parseResult(body);
    if (!result) return refused('not a Daraja result body');
    if (family === 'b2c') return parts.payouts.b2cResult(paymentId, result);
    if (family === 'status') return parts.status.statusResult(paymentId, result);
    return parts.reversals.reversalResult(paymentId, result);
  }

  /** Verifies and reads a callback; never throws. */
  async function callback(inbound: InboundCallback): Promise<{ verdict: CallbackVerdict; reply: CallbackReply }> {
    let verdict: CallbackVerdict;
    try {
      verdict = await route(inbound);
    } catch (error) {
      deps.log('mpesa: a callback could not be read', { path: inbound.path.replace(/\/[^/]*$/, '/…'), error: String((error as Error).message ?? error) });
      verdict = refused('callback could not be read');
    }
    return { verdict, reply: verdict.kind === 'refused' ? REJECTED : ACCEPTED };
  }

  return { callback };
}
