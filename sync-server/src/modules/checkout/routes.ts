import { CHECKOUT_SESSION_TTL_SECONDS, LOOKUP_ID_LENGTH_MAX } from '@tapline/shared/limits';
import type { FastifyRequest } from 'fastify';
import type { TypedApp } from '../../http/typed-app.ts';
import { type Static, Type } from 'typebox';
import {
  CheckoutSession,
  CreateCheckoutSessionBody,
  CreatePublishableKeyBody,
  CreatePublishableKeyResponse,
  ErrorBody,
  ListOf,
  ListQuery,
  PayCheckoutSessionBody,
  PublishableKeyRecord,
} from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import { principalAs, principalOf } from '../../auth/hooks.ts';
import { credentialsChanged } from '../../auth/credential-cache.ts';
import { corsPreflight } from '../../http/cors.ts';
import { forbidden, notFound } from '../../http/errors.ts';
import { describeRails } from '../payments/index.ts';
import { type CheckoutCaller, checkoutRecord, checkoutService, payerOf } from './service.ts';
import { type PublishableKeyRow, insertPublishableKey, listPublishableKeys, revokePublishableKey } from './store.ts';

const merchantOnly = { auth: ['merchant'] } as const;
/** The checkout routes a web page calls: a publishable key from the browser, or the secret key from a server. */
const pageOrServer = { auth: ['publishable', 'merchant'], cors: true } as const;
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };
const IdParams = Type.Object({ id: Type.String({ maxLength: LOOKUP_ID_LENGTH_MAX }) });

const KEYS_DESCRIPTION = `Publishable keys (pk_test_ / pk_live_ + 32 lower-case hex) are the browser drop-in's credential
({base_url}/sdk/service.js): safe to put in a web page because they can do one thing, open and read that merchant's
checkout sessions in the key's mode. Every other route answers them 403. Like every credential, a key is stored only as
SHA-256 and shown once; keyHint tells keys apart. allowedOrigins restricts the pages that may use a key (a browser call
from another Origin is a 403 origin_not_allowed). Rate limits count a publishable key per client IP.`;

const SESSION_DESCRIPTION = `A checkout session is a customer paying the merchant's website, created by the drop-in with a
publishable key (or by the merchant's server with its secret key). States: open -> paid | failed | expired
(${CHECKOUT_SESSION_TTL_SECONDS / 60} minutes after creation). country: customerCountry, else the CF-IPCountry or X-Country
header, else the merchant's country; rails: the drop-in rails (mobile_money, bank_transfer, qr) offered there, by the
rails table (${describeRails()}). Paying from a Tapline wallet (@handle + PIN) is always offered. url / qrPayload:
{base_url}/pay/checkout/<id>, the page a scanned QR code opens. Events through the merchant's webhook:
checkout.session.completed and checkout.session.failed {sessionId, merchantId, status, amount, currency, reference,
country, paymentMethod, payerHandle, transferId, completedAt | failedAt + failureReason}. CORS: any origin.`;

const PAY_DESCRIPTION = `Public: the payer proves themselves in the body; send no credential (a publishable key is refused
here as on every route that does not list it). CORS: any origin. No fee is taken: the merchant receives the amount.
- method wallet {handle, pin}: one ledger transfer from the payer's wallet to the merchant's; wrong PIN 403 (5 wrong PINs
  lock the wallet for 15 minutes: 429); insufficient funds 422 (the session stays open).
- method mobile_money {phone} or bank_transfer {accountNumber}: the rail must be offered in the session's country (422
  rail_unavailable otherwise). Test mode: the sandbox collects at once (status paid); reference test_failure fails the
  session (status failed, 200). Live mode: 422 rail_unavailable (no collection provider is configured; never pretended).
A paid or failed session is a 409, an expired one a 410. An optional Idempotency-Key (per session and payer) replays the
first answer, after checking the PIN again; a wrong PIN does not use the key up.`;

function publishableKeyRecord(row: PublishableKeyRow) {
  return {
    id: row.id,
    keyHint: row.key_hint,
    mode: row.mode,
    allowedOrigins: row.allowed_origins,
    createdAt: row.created_at.toISOString(),
    revokedAt: row.revoked_at?.toISOString() ?? null,
  };
}

/** The caller of a checkout route; a publishable key restricted to origins must come from one of them. */
function checkoutCaller(request: FastifyRequest): CheckoutCaller {
  const principal = principalOf(request);
  if (principal.kind === 'merchant') return { merchantId: principal.merchantId, mode: principal.mode, publishableKeyId: null };
  if (principal.kind !== 'publishable') throw forbidden('credential_not_allowed', 'Checkout sessions need a publishable key or the merchant key');
  const origin = request.headers.origin;
  if (principal.allowedOrigins && (typeof origin !== 'string' || !principal.allowedOrigins.includes(origin))) {
    throw forbidden('origin_not_allowed', `This publishable key may be used only from ${principal.allowedOrigins.join(', ')}`);
  }
  return { merchantId: principal.merchantId, mode: principal.mode, publishableKeyId: principal.keyId };
}

/** Publishable keys and checkout sessions: what the browser drop-in (/sdk/service.js) works with. */
export async function checkoutRoutes(app: TypedApp, context: AppContext): Promise<void> {
  const { db, config } = context;
  const checkout = checkoutService(context);
  const record = (row: Parameters<typeof checkoutRecord>[0]) => checkoutRecord(row, config.publicBaseUrl);

  app.post('/api/merchant/publishable-keys', {
    config: { ...merchantOnly, roles: ['owner'] },
    schema: {
      tags: ['checkout'],
      summary: 'Create a publishable key for the browser drop-in (mode of the calling key); the key is shown once',
      description: KEYS_DESCRIPTION,
      body: Type.Optional(CreatePublishableKeyBody),
      response: { 201: CreatePublishableKeyResponse, ...errors },
    },
  }, async (request, reply) => {
    const principal = principalAs(request, 'merchant');
    // No body is {} (http/input-guard.ts): the key may be used from any origin.
    const allowedOrigins = request.body.allowedOrigins;
    const created = await insertPublishableKey(db, { merchantId: principal.merchantId, mode: principal.mode, allowedOrigins: allowedOrigins ?? null, now: context.now() });
    return reply.status(201).send({
      id: created.row.id,
      key: created.key,
      keyHint: created.row.key_hint,
      mode: created.row.mode,
      ...(created.row.allowed_origins ? { allowedOrigins: created.row.allowed_origins } : {}),
      createdAt: created.row.created_at.toISOString(),
    });
  });

  app.get('/api/merchant/publishable-keys', {
    config: { ...merchantOnly, roles: ['owner'] },
    schema: { tags: ['checkout'], summary: 'List publishable keys of the calling key\'s mode (without the keys themselves)', description: KEYS_DESCRIPTION, querystring: ListQuery, response: { 200: ListOf(PublishableKeyRecord), ...errors } },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    const { limit = 20, offset = 0 } = request.query;
    const page = await listPublishableKeys(db, principal.merchantId, principal.mode, limit, offset);
    return { data: page.rows.map(publishableKeyRecord), total: page.total, limit, offset };
  });

  app.delete('/api/merchant/publishable-keys/:id', {
    config: { ...merchantOnly, roles: ['owner'] },
    schema: { tags: ['checkout'], summary: 'Revoke a publishable key: it stops working at once (401)', params: IdParams, response: { 200: PublishableKeyRecord, ...errors } },
  }, async (request) => {
    const principal = principalAs(request, 'merchant');
    const { id } = request.params;
    const row = await revokePublishableKey(db, id, principal.merchantId, principal.mode, context.now());
    credentialsChanged();
    if (!row) throw notFound('publishable_key_not_found', `No publishable key ${id}`);
    return publishableKeyRecord(row);
  });

  corsPreflight(app, '/api/checkout/sessions', ['POST']);
  app.post('/api/checkout/sessions', {
    config: { ...pageOrServer, idempotency: 'optional' },
    schema: {
      tags: ['checkout'],
      summary: 'Open a checkout session (publishable key from the browser, or the secret key): amount, currency, reference?, description?, customerCountry?',
      description: SESSION_DESCRIPTION,
      body: CreateCheckoutSessionBody,
      response: { 201: CheckoutSession, ...errors },
    },
  }, async (request, reply) => {
    const row = await checkout.create(checkoutCaller(request), request.body, request.headers);
    return reply.status(201).send(record(row));
  });

  corsPreflight(app, '/api/checkout/sessions/:id', ['GET']);
  app.get('/api/checkout/sessions/:id', {
    config: pageOrServer,
    schema: {
      tags: ['checkout'],
      summary: 'A checkout session (poll it every second while the customer pays); another merchant\'s or mode\'s is a 404',
      description: SESSION_DESCRIPTION,
      params: IdParams,
      response: { 200: CheckoutSession, ...errors },
    },
  }, async (request) => {
    const row = await checkout.get(checkoutCaller(request), request.params.id);
    return record(row);
  });

  /** The pay route's request as its schemas type it, for its body-credential callbacks (http/idempotency.ts). */
  type PayRequest = FastifyRequest<{ Params: Static<typeof IdParams>; Body: Static<typeof PayCheckoutSessionBody> }>;
  corsPreflight(app, '/api/checkout/sessions/:id/pay', ['POST']);
  app.post('/api/checkout/sessions/:id/pay', {
    config: {
      cors: true,
      idempotency: 'optional',
      // Public route: the payer is named and proven in the body, so the key is theirs (per
      // session) and the PIN stays out of the stored request hash; a replay asks for the PIN again.
      idempotencyBodyCredential: {
        scope: (request: PayRequest) => `checkout:${request.params.id}:${payerOf(request.body)}`,
        secrets: ['pin'],
        beforeReplay: (request: PayRequest) => checkout.provePayer(request.params.id, request.body),
        forgetStatuses: [403, 429],
      },
    },
    schema: {
      tags: ['checkout'],
      summary: 'Pay a checkout session: from a Tapline wallet (handle + PIN), or by mobile money / bank transfer (sandbox collection in test mode)',
      description: PAY_DESCRIPTION,
      params: IdParams,
      headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String({ description: '1 to 255 characters, e.g. a UUID; optional' })) }),
      body: PayCheckoutSessionBody,
      response: { 200: CheckoutSession, ...errors, 409: ErrorBody, 410: ErrorBody, 422: ErrorBody },
    },
  }, async (request) => {
    const row = await checkout.pay(request.params.id, request.body);
    return record(row);
  });
}
