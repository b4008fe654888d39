// The daily reconciliation's list of money coming in: Paystack's transactions of a UTC day
// (openapi.yaml GET /transaction, operationId transaction_list), every page.
//
// The request is the document's: `from` and `to` (format date-time), `per_page` and `page`
// (integers). The answer is TransactionListResponse: `data` a list of transactions
// (TransactionListResponseArray: reference, status, amount in minor units, currency, channel,
// created_at...) and `meta { total, total_volume, skipped, perPage, page, pageCount }`. Pages are
// read until meta.pageCount, whatever page size Paystack chose (its API reference calls the page
// size perPage, the document per_page: only the document's name is sent, and nothing depends on
// Paystack honouring it). The document does not say whether `to` is inclusive: the query spans
// the day and its end, and only the transactions created in the UTC day are kept.
//
// What the list holds, read here:
//   channel dedicated_nuban, status success  -> a bank transfer into a wallet's dedicated virtual
//                                               account: NOT a collection; its reference is handed
//                                               on, and confirmed with GET /transaction/verify
//                                               before anything is credited (virtual-accounts.ts)
//   a reference chargeIdOf decodes, with a . -> a charge under a collection key of ours (known to
//                                               us or not), read as the status query reads it
//                                               (charges.ts; a status it does not know throws).
//                                               Every key of ours holds a `.` (keys.ts: the `_`
//                                               of the id's prefix); a reference without one
//                                               may decode but is another system's
//   anything else                            -> another system's on the same integration: skipped
import type { IncomingDay } from '../types.ts';
import { chargeUpdateOf, readCharge } from './charges.ts';
import { type PaystackClient, PaystackUnavailable, paystackMessage } from './client.ts';
import { chargeIdOf } from './keys.ts';
import { DVA_CHANNEL } from './virtual-accounts.ts';

const PER_PAGE = 100;
const PAGES_MAX = 1000;
const DAY_MS = 24 * 3_600_000;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

export async function incomingOn(client: PaystackClient, day: string): Promise<IncomingDay> {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(Date.parse(`${day}T00:00:00Z`))) throw new Error(`incomingOn: ${day} is not a YYYY-MM-DD day`);
  const from = new Date(`${day}T00:00:00.000Z`);
  const to = new Date(from.getTime() + DAY_MS);
  const collections = new Map<string, IncomingDay['collections'][number]>();
  const bankTransfers = new Set<string>();
  for (let page = 1; page <= PAGES_MAX; page += 1) {
    const answer = await client.get('/transaction', { from: from.toISOString(), to: to.toISOString(), per_page: PER_PAGE, page });
    if (answer.httpStatus !== 200 || !answer.body.status || !Array.isArray(answer.body.data)) {
      throw new PaystackUnavailable(`Paystack GET /transaction answered ${answer.httpStatus}: ${paystackMessage(answer.body)}`);
    }
    for (const item of answer.body.data) {
      if (!isObject(item) || typeof item.reference !== 'string') continue;
      const createdAt = typeof item.created_at === 'string' ? item.created_at : typeof item.createdAt === 'string' ? item.createdAt : undefined;
      const at = createdAt ? Date.parse(createdAt) : Number.NaN;
      if (!Number.isNaN(at) && (at < from.getTime() || at >= to.getTime())) continue;
      if (item.channel === DVA_CHANNEL) {
        if (item.status === 'success') bankTransfers.add(item.reference);
        continue;
      }
      const collectionId = item.reference.includes('.') ? chargeIdOf(item.reference) : undefined;
      const charge = collectionId ? readCharge(item) : undefined;
      if (!collectionId || !charge) continue;
      collections.set(collectionId, { collectionId, ...chargeUpdateOf(charge) });
    }
    const meta = answer.body.meta as { pageCount?: unknown } | undefined;
    const pageCount = typeof meta?.pageCount === 'number' ? meta.pageCount : undefined;
    if (answer.body.data.length === 0 || (pageCount !== undefined ? page >= pageCount : answer.body.data.length < PER_PAGE)) break;
  }
  return { collections: [...collections.values()], bankTransfers: [...bankTransfers] };
}
