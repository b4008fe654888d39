// Payouts: submit (recipient, then POST /transfer with our idempotency key as `reference`), lookup
// and poll (GET /transfer/verify/{reference}).
//
// Never pays twice: the reference is keyOf(paymentId), the same on every attempt, and Paystack
// refuses a second transfer under it ("Please provide a unique reference. Reference already exists
// on a transfer", api-errors.json): that answer means an earlier attempt got through, and submit
// answers with what verify says of it. No answer, a 5xx or an unreadable answer throws (outcome
// unknown; the scheduler looks the key up before any resend). A payout is only ever answered
// `failed` after Paystack has refused it AND verify confirms no transfer exists under the key, so
// a refusal can never hide an earlier attempt that is paying.
import type { PayoutRequest, PayoutUpdate, RailAdapterDeps } from '../types.ts';
import type { BankDirectory } from './banks.ts';
import { isRefusal, type PaystackClient, PaystackUnavailable, paystackMessage } from './client.ts';
import { keyOf } from './keys.ts';
import { createRecipient, recipientFor } from './recipients.ts';
import { readTransfer, updateOf } from './transfers.ts';

// The documents give no limit for `reason` (the narration); kept short, as banks truncate it.
const REASON_LENGTH_MAX = 100;
const DUPLICATE_REFERENCE = /reference already exists/i;
// GET /transfer/verify answers 404 (openapi.yaml NotFound) for a reference it never saw;
// api-errors.json words it "Transfer not found".
const NOT_FOUND = /transfer not found/i;

export interface Payouts {
  submit(request: PayoutRequest): Promise<PayoutUpdate>;
  lookup(request: PayoutRequest): Promise<PayoutUpdate | undefined>;
  poll(request: PayoutRequest, providerReference: string | null): Promise<PayoutUpdate>;
}

export function payouts(client: PaystackClient, directory: BankDirectory, deps: Pick<RailAdapterDeps, 'log'>): Payouts {
  /** Paystack's record of the transfer under this reference; undefined when it has none. */
  async function verify(key: string): Promise<PayoutUpdate | undefined> {
    const answer = await client.get(`/transfer/verify/${encodeURIComponent(key)}`);
    if (answer.httpStatus === 200 && answer.body.status) {
      const transfer = readTransfer(answer.body.data);
      if (!transfer || transfer.reference !== key) throw new PaystackUnavailable('Paystack GET /transfer/verify answered 200 without the transfer asked for');
      if (transfer.status === 'otp') deps.log('paystack transfer waits for an OTP: disable the Transfers OTP in the Paystack dashboard', { reference: key });
      return updateOf(transfer);
    }
    const message = paystackMessage(answer.body);
    if (!answer.body.status && (answer.httpStatus === 404 || (answer.httpStatus >= 400 && answer.httpStatus < 500 && NOT_FOUND.test(message)))) return undefined;
    throw new PaystackUnavailable(`Paystack GET /transfer/verify answered ${answer.httpStatus}: ${message}`);
  }

  async function refuse(key: string, reason: string): Promise<PayoutUpdate> {
    return (await verify(key)) ?? { status: 'failed', failureReason: reason };
  }

  async function submit(request: PayoutRequest): Promise<PayoutUpdate> {
    const key = keyOf(request.paymentId);
    if (!Number.isSafeInteger(request.destinationAmount) || request.destinationAmount <= 0) {
      return refuse(key, 'Paystack pays whole, positive amounts in the currency\'s subunits.');
    }
    const recipient = await recipientFor(request, directory);
    if ('refusal' in recipient) return refuse(key, recipient.refusal);
    const created = await createRecipient(client, recipient.body);
    if ('refusal' in created) return refuse(key, created.refusal);
    const reason = (request.reference ?? request.note ?? '').trim() || 'Tapline payout';
    const answer = await client.post('/transfer', {
      source: 'balance',
      amount: request.destinationAmount,
      recipient: created.recipientCode,
      reference: key,
      reason: reason.slice(0, REASON_LENGTH_MAX),
      currency: recipient.body.currency,
    });
    const message = paystackMessage(answer.body);
    if (answer.httpStatus === 200 && answer.body.status) {
      const transfer = readTransfer(answer.body.data);
      if (transfer && transfer.reference === key) {
        if (transfer.status === 'otp') deps.log('paystack transfer waits for an OTP: disable the Transfers OTP in the Paystack dashboard', { reference: key });
        return updateOf(transfer);
      }
      // Accepted, but the answer does not say what became of it: ask.
      const known = await verify(key);
      if (known) return known;
      throw new PaystackUnavailable('Paystack POST /transfer answered 200 but verify does not know the transfer yet');
    }
    if (answer.httpStatus >= 400 && answer.httpStatus < 500 && !answer.body.status && DUPLICATE_REFERENCE.test(message)) {
      // Sent before (a lost answer, a crash): that transfer is the payout.
      const known = await verify(key);
      if (known) return known;
      throw new PaystackUnavailable('Paystack says the reference exists but verify does not find it');
    }
    if (isRefusal(answer)) return refuse(key, `Paystack refused the transfer: ${message || `status ${answer.httpStatus}`}.`);
    throw new PaystackUnavailable(`Paystack POST /transfer answered ${answer.httpStatus}: ${message}`);
  }

  return {
    submit,
    lookup: (request) => verify(keyOf(request.paymentId)),
    async poll(request) {
      const key = keyOf(request.paymentId);
      const update = await verify(key);
      if (!update) throw new PaystackUnavailable(`Paystack has no transfer under reference ${key} (yet)`);
      return update;
    },
  };
}
