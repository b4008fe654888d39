// The daily reconciliation: Paystack's transfers of a UTC day (GET /transfer with from, to,
// per_page and page; every page, per meta.pageCount), the ones whose reference is ours.
import type { ProviderTransaction } from '../types.ts';
import { type PaystackClient, PaystackUnavailable } from './client.ts';
import { idOf } from './keys.ts';
import { readTransfer, stateOf } from './transfers.ts';

const PER_PAGE = 100;
const PAGES_MAX = 1000;

export async function transactionsOn(client: PaystackClient, day: string): Promise<ProviderTransaction[]> {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(Date.parse(`${day}T00:00:00Z`))) throw new Error(`transactionsOn: ${day} is not a YYYY-MM-DD day`);
  const from = new Date(`${day}T00:00:00.000Z`);
  const to = new Date(from.getTime() + 24 * 60 * 60_000);
  const found = new Map<string, ProviderTransaction>();
  for (let page = 1; page <= PAGES_MAX; page += 1) {
    // openapi.yaml names the page size `per_page` here; Paystack's API reference and its answers'
    // meta call it `perPage`. Both are sent (known-mismatches.ts).
    const answer = await client.get('/transfer', { from: from.toISOString(), to: to.toISOString(), per_page: PER_PAGE, perPage: PER_PAGE, page });
    if (answer.httpStatus !== 200 || !answer.body.status || !Array.isArray(answer.body.data)) {
      throw new PaystackUnavailable(`Paystack GET /transfer answered ${answer.httpStatus}: ${answer.body.message}`);
    }
    for (const item of answer.body.data) {
      const transfer = readTransfer(item);
      if (!transfer) continue;
      const id = idOf(transfer.reference);
      if (!id || transfer.amount === undefined || !transfer.currency) continue;
      // `to` may be inclusive at Paystack (the document does not say): keep the day's own.
      const at = transfer.createdAt ? Date.parse(transfer.createdAt) : NaN;
      if (!Number.isNaN(at) && (at < from.getTime() || at >= to.getTime())) continue;
      const state = stateOf(transfer.status);
      found.set(id, {
        id,
        providerReference: transfer.transferCode ?? null,
        direction: 'payout',
        status: state === 'processing' ? 'pending' : state,
        amount: transfer.amount,
        currency: transfer.currency,
      });
    }
    const meta = answer.body.meta as { pageCount?: unknown } | undefined;
    const pageCount = typeof meta?.pageCount === 'number' ? meta.pageCount : undefined;
    if (pageCount !== undefined ? page >= pageCount : answer.body.data.length < PER_PAGE) break;
  }
  return [...found.values()];
}
