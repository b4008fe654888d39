import { LOOKUP_ID_LENGTH_MAX } from '@tapline/shared/limits';
import { Type } from 'typebox';
import { isSupportedCurrency, toMajor, toMinor } from '@tapline/shared/money';
import { ErrorBody, ListOf, ListQuery } from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import { notFound } from '../../http/errors.ts';
import { supportedCurrency } from '../../http/validate.ts';
import type { TypedApp } from '../../http/typed-app.ts';
import type { Mismatch, Totals } from './compare.ts';
import type { ReconciliationRecord } from './service.ts';
import type { ReconciliationRow, SettlementRow } from './service.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };

const Provider = Type.String({ minLength: 1, maxLength: 40, description: 'A payment provider: paystack, flutterwave, mpesa or momo (or a configured live bill payer)' });
const Day = Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description: 'A UTC day, YYYY-MM-DD', examples: ['2025-03-14'] });
const Amounts = (description: string) => Type.Record(Type.String(), Type.Number(), { description });
const Side = (who: string) =>
  Type.Union([
    Type.Object({
      status: Type.String({ description: `The payout's, collection's or bill's status as ${who} show it` }),
      amount: Type.Union([Type.Number(), Type.Null()], { description: 'Major units; null when the answer carries no amount (a status query by key)' }),
      currency: Type.Union([Type.String(), Type.Null()]),
    }),
    Type.Null(),
  ]);

const MismatchRecord = Type.Object({
  direction: Type.Union([Type.Literal('payout'), Type.Literal('collection'), Type.Literal('bill')], {
    description:
      'payout: money Tapline sent out through the provider; collection: money a customer paid in from her phone through the provider (till sale, wallet or agent float top-up); bill: a live bill payment (airtime, electricity, cable TV) the provider paid from a wallet',
  }),
  kind: Type.Union([Type.Literal('provider_only'), Type.Literal('ours_only'), Type.Literal('amount_differs'), Type.Literal('status_differs')], {
    description:
      'provider_only: the provider paid (or is paying) something we do not show as paid; ours_only: we show it completed and the provider has no such payout or says failed; amount_differs: both say paid, amounts or currencies differ; status_differs: states that disagree otherwise (a reversal we did not record, a payout one side still has open)',
  }),
  paymentId: Type.Union([Type.String(), Type.Null()], { description: 'Our payment (payout), collection or bill payment id; null when the provider reference maps to none of ours' }),
  providerReference: Type.Union([Type.String(), Type.Null()]),
  ours: Side('we'),
  theirs: Side('the provider'),
});

const ReconciliationSummary = Type.Object({
  id: Type.String(),
  provider: Type.String(),
  day: Type.String({ description: 'The UTC day reconciled (YYYY-MM-DD)' }),
  status: Type.Union([Type.Literal('clean'), Type.Literal('mismatched'), Type.Literal('failed')], { description: 'failed: the provider could not be asked (error says why)' }),
  method: Type.Union([Type.Literal('list'), Type.Literal('by_key')], {
    description: "list: the provider's record of the day; by_key: each of our payouts asked about by its key (providers without a daily list: M-Pesa, MTN MoMo)",
  }),
  matched: Type.Integer({ description: 'Payouts, collections and bills both sides agree on' }),
  mismatched: Type.Integer(),
  ourTotals: Amounts('Our payouts of the day that we show completed, major units per currency'),
  providerTotals: Amounts("The provider's completed payouts of the day, major units per currency (by_key: our amounts of the payouts it confirms paid)"),
  clearingNet: Amounts('Our payouts of the day still pending or processing, major units per currency of the day: 0 means the rail clearing nets to zero'),
  ledgerClearingNet: Amounts(
    "The ledger: what the day's payouts and live bills left on this provider's rail clearing account (rail_clearing:<provider>), major units per currency: 0 once each of them is paid out (settled) or refunded",
  ),
  clearingBalance: Amounts(
    "The ledger: this provider's rail clearing balance (live) when the day was reconciled, settlements recorded by then included, major units per currency: payouts of any day still in flight, less the collections the provider holds and has not yet settled to Tapline (negative: money the provider owes Tapline)",
  ),
  collectionTotals: Amounts('Our collections of the day through this provider that we show completed (what the phone paid, fee included), major units per currency'),
  collectionProviderTotals: Amounts("The provider's completed collections of the day, major units per currency (its amounts where its record carries them, otherwise ours)"),
  billTotals: Amounts('Our live bill payments of the day through this provider that we show completed (what the biller is paid, Tapline\'s fee excluded), major units per currency'),
  billProviderTotals: Amounts("The provider's bill payments of the day that it confirms paid, asked about by key, major units per currency (its amounts)"),
  bankTransfersRecovered: Type.Integer({
    minimum: 0,
    description:
      "Bank transfers into wallets' virtual accounts that the provider's list of the day showed successful and no webhook had brought, credited by this day's runs (Paystack and Flutterwave; each once, through the webhook's own path, so a webhook arriving later changes nothing)",
  }),
  error: Type.Union([Type.String(), Type.Null()]),
  runs: Type.Integer({ description: 'How many times the day was reconciled (a re-run replaces the record)' }),
  createdAt: Type.String({ format: 'date-time', description: 'When the day was last reconciled' }),
});
const ReconciliationDetail = Type.Intersect([ReconciliationSummary, Type.Object({ mismatches: Type.Array(MismatchRecord) })]);

/** Minor units as the API's major units; a currency Tapline does not know (a provider's) is left in its units. */
function major(amount: number, currency: string): number {
  return isSupportedCurrency(currency) ? toMajor(amount, currency) : amount;
}

function totals(minor: Totals): Record<string, number> {
  return Object.fromEntries(Object.entries(minor).map(([currency, amount]) => [currency, major(amount, currency)]));
}

function summary(row: ReconciliationRow) {
  return {
    id: row.id,
    provider: row.provider,
    day: row.day,
    status: row.status,
    method: row.method,
    matched: row.matched,
    mismatched: row.mismatched,
    ourTotals: totals(row.our_totals),
    providerTotals: totals(row.provider_totals),
    clearingNet: totals(row.clearing_net),
    ledgerClearingNet: totals(row.ledger_clearing_net),
    clearingBalance: totals(row.clearing_balance),
    collectionTotals: totals(row.collection_totals),
    collectionProviderTotals: totals(row.collection_provider_totals),
    billTotals: totals(row.bill_totals),
    billProviderTotals: totals(row.bill_provider_totals),
    bankTransfersRecovered: row.bank_transfers_recovered,
    error: row.error,
    runs: row.runs,
    createdAt: row.created_at.toISOString(),
  };
}

function mismatchRecord(mismatch: Mismatch) {
  const side = <S extends { status: string; amount: number | null; currency: string | null }>(value: S | null) =>
    value ? { status: value.status, amount: value.amount !== null && value.currency !== null ? major(value.amount, value.currency) : value.amount, currency: value.currency } : null;
  return { kind: mismatch.kind, direction: mismatch.direction, paymentId: mismatch.paymentId, providerReference: mismatch.providerReference, ours: side(mismatch.ours), theirs: side(mismatch.theirs) };
}

function detail(record: ReconciliationRecord) {
  return { ...summary(record), mismatches: record.mismatches.map(mismatchRecord) };
}

const RUN_DESCRIPTION = `Reconciles one provider's UTC day now: our live payouts through it made that day against the provider's own
record (its list of the day where it has one, Paystack and Flutterwave; otherwise each payout asked about by its key,
M-Pesa and MTN MoMo), and our live collections through it made that day (till mobile money, wallet and agent float
top-ups): Paystack and Flutterwave from their list of the day's transactions (so a charge under a key of ours that we
never stored, or show failed or expired, is a provider_only mismatch), then by reference for ours the list did not show;
M-Pesa and MoMo each asked about by its key (the Express query, request-to-pay); and our live bill payments through
it made that day (Flutterwave), each asked about by its key (GET /v3/bills/{reference}). Each mismatch says its
direction (payout, collection or bill). Idempotent per provider and day: a re-run replaces the day's record (same id, runs counted).
A mismatch moves no money: it is for an operator to take up with the provider. The one movement: a bank transfer into
a wallet's virtual account that the provider's list shows successful and whose webhook never arrived is credited once,
through the webhook's own path (bankTransfersRecovered counts them). The daily job does the same for
every configured provider, RECONCILE_AFTER_HOURS (default 2) after each day ends. A provider that cannot be asked
answers 200 with status failed and the error. Errors: 404 rail_provider_not_configured (unknown provider, or not
configured on this server), 400 validation_failed (day is not a calendar day YYYY-MM-DD), 409
reconciliation_day_not_over (the day has not ended yet, in UTC).`;

const Settlement = Type.Object({
  id: Type.String(),
  provider: Type.String(),
  amount: Type.Number({ description: 'Major units' }),
  currency: Type.String(),
  reference: Type.String({ description: "The provider's settlement or batch reference (one record per provider and reference)" }),
  settledOn: Type.String({ description: 'The day the provider paid, YYYY-MM-DD' }),
  transferId: Type.String({ description: 'The ledger transfer: the platform bank account to rail_clearing:<provider>' }),
  createdAt: Type.String({ format: 'date-time' }),
});

function settlementRecord(row: SettlementRow) {
  return {
    id: row.id,
    provider: row.provider,
    amount: major(row.amount, row.currency),
    currency: row.currency,
    reference: row.reference,
    settledOn: row.settled_on,
    transferId: row.transfer_id,
    createdAt: row.created_at.toISOString(),
  };
}

const SETTLEMENT_DESCRIPTION = `Records that a provider paid Tapline what it collected for us: a completed collection (a customer paying from her
phone) takes the money out of the provider's clearing account rail_clearing:<provider>, which stays negative while the
provider holds it; when the provider's settlement reaches Tapline's bank an operator records it here, with the provider's
settlement (batch) reference. The server posts one balanced ledger transfer, the platform's bank account of the currency
(system account bank) to the provider's clearing, in the same transaction as the record: the clearing goes back toward
zero, and the next reconciliation's clearingBalance shows it. Once per provider and reference: a repeat answers the first
record (200 instead of 201) and posts nothing; the same reference with another amount, currency or settledOn is 409
settlement_reference_conflict. Amount in major units. Errors: 404 rail_provider_not_configured; 400
validation_failed (amount not positive, reference empty, settledOn not a day), 400 settled_on_in_future (a UTC day not begun), 400 with MoneyError codes
(amount_must_not_be_zero, amount_must_be_positive, amount_too_many_decimals for more decimals than the currency has), 400 currency_not_supported, 400
currency_not_cleared (a currency the provider never cleared for Tapline).`;

export async function reconciliationRoutes(app: TypedApp, context: AppContext): Promise<void> {
  const service = context.reconciliation;

  app.post('/api/admin/rails/reconciliations', {
    config: { auth: ['admin'] },
    schema: {
      tags: ['admin'],
      operationId: 'runRailReconciliation',
      summary: "Reconcile a provider's live payouts of a UTC day now",
      description: RUN_DESCRIPTION,
      body: Type.Object({ provider: Provider, day: Day }),
      response: { 200: ReconciliationDetail, ...errors, 409: ErrorBody },
    },
  }, async (request) => detail(await service.reconcile(request.body.provider, request.body.day)));

  app.get('/api/admin/rails/reconciliations', {
    config: { auth: ['admin'] },
    schema: {
      tags: ['admin'],
      operationId: 'listRailReconciliations',
      summary: 'Reconciliations with the payment providers, newest day first',
      description: 'Filters: provider, day (YYYY-MM-DD). Each day of each provider has one record, the latest run of it; its mismatches are at GET /api/admin/rails/reconciliations/{id}.',
      querystring: Type.Intersect([ListQuery, Type.Object({ provider: Type.Optional(Provider), day: Type.Optional(Day) })]),
      response: { 200: ListOf(ReconciliationSummary), ...errors },
    },
  }, async (request) => {
    const { limit = 20, offset = 0, provider, day } = request.query;
    const page = await service.list({ provider, day }, limit, offset);
    return { data: page.rows.map(summary), total: page.total, limit, offset };
  });

  app.get('/api/admin/rails/reconciliations/:id', {
    config: { auth: ['admin'] },
    schema: {
      tags: ['admin'],
      operationId: 'getRailReconciliation',
      summary: 'A reconciliation with its mismatches',
      description: 'The mismatches in the order found; 404 reconciliation_not_found.',
      params: Type.Object({ id: Type.String({ maxLength: LOOKUP_ID_LENGTH_MAX }) }),
      response: { 200: ReconciliationDetail, ...errors },
    },
  }, async (request) => {
    const record = await service.find(request.params.id);
    if (!record) throw notFound('reconciliation_not_found', `No reconciliation ${request.params.id}`);
    return detail(record);
  });

  app.post('/api/admin/rails/settlements', {
    config: { auth: ['admin'] },
    schema: {
      tags: ['admin'],
      operationId: 'recordRailSettlement',
      summary: 'Record that a provider settled collected money to Tapline',
      description: SETTLEMENT_DESCRIPTION,
      body: Type.Object({
        provider: Provider,
        amount: Type.Number({ description: 'Major units, positive', examples: [12500.5] }),
        currency: Type.String({ minLength: 3, maxLength: 3 }),
        reference: Type.String({ minLength: 1, maxLength: 120, description: "The provider's settlement or batch reference" }),
        settledOn: Day,
      }),
      response: { 200: Settlement, 201: Settlement, ...errors, 409: ErrorBody },
    },
  }, async (request, reply) => {
    const body = request.body;
    const currency = supportedCurrency(body.currency);
    const { settlement, created } = await service.recordSettlement({
      provider: body.provider,
      amount: toMinor(body.amount, currency),
      currency,
      reference: body.reference,
      settledOn: body.settledOn,
    });
    return reply.status(created ? 201 : 200).send(settlementRecord(settlement));
  });

  app.get('/api/admin/rails/settlements', {
    config: { auth: ['admin'] },
    schema: {
      tags: ['admin'],
      operationId: 'listRailSettlements',
      summary: 'Provider settlements recorded, newest settlement day first',
      description: 'Filter: provider.',
      querystring: Type.Intersect([ListQuery, Type.Object({ provider: Type.Optional(Provider) })]),
      response: { 200: ListOf(Settlement), ...errors },
    },
  }, async (request) => {
    const { limit = 20, offset = 0, provider } = request.query;
    const page = await service.settlements({ provider }, limit, offset);
    return { data: page.rows.map(settlementRecord), total: page.total, limit, offset };
  });
}
