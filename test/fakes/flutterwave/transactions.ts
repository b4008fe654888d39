// The fake's GET /v3/transactions?from&to&tx_ref&page: every transaction it holds, the mobile money
// charges taken (charges.ts) and the bank transfers into virtual account numbers received
// (virtual-accounts.ts), newest first, `listPageSize` a page (10 by default, as the sample's
// page_info counts them). Built on the SDK's Transaction.fetch (services/transactions/
// rave.retrieve.js, listSchema's from, to as ISO dates, page, tx_ref) and its answer in
// documentation/transactions.md "Get all transactions": `meta.page_info { total, current_page,
// total_pages }` and each transaction with that sample's keys (id and account_id as strings, the
// customer as customer_name and customer_email, amount_settled; `account { nuban, bank }`, the
// payer's account, for a bank transfer only: the sample shows it for payment_type "account").
// from and to are read as days, inclusive, on created_at (the documents do not say).
import type { ServerResponse } from 'node:http';
import { send } from './http.ts';

type Json = Record<string, unknown>;

/** A transaction as the list shows it, from the record verify answers. */
function listed(record: Json): Json {
  const customer = (record.customer ?? {}) as Json;
  const meta = (record.meta ?? undefined) as Json | undefined;
  const amount = Number(record.amount);
  const fee = typeof record.app_fee === 'number' ? record.app_fee : null;
  return {
    id: String(record.id),
    tx_ref: record.tx_ref,
    flw_ref: record.flw_ref,
    device_fingerprint: record.device_fingerprint,
    amount: record.amount,
    currency: record.currency,
    charged_amount: record.charged_amount,
    app_fee: fee,
    merchant_fee: record.merchant_fee,
    processor_response: record.processor_response,
    auth_model: record.auth_model,
    ip: record.ip,
    narration: record.narration,
    status: record.status,
    payment_type: record.payment_type,
    created_at: record.created_at,
    amount_settled: record.status === 'successful' && fee !== null ? Number((amount - fee).toFixed(2)) : null,
    ...(meta ? { account: { nuban: meta.originatoraccountnumber, bank: meta.bankname } } : {}),
    customer_name: customer.name,
    customer_email: customer.email,
    account_id: String(record.account_id),
  };
}

export function listTransactions(res: ServerResponse, query: URLSearchParams, records: Json[], pageSize: number): void {
  const from = query.get('from');
  const to = query.get('to');
  const txRef = query.get('tx_ref');
  const page = Math.max(1, Number(query.get('page') ?? '1') || 1);
  const day = (record: Json) => String(record.created_at).slice(0, 10);
  let found = [...records].sort((a, b) => String(b.created_at).localeCompare(String(a.created_at)) || Number(b.id) - Number(a.id));
  if (txRef) found = found.filter((record) => record.tx_ref === txRef);
  if (from) found = found.filter((record) => day(record) >= from.slice(0, 10));
  if (to) found = found.filter((record) => day(record) <= to.slice(0, 10));
  const totalPages = Math.max(1, Math.ceil(found.length / pageSize));
  send(res, 200, {
    status: 'success',
    message: 'Transactions fetched',
    meta: { page_info: { total: found.length, current_page: page, total_pages: totalPages } },
    data: found.slice((page - 1) * pageSize, page * pageSize).map(listed),
  });
}
