import { LOOKUP_ID_LENGTH_MAX, PAYOUT_CSV_ROWS_MAX } from '@tapline/shared/limits';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  CreatePayoutBody,
  CreateSettlementAccountBody,
  ErrorBody,
  ListOf,
  PayoutBalance,
  PayoutBalanceQuery,
  PayoutListQuery,
  PayoutRecord,
  PayoutSettings,
  PayoutSettingsBody,
  SettlementAccountPatch,
  SettlementAccountRecord,
} from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import { principalAs } from '../../auth/hooks.ts';
import { derivedId } from '../../http/idempotency.ts';
import type { TypedApp } from '../../http/typed-app.ts';
import { createSettlementAccount, deleteSettlementAccount, makeDefault, settlementAccountRecord } from './accounts.ts';
import { payoutsCsv } from './csv.ts';
import { SANDBOX_UNRESOLVABLE_SUFFIX } from './resolve.ts';
import { SANDBOX_PAYOUT_SUFFIXES, changeSettings, createPayout, getPayout, payoutRecord, readBalance, readSettings } from './service.ts';
import { findSettlementAccount, listPayouts, listSettlementAccounts } from './store.ts';
import type { MerchantCaller } from './types.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 422: ErrorBody, 429: ErrorBody };
const merchant = { auth: ['merchant'] } as const;
// Where the money goes is the owner's to decide, as with the API keys.
const ownerOnly = { auth: ['merchant'], roles: ['owner'] } as const;
const IdParams = Type.Object({ id: Type.String({ maxLength: LOOKUP_ID_LENGTH_MAX }) });
const IdempotencyHeader = Type.Object({ 'idempotency-key': Type.Optional(Type.String({ description: '1 to 255 characters, e.g. a UUID; required' })) });
/** Every page of a CSV export at most: a merchant paid out daily for 27 years. */

function callerOf(request: FastifyRequest): MerchantCaller {
  const principal = principalAs(request, 'merchant');
  return { merchantId: principal.merchantId, handle: principal.handle, mode: principal.mode };
}

const ACCOUNTS_FLOW = `Where the merchant is paid out (docs/payouts.md): a bank account {type: bank, country, bankCode, accountNumber} or a
mobile money number {type: mobile_money, country, phone, operator}, in the key's mode. Its currency is its country's. A bank
account's holder name is resolved by the provider where one can (Paystack GET /bank/resolve for NG when Paystack is configured;
nameSource provider), by the sandbox in test mode (nameSource sandbox; numbers ending ${SANDBOX_UNRESOLVABLE_SUFFIX} do not resolve),
else taken from accountName (nameSource merchant). One default per currency: the first of a currency, or the one created or
patched with default true. Answers mask the number (the last four digits) and the phone.`;

const PAYOUT_FLOW = `A payout moves the merchant's available balance from its wallet to a settlement account (docs/payouts.md). Available =
the wallet's balance - on hold, where on hold is the offline sales captured in the last PAYOUT_HOLD_HOURS (default 72; they may
still be disputed). The wallet is debited in the transaction that records the payout, its statement and payout.created; the
payment scheduler pays it out through the rails (the same exactly-once machinery as POST /api/pay: the provider's idempotency key
derives from the payout, an unknown outcome is looked up before any resend). A payout that fails, or is reversed after it was paid,
returns its amount to the wallet once (payout.failed); a paid one sends payout.paid. No fee. States: pending -> processing -> paid |
failed | reversed. Automatic payouts: daily from PAYOUT_SCHEDULE_HOUR_UTC (default 6), or weekly on Mondays, per the payout
settings, at most one per merchant, mode, currency and UTC day. Test mode: the sandbox, by the settlement account's last four
digits: ${SANDBOX_PAYOUT_SUFFIXES.sandbox_failure} fails at the provider (money back at once), ${SANDBOX_PAYOUT_SUFFIXES.sandbox_pending} stays pending,
${SANDBOX_PAYOUT_SUFFIXES.sandbox_reversal} is paid and then reversed; any other is paid after two SANDBOX_STEP_MS steps. Live: the provider of the
account's rail and country (RAIL_ROUTES).`;

const STATEMENT_NOTE = `The statement says what the payout is made of: openingBalance (the wallet before the period, earlier holds
included) + sales + refunds + fees + payouts (earlier payouts' money coming back) + other + onHold (negative) + retained (negative:
available but not asked for) = amount, with the movements by category and ledger kind in lines. The period runs from the previous
payout of the currency to this one.`;

/** Merchant payouts: settlement accounts, settings, balance, payouts and their CSV. */
export async function payoutRoutes(app: TypedApp, context: AppContext): Promise<void> {
  const { db } = context;

  app.post('/api/merchant/settlement-accounts', {
    config: ownerOnly,
    schema: {
      tags: ['payouts'],
      summary: 'Add a settlement account: a bank account (its holder\'s name resolved where the provider can) or a mobile money number',
      description: `${ACCOUNTS_FLOW}\n\n400 account_number_invalid (6 to 20 digits; NG: the 10-digit NUBAN), 400 invalid_phone, 400 country_not_supported;
422 account_not_resolved (the provider or the sandbox cannot find the account), 422 account_name_required (nobody resolves it and
accountName is missing), 422 rail_unavailable (live: no provider pays that rail to that country); 503 account_resolve_unavailable
(the provider cannot be asked now; Retry-After).`,
      body: CreateSettlementAccountBody,
      response: { 201: SettlementAccountRecord, ...errors, 503: ErrorBody },
    },
  }, async (request, reply) => {
    const row = await createSettlementAccount(context, callerOf(request), request.body);
    return reply.status(201).send(settlementAccountRecord(row));
  });

  app.get('/api/merchant/settlement-accounts', {
    config: merchant,
    schema: { tags: ['payouts'], summary: 'The merchant\'s settlement accounts, by currency, the default first', description: ACCOUNTS_FLOW, response: { 200: Type.Object({ data: Type.Array(SettlementAccountRecord) }), ...errors } },
  }, async (request) => {
    const caller = callerOf(request);
    return { data: (await listSettlementAccounts(db, caller.merchantId, caller.mode)).map(settlementAccountRecord) };
  });

  app.patch('/api/merchant/settlement-accounts/:id', {
    config: ownerOnly,
    schema: {
      tags: ['payouts'],
      summary: 'Make a settlement account the default of its currency',
      description: `${ACCOUNTS_FLOW}\n\n404 settlement_account_not_found.`,
      params: IdParams,
      body: SettlementAccountPatch,
      response: { 200: SettlementAccountRecord, ...errors },
    },
  }, async (request) => settlementAccountRecord(await makeDefault(context, callerOf(request), request.params.id)));

  app.delete('/api/merchant/settlement-accounts/:id', {
    config: ownerOnly,
    schema: {
      tags: ['payouts'],
      summary: 'Remove a settlement account (its payouts keep naming it); the oldest other account of its currency becomes the default',
      description: `${ACCOUNTS_FLOW}\n\n404 settlement_account_not_found.`,
      params: IdParams,
      response: { 204: Type.Null(), ...errors },
    },
  }, async (request, reply) => {
    await deleteSettlementAccount(context, callerOf(request), request.params.id);
    return reply.status(204).send(null);
  });

  app.get('/api/merchant/payout-settings', {
    config: merchant,
    schema: { tags: ['payouts'], summary: 'How the merchant is paid out automatically', description: PAYOUT_FLOW, response: { 200: PayoutSettings, ...errors } },
  }, async (request) => readSettings(context, callerOf(request)));

  app.patch('/api/merchant/payout-settings', {
    config: merchant,
    schema: {
      tags: ['payouts'],
      summary: 'Change the automatic payouts: schedule (daily, weekly, manual), minimumAmount, currency',
      description: `${PAYOUT_FLOW}\n\n400 currency_not_supported, 400 amount_too_many_decimals.`,
      body: PayoutSettingsBody,
      response: { 200: PayoutSettings, ...errors },
    },
  }, async (request) => changeSettings(context, callerOf(request), request.body));

  app.get('/api/merchant/payouts/balance', {
    config: merchant,
    schema: {
      tags: ['payouts'],
      summary: 'What may be paid out now: the wallet\'s balance, what is on hold, what is available',
      description: PAYOUT_FLOW,
      querystring: PayoutBalanceQuery,
      response: { 200: PayoutBalance, ...errors },
    },
  }, async (request) => readBalance(context, callerOf(request), request.query.currency));

  app.post('/api/merchant/payouts', {
    config: { ...merchant, idempotency: 'required' },
    schema: {
      tags: ['payouts'],
      summary: 'Pay out now (Idempotency-Key required): everything available, or amount',
      description: `${PAYOUT_FLOW}\n\n${STATEMENT_NOTE}\n\nIdempotency-Key required: the payout's id derives from it, so a retry (even after a
crash) answers the same payout and pays nothing twice. 422 nothing_to_pay_out (nothing available: all of it on hold, or an
empty wallet), 422 amount_exceeds_available, 422 payout_below_minimum (the settings' minimumAmount), 422 no_settlement_account (no
default account in the currency), 404 settlement_account_not_found, 400 currency_mismatch (the account is paid in another
currency), 422 rail_unavailable, 422 amount_not_payable (live: the provider cannot pay that amount; M-Pesa pays whole shillings,
and "everything available" is rounded down to them), 422 insufficient_funds (the wallet was spent meanwhile), 409 payout_in_progress.`,
      headers: IdempotencyHeader,
      body: CreatePayoutBody,
      response: { 201: PayoutRecord, ...errors },
    },
  }, async (request, reply) => {
    const caller = callerOf(request);
    const id = derivedId(request, 'merchant_payout', 'po')!;
    const made = await createPayout(context, caller, request.body, { id, trigger: 'manual', scheduleKey: null });
    let { row } = made;
    if (made.created && caller.mode === 'live') {
      // Submit to the provider now; the payment scheduler retries if this process dies first.
      await context.payments.runPayment(row.payment_id);
      row = (await getPayout(context, caller, row.id)).row;
    }
    return reply.status(201).send(payoutRecord(row, made.account, { statement: true }));
  });

  app.get('/api/merchant/payouts', {
    config: merchant,
    schema: {
      tags: ['payouts'],
      summary: 'The merchant\'s payouts, newest first (format=csv: all of them as CSV)',
      description: `${PAYOUT_FLOW}\n\nformat=csv answers text/csv, every payout of the filter (as GET /api/merchant/payouts.csv).`,
      querystring: PayoutListQuery,
      response: { 200: ListOf(PayoutRecord), ...errors },
    },
  }, async (request, reply) => {
    const caller = callerOf(request);
    const { limit = 20, offset = 0, status, format } = request.query;
    if (format === 'csv') return sendCsv(reply, await payoutsCsv(context, caller, status, PAYOUT_CSV_ROWS_MAX));
    const page = await listPayouts(db, caller.merchantId, caller.mode, status, limit, offset);
    const accounts = new Map<string, Awaited<ReturnType<typeof findSettlementAccount>>>();
    const data = [];
    for (const row of page.rows) {
      if (!accounts.has(row.settlement_account_id)) accounts.set(row.settlement_account_id, await findSettlementAccount(db, caller.merchantId, caller.mode, row.settlement_account_id, { includeRemoved: true }));
      data.push(payoutRecord(row, accounts.get(row.settlement_account_id)!, { statement: false }));
    }
    return { data, total: page.total, limit, offset };
  });

  app.get('/api/merchant/payouts.csv', {
    config: merchant,
    schema: {
      tags: ['payouts'],
      summary: 'Every payout of the filter as CSV, newest first: id, status, amount, currency, trigger, account, sales, refunds, fees, on hold...',
      description: `${PAYOUT_FLOW}\n\n${STATEMENT_NOTE}\n\nColumns: id, createdAt, status, trigger, amount, currency, accountType, accountName, account (masked),
provider, providerReference, periodStart, periodEnd, openingBalance, sales, refunds, fees, payouts, other, onHold, retained,
failureReason. Amounts in major units; the API's names and codes, so a file reads the same in every language.`,
      querystring: Type.Object({ status: PayoutListQuery.properties.status }),
      response: { 200: Type.String({ description: 'text/csv' }), ...errors },
    },
  }, async (request, reply) => sendCsv(reply, await payoutsCsv(context, callerOf(request), request.query.status, PAYOUT_CSV_ROWS_MAX)));

  app.get('/api/merchant/payouts/:id', {
    config: merchant,
    schema: {
      tags: ['payouts'],
      summary: 'A payout with its statement and timeline (404 payout_not_found for another merchant\'s or the other mode\'s)',
      description: `${PAYOUT_FLOW}\n\n${STATEMENT_NOTE}`,
      params: IdParams,
      response: { 200: PayoutRecord, ...errors },
    },
  }, async (request) => {
    const { row, account } = await getPayout(context, callerOf(request), request.params.id);
    return payoutRecord(row, account, { statement: true });
  });
}

function sendCsv(reply: FastifyReply, text: string) {
  return reply.headers({ 'content-disposition': 'attachment; filename="payouts.csv"', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' }).type('text/csv; charset=utf-8').send(text);
}
