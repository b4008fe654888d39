// POST /api/rails/flutterwave/webhook: Flutterwave's webhooks.
//
// developer.flutterwave.com "Webhooks": Flutterwave POSTs a JSON body `{ event, data }` and, when
// a secret hash is set on the dashboard, a `verif-hash` header equal to it; anything else is not
// from Flutterwave. The receiver answers 200 (a non-2xx answer makes Flutterwave retry). The same
// page asks receivers to verify what a webhook says before acting on it, and the hash is a shared
// static secret (not a signature of the body), so the transfer a webhook names is read back with
// GET /v3/transfers/{id}: the verdict is what Flutterwave's own record says, never the body.
// Transfer webhooks carry event "transfer.completed" (and "event.type": "Transfer") with the
// transfer object in data; other events are genuine but not ours to act on.
//
// Collections: "charge.completed" with the charge in data; a `data.tx_ref` that is one of our
// charge keys (chargeIdOf) names a collection. As for transfers, the body is never believed: the
// verdict is what GET /v3/transactions/verify_by_reference says of that tx_ref, asked before any
// money moves (a webhook saying "successful" while verify says pending or failed credits nothing).
// When verify cannot answer now, the answer is a 503 (Flutterwave delivers again) and the
// collections job polls meanwhile.
//
// Bank transfers into a wallet's virtual account number (virtual-accounts.ts): "charge.completed"
// whose data.tx_ref is one of our account keys (accountIdOf). Its body is never believed either:
// the verdict is what GET /v3/transactions/{data.id}/verify says (status "successful", payment_type
// "bank_transfer", the same tx_ref; its amount and currency are what is credited, whatever the
// webhook claimed). Flutterwave's transaction id is the reference the wallet is credited once under.
// When verify cannot answer now: 503, and Flutterwave delivers again (a non-2xx answer makes it
// retry, as above); a requery asks it to resend too.
import { createHash, timingSafeEqual } from 'node:crypto';
import { minorFromMajor } from '@tapline/shared/money';
import type { CallbackReply, CallbackVerdict, InboundCallback, RailAdapterDeps } from '../types.ts';
import { FlutterwaveError } from './client.ts';
import type { FlutterwaveConfig } from './config.ts';
import type { Collections } from './collections.ts';
import { chargeUpdateOf } from './charges.ts';
import { accountIdOf, chargeIdOf, idOf } from './keys.ts';
import { updateOf } from './records.ts';
import type { Transfers } from './transfers.ts';
import type { FlutterwaveVirtualAccounts } from './virtual-accounts.ts';

type Outcome = { verdict: CallbackVerdict; reply: CallbackReply };

const refused = (reason: string): Outcome => ({ verdict: { kind: 'refused', reason }, reply: { status: 401 } });
const ignored = (reason: string): Outcome => ({ verdict: { kind: 'ignored', reason }, reply: { status: 200 } });

/** What a webhook claims in minor units (undefined when it is no exact amount). */
function claimedMinor(amount: number, currency: string): number | undefined {
  try {
    return minorFromMajor(amount, currency);
  } catch {
    return undefined;
  }
}

function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b) && given.length === expected.length;
}

export function createCallbacks(config: FlutterwaveConfig, deps: Pick<RailAdapterDeps, 'log'>, transfers: Transfers, collections?: Pick<Collections, 'verify'>, accounts?: Pick<FlutterwaveVirtualAccounts, 'verifyTransfer'>) {
  async function bankTransfer(data: object, txRef: string): Promise<Outcome> {
    if (!accounts) return ignored('a bank transfer into a virtual account number, and this adapter makes none');
    const { id, amount } = data as { id?: unknown; amount?: unknown };
    const transactionId = typeof id === 'number' || typeof id === 'string' ? String(id).trim() : '';
    if (!/^\d{1,20}$/.test(transactionId)) return refused('charge.completed for a virtual account without the transaction id');
    let verified;
    try {
      verified = await accounts.verifyTransfer(transactionId);
    } catch (error) {
      if (error instanceof FlutterwaveError && (error.kind === 'not_found' || error.kind === 'refused')) return refused(`Flutterwave holds no transaction ${transactionId.slice(0, 20)}`);
      // Not acknowledged: Flutterwave delivers it again.
      deps.log('flutterwave: could not confirm a bank transfer webhook with verify now', { transactionId, error: error instanceof Error ? error.message : String(error) });
      return { verdict: { kind: 'ignored', reason: 'could not confirm the bank transfer with Flutterwave now; it delivers the webhook again' }, reply: { status: 503 } };
    }
    const { transfer } = verified;
    if (!transfer) {
      // Genuine hash and a real transaction, but not a successful bank transfer into one of ours.
      if (verified.status && verified.status !== 'successful') return ignored(`Flutterwave's transaction ${transactionId} is ${verified.status.slice(0, 20)}: nothing to credit`);
      return refused(`Flutterwave's transaction ${transactionId.slice(0, 20)} is not a successful bank transfer into one of our accounts`);
    }
    if (transfer.accountReference !== txRef) return refused(`Flutterwave's transaction ${transactionId.slice(0, 20)} names another account than the webhook says`);
    if (typeof amount === 'number' && claimedMinor(amount, transfer.currency) !== transfer.amount) {
      deps.log('flutterwave: a bank transfer webhook disagrees with verify about the amount; verify is credited', { transactionId, webhook: amount, verified: transfer.amount });
    }
    return { verdict: { kind: 'bank_transfer', transfer }, reply: { status: 200 } };
  }

  async function charge(data: unknown): Promise<Outcome> {
    if (!data || typeof data !== 'object' || Array.isArray(data)) return refused('charge.completed without data');
    const { tx_ref: txRef, status } = data as { tx_ref?: unknown; status?: unknown };
    if (typeof txRef !== 'string' || txRef === '') return refused('charge.completed without a tx_ref');
    if (accountIdOf(txRef)) return await bankTransfer(data, txRef);
    const collectionId = chargeIdOf(txRef);
    if (!collectionId || !collections) return ignored('a charge Tapline did not make (its tx_ref is not one of ours)');
    let record;
    try {
      record = await collections.verify(txRef);
    } catch (error) {
      deps.log('flutterwave: could not confirm a charge webhook with verify_by_reference', { collectionId, error: error instanceof Error ? error.message : String(error) });
      return { verdict: { kind: 'ignored', reason: 'could not confirm the charge with Flutterwave now; it delivers the webhook again and the collection is polled' }, reply: { status: 503 } };
    }
    if (!record) return refused(`Flutterwave holds no charge under tx_ref ${txRef.slice(0, 60)}`);
    if (typeof status === 'string' && status.toLowerCase() !== record.status) {
      deps.log('flutterwave: a charge webhook disagrees with verify_by_reference; verify is believed', { collectionId, webhook: status.slice(0, 20), verify: record.status });
    }
    try {
      return { verdict: { kind: 'collection', collectionId, update: chargeUpdateOf(record) }, reply: { status: 200 } };
    } catch {
      return { verdict: { kind: 'ignored', reason: 'Flutterwave reports a charge status this adapter does not know; the collection is polled' }, reply: { status: 200 } };
    }
  }


  async function handle(inbound: InboundCallback): Promise<Outcome> {
    const path = inbound.path.replace(/^\/+|\/+$/g, '');
    if (path !== 'webhook' || inbound.method.toUpperCase() !== 'POST') return refused(`no Flutterwave callback at ${inbound.method} ${path || '/'}`);
    const hash = inbound.headers['verif-hash'];
    if (typeof hash !== 'string' || hash === '') return refused('no verif-hash header');
    if (!sameSecret(hash, config.secretHash)) return refused('verif-hash does not match the secret hash');

    let body: unknown;
    try {
      body = JSON.parse(inbound.rawBody.toString('utf8'));
    } catch {
      return refused('the body is not JSON');
    }
    if (!body || typeof body !== 'object' || Array.isArray(body)) return refused('the body is not a JSON object');
    const { event, data } = body as { event?: unknown; data?: unknown };
    if (typeof event !== 'string') return refused('the body has no event');
    if (event === 'charge.completed') return await charge(data);
    if (event !== 'transfer.completed') return ignored(`Flutterwave event ${event.slice(0, 60)} is not one Tapline acts on`);
    if (!data || typeof data !== 'object' || Array.isArray(data)) return refused('transfer.completed without data');
    const { id, reference } = data as { id?: unknown; reference?: unknown };
    const transferId = typeof id === 'number' || typeof id === 'string' ? String(id) : '';
    if (!transferId || typeof reference !== 'string' || reference === '') return refused('transfer.completed without the transfer id and reference');
    const paymentId = idOf(reference);
    if (!paymentId) return ignored('a transfer Tapline did not make (its reference is not one of ours)');

    let record;
    try {
      record = await transfers.fetchTransfer(transferId);
    } catch (error) {
      if (error instanceof FlutterwaveError && (error.kind === 'not_found' || error.kind === 'refused')) return refused(`Flutterwave holds no transfer ${transferId.slice(0, 40)}`);
      // Genuine hash, but Flutterwave cannot confirm now: a non-2xx answer makes it deliver again,
      // and the scheduler's poll reaches the same record meanwhile.
      deps.log('flutterwave: could not confirm a transfer webhook with Flutterwave', { transferId: transferId.slice(0, 40), error: error instanceof Error ? error.message : String(error) });
      return { verdict: { kind: 'ignored', reason: 'could not confirm the transfer with Flutterwave now; it delivers the webhook again' }, reply: { status: 503 } };
    }
    if (record.reference !== reference) return refused(`Flutterwave's transfer ${transferId.slice(0, 40)} carries another reference than the webhook says`);
    return { verdict: { kind: 'payout', paymentId, update: updateOf(record) }, reply: { status: 200 } };
  }

  return {
    async callback(inbound: InboundCallback): Promise<Outcome> {
      try {
        return await handle(inbound);
      } catch {
        return refused('the callback could not be read');
      }
    },
  };
}
