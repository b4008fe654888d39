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
import { createHash, timingSafeEqual } from 'node:crypto';
import type { CallbackReply, CallbackVerdict, InboundCallback, RailAdapterDeps } from '../types.ts';
import { FlutterwaveError } from './client.ts';
import type { FlutterwaveConfig } from './config.ts';
import { idOf } from './keys.ts';
import { updateOf } from './records.ts';
import type { Transfers } from './transfers.ts';

type Outcome = { verdict: CallbackVerdict; reply: CallbackReply };

const refused = (reason: string): Outcome => ({ verdict: { kind: 'refused', reason }, reply: { status: 401 } });
const ignored = (reason: string): Outcome => ({ verdict: { kind: 'ignored', reason }, reply: { status: 200 } });

function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b) && given.length === expected.length;
}

export function createCallbacks(config: FlutterwaveConfig, deps: Pick<RailAdapterDeps, 'log'>, transfers: Transfers) {
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
