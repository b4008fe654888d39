// The operator's routes for bank transfers we could not match (unmatched-transfers.ts; admin token,
// like /api/admin/rails/...). Thin: validation by schema, the work in the service.
import { LOOKUP_ID_LENGTH_MAX } from '@tapline/shared/limits';
import { Type } from 'typebox';
import { AssignUnmatchedBody, ErrorBody, ListOf, ListQuery, ReturnedUnmatchedBody, UNMATCHED_TRANSFER_STATUSES, UnmatchedBankTransferRecord, literalUnion } from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import type { TypedApp } from '../../http/typed-app.ts';
import { assignUnmatched, listUnmatched, markReturned, unmatchedTransferRecord } from './unmatched-transfers.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 422: ErrorBody, 429: ErrorBody };
const admin = { auth: ['admin'] } as const;
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: LOOKUP_ID_LENGTH_MAX }) });

const FLOW = `A bank transfer a provider confirmed (a verified webhook: Paystack dedicated virtual account, Flutterwave virtual account
number) into an account number that is no wallet's here, or in a currency the account does not take, is kept here once under
its provider reference (a duplicate webhook changes nothing) and stays open until an operator resolves it
(docs/wallet-money.md, "A transfer we cannot match"). The money is at the provider: nothing is in the ledger for it until it is
assigned.`;

export async function unmatchedTransferRoutes(app: TypedApp, context: AppContext): Promise<void> {
  app.get('/api/admin/bank-transfers/unmatched', {
    config: admin,
    schema: {
      tags: ['admin'],
      operationId: 'listUnmatchedBankTransfers',
      summary: 'Bank transfers we could not match to a wallet, newest first',
      description: `${FLOW}\n\nFilter: status (open, assigned, returned). Paged by limit and offset like every list.`,
      querystring: Type.Intersect([ListQuery, Type.Object({ status: Type.Optional(literalUnion(UNMATCHED_TRANSFER_STATUSES)) })]),
      response: { 200: ListOf(UnmatchedBankTransferRecord), ...errors },
    },
  }, async (request) => {
    const { limit = 20, offset = 0, status } = request.query;
    const page = await listUnmatched(context, status, limit, offset);
    return { data: page.rows.map(unmatchedTransferRecord), total: page.total, limit, offset };
  });

  app.post('/api/admin/bank-transfers/unmatched/:id/assign', {
    config: admin,
    schema: {
      tags: ['admin'],
      operationId: 'assignUnmatchedBankTransfer',
      summary: 'Credit an unmatched bank transfer to a wallet, once',
      description: `${FLOW}\n\nCredits the wallet through the same path a matched transfer takes: the fee (WALLET_BANK_TRANSFER_FEE_PCT) kept,
the ledger transfer from the provider's rail clearing account, the tier movement (credited and flagged beyondLimit when it passes the
wallet's tier: the bank already made it), the record in the holder's GET /api/wallet/bank-transfers and her notification
wallet.top_up.completed, in one transaction with the status change. 404 unmatched_transfer_not_found, 404 wallet_not_found, 409
unmatched_transfer_resolved (assigned or returned already: a second assign credits nothing), 422 currency_not_accepted (the
wallet's currency is not the transfer's), 422 wallet_mode_mismatch (a test wallet for a live transfer).`,
      params: IdParams,
      body: AssignUnmatchedBody,
      response: { 200: UnmatchedBankTransferRecord, ...errors },
    },
  }, async (request) => unmatchedTransferRecord(await assignUnmatched(context, request.params.id, request.body)));

  app.post('/api/admin/bank-transfers/unmatched/:id/returned', {
    config: admin,
    schema: {
      tags: ['admin'],
      operationId: 'markUnmatchedBankTransferReturned',
      summary: 'Record that an unmatched bank transfer was sent back to its sender at the provider',
      description: `${FLOW}\n\nThe operator refunds the sender at the provider (its dashboard or support), then records the refund's reference
here. Nothing moves in the ledger: the money never entered our books (keeping an unmatched transfer writes no ledger transfer), so
there is nothing to take out of them. 404 unmatched_transfer_not_found, 409 unmatched_transfer_resolved, 422 return_reference_required
(a reference of spaces only).`,
      params: IdParams,
      body: ReturnedUnmatchedBody,
      response: { 200: UnmatchedBankTransferRecord, ...errors },
    },
  }, async (request) => unmatchedTransferRecord(await markReturned(context, request.params.id, request.body)));
}
