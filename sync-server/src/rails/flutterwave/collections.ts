// Mobile money collections (a customer pays from her phone): POST /v3/charges?type=<market's type>
// (charges.ts), and the charge's state from GET /v3/transactions/verify_by_reference?tx_ref=
// (the SDK's Transaction.verify_by_tx; services/transactions/rave.verify-by-txref.js).
//
// Exactly once: the charge's tx_ref is chargeKeyOf(collectionId) (keys.ts), the same on every
// attempt, and it is the merchant's unique reference at Flutterwave. A refusal (4xx) is first
// checked against verify_by_reference: a charge Flutterwave already holds under the tx_ref (an
// earlier attempt whose answer was lost) answers for itself, whatever the refusal says; only then
// is the refusal read as a failure. No answer, a 5xx (Flutterwave's 503 after about 28 s "does not
// mean the request failed"), a 401/429 or an unreadable answer throw: outcome unknown, and the
// collections module never charges again, it polls collectionStatus. A collection is answered
// `failed` only on Flutterwave's own word, never because verify does not know the tx_ref yet (that
// throws: the charge may still be on its way).
//
// `email` is required (momoSchema). A collection has none, so each is sent under a placeholder
// that names it and can never reach anyone: `<chargeKeyOf(collectionId)>@collections.invalid`
// (`.invalid` is reserved by RFC 2606); the key's alphabet (a-z, 0-9, '_', '-') is valid in an
// address. `amount` is in major units (the SDK's samples: "1500" UGX, "10" KES), sent as a JSON
// number from our minor units (exact: toMajor).
import { MoneyError, toMajor } from '@tapline/shared/money';
import type { CollectionRequest, CollectionUpdate, RailAdapterDeps } from '../types.ts';
import { chargeTarget, chargeUpdateOf, readCharge, type ChargeRecord } from './charges.ts';
import { type FlutterwaveClient, FlutterwaveError, errorOf, isRefusal, successData } from './client.ts';
import { chargeKeyOf } from './keys.ts';

export const PLACEHOLDER_EMAIL_DOMAIN = 'collections.invalid';
// What Flutterwave says of a tx_ref it never saw (the fake uses the first; the wording is not in
// the SDK's documents, so any "not found" sentence counts).
const NOT_FOUND = /no transaction was found|transaction not found|not found/i;

export function placeholderEmail(collectionId: string): string {
  return `${chargeKeyOf(collectionId)}@${PLACEHOLDER_EMAIL_DOMAIN}`;
}

export interface Collections {
  collect(request: CollectionRequest): Promise<CollectionUpdate>;
  collectionStatus(request: CollectionRequest): Promise<CollectionUpdate>;
  collectionRecord(request: CollectionRequest): Promise<CollectionUpdate | undefined>;
  /** Flutterwave's record of the charge under this tx_ref; undefined when it has none. */
  verify(txRef: string): Promise<ChargeRecord | undefined>;
}

export function createCollections(client: FlutterwaveClient, deps: Pick<RailAdapterDeps, 'log'>): Collections {
  async function verify(txRef: string): Promise<ChargeRecord | undefined> {
    const what = 'GET /v3/transactions/verify_by_reference';
    const answer = await client.request('GET', '/v3/transactions/verify_by_reference', { query: { tx_ref: txRef } });
    if (answer.httpStatus === 404 || (answer.httpStatus >= 400 && answer.httpStatus < 500 && isRefusal(answer) && NOT_FOUND.test(client.messageOf(answer.body) ?? ''))) return undefined;
    const data = successData(client, answer, what);
    const record = readCharge(data);
    if (!record || record.txRef !== txRef) throw new FlutterwaveError('malformed', `Flutterwave answered ${what} without the charge asked for`);
    return record;
  }

  async function collect(request: CollectionRequest): Promise<CollectionUpdate> {
    const target = chargeTarget(request.phone, request.currency);
    if ('refusal' in target) return { status: 'failed', failureReason: target.refusal };
    if (!Number.isSafeInteger(request.amount) || request.amount <= 0) return { status: 'failed', failureReason: 'The amount to collect must be a positive whole number of minor units' };
    let amount: number;
    try {
      amount = toMajor(request.amount, request.currency);
    } catch (error) {
      if (error instanceof MoneyError) return { status: 'failed', failureReason: `Flutterwave cannot take the amount: ${error.message}` };
      throw error;
    }
    const txRef = chargeKeyOf(request.collectionId);
    const body = {
      tx_ref: txRef,
      amount,
      currency: request.currency,
      email: placeholderEmail(request.collectionId),
      phone_number: target.phone,
      ...(target.network ? { network: target.network } : {}),
      ...(target.type === 'mobile_money_franco' ? { country: target.country } : {}),
    };
    const answer = await client.request('POST', '/v3/charges', { query: { type: target.type }, body });
    if (answer.httpStatus >= 200 && answer.httpStatus < 300 && answer.body.status === 'success') {
      const record = readCharge(answer.body.data);
      if (record && record.txRef === txRef) return chargeUpdateOf(record);
      // "Charge initiated" without the charge (Ghana, Uganda, Rwanda, Zambia): meta.authorization
      // says how the customer authorises; the charge is pending until verify says otherwise.
      const authorization = (answer.body.meta as { authorization?: { mode?: unknown; redirect?: unknown } } | undefined)?.authorization;
      if (authorization?.mode === 'redirect') deps.log('flutterwave charge initiated in redirect mode: the customer authorises it with their provider; polled by verify_by_reference', { txRef, redirect: typeof authorization.redirect === 'string' ? authorization.redirect.slice(0, 200) : undefined });
      return { status: 'pending' };
    }
    if (!isRefusal(answer)) throw errorOf(client, answer, 'POST /v3/charges');
    // Refused: a charge Flutterwave already holds under this tx_ref (a resend) answers for itself.
    const existing = await verify(txRef);
    if (existing) return chargeUpdateOf(existing);
    const said = client.messageOf(answer.body);
    return { status: 'failed', failureReason: said ? `Flutterwave refused the charge: ${said}` : `Flutterwave refused the charge (HTTP ${answer.httpStatus})` };
  }

  async function collectionStatus(request: CollectionRequest): Promise<CollectionUpdate> {
    const txRef = chargeKeyOf(request.collectionId);
    const record = await verify(txRef);
    if (!record) throw new FlutterwaveError('not_found', `Flutterwave has no charge under tx_ref ${txRef} (yet)`);
    const update = chargeUpdateOf(record);
    // Our tx_ref, our amount: a success for another amount or currency is never credited as ours
    // (the collections module checks `paid` too; this says why in the adapter's own words).
    if (update.status === 'completed' && (update.paid?.amount !== request.amount || update.paid.currency !== request.currency)) {
      deps.log('flutterwave charge succeeded for another amount than the collection asked; not credited', { txRef, amount: record.amount, currency: record.currency });
      throw new FlutterwaveError('malformed', `Flutterwave's charge ${txRef} is for ${record.amount ?? '?'} ${record.currency ?? '?'}, not ${toMajor(request.amount, request.currency)} ${request.currency}`);
    }
    return update;
  }

  /** GET /v3/transactions/verify_by_reference by our tx_ref: Flutterwave's record as it stands (undefined: never heard of it). */
  async function collectionRecord(request: CollectionRequest): Promise<CollectionUpdate | undefined> {
    const record = await verify(chargeKeyOf(request.collectionId));
    return record && chargeUpdateOf(record);
  }

  return { collect, collectionStatus, collectionRecord, verify };
}
