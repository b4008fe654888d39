// The Paystack rail adapter: payouts to bank accounts (NG, GH, ZA, KE) and mobile money (GH, KE)
// through Paystack Transfers, its transfer webhooks, the daily transfer list, mobile money
// collections at the till (Charge API, GH and KE) with their charge.success webhook, and two
// helpers the rest of the server may offer merchants: the bank list and account name resolve.
//
// Built from Paystack's OpenAPI document and webhook samples (vendor/paystack/). One module per job:
// config.ts (environment), client.ts (HTTP + auth), keys.ts (reference <-> payment or collection
// id), countries.ts (capability), banks.ts, recipients.ts, transfers.ts (statuses), payouts.ts,
// operators.ts (where and whom Paystack charges), charges.ts (charge statuses), collections.ts,
// virtual-accounts.ts (dedicated virtual accounts: wallet top-ups by bank transfer), callbacks.ts,
// reconcile.ts (the day's transfers), incoming.ts (the day's transactions: collections and bank
// transfers into virtual accounts).
import type { RailAdapter, RailAdapterDeps, RailAdapterModule } from '../types.ts';
import { bankDirectory, type PaystackBank, type ResolvedAccount } from './banks.ts';
import { readCallback } from './callbacks.ts';
import { PaystackUnavailable, paystackClient } from './client.ts';
import { collections } from './collections.ts';
import { configFromEnv, ENV_VARS, type PaystackConfig } from './config.ts';
import { supports } from './countries.ts';
import { incomingOn } from './incoming.ts';
import { idOf, keyOf } from './keys.ts';
import { collectsIn } from './operators.ts';
import { payouts } from './payouts.ts';
import { transactionsOn } from './reconcile.ts';
import { transferOf, virtualAccounts } from './virtual-accounts.ts';

export type { PaystackConfig } from './config.ts';
export type { PaystackBank, ResolvedAccount } from './banks.ts';
export { chargeIdOf, chargeKeyOf, idOf, keyOf } from './keys.ts';
export { placeholderEmail } from './collections.ts';

/** RailAdapter plus Paystack's bank list and account resolve (optional members, not in types.ts). */
export interface PaystackAdapter extends RailAdapter {
  /** Banks and mobile money operators Paystack lists for a country (ISO code): their `code` is a receiver's bankCode / provider. */
  banks(country: string): Promise<PaystackBank[]>;
  /** The account holder's name as the bank has it; undefined when Paystack cannot resolve the account. */
  resolveAccount(accountNumber: string, bankCode: string): Promise<ResolvedAccount | undefined>;
}

export function createPaystackAdapter(config: PaystackConfig, deps: RailAdapterDeps): PaystackAdapter {
  const client = paystackClient(config, deps);
  const directory = bankDirectory(client, deps.now);
  const payout = payouts(client, directory, deps);
  const charges = collections(client, deps);
  const accounts = virtualAccounts(client, deps);
  /** GET /transaction/verify of a dedicated_nuban transaction: Paystack's own record, never the webhook's body. */
  async function bankTransfer(reference: string) {
    const answer = await client.get(`/transaction/verify/${encodeURIComponent(reference)}`);
    if (answer.httpStatus === 404) return undefined;
    if (answer.httpStatus !== 200 || !answer.body.status) throw new PaystackUnavailable(`Paystack GET /transaction/verify answered ${answer.httpStatus}`);
    const transfer = transferOf(answer.body.data);
    return transfer && transfer.providerReference === reference ? transfer : undefined;
  }
  return {
    name: 'paystack',
    supports,
    keyOf,
    idOf,
    submit: payout.submit,
    lookup: payout.lookup,
    poll: payout.poll,
    collect: charges.collect,
    collectionStatus: charges.collectionStatus,
    collectionRecord: charges.collectionRecord,
    collectsIn,
    callback: (inbound) => readCallback(config.secretKey, inbound, { status: charges.status, bankTransfer, log: deps.log }),
    virtualAccounts: accounts,
    transactionsOn: (day) => transactionsOn(client, day),
    incomingOn: (day) => incomingOn(client, day),
    bankTransferRecord: bankTransfer,
    banks: (country) => directory.banks(country),
    resolveAccount: (accountNumber, bankCode) => directory.resolveAccount(accountNumber, bankCode),
  };
}

const paystack: RailAdapterModule<PaystackConfig> = {
  name: 'paystack',
  envVars: ENV_VARS,
  configFromEnv,
  create: createPaystackAdapter,
};

export default paystack;
