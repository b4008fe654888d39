// Paystack's webhooks: POST /api/rails/paystack/webhook (path `webhook` after the provider's
// prefix), JSON `{ event, data }`, signed with `x-paystack-signature`: the hex HMAC-SHA512 of the
// raw body keyed with the secret key. Verified over the exact bytes received, compared in constant
// time. transfer.success -> completed, transfer.failed -> failed, transfer.reversed -> reversed,
// the payment found from `data.reference` by idOf; any other event, or a reference that is not
// one of ours, is acknowledged and ignored. Paystack wants a 200 for every event it should stop
// resending; anything forged or malformed gets 401 and changes nothing.
//
// The event names are the documented ones; the state comes from the event name (each event is
// one state change), not from `data.status`. The documents do not say whether Paystack retries a
// delivery: a repeated event gives the same verdict, and the server applies verdicts idempotently.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { CallbackReply, CallbackVerdict, InboundCallback, PayoutUpdate } from '../types.ts';
import { idOf } from './keys.ts';
import { readTransfer, updateOf } from './transfers.ts';

export const WEBHOOK_PATH = 'webhook';
export const SIGNATURE_HEADER = 'x-paystack-signature';

const EVENT_STATUS: Readonly<Record<string, string>> = {
  'transfer.success': 'success',
  'transfer.failed': 'failed',
  'transfer.reversed': 'reversed',
};

function signed(secretKey: string, inbound: InboundCallback): boolean {
  const given = inbound.headers[SIGNATURE_HEADER]?.trim();
  if (!given || !/^[0-9a-fA-F]{128}$/.test(given)) return false;
  const expected = createHmac('sha512', secretKey).update(inbound.rawBody).digest();
  return timingSafeEqual(Buffer.from(given, 'hex'), expected);
}

const OK: CallbackReply = { status: 200 };
const refused = (reason: string) => ({ verdict: { kind: 'refused', reason } as CallbackVerdict, reply: { status: 401 } });
const ignored = (reason: string) => ({ verdict: { kind: 'ignored', reason } as CallbackVerdict, reply: OK });

export async function readCallback(secretKey: string, inbound: InboundCallback): Promise<{ verdict: CallbackVerdict; reply: CallbackReply }> {
  try {
    const path = inbound.path.replace(/^\/+|\/+$/g, '');
    if (path !== WEBHOOK_PATH || inbound.method.toUpperCase() !== 'POST') return refused(`no Paystack callback at ${inbound.method} ${path || '/'}`);
    if (!inbound.headers[SIGNATURE_HEADER]) return refused(`unsigned: no ${SIGNATURE_HEADER} header`);
    if (!signed(secretKey, inbound)) return refused(`${SIGNATURE_HEADER} does not match the body`);
    let body: unknown;
    try {
      body = JSON.parse(inbound.rawBody.toString('utf8'));
    } catch {
      return refused('signed, but the body is not JSON');
    }
    if (typeof body !== 'object' || body === null || typeof (body as { event?: unknown }).event !== 'string') return refused('signed, but not a Paystack event');
    const { event, data } = body as { event: string; data?: unknown };
    const status = EVENT_STATUS[event];
    if (!status) return ignored(`Paystack event ${event} is not one Tapline acts on`);
    const transfer = readTransfer(data);
    if (!transfer) return refused(`signed ${event} without a transfer reference`);
    const paymentId = idOf(transfer.reference);
    if (!paymentId) return ignored(`${event} for reference ${transfer.reference}, not a Tapline payout`);
    const update: PayoutUpdate = updateOf({ ...transfer, status });
    return { verdict: { kind: 'payout', paymentId, update }, reply: OK };
  } catch (error) {
    // Never throws: anything unexpected is refused (and changes nothing).
    return refused(`unreadable callback (${error instanceof Error ? error.name : 'error'})`);
  }
}
