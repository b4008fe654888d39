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
//
// Collections: `charge.success` (Paystack's mobile money sample, payment-methods/mobile-event)
// whose `data.reference` is a charge reference of ours (chargeIdOf) is a collection's. Its body is
// never believed on its own: the verdict is what GET /transaction/verify says of that reference,
// asked before any money moves, as the M-Pesa and MoMo callbacks are confirmed. When verify cannot
// answer now, the event is acknowledged and ignored: the collections job polls the charge until
// it expires. The documents show no failure event for charges; failures are found by polling.
//
// Bank transfers into a wallet's dedicated virtual account: `charge.success` with data.channel
// `dedicated_nuban` (virtual-accounts.ts). Its reference is Paystack's own, not ours; the verdict is
// again what GET /transaction/verify says of it (a success on that channel, into an account named
// in its authorization), and the wallet is credited once under that reference. A verified transfer
// of amount 0 is acknowledged (200, so that Paystack stops resending it), logged and never credited.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ArrivedBankTransfer, CallbackReply, CallbackVerdict, CollectionUpdate, InboundCallback, PayoutUpdate, RailAdapterDeps } from '../types.ts';
import { chargeIdOf, idOf } from './keys.ts';
import { readTransfer, updateOf } from './transfers.ts';
import { DVA_CHANNEL } from './virtual-accounts.ts';

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

export const CHARGE_SUCCESS = 'charge.success';

/** What the collections side offers the webhook: Paystack's own record of a charge (undefined: none). */
export interface ChargeLookup {
  status(reference: string): Promise<CollectionUpdate | undefined>;
  /** Paystack's verified record of a bank transfer into a virtual account (undefined: none, or not one). */
  bankTransfer?(reference: string): Promise<ArrivedBankTransfer | undefined>;
  log: RailAdapterDeps['log'];
}

async function bankTransferVerdict(data: unknown, charges: ChargeLookup & Required<Pick<ChargeLookup, 'bankTransfer'>>): Promise<{ verdict: CallbackVerdict; reply: CallbackReply }> {
  const reference = (data as { reference?: unknown } | undefined)?.reference;
  if (typeof reference !== 'string' || reference === '') return refused(`signed ${CHARGE_SUCCESS} without a reference`);
  let transfer: ArrivedBankTransfer | undefined;
  try {
    transfer = await charges.bankTransfer(reference);
  } catch (error) {
    // Not acknowledged: Paystack sends it again, and a requery asks for it too.
    charges.log('paystack dedicated_nuban charge.success could not be confirmed with verify now', { reference: reference.slice(0, 60), error: error instanceof Error ? error.message : 'unknown error' });
    return { verdict: { kind: 'ignored', reason: 'could not be confirmed with Paystack now' }, reply: { status: 503 } };
  }
  if (!transfer) return refused(`Paystack has no successful ${DVA_CHANNEL} transaction under ${reference.slice(0, 60)}`);
  if (transfer.amount === 0) {
    // Genuine, but nothing to credit: acknowledged so that Paystack stops sending it, and logged.
    charges.log('paystack dedicated_nuban charge.success of amount 0: acknowledged, nothing credited', { reference: reference.slice(0, 60), accountNumber: transfer.accountNumber?.slice(-4) });
    return ignored(`${CHARGE_SUCCESS} of amount 0 under ${reference.slice(0, 60)}: nothing to credit`);
  }
  return { verdict: { kind: 'bank_transfer', transfer }, reply: OK };
}

async function chargeVerdict(data: unknown, charges: ChargeLookup): Promise<{ verdict: CallbackVerdict; reply: CallbackReply }> {
  const reference = (data as { reference?: unknown } | undefined)?.reference;
  if (typeof reference !== 'string' || reference === '') return refused(`signed ${CHARGE_SUCCESS} without a reference`);
  const collectionId = chargeIdOf(reference);
  if (!collectionId) return ignored(`${CHARGE_SUCCESS} for reference ${reference.slice(0, 60)}, not a Tapline collection`);
  let update: CollectionUpdate | undefined;
  try {
    update = await charges.status(reference);
  } catch (error) {
    charges.log('paystack charge.success could not be confirmed with verify now; polling will settle it', { collectionId, error: error instanceof Error ? error.message : 'unknown error' });
    return ignored('could not be confirmed with Paystack now; polling will settle it');
  }
  if (!update) return refused(`Paystack has no charge under ${reference.slice(0, 60)}`);
  return { verdict: { kind: 'collection', collectionId, update }, reply: OK };
}

export async function readCallback(secretKey: string, inbound: InboundCallback, charges?: ChargeLookup): Promise<{ verdict: CallbackVerdict; reply: CallbackReply }> {
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
    if (event === CHARGE_SUCCESS && charges?.bankTransfer && (data as { channel?: unknown } | undefined)?.channel === DVA_CHANNEL) {
      return await bankTransferVerdict(data, { ...charges, bankTransfer: charges.bankTransfer });
    }
    if (event === CHARGE_SUCCESS && charges) return await chargeVerdict(data, charges);
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
