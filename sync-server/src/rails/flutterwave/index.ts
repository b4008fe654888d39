// Flutterwave (v3): payouts to bank accounts and mobile money wallets, their webhooks, the day's
// transfers, transfer rates, Nigerian bill payments, and mobile money collections (Direct Charge
// in KE, GH, UG, RW, ZM, TZ and the francophone countries, charges.ts) with their charge.completed
// webhook, permanent NGN virtual account numbers for wallet top-ups by bank transfer
// (virtual-accounts.ts), and the day's transactions for the reconciliation (incoming.ts). Built
// from Flutterwave's Node SDK (Flutterwave/Node-v3) and developer.flutterwave.com;
// test/fakes/flutterwave/README.md says which file or page each path and field came from.
import type { Rail } from '../../modules/payments/index.ts';
import type { RailAdapter, RailAdapterDeps, RailAdapterModule } from '../types.ts';
import { createCallbacks } from './callbacks.ts';
import { collectsIn } from './charges.ts';
import { createCollections } from './collections.ts';
import { createClient } from './client.ts';
import { FLUTTERWAVE_ENV_VARS, type FlutterwaveConfig, configFromEnv } from './config.ts';
import { needsSender, supportsDestination } from './destinations.ts';
import { createIncoming } from './incoming.ts';
import { idOf, keyOf } from './keys.ts';
import { type TransferRate, createRates } from './rates.ts';
import { createReconcile } from './reconcile.ts';
import { createTransfers } from './transfers.ts';
import { createVirtualAccounts } from './virtual-accounts.ts';

import { createFlutterwaveBiller } from './bills.ts';

export { createFlutterwaveBiller };
export type { FlutterwaveConfig, FlutterwaveSender } from './config.ts';
export type { TransferRate } from './rates.ts';
export { accountIdOf, accountKeyOf, chargeIdOf, chargeKeyOf, idOf, keyOf } from './keys.ts';
export { walletEmail as virtualAccountEmail } from './virtual-accounts.ts';
export { placeholderEmail } from './collections.ts';
export { CHARGE_MARKETS } from './charges.ts';

/** The adapter, plus Flutterwave's transfer rate (an optional member: not in RailAdapter). */
export interface FlutterwaveAdapter extends RailAdapter {
  /** What `amount` (minor units of `destination`) costs in `source` at Flutterwave's transfer rate. */
  rate(amount: number, source: string, destination: string): Promise<TransferRate>;
}

/** The adapter with its `rate` member typed (the module's create returns the same object as a RailAdapter). */
export function createFlutterwaveAdapter(config: FlutterwaveConfig, deps: RailAdapterDeps): FlutterwaveAdapter {
  const client = createClient(config, deps);
  const transfers = createTransfers(config, deps, client);
  const collections = createCollections(client, deps);
  const virtualAccounts = createVirtualAccounts(client, deps);
  const { callback } = createCallbacks(config, deps, transfers, collections, virtualAccounts);
  return {
    name: 'flutterwave',
    supports: (rail: Rail, toCountry: string) => supportsDestination(config, rail, toCountry),
    needsSender: (request) => needsSender(request.rail, request.toCountry),
    submit: transfers.submit,
    poll: transfers.poll,
    lookup: transfers.lookup,
    keyOf,
    idOf,
    collect: collections.collect,
    collectionStatus: collections.collectionStatus,
    collectionRecord: collections.collectionRecord,
    collectsIn,
    callback,
    virtualAccounts,
    transactionsOn: createReconcile(client, transfers),
    incomingOn: createIncoming(client),
    bankTransferRecord: async (reference) => (await virtualAccounts.verifyTransfer(reference)).transfer,
    rate: createRates(client),
    // Flutterwave retries a webhook only when the merchant turned retries on in its dashboard, and
    // a transfer reversed after it succeeded is announced only by webhook: one lost would leave the
    // payout completed here while the money came back (the daily reconciliation reports such a
    // disagreement but never moves money). So a completed payout is asked about for three days, the
    // asks thinning out as it ages, as MoMo's are.
    watchAfterCompletionMs: 3 * 24 * 3_600_000,
  };
}

const flutterwave: RailAdapterModule<FlutterwaveConfig> = {
  name: 'flutterwave',
  envVars: FLUTTERWAVE_ENV_VARS,
  configFromEnv,
  create: createFlutterwaveAdapter,
  createBiller: createFlutterwaveBiller,
};

export default flutterwave;
