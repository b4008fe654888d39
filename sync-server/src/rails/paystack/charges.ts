// A Paystack charge (POST /charge's answer, GET /transaction/verify/{reference}, the charge.success
// webhook's `data`) read into what a collection needs, and its status into a CollectionUpdate.
//
// Statuses, from Paystack's own answers (doc-code-snippets api/charges/create and check, and the
// mobile money examples payment-methods/mobile-*): POST /charge answers `success`, `pending`,
// `pay_offline` (the customer approves on their phone: Ghana's MTN and AirtelTigo, Kenya's
// M-PESA), `send_otp` (Ghana's Vodafone/Telecel: "dial *110# to generate a voucher code. Then
// input the voucher"), `send_pin`, `send_phone`, `send_birthday`, `send_address`, `open_url`;
// the check answers `failed` with a message ("Insufficient funds"); transactions also end
// `abandoned` or `reversed` (openapi.yaml GET /transaction `status` enum). Read as:
//   success                                     -> completed
//   pending, pay_offline, ongoing, processing, queued -> pending (the customer has not finished)
//   failed, abandoned, reversed                 -> failed, in words
//   send_otp, send_pin, send_phone, send_birthday, send_address, open_url -> failed: Paystack
//     waits for something the customer must type or open (an OTP, a voucher, a PIN, a page) and
//     passes on through /charge/submit_*; a till collection carries only a phone and an amount,
//     so there is nothing to submit and the charge can never complete. Nothing was taken; the
//     reason tells the cashier to take another tender (or a number on another network).
//   anything else                               -> unknown: throws (asked again later)
import type { CollectionUpdate } from '../types.ts';
import { PaystackUnavailable } from './client.ts';

export interface PaystackCharge {
  status: string;
  reference: string;
  amount: number | undefined;
  currency: string | undefined;
  /** Paystack's words for a failure (`message`, else `gateway_response`). */
  detail: string | undefined;
}

const PENDING = new Set(['pending', 'pay_offline', 'ongoing', 'processing', 'queued']);
const FAILED = new Set(['failed', 'abandoned', 'reversed']);
const NEEDS_INPUT = new Set(['send_otp', 'send_pin', 'send_phone', 'send_birthday', 'send_address', 'open_url']);
const DETAIL_LENGTH_MAX = 120;

export function readCharge(value: unknown): PaystackCharge | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const data = value as Record<string, unknown>;
  if (typeof data.status !== 'string' || typeof data.reference !== 'string') return undefined;
  const text = (field: unknown) => (typeof field === 'string' && field.trim() !== '' ? field.trim().slice(0, DETAIL_LENGTH_MAX) : undefined);
  return {
    status: data.status,
    reference: data.reference,
    amount: typeof data.amount === 'number' ? data.amount : undefined,
    currency: text(data.currency),
    // `message` is Paystack's sentence on a failed charge ("Insufficient funds"); on a success it
    // is a code word ("madePayment"), never read then.
    detail: text(data.message) ?? text(data.gateway_response),
  };
}

export function chargeUpdateOf(charge: PaystackCharge): CollectionUpdate {
  const providerReference = charge.reference;
  if (charge.status === 'success') return { status: 'completed', providerReference, ...(charge.amount === undefined ? {} : { paid: { amount: charge.amount, currency: charge.currency } }) };
  if (PENDING.has(charge.status)) return { status: 'pending', providerReference };
  if (NEEDS_INPUT.has(charge.status)) {
    const what = charge.status === 'send_otp' ? 'a one-time code (OTP or voucher) from the customer\'s phone' : charge.status === 'open_url' ? 'the customer to open a web page' : `the customer's ${charge.status.slice('send_'.length)}`;
    return {
      status: 'failed',
      providerReference,
      failureReason: `Paystack needs ${what} to take this payment, which the till cannot pass on: nothing was taken. Take another tender, or a number on another mobile money network.`,
    };
  }
  if (FAILED.has(charge.status)) {
    const detail = charge.detail ? ` (Paystack: ${charge.detail})` : '';
    if (charge.status === 'abandoned') return { status: 'failed', providerReference, failureReason: `No answer from the customer: Paystack abandoned the charge${detail}` };
    if (charge.status === 'reversed') return { status: 'failed', providerReference, failureReason: `Paystack reversed the charge${detail}: the money went back to the customer` };
    return { status: 'failed', providerReference, failureReason: `The customer did not pay${detail}` };
  }
  const shown = /^[a-z_]{1,32}$/.test(charge.status) ? charge.status : 'unreadable';
  throw new PaystackUnavailable(`Paystack reported a charge status this adapter does not know (${shown})`);
}
