// The M-Pesa (Safaricom Daraja) rail adapter: assembles the parts.
import type { CollectionRequest, CollectionUpdate, RailAdapter, RailAdapterDeps } from '../types.ts';
import { createCallbacks } from './callbacks.ts';
import { DarajaClient } from './client.ts';
import { createCollections } from './collections.ts';
import { type MpesaConfig, securityCredentialOf } from './config.ts';
import type { MpesaContext } from './context.ts';
import { BoundedMap, type CollectionMemory, type PayoutMemory, StatusWaiters } from './memory.ts';
import { createPayouts } from './payouts.ts';
import { type ReversalRequested, createReversals } from './reversal.ts';
import { createStatus } from './status.ts';
import { formatKes, idOf, keyOf, wholeShillings } from './wire.ts';

export interface MpesaAdapter extends RailAdapter {
  readonly name: 'mpesa';
  /**
   * Optional member (not in RailAdapter): asks Daraja's Reversal API to reverse an M-Pesa
   * transaction for our payment; the result arrives at /api/rails/mpesa/reversal/result/... and
   * becomes a `reversed` payout verdict. See reversal.ts: the pages say B2C payouts cannot be
   * reversed through this API.
   */
  reverse(paymentId: string, transactionId: string, amount: number): Promise<ReversalRequested>;
  /** As RailAdapter's, plus the providerReference collect returned (so it works after a restart). */
  collectionStatus?(request: CollectionRequest, checkoutRequestId?: string): Promise<CollectionUpdate>;
}

export function createMpesaAdapter(config: MpesaConfig, deps: RailAdapterDeps): MpesaAdapter {
  const securityCredential = securityCredentialOf(config);
  const context: MpesaContext = {
    config,
    deps,
    client: new DarajaClient(config, deps, securityCredential),
    securityCredential,
    payouts: new BoundedMap<PayoutMemory>(),
    collections: new BoundedMap<CollectionMemory>(),
    waiters: new StatusWaiters(),
  };
  const payouts = createPayouts(context);
  const status = createStatus(context);
  const reversals = createReversals(context);
  const collections = config.passkey ? createCollections(context, config.passkey) : undefined;
  const { callback } = createCallbacks(context, { payouts, status, reversals, collections });
  return {
    name: 'mpesa',
    // B2C pays M-Pesa customers' phones in Kenya (BusinessToCustomer.md): mobile money to KE only.
    supports: (rail, toCountry) => rail === 'mobile_money' && toCountry === 'KE',
    keyOf,
    idOf,
    submit: payouts.submit,
    poll: status.poll,
    lookup: status.lookup,
    // A B2C payout reversed on the M-PESA portal is told to no one (Reversal.md, B2C FAQ 17): a
    // completed payout is asked about for a week, the asks thinning out as it ages.
    watchAfterCompletionMs: 7 * 24 * 3_600_000,
    // B2C pays whole shillings only (wire.ts): an amount with cents is refused before any debit.
    refuseAmount: (amount, currency) =>
      currency === 'KES' && wholeShillings(amount) === undefined ? `M-Pesa pays whole shillings only (${formatKes(amount)} has cents): send an amount that converts to whole shillings` : undefined,
    reverse: reversals.reverse,
    callback,
    // M-Pesa Express prompts Kenyan (Safaricom) phones only (MpesaExpressSimulate.md).
    ...(collections
      ? { collect: collections.collect, collectionStatus: collections.collectionStatus, collectionRecord: collections.collectionRecord, collectsIn: (country: string) => country === 'KE' }
      : {}),
  };
}
