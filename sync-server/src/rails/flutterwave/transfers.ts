// Payouts: POST /v3/transfers, GET /v3/transfers/{id}, GET /v3/transfers?reference=.
//
// submit never pays twice: the reference is keyOf(paymentId), which Flutterwave holds unique per
// transfer; a refusal (4xx) is first checked against the reference (a resend of a transfer
// Flutterwave already holds answers that transfer's state, whatever the refusal says) and only then
// read as a failure. No answer, a 5xx (Flutterwave's 503 after 28 s "does not mean the request
// failed": "Handling Error Timeouts"), a 401/429 or an unreadable success throw: outcome unknown,
// the scheduler asks lookup before anything else.
import { MoneyError, toMajor } from '@tapline/shared/money';
import type { PayoutRequest, PayoutUpdate, RailAdapterDeps } from '../types.ts';
import { type FlutterwaveClient, FlutterwaveError, errorOf, isRefusal, successData } from './client.ts';
import type { FlutterwaveConfig } from './config.ts';
import { destinationOf } from './destinations.ts';
import { keyOf } from './keys.ts';
import { type TransferRecord, readTransfer, updateOf } from './records.ts';

/** The path our webhook route answers on; sent as callback_url when it fits the SDK's 100 characters. */
export const WEBHOOK_PATH = '/api/rails/flutterwave/webhook';

export interface Transfers {
  submit(request: PayoutRequest): Promise<PayoutUpdate>;
  lookup(request: PayoutRequest): Promise<PayoutUpdate | undefined>;
  poll(request: PayoutRequest, providerReference: string | null): Promise<PayoutUpdate>;
  /** GET /v3/transfers/{id}; throws a FlutterwaveError of kind not_found when Flutterwave has no such transfer. */
  fetchTransfer(id: string): Promise<TransferRecord>;
  /** GET /v3/transfers?reference=key: the transfer carrying exactly that reference, or undefined. */
  findByReference(key: string): Promise<TransferRecord | undefined>;
}

function narrationOf(request: PayoutRequest): string {
  const parts = [request.senderName, request.reference ?? request.note].filter((part): part is string => typeof part === 'string' && part.trim() !== '');
  const text = parts.length ? parts.join(': ') : 'Tapline payout';
  return text.replace(/\s+/g, ' ').trim().slice(0, 100);
}

export function createTransfers(config: FlutterwaveConfig, deps: Pick<RailAdapterDeps, 'publicBaseUrl' | 'log'>, client: FlutterwaveClient): Transfers {
  const callbackUrl = `${deps.publicBaseUrl.replace(/\/+$/, '')}${WEBHOOK_PATH}`;
  if (callbackUrl.length > 100) deps.log('flutterwave: the webhook address is longer than the 100 characters callback_url takes; transfers rely on the dashboard webhook', { length: callbackUrl.length });

  async function fetchTransfer(id: string): Promise<TransferRecord> {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) throw new FlutterwaveError('not_found', `"${id.slice(0, 64)}" is not a Flutterwave transfer id`);
    const what = `GET /v3/transfers/${id}`;
    const data = successData(client, await client.request('GET', `/v3/transfers/${encodeURIComponent(id)}`), what);
    const record = readTransfer(data);
    if (!record) throw new FlutterwaveError('malformed', `Flutterwave's answer to ${what} holds no transfer`);
    return record;
  }

  async function findByReference(key: string): Promise<TransferRecord | undefined> {
    const data = successData(client, await client.request('GET', '/v3/transfers', { query: { reference: key } }), 'GET /v3/transfers?reference=');
    if (!Array.isArray(data)) throw new FlutterwaveError('malformed', "Flutterwave's transfer list is not a list");
    const records = data.map(readTransfer);
    const match = records.find((record) => record?.reference === key);
    // The SDK passes `reference` as a list filter, but no page documents it. Transfers under other
    // references mean it was not applied: "never heard of it" cannot be concluded then.
    if (!match && records.length > 0) throw new FlutterwaveError('malformed', `Flutterwave answered GET /v3/transfers?reference=${key} with other transfers only: it cannot tell whether it holds this one`);
    return match;
  }

  async function lookup(request: PayoutRequest): Promise<PayoutUpdate | undefined> {
    const record = await findByReference(keyOf(request.paymentId));
    return record ? updateOf(record) : undefined;
  }

  async function submit(request: PayoutRequest): Promise<PayoutUpdate> {
    const destination = destinationOf(config, request);
    if ('refuse' in destination) return { status: 'failed', failureReason: destination.refuse };
    let amount: number;
    try {
      amount = toMajor(request.destinationAmount, request.destinationCurrency);
    } catch (error) {
      if (error instanceof MoneyError) return { status: 'failed', failureReason: `Flutterwave cannot take the amount: ${error.message}` };
      throw error;
    }
    if (!(amount > 0)) return { status: 'failed', failureReason: 'Flutterwave pays a positive amount only' };
    const reference = keyOf(request.paymentId);
    const body = {
      ...destination,
      amount,
      narration: narrationOf(request),
      reference,
      ...(callbackUrl.length <= 100 ? { callback_url: callbackUrl } : {}),
    };
    const answer = await client.request('POST', '/v3/transfers', { body });
    if (answer.httpStatus >= 200 && answer.httpStatus < 300 && answer.body.status === 'success') {
      const record = readTransfer(answer.body.data);
      // Created, but we cannot read what: lookup will tell.
      if (!record) throw new FlutterwaveError('malformed', 'Flutterwave queued the transfer but its answer holds no transfer');
      return updateOf(record);
    }
    if (!isRefusal(answer)) throw errorOf(client, answer, 'POST /v3/transfers');
    // Refused: a transfer Flutterwave already holds under this reference (a resend) answers for itself.
    const existing = await findByReference(reference);
    if (existing) return updateOf(existing);
    const said = client.messageOf(answer.body);
    return { status: 'failed', failureReason: said ? `Flutterwave refused the transfer: ${said}` : `Flutterwave refused the transfer (HTTP ${answer.httpStatus})` };
  }

  async function poll(request: PayoutRequest, providerReference: string | null): Promise<PayoutUpdate> {
    const key = keyOf(request.paymentId);
    if (providerReference) {
      const record = await fetchTransfer(providerReference);
      if (record.reference !== key) throw new FlutterwaveError('malformed', `Flutterwave transfer ${providerReference} carries another reference than payment ${request.paymentId}`);
      return updateOf(record);
    }
    const record = await findByReference(key);
    if (!record) throw new FlutterwaveError('not_found', `Flutterwave holds no transfer with reference ${key} (yet)`);
    return updateOf(record);
  }

  return { submit, lookup, poll, fetchTransfer, findByReference };
}
