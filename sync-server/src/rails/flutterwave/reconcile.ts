// The day's transfers as Flutterwave records them: GET /v3/transfers with from, to and page (the
// SDK's Transfer.fetch passes its list parameters page, from, to, status, reference as the query;
// the answer carries meta.page_info { total, current_page, total_pages }, 10 transfers a page in
// documentation/transfers.md). The documents do not say in which time zone from/to are read, so
// the query spans the day and the next one and keeps the transfers whose created_at falls on the
// UTC day; a payment of ours that the list still misses is asked for by its reference, so one made
// near midnight is not reported missing.
import { minorFromMajor } from '@tapline/shared/money';
import type { ProviderTransaction } from '../types.ts';
import { type FlutterwaveClient, FlutterwaveError, successData } from './client.ts';
import { idOf, keyOf } from './keys.ts';
import { type TransferRecord, readTransfer, transactionStatusOf } from './records.ts';
import type { Transfers } from './transfers.ts';

const PAGES_MAX = 500;

function nextDay(day: string): string {
  const date = new Date(`${day}T00:00:00.000Z`);
  date.setUTCDate(date.getUTCDate() + 1);
  return date.toISOString().slice(0, 10);
}

function utcDay(createdAt: string | undefined): string | undefined {
  if (!createdAt) return undefined;
  const time = Date.parse(createdAt);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString().slice(0, 10);
}

function transactionOf(record: TransferRecord, id: string): ProviderTransaction {
  let amount: number;
  try {
    amount = minorFromMajor(record.amount, record.currency);
  } catch (error) {
    throw new FlutterwaveError('malformed', `Flutterwave transfer ${record.id} has an amount we cannot read exactly (${String(record.amount)} ${record.currency}): ${error instanceof Error ? error.message : String(error)}`);
  }
  return { id, providerReference: record.id, direction: 'payout', status: transactionStatusOf(record), amount, currency: record.currency };
}

export function createReconcile(client: FlutterwaveClient, transfers: Transfers) {
  return async function transactionsOn(day: string, ours: readonly ProviderTransaction[]): Promise<ProviderTransaction[]> {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(Date.parse(`${day}T00:00:00Z`))) throw new Error(`${day} is not a day (YYYY-MM-DD)`);
    const found = new Map<string, ProviderTransaction>();
    for (let page = 1; page <= PAGES_MAX; page += 1) {
      const answer = await client.request('GET', '/v3/transfers', { query: { from: day, to: nextDay(day), page } });
      const data = successData(client, answer, `GET /v3/transfers?from=${day}&page=${page}`);
      if (!Array.isArray(data)) throw new FlutterwaveError('malformed', "Flutterwave's transfer list is not a list");
      for (const item of data) {
        const record = readTransfer(item);
        const id = record ? idOf(record.reference) : undefined;
        if (record && id && utcDay(record.createdAt) === day) found.set(record.reference, transactionOf(record, id));
      }
      const meta = answer.body.meta as { page_info?: { current_page?: unknown; total_pages?: unknown } } | undefined;
      const totalPages = Number(meta?.page_info?.total_pages ?? 0);
      if (data.length === 0 || !(page < totalPages)) break;
    }
    for (const mine of ours) {
      if (mine.direction !== 'payout') continue;
      const key = keyOf(mine.id);
      if (found.has(key)) continue;
      const record = await transfers.findByReference(key);
      if (record) found.set(key, transactionOf(record, mine.id));
    }
    return [...found.values()];
  };
}
