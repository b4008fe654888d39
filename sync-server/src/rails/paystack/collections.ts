// Mobile money collections (a customer pays from her phone): POST /charge with `mobile_money`, and
// the charge's state from GET /transaction/verify/{reference}.
//
// Exactly once: the charge's `reference` is chargeKeyOf(collectionId) (keys.ts), the same on every
// attempt, and Paystack refuses a second charge under it ("Duplicate Transaction Reference",
// openapi.yaml ErrorMeta example, code duplicate_reference): that answer means an earlier attempt
// got through, and collect answers with what verify says of it. No answer, a 5xx or an unreadable
// answer throws (outcome unknown): the collections module never charges again, it polls
// collectionStatus. A collection is answered `failed` only on Paystack's own word (a refusal of
// the charge, or a failed/abandoned charge), never because verify does not know the reference:
// that is "not found", and collectionStatus throws (the charge may still be on its way).
//
// Paystack requires an `email` (ChargeCreate.required; api-errors.json "Email address is required
// to create charge"). A collection has none, so each is sent under a placeholder that names it and
// can never reach anyone: `<keyOf(collectionId)>@collections.invalid` (`.invalid` is reserved by
// RFC 2606; keyOf's alphabet is valid in an address, the collection id's own may not be).
// `currency` is sent as every mobile money example does (ChargeCreate's schema does not list it).
import type { CollectionRequest, CollectionUpdate, RailAdapterDeps } from '../types.ts';
import { chargeUpdateOf, readCharge } from './charges.ts';
import { isRefusal, type PaystackClient, PaystackUnavailable, paystackMessage } from './client.ts';
import { chargeKeyOf, keyOf } from './keys.ts';
import { chargeTarget } from './operators.ts';

export const PLACEHOLDER_EMAIL_DOMAIN = 'collections.invalid';
const DUPLICATE_REFERENCE = /duplicate transaction reference|reference already exists/i;
// GET /transaction/verify answers 404 (openapi.yaml NotFound) for a reference it never saw;
// api-errors.json words it "Transaction reference not found" / "Transaction not found".
const NOT_FOUND = /transaction (reference )?not found/i;

export function placeholderEmail(collectionId: string): string {
  return `${keyOf(collectionId)}@${PLACEHOLDER_EMAIL_DOMAIN}`;
}

export interface Collections {
  collect(request: CollectionRequest): Promise<CollectionUpdate>;
  collectionStatus(request: CollectionRequest): Promise<CollectionUpdate>;
  collectionRecord(request: CollectionRequest): Promise<CollectionUpdate | undefined>;
  /** Paystack's record of the charge under this reference; undefined when it has none. */
  status(reference: string): Promise<CollectionUpdate | undefined>;
}

export function collections(client: PaystackClient, deps: Pick<RailAdapterDeps, 'log'>): Collections {
  async function verified(reference: string) {
    const answer = await client.get(`/transaction/verify/${encodeURIComponent(reference)}`);
    if (answer.httpStatus === 200 && answer.body.status) {
      const charge = readCharge(answer.body.data);
      if (!charge || charge.reference !== reference) throw new PaystackUnavailable('Paystack GET /transaction/verify answered 200 without the charge asked for');
      return charge;
    }
    if (answer.httpStatus === 404 || (answer.httpStatus === 400 && NOT_FOUND.test(paystackMessage(answer.body)))) return undefined;
    throw new PaystackUnavailable(`Paystack GET /transaction/verify answered ${answer.httpStatus}: ${paystackMessage(answer.body)}`);
  }

  async function status(reference: string): Promise<CollectionUpdate | undefined> {
    const charge = await verified(reference);
    return charge && chargeUpdateOf(charge);
  }

  async function collect(request: CollectionRequest): Promise<CollectionUpdate> {
    const target = chargeTarget(request.phone, request.currency);
    if ('refusal' in target) return { status: 'failed', failureReason: target.refusal };
    if (!Number.isSafeInteger(request.amount) || request.amount <= 0) return { status: 'failed', failureReason: 'The amount to collect must be a positive whole number of minor units' };
    const reference = chargeKeyOf(request.collectionId);
    const answer = await client.post('/charge', {
      email: placeholderEmail(request.collectionId),
      // ChargeCreate.amount: "in kobo if currency is NGN, pesewas, if currency is GHS": minor units, as ours.
      amount: request.amount,
      currency: request.currency,
      reference,
      mobile_money: { phone: target.phone, provider: target.provider },
    });
    const message = paystackMessage(answer.body);
    if (answer.httpStatus === 200 && answer.body.status) {
      const charge = readCharge(answer.body.data);
      if (charge && charge.reference === reference) return chargeUpdateOf(charge);
      // Accepted, but the answer does not say what became of it: ask.
      const known = await status(reference);
      if (known) return known;
      throw new PaystackUnavailable('Paystack POST /charge answered 200 but verify does not know the charge yet');
    }
    if (answer.httpStatus >= 400 && answer.httpStatus < 500 && !answer.body.status && DUPLICATE_REFERENCE.test(message)) {
      // Sent before (a lost answer, a crash): that charge is the collection.
      const known = await status(reference);
      if (known) return known;
      throw new PaystackUnavailable('Paystack says the charge reference exists but verify does not find it');
    }
    if (isRefusal(answer)) {
      // Collections ask once, but a refusal never hides a charge an earlier attempt made.
      const known = await status(reference);
      if (known) return known;
      return { status: 'failed', failureReason: `Paystack refused to charge ${target.operatorName}: ${message || `status ${answer.httpStatus}`}` };
    }
    throw new PaystackUnavailable(`Paystack POST /charge answered ${answer.httpStatus}: ${message}`);
  }

  async function collectionStatus(request: CollectionRequest): Promise<CollectionUpdate> {
    const reference = chargeKeyOf(request.collectionId);
    const charge = await verified(reference);
    if (!charge) throw new PaystackUnavailable(`Paystack has no charge under reference ${reference} (yet)`);
    // Our reference, our amount: a success for another amount or currency is never credited as ours.
    if (charge.status === 'success' && (charge.amount !== request.amount || (charge.currency !== undefined && charge.currency !== request.currency))) {
      deps.log('paystack charge succeeded for another amount than the collection asked; not credited', { reference, amount: charge.amount, currency: charge.currency });
      throw new PaystackUnavailable(`Paystack's charge ${reference} is for ${charge.amount ?? '?'} ${charge.currency ?? '?'}, not ${request.amount} ${request.currency}`);
    }
    return chargeUpdateOf(charge);
  }

  /** GET /transaction/verify/{reference} by our key: Paystack's record as it stands (undefined: never heard of it). */
  async function collectionRecord(request: CollectionRequest): Promise<CollectionUpdate | undefined> {
    return status(chargeKeyOf(request.collectionId));
  }

  return { collect, collectionStatus, collectionRecord, status };
}
