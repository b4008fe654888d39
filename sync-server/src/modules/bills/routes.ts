import type { TypedApp } from '../../http/typed-app.ts';
import { LOOKUP_ID_LENGTH_MAX } from '@tapline/shared/limits';
import { Type } from 'typebox';
import { BillPayRequest, BillPayment, BillPaymentListQuery, Biller, BillerQuery, ErrorBody, ListOf } from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import { principalAs } from '../../auth/hooks.ts';
import { newId } from '../../auth/secrets.ts';
import { notFound } from '../../http/errors.ts';
import { idempotentId } from '../../http/idempotency.ts';
import { supportedCountry } from '../../http/validate.ts';
import { BILLERS } from './catalogue.ts';
import { billRecord, payBill } from './service.ts';
import { findBill, listBills } from './store.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };

const PAY_DESCRIPTION = `Pays a bill from the merchant's wallet (in the key's mode): airtime and data bundles to a phone
(accountRef: E.164 or local number of the biller's country), prepaid electricity to a meter number (the result carries
the token and the kWh), cable TV to a smartcard number. The wallet is debited amount + fee in the biller's currency
(422 insufficient_funds otherwise). An Idempotency-Key header is honoured: the same key answers the same bill.
Sandbox (mk_test_): the result comes at once; reference test_failure makes the biller refuse (status failed, debit
refunded). Live: a bill-payment adapter must be configured for the biller, otherwise 422 biller_unavailable.`;

export async function billRoutes(app: TypedApp, context: AppContext): Promise<void> {
  const { db } = context;
  const deps = { db, config: context.config, now: context.now, billerProviders: context.billerProviders };

  app.get('/api/bills/billers', {
    schema: {
      tags: ['bills'],
      summary: 'The biller catalogue (NG, GH, KE), filtered by country and billType (public)',
      querystring: BillerQuery,
      response: { 200: ListOf(Biller), 400: ErrorBody, 429: ErrorBody },
    },
  }, async (request) => {
    const query = request.query;
    const country = query.country ? supportedCountry(query.country) : undefined;
    const limit = query.limit ?? 20;
    const offset = query.offset ?? 0;
    const matching = BILLERS.filter((biller) => (!country || biller.country === country) && (!query.billType || biller.billType === query.billType));
    return { data: matching.slice(offset, offset + limit), total: matching.length, limit, offset };
  });

  app.post('/api/bills/pay', {
    config: { auth: ['merchant'], idempotency: 'optional' },
    schema: { tags: ['bills'], summary: 'Pay a bill', description: PAY_DESCRIPTION, body: BillPayRequest, response: { 201: BillPayment, ...errors, 409: ErrorBody, 422: ErrorBody } },
  }, async (request, reply) => {
    const principal = principalAs(request, 'merchant');
    const seed = idempotentId(request, 'bill');
    const billId = seed ? `bill_${seed.slice(seed.indexOf(':') + 1)}` : newId('bill');
    const row = await payBill(deps, { merchantId: principal.merchantId, handle: principal.handle, mode: principal.mode }, request.body, billId);
    return reply.status(201).send(billRecord(row));
  });

  app.get('/api/bills/payments', {
    config: { auth: ['merchant'] },
    schema: {
      tags: ['bills'],
      summary: 'The merchant\'s bill payments in the key\'s mode, newest first (filters: status, billType)',
      querystring: BillPaymentListQuery,
      response: { 200: ListOf(BillPayment), ...errors },
    },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    const query = request.query;
    const limit = query.limit ?? 20;
    const offset = query.offset ?? 0;
    const page = await listBills(db, { merchantId: principal.merchantId, mode: principal.mode }, { status: query.status, billType: query.billType }, limit, offset);
    return { data: page.rows.map(billRecord), total: page.total, limit, offset };
  });

  app.get('/api/bills/payments/:id', {
    config: { auth: ['merchant'] },
    schema: { tags: ['bills'], summary: 'One bill payment', params: Type.Object({ id: Type.String({ maxLength: LOOKUP_ID_LENGTH_MAX }) }), response: { 200: BillPayment, ...errors } },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    const { id } = request.params;
    const row = await findBill(db, id);
    if (!row || row.merchant_id !== principal.merchantId || row.mode !== principal.mode) throw notFound('bill_not_found', `No bill payment ${id}`);
    return billRecord(row);
  });
}
