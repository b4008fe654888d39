// The daily reconciliation's list of money coming in: Flutterwave's transactions of a UTC day,
// GET /v3/transactions with from, to and page (the SDK's Transaction.fetch, services/transactions/
// rave.retrieve.js, with listSchema's `from` and `to` as ISO dates and `page`; the answer of
// documentation/transactions.md "Get all transactions": data a list of transactions with id,
// tx_ref, flw_ref, amount in major units, currency, status, payment_type, created_at...,
// meta.page_info { total, current_page, total_pages }, 10 a page). Every page is read, up to
// page_info.total_pages. As for the day's transfers (reconcile.ts), the documents do not say in
// which time zone from/to are read: the query spans the day and the next, and the transactions
// whose created_at falls on the UTC day are kept.
//
// What the list holds, read here:
//   payment_type bank_transfer, tx_ref an account key of ours (accountIdOf), status successful
//     -> a bank transfer into a wallet's virtual account number: NOT a collection; its transaction
//        id (the reference a wallet is credited under) is handed on, and confirmed with
//        GET /v3/transactions/{id}/verify before anything is credited (virtual-accounts.ts)
//   tx_ref a collection key of ours (chargeIdOf)
//     -> a charge under a collection key of ours (known to us or not), read as verify_by_reference
//        is read (charges.ts; a status it does not know throws)
//   anything else (another system's on the same account, a payout's) -> skipped
import type { IncomingDay } from '../types.ts';
import { chargeUpdateOf, readCharge } from './charges.ts';
import { type FlutterwaveClient, FlutterwaveError, successData } from './client.ts';
import { accountIdOf, chargeIdOf } from './keys.ts';
import { BANK_TRANSFER_PAYMENT_TYPE } from './virtual-accounts.ts';

const PAGES_MAX = 1000;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function nextDay(day: string): string {
  const date = new Date(`${day}T00:00:00.000Z`);
  date.setUTCDate(date.getUTCDate() + 1);
  return date.toISOString().slice(0, 10);
}

function utcDay(createdAt: unknown): string | undefined {
  if (typeof createdAt !== 'string') return undefined;
  const time = Date.parse(createdAt);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString().slice(0, 10);
}

export function createIncoming(client: FlutterwaveClient) {
  return async function incomingOn(day: string): Promise<IncomingDay> {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(Date.parse(`${day}T00:00:00Z`))) throw new Error(`${day} is not a day (YYYY-MM-DD)`);
    const collections = new Map<string, IncomingDay['collections'][number]>();
    const bankTransfers = new Set<string>();
    for (let page = 1; page <= PAGES_MAX; page += 1) {
      const answer = await client.request('GET', '/v3/transactions', { query: { from: day, to: nextDay(day), page } });
      const data = successData(client, answer, `GET /v3/transactions?from=${day}&page=${page}`);
      if (!Array.isArray(data)) throw new FlutterwaveError('malformed', "Flutterwave's transaction list is not a list");
      for (const item of data) {
        if (!isObject(item) || typeof item.tx_ref !== 'string' || utcDay(item.created_at) !== day) continue;
        if (item.payment_type === BANK_TRANSFER_PAYMENT_TYPE && accountIdOf(item.tx_ref)) {
          const id = typeof item.id === 'number' || typeof item.id === 'string' ? String(item.id).trim() : '';
          if (typeof item.status === 'string' && item.status.toLowerCase() === 'successful' && /^\d{1,20}$/.test(id)) bankTransfers.add(id);
          continue;
        }
        const collectionId = chargeIdOf(item.tx_ref);
        const charge = collectionId ? readCharge(item) : undefined;
        if (!collectionId || !charge) continue;
        collections.set(collectionId, { collectionId, ...chargeUpdateOf(charge) });
      }
      const meta = answer.body.meta as { page_info?: { total_pages?: unknown } } | undefined;
      if (data.length === 0 || !(page < Number(meta?.page_info?.total_pages ?? 0))) break;
    }
    return { collections: [...collections.values()], bankTransfers: [...bankTransfers] };
  };
}
