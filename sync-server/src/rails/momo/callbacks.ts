// MoMo's callbacks: one request to the POST's X-Callback-Url once the transfer or request-to-pay
// is final, "only ... once. There is no retry" (api-description.md, "PUT"), unsigned.
//
// The vendored document names the method PUT; MTN's portal page on callbacks asks listeners to
// "allow PUT & POST", so both are read. The documents show no callback body; MTN describes it as
// the status GET's representation, which is how it is read here (status, externalId, ...).
//
// Nothing in a callback is believed on its own: the URL's last segment is an unguessable token
// (deps.callbackToken of the purpose and our id) that proves we issued that URL for that id, a
// body that names another externalId is refused, and the verdict itself comes from MoMo's status
// GET, never from the body. Routes (under /api/rails/momo/):
//   PUT|POST disbursement/<paymentId>/<token>     a transfer's callback
//   PUT|POST collection/<collectionId>/<token>    a request-to-pay's callback
// Reply: 200 with no body (MoMo reads nothing back); a refused callback gets 401.
import type { CallbackReply, CallbackVerdict, InboundCallback, RailAdapterDeps } from '../types.ts';
import { COLLECTION_CALLBACK_PURPOSE, type MomoCollections } from './collections.ts';
import { DISBURSEMENT_CALLBACK_PURPOSE, type MomoPayouts } from './payouts.ts';
import { parseResource } from './wire.ts';

export interface CallbackAnswer {
  verdict: CallbackVerdict;
  reply: CallbackReply;
}

const OK: CallbackReply = { status: 200 };
const REFUSED: CallbackReply = { status: 401 };

function refused(reason: string): CallbackAnswer {
  return { verdict: { kind: 'refused', reason }, reply: REFUSED };
}

function ignored(reason: string): CallbackAnswer {
  return { verdict: { kind: 'ignored', reason }, reply: OK };
}

/** kind, id, token from `disbursement/<id>/<token>` (the query string, if any, is not ours). */
function parsePath(path: string): { kind: string; id: string; token: string } | undefined {
  const segments = path.split('?')[0]!.replace(/^\/+/, '').replace(/\/+$/, '').split('/');
  if (segments.length !== 3) return undefined;
  try {
    const [kind, id, token] = segments.map((segment) => decodeURIComponent(segment));
    if (!kind || !id || !token) return undefined;
    return { kind, id, token };
  } catch {
    return undefined;
  }
}

export async function readCallback(
  inbound: InboundCallback,
  deps: RailAdapterDeps,
  payouts: MomoPayouts | undefined,
  collections: MomoCollections | undefined,
): Promise<CallbackAnswer> {
  try {
    const method = inbound.method.toUpperCase();
    if (method !== 'PUT' && method !== 'POST') return refused(`MoMo callbacks are PUT (or POST), not ${method}`);
    const parsed = parsePath(inbound.path);
    if (!parsed) return refused('not a MoMo callback path: expected disbursement/<id>/<token> or collection/<id>/<token>');
    const { kind, id, token } = parsed;
    const purpose = kind === 'disbursement' ? DISBURSEMENT_CALLBACK_PURPOSE : kind === 'collection' ? COLLECTION_CALLBACK_PURPOSE : undefined;
    if (!purpose) return refused(`unknown MoMo callback kind ${kind.slice(0, 20)}`);
    if (!deps.verifyCallbackToken(purpose, id, token)) return refused('callback token does not verify for this id');
    if (kind === 'disbursement' && !payouts) return refused('MoMo payouts are not configured');
    if (kind === 'collection' && !collections) return refused('MoMo collections are not configured');

    let body: unknown;
    try {
      body = JSON.parse(inbound.rawBody.toString('utf8'));
    } catch {
      return refused('callback body is not JSON');
    }
    const told = parseResource(body);
    if (!told) return refused('callback body carries no status');
    if (told.externalId !== undefined && told.externalId !== id) return refused('callback body names another externalId than its URL');

    // Confirm with MoMo's own record before any verdict.
    try {
      if (kind === 'disbursement') {
        const update = await payouts!.status(id);
        if (!update) return refused('MoMo has no transfer for this callback');
        return { verdict: { kind: 'payout', paymentId: id, update }, reply: OK };
      }
      const update = await collections!.status(id);
      if (!update) return refused('MoMo has no request-to-pay for this callback');
      return { verdict: { kind: 'collection', collectionId: id, update }, reply: OK };
    } catch (error) {
      deps.log('MTN MoMo callback could not be confirmed with a status query; polling will settle it', {
        kind,
        id,
        error: error instanceof Error ? error.message : 'unknown error',
      });
      return ignored('could not be confirmed with MoMo now; polling will settle it');
    }
  } catch {
    return refused('unreadable callback');
  }
}
