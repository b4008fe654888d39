// MTN Mobile Money (MoMo) Open API: payouts (Disbursements transfer), collections (Collections
// request-to-pay) and their callbacks, built from the documents vendored in vendor/momo/.
//
// Configured for payouts when MOMO_DISBURSEMENT_SUBSCRIPTION_KEY is set, for collections when
// MOMO_COLLECTION_SUBSCRIPTION_KEY is set (see config.ts). Key mapping in keys.ts, markets in
// markets.ts, callback routes in callbacks.ts.
import type { PayoutRequest, RailAdapter, RailAdapterDeps, RailAdapterModule } from '../types.ts';
import { readCallback } from './callbacks.ts';
import { MomoClient } from './client.ts';
import { MomoCollections } from './collections.ts';
import { ENV_VARS, type MomoConfig, configFromEnv } from './config.ts';
import { KeyBook } from './keys.ts';
import { marketOf } from './markets.ts';
import { MomoPayouts } from './payouts.ts';

export type { MomoConfig } from './config.ts';

function notConfigured(): never {
  throw new Error('MTN MoMo payouts are not configured: MOMO_DISBURSEMENT_SUBSCRIPTION_KEY is not set');
}

export function createMomoAdapter(config: MomoConfig, deps: RailAdapterDeps): RailAdapter {
  const client = new MomoClient(config, deps);
  const keys = new KeyBook();
  const payouts = config.disbursementSubscriptionKey ? new MomoPayouts(config, deps, client, keys) : undefined;
  const collections = config.collectionSubscriptionKey ? new MomoCollections(config, deps, client, keys) : undefined;

  const adapter: RailAdapter = {
    name: 'momo',
    keyOf: (id) => keys.keyOf(id),
    idOf: (key) => keys.idOf(key),
    /** Mobile money to a MoMo market this target environment reaches; payouts need the Disbursements key. */
    supports: (rail, toCountry) => payouts !== undefined && rail === 'mobile_money' && marketOf(config.targetEnvironment, toCountry) !== undefined,
    submit: (request: PayoutRequest) => (payouts ?? notConfigured()).submit(request),
    poll: (request: PayoutRequest) => (payouts ?? notConfigured()).poll(request),
    lookup: (request: PayoutRequest) => (payouts ?? notConfigured()).lookup(request),
    callback: (inbound) => readCallback(inbound, deps, payouts, collections),
    // MoMo calls back once, without retries (a callback lost to a busy or restarting server is
    // gone), and a transfer reversed after it succeeded is announced only that way: a completed
    // payout is asked about for three days, the asks thinning out as it ages.
    watchAfterCompletionMs: 3 * 24 * 3_600_000,
  };
  if (collections) {
    adapter.collect = (request) => collections.collect(request);
    adapter.collectionStatus = (request) => collections.collectionStatus(request);
    // GET /collection/v1_0/requesttopay/{referenceId}: its status only (no amount is read back).
    adapter.collectionRecord = (request) => collections.status(request.collectionId);
    // Request-to-pay reaches the payers of the markets this target environment serves (markets.ts).
    adapter.collectsIn = (country) => marketOf(config.targetEnvironment, country) !== undefined;
  }
  return adapter;
}

const momo: RailAdapterModule<MomoConfig> = {
  name: 'momo',
  envVars: ENV_VARS,
  configFromEnv,
  create: createMomoAdapter,
};

export default momo;
