import type { TypedApp } from '../../http/typed-app.ts';
import { LOOKUP_ID_LENGTH_MAX } from '@tapline/shared/limits';
import { Type } from 'typebox';
import { ErrorBody, FX_ROUNDING_RULES, ListOf, ListQuery, PaymentListQuery, PaymentRecord, PayRequest } from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import { principalAs } from '../../auth/hooks.ts';
import { notFound, unauthorized } from '../../http/errors.ts';
import { idempotentId } from '../../http/idempotency.ts';
import { describeRails } from './rails.ts';
import { createPayment, paymentRecord } from './service.ts';
import { findPayment, listPayments, listPaymentsNeedingAttention } from './store.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };

const PAY_DESCRIPTION = `Sends money from the merchant's wallet (in the key's mode) to a receiver over a rail.

Header Idempotency-Key is required (400 without): the first answer is replayed with Idempotent-Replayed: true;
the same key with another body is a 422 idempotency_key_reused; while the first is still running, 409
idempotency_in_progress. Never a second charge: the payment id and its ledger transfers derive from the key.

Required fields: fromCode, toCode, rail, amount, currency, receiver. The receiver is an E.164 phone, an account
number, an @handle or an object {phone | accountNumber (+ bankCode) | handle, provider?, name?}; mobile_money and
cash_pickup need a phone of the recipient country, bank_transfer an account number, wallet an @handle of a Tapline
wallet; in live mode a bank transfer also needs bankCode (a Nigerian account is the 10-digit NUBAN; branchCode and
accountType where the country's banks need them). A rail not offered in the recipient country, or a live rail whose
route has no configured payment provider (README, Live payouts), is a 422 rail_unavailable. A live amount the chosen
provider cannot pay is a 422 amount_not_payable before any debit: M-Pesa B2C pays whole shillings only, so an amount
that converts to KES with cents is refused (send one that converts to whole shillings). Rails and recipient countries: ${describeRails()}.

The merchant's wallet is debited amount + fee in \`currency\` (422 insufficient_funds otherwise); the recipient gets
destinationAmount in the recipient country's currency (the recipient wallet's currency for rail wallet). Rail wallet to a
person's wallet is held against her verification tier (docs/wallet-tiers.md: her maximum balance and money in for 24 hours)
before any debit: 422 recipient_tier_limit_exceeded, telling nothing of her balance or limits. Fees are a
per-rail percentage (PAYMENT_FEES). quoteId locks a quote's rate while it is valid (expired: 410 quote_expired).

Sandbox (mk_test_ keys): reference test_success completes at once; test_failure fails at once (the debit is refunded,
failureReason set); test_pending stays pending; test_reversal completes at once and is reversed one step later (a
correcting transfer; status reversed; payment.reversed). Any other reference goes pending -> processing ->
completed, one step (SANDBOX_STEP_MS, default 1.5 s) apart. Live (mk_live_ keys): rail wallet settles at once on-us;
other rails go to a payout adapter.

Events (webhooks): payment.completed, payment.failed, payment.reversed.

${FX_ROUNDING_RULES}`;

export async function paymentRoutes(app: TypedApp, context: AppContext): Promise<void> {
  const { db, payments } = context;
  const deps = { db, config: context.config, now: context.now, fx: context.fx, payoutProviders: context.payoutProviders };

  app.post('/api/pay', {
    config: { auth: ['merchant'], idempotency: 'required' },
    schema: {
      tags: ['payments'],
      summary: 'Make a payment (Idempotency-Key required)',
      description: PAY_DESCRIPTION,
      headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String({ description: '1 to 255 characters, e.g. a UUID; required' })) }),
      body: PayRequest,
      response: { 201: PaymentRecord, ...errors, 409: ErrorBody, 410: ErrorBody, 422: ErrorBody },
    },
  }, async (request, reply) => {
    const principal = principalAs(request, 'merchant');
    const seed = idempotentId(request, 'pay')!;
    const paymentId = `pay_${seed.slice(seed.indexOf(':') + 1)}`;
    const caller = { merchantId: principal.merchantId, handle: principal.handle, mode: principal.mode };
    const created = await createPayment(deps, caller, request.body, paymentId);
    let row = created.row;
    if (created.created && row.scenario === 'provider') {
      // Submit to the payout adapter now; the scheduler retries if this process dies first.
      await payments.runPayment(row.id);
      row = (await findPayment(db, row.id)) ?? row;
    }
    return reply.status(201).send(paymentRecord(row, { owner: true }));
  });

  app.get('/api/payments/:id', {
    schema: {
      tags: ['payments'],
      summary: 'A payment, with its timeline (public)',
      description:
        'Public: anyone holding the id may poll it. Called with a merchant key, the payment must be that merchant\'s in that mode (404 otherwise) and the answer adds the merchant-only fields (receiver, reference, rail...). An invalid credential is a 401.',
      params: Type.Object({ id: Type.String({ maxLength: LOOKUP_ID_LENGTH_MAX }) }),
      response: { 200: PaymentRecord, ...errors },
    },
  }, async (request) => {
    const { id } = request.params;
    const credential = request.credential;
    if (credential.state === 'invalid') throw unauthorized(credential.code, credential.message);
    const row = await findPayment(db, id);
    if (!row) throw notFound('payment_not_found', `No payment ${id}`);
    const principal = credential.state === 'valid' ? credential.principal : undefined;
    if (principal && (principal.kind === 'merchant' || principal.kind === 'terminal')) {
      if (row.merchant_id !== principal.merchantId || row.mode !== principal.mode) throw notFound('payment_not_found', `No payment ${id}`);
      return paymentRecord(row, { owner: true });
    }
    return paymentRecord(row, { owner: principal?.kind === 'admin' });
  });

  app.get('/api/payments', {
    config: { auth: ['merchant'] },
    schema: {
      tags: ['payments'],
      summary: 'The merchant\'s payments in the key\'s mode, newest first',
      description: 'Filters: status; kind, payout (the merchant\'s payments out) or link (its payment links\' payments); paymentLinkId, the payments a payment link received (each carries that paymentLinkId). Every way the merchant is paid, kiosk and checkout included: GET /api/merchant/received. A filter that matches nothing of this merchant in this mode, such as another merchant\'s link, answers an empty list.',
      querystring: PaymentListQuery,
      response: { 200: ListOf(PaymentRecord), ...errors },
    },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    const query = request.query;
    const limit = query.limit ?? 20;
    const offset = query.offset ?? 0;
    const page = await listPayments(db, principal.merchantId, principal.mode, { status: query.status, kind: query.kind, paymentLinkId: query.paymentLinkId }, limit, offset);
    return { data: page.rows.map((row) => paymentRecord(row, { owner: true })), total: page.total, limit, offset };
  });

  const attentionSince = (now = context.now()) => new Date(now.getTime() - context.config.railAttentionHours * 3_600_000);
  const AttentionRecord = Type.Intersect([PaymentRecord, Type.Object({
    merchantId: Type.Union([Type.String(), Type.Null()], { description: 'The merchant that paid; null for a wallet holder\'s withdrawal' }),
    merchantName: Type.Union([Type.String(), Type.Null()], { description: 'That merchant\'s name' }),
    mode: Type.String(),
    provider: Type.Union([Type.String(), Type.Null()], { description: 'The payment provider it went to' }),
    lastError: Type.Union([Type.String(), Type.Null()], { description: 'The last error of a call to the provider, if any' }),
  })]);

  app.get('/api/admin/payments/attention', {
    config: { auth: ['admin'] },
    schema: {
      tags: ['admin'],
      summary: 'Live payouts still open at their provider past RAIL_ATTENTION_HOURS, oldest first',
      description:
        'A live payout stays pending or processing until its provider says final (a payout is never sent twice, so an unknown outcome waits for the provider). Past RAIL_ATTENTION_HOURS (default 24) it is listed here, and counted in tapline_payments_needing_attention, for an operator to chase with the provider.',
      querystring: ListQuery,
      response: {
        200: Type.Intersect([
          ListOf(AttentionRecord),
          Type.Object({
            attentionHours: Type.Number({ description: 'RAIL_ATTENTION_HOURS: how long a payout may stay open before it is listed here' }),
            asOf: Type.String({ format: 'date-time', description: "The server's time of the answer: a payout's age is asOf - createdAt" }),
          }),
        ]),
        ...errors,
      },
    },
  }, async (request) => {
    const { limit = 20, offset = 0 } = request.query;
    const now = context.now();
    const page = await listPaymentsNeedingAttention(db, attentionSince(now), now, limit, offset);
    return {
      attentionHours: context.config.railAttentionHours,
      asOf: now.toISOString(),
      data: page.rows.map((row) => ({ ...paymentRecord(row, { owner: true }), merchantId: row.merchant_id, merchantName: row.merchant_name, mode: row.mode, provider: row.provider, lastError: row.last_step_error ?? null })),
      total: page.total,
      limit,
      offset,
    };
  });

  app.metrics.gauge('tapline_payments_needing_attention', 'Live payouts still pending or processing at their provider past RAIL_ATTENTION_HOURS and their estimated arrival', async () => {
    const now = context.now();
    return (await listPaymentsNeedingAttention(db, attentionSince(now), now, 0, 0)).total;
  });
}
