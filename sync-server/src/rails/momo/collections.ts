// Collections: `POST /collection/v1_0/requesttopay` and its status GET (use-cases.md, "Request to
// Pay": the customer approves or rejects on their phone; the request stays PENDING until then and
// ends SUCCESSFUL or FAILED; the callback is sent once, "GET is used ... if the callback was not
// received").
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import type { CollectionRequest, CollectionUpdate, RailAdapterDeps } from '../types.ts';
import { type MomoClient, MomoError } from './client.ts';
import type { MomoConfig } from './config.ts';
import type { KeyBook } from './keys.ts';
import { currenciesFor, marketOf } from './markets.ts';
import { failureReason } from './reasons.ts';
import { createResource, fetchResource } from './resources.ts';
import { type MomoResource, type RequestToPayBody, amountText, messageText, msisdnOf, phaseOf } from './wire.ts';

export const REQUEST_TO_PAY_PATH = '/collection/v1_0/requesttopay';
export const COLLECTION_CALLBACK_PURPOSE = 'momo-collection';

/** The country of an E.164 number (libphonenumber-js, as the receiver parser reads phones). */
export function countryOfPhone(phone: string): string | undefined {
  const parsed = parsePhoneNumberFromString(phone);
  return parsed?.isValid() ? parsed.country : undefined;
}

export function collectionUpdateOf(resource: MomoResource, referenceId: string): CollectionUpdate {
  const providerReference = resource.financialTransactionId ?? referenceId;
  switch (phaseOf(resource.status)) {
    case 'pending':
      return { status: 'pending', providerReference };
    case 'successful':
      return { status: 'completed', providerReference };
    case 'failed':
      return { status: 'failed', providerReference, failureReason: failureReason('collection', resource.reasonCode ?? (resource.status === 'FAILED' ? undefined : resource.status)) };
    default: {
      // A request-to-pay has no reversal in the documents; anything else is unreadable.
      const shown = /^[A-Z_]{1,32}$/.test(resource.status) ? resource.status : 'unreadable';
      throw new MomoError(`MTN MoMo reported a request-to-pay status this adapter does not know (${shown})`);
    }
  }
}

export class MomoCollections {
  constructor(
    private readonly config: MomoConfig,
    private readonly deps: RailAdapterDeps,
    private readonly client: MomoClient,
    private readonly keys: KeyBook,
  ) {}

  callbackUrl(collectionId: string): string {
    const token = this.deps.callbackToken(COLLECTION_CALLBACK_PURPOSE, collectionId);
    return `${this.deps.publicBaseUrl}/api/rails/momo/collection/${encodeURIComponent(collectionId)}/${encodeURIComponent(token)}`;
  }

  /** What MoMo says of our collection's request-to-pay; undefined when it never heard of its reference id. */
  async status(collectionId: string): Promise<CollectionUpdate | undefined> {
    const referenceId = this.keys.keyOf(collectionId);
    const resource = await fetchResource(this.client, 'collection', `${REQUEST_TO_PAY_PATH}/${referenceId}`);
    if (!resource) return undefined;
    this.keys.learn(referenceId, resource.externalId);
    if (resource.externalId !== undefined && resource.externalId !== collectionId) {
      throw new MomoError(`MTN MoMo's request-to-pay ${referenceId} carries another externalId than the collection it was derived from`);
    }
    return collectionUpdateOf(resource, referenceId);
  }

  private refusal(request: CollectionRequest): string | undefined {
    const country = countryOfPhone(request.phone);
    if (!country) return `${request.phone} is not a valid phone number`;
    if (!marketOf(this.config.targetEnvironment, country)) return `MTN MoMo (${this.config.targetEnvironment}) does not collect from ${country} numbers`;
    const currencies = currenciesFor(this.config.targetEnvironment, country);
    if (!currencies.includes(request.currency)) return `MTN MoMo collects ${currencies.join(' or ')} in ${country}, not ${request.currency}`;
    if (!Number.isSafeInteger(request.amount) || request.amount <= 0) return 'The amount to collect must be a positive whole number of minor units';
    return undefined;
  }

  /** Asks the customer to approve a payment on their phone: pending until they do (or decline). */
  async collect(request: CollectionRequest): Promise<CollectionUpdate> {
    const refused = this.refusal(request);
    if (refused) return { status: 'failed', failureReason: refused };
    const referenceId = this.keys.keyOf(request.collectionId);
    const description = messageText(request.description) || 'Tapline payment';
    const body: RequestToPayBody = {
      amount: amountText(request.amount, request.currency),
      currency: request.currency,
      externalId: request.collectionId,
      payer: { partyIdType: 'MSISDN', partyId: msisdnOf(request.phone) },
      // payerMessage is what the customer sees when asked to approve; payeeNote goes in our history.
      payerMessage: description,
      payeeNote: messageText(`Tapline ${request.collectionId}`),
    };
    const created = await createResource(this.client, this.deps, 'collection', REQUEST_TO_PAY_PATH, referenceId, this.callbackUrl(request.collectionId), body);
    if (created.kind === 'accepted') return { status: 'pending', providerReference: referenceId };
    const known = await this.status(request.collectionId);
    if (known) return known;
    if (created.kind === 'duplicate') throw new MomoError(`MTN MoMo said request-to-pay ${referenceId} exists but has no record of it: outcome unknown`, 409);
    if (created.code === 'BAD_REQUEST') {
      return { status: 'failed', failureReason: `MTN MoMo turned the payment request down as invalid${created.message ? `: ${created.message}` : ''}` };
    }
    return { status: 'failed', failureReason: failureReason('collection', created.code) };
  }

  /** The request-to-pay's state. MoMo never having heard of it throws: nothing tells whether a POST is still on its way. */
  async collectionStatus(request: CollectionRequest): Promise<CollectionUpdate> {
    const update = await this.status(request.collectionId);
    if (!update) throw new MomoError(`MTN MoMo has no request-to-pay for collection ${request.collectionId} (yet)`, 404);
    return update;
  }
}
