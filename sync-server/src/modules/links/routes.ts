import { LOOKUP_ID_LENGTH_MAX } from '@tapline/shared/limits';
import type { FastifyRequest } from 'fastify';
import type { TypedApp } from '../../http/typed-app.ts';
import { type Static, Type } from 'typebox';
import { CreatePaymentLinkBody, ErrorBody, ListOf, PayLinkBody, PayLinkResponse, PaymentLink, PaymentLinkListQuery } from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import { principalAs } from '../../auth/hooks.ts';
import { newId } from '../../auth/secrets.ts';
import { notFound } from '../../http/errors.ts';
import { canonicalHandle } from '../../http/validate.ts';
import { idempotentId } from '../../http/idempotency.ts';
import { findMerchant } from '../merchants/index.ts';
import { LINK_PAGE_HEADERS, LINK_PAGE_SCRIPT, linkPage, messagePage } from './page.ts';
import { createLink, linkRecord, payLink, provePayer } from './service.ts';
import { deactivateLink, findLink, listLinks } from './store.ts';

const merchantOnly = { auth: ['merchant'] } as const;
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };
const IdParams = Type.Object({ id: Type.String({ maxLength: LOOKUP_ID_LENGTH_MAX }) });

export async function linkRoutes(app: TypedApp, { db, config, now }: AppContext): Promise<void> {
  const owned = async (id: string, merchantId: string, mode: string) => {
    const row = await findLink(db, id);
    if (!row || row.merchant_id !== merchantId || row.mode !== mode) throw notFound('payment_link_not_found', `No payment link ${id}`);
    return row;
  };

  app.post('/api/payment-links', {
    config: { ...merchantOnly, idempotency: 'optional' },
    schema: {
      tags: ['payment links'],
      summary: 'Create a payment link: fixed or variable amount, single-use or reusable, optional expiry',
      description: 'amount absent: the payer chooses it (within minAmount..maxAmount when given). singleUse defaults to false. The link pays into the merchant\'s wallet in the key\'s mode, less the payment_link fee. Its public page is url ({base_url}/pay/link/<id>).',
      body: CreatePaymentLinkBody,
      response: { 201: PaymentLink, ...errors, 409: ErrorBody, 422: ErrorBody },
    },
  }, async (request, reply) => {
    const principal = principalAs(request, 'merchant');
    const seed = idempotentId(request, 'plink');
    const id = seed ? `plink_${seed.slice(seed.indexOf(':') + 1, seed.indexOf(':') + 25)}` : newId('plink');
    const row = await createLink(db, { merchantId: principal.merchantId, mode: principal.mode }, request.body, now(), id);
    return reply.status(201).send(linkRecord(row, config.publicBaseUrl, now()));
  });

  app.get('/api/payment-links', {
    config: merchantOnly,
    schema: { tags: ['payment links'], summary: 'The merchant\'s payment links in the key\'s mode, newest first', querystring: PaymentLinkListQuery, response: { 200: ListOf(PaymentLink), ...errors } },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    const query = request.query;
    const limit = query.limit ?? 20;
    const offset = query.offset ?? 0;
    const page = await listLinks(db, principal.merchantId, principal.mode, query.active, limit, offset);
    const at = now();
    return { data: page.rows.map((row) => linkRecord(row, config.publicBaseUrl, at)), total: page.total, limit, offset };
  });

  app.get('/api/payment-links/:id', {
    config: merchantOnly,
    schema: { tags: ['payment links'], summary: 'One payment link', params: IdParams, response: { 200: PaymentLink, ...errors } },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    const row = await owned(request.params.id, principal.merchantId, principal.mode);
    return linkRecord(row, config.publicBaseUrl, now());
  });

  app.post('/api/payment-links/:id/deactivate', {
    config: merchantOnly,
    schema: { tags: ['payment links'], summary: 'Deactivate a link: it can no longer be paid (410)', params: IdParams, response: { 200: PaymentLink, ...errors } },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    const { id } = request.params;
    await owned(id, principal.merchantId, principal.mode);
    const row = await deactivateLink(db, id, principal.merchantId, principal.mode, now());
    if (!row) throw notFound('payment_link_not_found', `No payment link ${id}`);
    return linkRecord(row, config.publicBaseUrl, now());
  });

  /** The pay route's request as its schemas type it, for its body-credential callbacks (http/idempotency.ts). */
  type PayRequest = FastifyRequest<{ Params: Static<typeof IdParams>; Body: Static<typeof PayLinkBody> }>;
  app.post('/api/payment-links/:id/pay', {
    config: {
      idempotency: 'optional',
      // Public route: the payer is named and proven in the body, so the key is theirs (per link)
      // and the PIN stays out of the stored request hash; a replay asks for the PIN again.
      idempotencyBodyCredential: {
        scope: (request: PayRequest) => `payment_link:${request.params.id}:${canonicalHandle(request.body.handle)}`,
        secrets: ['pin'],
        beforeReplay: (request: PayRequest) => provePayer(db, request.params.id, request.body, now()),
        forgetStatuses: [403, 429],
      },
    },
    schema: {
      tags: ['payment links'],
      summary: 'Pay a link with a wallet handle and PIN (public; what the link page posts)',
      description: 'Wrong PIN 403 (5 wrong PINs lock the wallet for 15 minutes: 429); expired or deactivated link 410; a single-use link already paid 409; insufficient funds 422. An optional Idempotency-Key (per payer and link) replays the first answer to a retry, after checking the PIN again; a wrong PIN does not use the key up.',
      params: IdParams,
      headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String({ description: '1 to 255 characters, e.g. a UUID; optional' })) }),
      body: PayLinkBody,
      response: { 200: PayLinkResponse, ...errors, 409: ErrorBody, 410: ErrorBody, 422: ErrorBody },
    },
  }, async (request) => {
    const { id } = request.params;
    const derived = idempotentId(request, 'plink_pay');
    const paymentId = derived ? `pay_${derived.slice(derived.indexOf(':') + 1, derived.indexOf(':') + 33)}` : undefined;
    return payLink({ db, config, now }, id, request.body, paymentId);
  });

  // The public page. Not part of the JSON API: HTML, no rate-limit group, no credential.
  app.get('/pay/link/:id', { schema: { hide: true, params: Type.Object({ id: Type.String() }) } }, async (request, reply) => {
    const { id } = request.params;
    reply.headers(LINK_PAGE_HEADERS).type('text/html; charset=utf-8');
    const row = await findLink(db, id);
    if (!row) return reply.status(404).send(messagePage('Unknown payment link', 'There is no payment link at this address.'));
    const merchant = await findMerchant(db, row.merchant_id);
    const rendered = linkPage(row, merchant?.name ?? 'the merchant', now());
    return reply.status(rendered.status).send(rendered.html);
  });

  app.get('/pay/link.js', { schema: { hide: true } }, async (_request, reply) => {
    return reply.headers({ 'cache-control': 'public, max-age=300', 'x-content-type-options': 'nosniff' }).type('text/javascript; charset=utf-8').send(LINK_PAGE_SCRIPT);
  });
}
