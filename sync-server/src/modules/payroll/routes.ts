import { ID_LENGTH_MAX, PAYROLL_ITEMS_MAX } from '@tapline/shared/limits';
import type { FastifyRequest } from 'fastify';
import type { TypedApp } from '../../http/typed-app.ts';
import { Type } from 'typebox';
import { toMajor } from '@tapline/shared/money';
import {
  AddPayrollItemBody,
  CreatePayrollRunBody,
  ErrorBody,
  ListOf,
  PayrollBody,
  PayrollItemListQuery,
  PayrollItemRecord,
  PayrollRunListQuery,
  PayrollRunRecord,
} from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import { principalAs } from '../../auth/hooks.ts';
import { derivedId } from '../../http/idempotency.ts';
import { ApiError, notFound } from '../../http/errors.ts';
import { displayHandle } from '../../http/validate.ts';
import { LedgerError } from '../../ledger/ledger.ts';
import { type PayrollCaller, type SkippedItem, payrollService } from './service.ts';
import { type PayrollItemRow, type PayrollRunSummary, findRun, listItems, listRuns } from './store.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 422: ErrorBody, 429: ErrorBody };
const RunParams = Type.Object({ runId: Type.String({ maxLength: ID_LENGTH_MAX }) });
const ItemParams = Type.Object({ itemId: Type.String({ maxLength: ID_LENGTH_MAX }) });
const DeletedItem = Type.Object({ id: Type.String(), deleted: Type.Literal(true) });
const merchantOnly = { auth: ['merchant'] } as const;

const OVERVIEW = `Payroll pays many people from the merchant's wallet (the key's mode) in one currency. A run holds up to
${PAYROLL_ITEMS_MAX} items (more is a 400). An item pays either a Tapline wallet, {handle} (on-us: credited at once; the
wallet must hold the run's currency), or a rail, {rail: mobile_money | bank_transfer | cash_pickup, receiver, toCode,
receiverName?}, paid out as a payment (GET /api/payments/<paymentId>; rail fees and FX as on POST /api/pay; test keys:
the sandbox simulates it, reference test_failure fails it; live keys: the configured payout adapter). externalRef is
unique per run: a repeat is a 409 on POST /api/payroll/items and listed in \`skipped\` on bulk create.

Run states: draft -> processing -> completed | partially_failed | failed; draft -> cancelled. Item states: pending -> paid
| failed (failureReason). Submitting debits the merchant for every payable item and credits the on-us recipients in ONE
database transaction with the state change and its events; a wallet short of the total is a 422 insufficient_funds and
nothing moves (the run stays a draft). An item that cannot be paid at submit (a live rail without a payout adapter) fails
without being debited; a rail payout that fails later returns its money to the merchant (the payment's refund). The run
ends when no item is pending: completed (all paid), partially_failed or failed (none paid).

Webhook events: payroll.run.completed (completed or partially_failed), payroll.run.failed, payroll.item.failed; each
rail item's payment also sends its payment.* events. Amounts are major units.`;

function itemRecord(row: PayrollItemRow, currency: string) {
  return {
    id: row.id,
    runId: row.run_id,
    status: row.status,
    amount: toMajor(row.amount, currency),
    currency,
    ...(row.handle ? { handle: displayHandle(row.handle) } : {}),
    ...(row.rail ? { rail: row.rail } : {}),
    ...(row.receiver ? { receiver: Object.fromEntries(Object.entries(row.receiver).filter(([key]) => key !== 'phoneCountry')) as Record<string, string> } : {}),
    ...(row.to_country ? { toCode: row.to_country } : {}),
    ...(row.receiver_name ? { receiverName: row.receiver_name } : {}),
    reference: row.reference,
    externalRef: row.external_ref,
    ...(row.failure_reason ? { failureReason: row.failure_reason } : {}),
    ...(row.transfer_id ? { transferId: row.transfer_id } : {}),
    ...(row.payment_id ? { paymentId: row.payment_id } : {}),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

function runRecord(row: PayrollRunSummary, skipped?: SkippedItem[]) {
  return {
    id: row.id,
    status: row.status,
    currency: row.currency,
    description: row.description,
    reference: row.reference,
    mode: row.mode,
    itemCount: row.item_count,
    totalAmount: toMajor(row.total_amount, row.currency),
    paidAmount: toMajor(row.paid_amount, row.currency),
    counts: { pending: row.pending_count, paid: row.paid_count, failed: row.failed_count },
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    submittedAt: row.submitted_at?.toISOString() ?? null,
    endedAt: row.ended_at?.toISOString() ?? null,
    ...(skipped ? { skipped } : {}),
  };
}

function callerOf(request: FastifyRequest): PayrollCaller {
  const principal = principalAs(request, 'merchant');
  return { merchantId: principal.merchantId, handle: principal.handle, mode: principal.mode };
}

/** Spec: "POST or related calls under /api/payroll, /api/payroll/runs, /api/payroll/items" (shapes: CONTRACT.md's Stripe rule). */
export async function payrollRoutes(app: TypedApp, context: AppContext): Promise<void> {
  const { db } = context;
  const payroll = payrollService(context);

  app.post('/api/payroll', {
    config: { ...merchantOnly, idempotency: 'required' },
    schema: {
      tags: ['payroll'],
      summary: 'Create and submit a payroll run in one call (Idempotency-Key required): the common case',
      description: `${OVERVIEW}\n\nAnswers 201 with the run after its submit. When the submit is refused (insufficient_funds), the run stays a draft and the error's details carry its runId: fund the wallet and submit it, or cancel it.`,
      headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String({ description: '1 to 255 characters, e.g. a UUID; required' })) }),
      body: PayrollBody,
      response: { 201: PayrollRunRecord, ...errors },
    },
  }, async (request, reply) => {
    const caller = callerOf(request);
    const created = await payroll.createRun(caller, request.body, derivedId(request, 'payroll_run', 'prun'));
    let run = created.run;
    if (run.status === 'draft') {
      try {
        run = await payroll.submit(caller, run.id);
      } catch (error) {
        if (error instanceof LedgerError && error.code === 'insufficient_funds') {
          throw new ApiError(422, 'insufficient_funds', `Insufficient funds: payroll run ${run.id} stays a draft`, { details: [{ runId: run.id }] });
        }
        if (error instanceof ApiError) throw new ApiError(error.statusCode, error.code, error.message, { details: [{ runId: run.id }] });
        throw error;
      }
    }
    return reply.status(201).send(runRecord(run, created.skipped));
  });

  app.post('/api/payroll/runs', {
    config: { ...merchantOnly, idempotency: 'optional' },
    schema: {
      tags: ['payroll'],
      summary: `Create a draft payroll run, optionally with its items (at most ${PAYROLL_ITEMS_MAX})`,
      description: OVERVIEW,
      body: CreatePayrollRunBody,
      response: { 201: PayrollRunRecord, ...errors },
    },
  }, async (request, reply) => {
    const created = await payroll.createRun(callerOf(request), request.body, derivedId(request, 'payroll_run', 'prun'));
    return reply.status(201).send(runRecord(created.run, created.skipped));
  });

  app.get('/api/payroll/runs', {
    config: merchantOnly,
    schema: {
      tags: ['payroll'],
      summary: 'The merchant\'s payroll runs in the key\'s mode, newest first (filter: status)',
      querystring: PayrollRunListQuery,
      response: { 200: ListOf(PayrollRunRecord), ...errors },
    },
  }, async (request) => {
    const query = request.query;
    const limit = query.limit ?? 20;
    const offset = query.offset ?? 0;
    const page = await listRuns(db, callerOf(request), query.status, limit, offset);
    return { data: page.rows.map((row) => runRecord(row)), total: page.total, limit, offset };
  });

  app.get('/api/payroll/runs/:runId', {
    config: merchantOnly,
    schema: {
      tags: ['payroll'],
      summary: 'A payroll run with its totals: itemCount, totalAmount, paidAmount and counts per item status',
      params: RunParams,
      response: { 200: PayrollRunRecord, ...errors },
    },
  }, async (request) => runRecord(await payroll.getRun(callerOf(request), request.params.runId)));

  app.post('/api/payroll/runs/:runId/submit', {
    config: { ...merchantOnly, idempotency: 'optional' },
    schema: {
      tags: ['payroll'],
      summary: 'Submit a draft run: pays every item (Idempotency-Key honoured). 409 when the run is not a draft',
      description: OVERVIEW,
      params: RunParams,
      response: { 200: PayrollRunRecord, ...errors },
    },
  }, async (request) => runRecord(await payroll.submit(callerOf(request), request.params.runId)));

  app.post('/api/payroll/runs/:runId/cancel', {
    config: merchantOnly,
    schema: {
      tags: ['payroll'],
      summary: 'Cancel a draft run (409 otherwise); nothing was paid',
      params: RunParams,
      response: { 200: PayrollRunRecord, ...errors },
    },
  }, async (request) => runRecord(await payroll.cancel(callerOf(request), request.params.runId)));

  app.post('/api/payroll/items', {
    config: { ...merchantOnly, idempotency: 'optional' },
    schema: {
      tags: ['payroll'],
      summary: 'Add an item to a draft run (409 when the run is not a draft or the externalRef is taken)',
      description: OVERVIEW,
      body: AddPayrollItemBody,
      response: { 201: PayrollItemRecord, ...errors },
    },
  }, async (request, reply) => {
    const { runId, ...input } = request.body;
    const item = await payroll.addItem(callerOf(request), runId, input);
    return reply.status(201).send(itemRecord(item, item.currency));
  });

  app.get('/api/payroll/items', {
    config: merchantOnly,
    schema: {
      tags: ['payroll'],
      summary: 'The items of a run, in the order they were added (filter: status)',
      querystring: PayrollItemListQuery,
      response: { 200: ListOf(PayrollItemRecord), ...errors },
    },
  }, async (request) => {
    const caller = callerOf(request);
    const query = request.query;
    const run = await findRun(db, query.runId, caller);
    if (!run) throw notFound('payroll_run_not_found', `No payroll run ${query.runId}`);
    const limit = query.limit ?? 20;
    const offset = query.offset ?? 0;
    const page = await listItems(db, run.id, query.status, limit, offset);
    return { data: page.rows.map((row) => itemRecord(row, run.currency)), total: page.total, limit, offset };
  });

  app.get('/api/payroll/items/:itemId', {
    config: merchantOnly,
    schema: { tags: ['payroll'], summary: 'A payroll item', params: ItemParams, response: { 200: PayrollItemRecord, ...errors } },
  }, async (request) => {
    const caller = callerOf(request);
    const item = await payroll.getItem(caller, request.params.itemId);
    const run = await payroll.getRun(caller, item.run_id);
    return itemRecord(item, run.currency);
  });

  app.delete('/api/payroll/items/:itemId', {
    config: merchantOnly,
    schema: {
      tags: ['payroll'],
      summary: 'Remove an item from a draft run (409 when the run is not a draft)',
      params: ItemParams,
      response: { 200: DeletedItem, ...errors },
    },
  }, async (request) => {
    const { itemId } = request.params;
    await payroll.removeItem(callerOf(request), itemId);
    return { id: itemId, deleted: true as const };
  });
}
