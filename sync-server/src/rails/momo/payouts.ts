// Payouts: Disbursements `POST /disbursement/v1_0/transfer` and its status GET
// (use-cases.md, "Transfer": "Transfer is used for transferring money from the provider account to
// a customer ... The Provider can use the GET request to validate the status of the transfer").
import type { PayoutRequest, PayoutUpdate, RailAdapterDeps } from '../types.ts';
import { type MomoClient, MomoError } from './client.ts';
import type { MomoConfig } from './config.ts';
import type { KeyBook } from './keys.ts';
import { currenciesFor, marketOf } from './markets.ts';
import { REVERSED_REASON, failureReason } from './reasons.ts';
import { createResource, fetchResource } from './resources.ts';
import { type MomoResource, type TransferBody, amountText, messageText, msisdnOf, phaseOf } from './wire.ts';

export const TRANSFER_PATH = '/disbursement/v1_0/transfer';
export const DISBURSEMENT_CALLBACK_PURPOSE = 'momo-disbursement';

/** The transfer's state as our PayoutUpdate. providerReference: MoMo's financialTransactionId once it has one, else our X-Reference-Id. */
export function payoutUpdateOf(resource: MomoResource, referenceId: string): PayoutUpdate {
  const providerReference = resource.financialTransactionId ?? referenceId;
  switch (phaseOf(resource.status)) {
    case 'pending':
      return { status: 'processing', providerReference };
    case 'successful':
      return { status: 'completed', providerReference };
    case 'failed':
      return { status: 'failed', providerReference, failureReason: failureReason('payout', resource.reasonCode ?? (resource.status === 'FAILED' ? undefined : resource.status)) };
    case 'reversed':
      return { status: 'reversed', providerReference, failureReason: REVERSED_REASON };
    default: {
      const shown = /^[A-Z_]{1,32}$/.test(resource.status) ? resource.status : 'unreadable';
      throw new MomoError(`MTN MoMo reported a transfer status this adapter does not know (${shown}): outcome unknown`);
    }
  }
}

export class MomoPayouts {
  constructor(
    private readonly config: MomoConfig,
    private readonly deps: RailAdapterDeps,
    private readonly client: MomoClient,
    private readonly keys: KeyBook,
  ) {}

  callbackUrl(paymentId: string): string {
    const token = this.deps.callbackToken(DISBURSEMENT_CALLBACK_PURPOSE, paymentId);
    return `${this.deps.publicBaseUrl}/api/rails/momo/disbursement/${encodeURIComponent(paymentId)}/${encodeURIComponent(token)}`;
  }

  /** What MoMo says of our payment's transfer; undefined when it never heard of its reference id. */
  async status(paymentId: string): Promise<PayoutUpdate | undefined> {
    const referenceId = this.keys.keyOf(paymentId);
    const resource = await fetchResource(this.client, 'disbursement', `${TRANSFER_PATH}/${referenceId}`);
    if (!resource) return undefined;
    this.keys.learn(referenceId, resource.externalId);
    if (resource.externalId !== undefined && resource.externalId !== paymentId) {
      throw new MomoError(`MTN MoMo's transfer ${referenceId} carries another externalId than the payment it was derived from`);
    }
    return payoutUpdateOf(resource, referenceId);
  }

  /** A refusal we can tell before sending anything (never a guess: only what MoMo cannot pay). */
  private refusal(request: PayoutRequest): string | undefined {
    const market = marketOf(this.config.targetEnvironment, request.toCountry);
    if (request.rail !== 'mobile_money' || !market) return `MTN MoMo (${this.config.targetEnvironment}) does not pay ${request.rail} in ${request.toCountry}`;
    const phone = request.receiver.phone;
    if (!phone) return 'MTN MoMo pays a phone number: the receiver has none';
    if (request.receiver.phoneCountry && request.receiver.phoneCountry !== request.toCountry) {
      return `The receiver's number is from ${request.receiver.phoneCountry}, not ${request.toCountry}`;
    }
    const currencies = currenciesFor(this.config.targetEnvironment, request.toCountry);
    if (!currencies.includes(request.destinationCurrency)) {
      return `MTN MoMo pays ${currencies.join(' or ')} in ${request.toCountry}, not ${request.destinationCurrency}`;
    }
    if (!Number.isSafeInteger(request.destinationAmount) || request.destinationAmount <= 0) return 'The amount to pay must be a positive whole number of minor units';
    return undefined;
  }

  async submit(request: PayoutRequest): Promise<PayoutUpdate> {
    const refused = this.refusal(request);
    if (refused) return { status: 'failed', failureReason: refused };
    const referenceId = this.keys.keyOf(request.paymentId);
    const body: TransferBody = {
      amount: amountText(request.destinationAmount, request.destinationCurrency),
      currency: request.destinationCurrency,
      externalId: request.paymentId,
      payee: { partyIdType: 'MSISDN', partyId: msisdnOf(request.receiver.phone!) },
      // payerMessage is written in our (the payer's) history, payeeNote in the receiver's.
      payerMessage: messageText(request.reference ?? `Tapline payout ${request.paymentId}`),
      payeeNote: messageText(request.note ?? (request.senderName ? `From ${request.senderName}` : 'Tapline payout')),
    };
    const created = await createResource(this.client, this.deps, 'disbursement', TRANSFER_PATH, referenceId, this.callbackUrl(request.paymentId), body);
    if (created.kind === 'accepted') return { status: 'processing', providerReference: referenceId };
    // Sent before (or refused now): MoMo's own record decides. A refusal whose reference MoMo
    // never heard of is final; a reference it knows is answered with its state.
    const known = await this.status(request.paymentId);
    if (known) return known;
    if (created.kind === 'duplicate') throw new MomoError(`MTN MoMo said transfer ${referenceId} exists but has no record of it: outcome unknown`, 409);
    if (created.code === 'BAD_REQUEST') {
      return { status: 'failed', failureReason: `MTN MoMo turned the transfer down as invalid${created.message ? `: ${created.message}` : ''}` };
    }
    return { status: 'failed', failureReason: failureReason('payout', created.code) };
  }

  async lookup(request: PayoutRequest): Promise<PayoutUpdate | undefined> {
    return this.status(request.paymentId);
  }

  async poll(request: PayoutRequest): Promise<PayoutUpdate> {
    const update = await this.status(request.paymentId);
    if (!update) throw new MomoError(`MTN MoMo has no transfer for payment ${request.paymentId} (yet): outcome unknown`, 404);
    return update;
  }
}
