import { ID_LENGTH_MAX } from '@tapline/shared/limits';
import type { FastifyRequest } from 'fastify';
import type { TypedApp } from '../../http/typed-app.ts';
import { Type } from 'typebox';
import {
  CreatePosSessionBody,
  ErrorBody,
  ListOf,
  PosContextResponse,
  PosSessionListQuery,
  PosSessionRecord,
  PosTapBody,
} from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import { principalAs, principalOf } from '../../auth/hooks.ts';
import { forbidden, notFound } from '../../http/errors.ts';
import { derivedUuid } from '../../http/idempotency.ts';
import { idempotencyScope } from '../../auth/principal.ts';
import { displayHandle } from '../../http/validate.ts';
import { findMerchant } from '../merchants/index.ts';
import { findTerminalName } from '../terminals/index.ts';
import { type PosMerchant, posService, sessionRecord } from './service.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 410: ErrorBody, 422: ErrorBody, 429: ErrorBody };
/** CONTRACT.md: terminal tokens are scoped to POS; both carry the merchant and the mode. */
const merchantOrTerminal = { auth: ['merchant', 'terminal'] } as const;
const SessionParams = Type.Object({ sessionId: Type.String({ maxLength: ID_LENGTH_MAX }) });

function posMerchant(request: FastifyRequest): PosMerchant {
  const principal = principalOf(request);
  if (principal.kind === 'merchant') return { merchantId: principal.merchantId, handle: principal.handle, mode: principal.mode, terminalId: null };
  if (principal.kind === 'terminal') return { merchantId: principal.merchantId, handle: principal.handle, mode: principal.mode, terminalId: principal.terminalId };
  throw forbidden('credential_not_allowed', 'POS calls need a merchant API key or a terminal token');
}

const STATE_MACHINE = `States: pending, tapped, processing, completed, failed, expired, cancelled. A session is pending for
90 seconds (ttlSeconds). A tap resolves the tag to its @handle and settles in one database transaction: tapped and
processing are passed through inside it, so readers see pending, then completed (payerHandle, walletRef) or failed
(errorMessage). Tap on a session that is not pending: 409 session_not_pending; after expiry: 410 session_expired; unknown
tag: 404 tag_not_found (the session stays pending); disabled tag: 403 tag_disabled. Insufficient funds answers 200 with
the session failed. A tap above the tag's no-PIN limits (per tap, per UTC day, or in another currency than the tag's
wallet) answers 403 pin_required and the session stays pending: repeat the tap with the holder's wallet PIN as pin
(403 wrong_pin; 429 pin_attempts_exceeded after five wrong PINs). The same tag repeated on the session it settled
answers 200 with that session (a retry whose answer was lost); another tag gets 409. pos.session.completed or pos.session.failed
goes to the merchant's webhook URL (signed like every webhook) and, with a callbackUrl, is POSTed there too, signed
x-service-signature: sha256=<hex HMAC-SHA256 of the raw body, keyed with the merchant's webhook secret>; a callbackUrl equal to the
webhook URL gets it once, as a webhook.`;

const ITEMS_RULES = `items (docs/catalogue.md): the lines sold, in major units with taxRate in percent, and discount (the cart's). They
must add up to amount: 400 items_total_mismatch (details: itemsTotal, amount), or the rule they break: items_invalid, items_too_many,
item_product_invalid, item_name_invalid, item_quantity_invalid, item_price_invalid, item_discount_invalid, item_tax_rate_invalid,
item_tax_inclusive_invalid, discount_invalid. 404 product_not_found for a productId not in the catalogue; 409 out_of_stock (details:
productId, available, requested) when a tracked product has fewer units, and 409 product_unavailable (details: productId, name,
reason archived or inactive) when a product is no longer sold, both before anything is charged. The session answers its items
(each line's discount, net, tax and total), cartDiscount and totals, and so do its callbacks.`;

/** Spec, "POS": sessions, taps, cancel, polling; plus paying a session with @handle and PIN (no NFC). */
export async function posRoutes(app: TypedApp, context: AppContext): Promise<void> {
  const { db, config } = context;
  const pos = posService(context);
  const record = (row: Parameters<typeof sessionRecord>[0]) => sessionRecord(row, config.publicBaseUrl);

  app.post('/api/pos/sessions', {
    config: { ...merchantOrTerminal, idempotency: 'optional' },
    schema: {
      tags: ['pos'],
      summary: 'Open a POS session: amount in major units, currency, description, optional callbackUrl; lives 90 seconds',
      description:
        `${STATE_MACHINE}\n\nIdempotency-Key honoured: the session id derives from the key, so a retry (even after a crash of the ` +
        'server mid-request) answers the same session, with Idempotent-Replayed: true when the first answer was recorded.\n\n' + ITEMS_RULES +
        '\n\ntenderOf (a terminal paying part of a till sale, docs/till.md "Split tender"): no items with it (400 items_invalid), and only a ' +
        'terminal\'s token opens one (400 tender_needs_terminal).\n\ncashierId (who charges it, docs/till.md "Who did it"): one of the merchant\'s ' +
        'till staff (removed members included) or dashboard users; anything else answers 422 cashier_unknown and nothing is opened.',
      body: CreatePosSessionBody,
      response: { 201: PosSessionRecord, ...errors },
    },
  }, async (request, reply) => {
    const body = request.body;
    const row = await pos.create(posMerchant(request), body, derivedUuid(request, 'pos_session'));
    return reply.status(201).send(record(row));
  });

  app.get('/api/pos/sessions', {
    config: merchantOrTerminal,
    schema: {
      tags: ['pos'],
      summary: 'List the merchant\'s POS sessions in the credential\'s mode, newest first (filters: status, terminalId)',
      querystring: PosSessionListQuery,
      response: { 200: ListOf(PosSessionRecord), ...errors },
    },
  }, async (request) => {
    const merchant = posMerchant(request);
    const query = request.query;
    const limit = query.limit ?? 20;
    const offset = query.offset ?? 0;
    const page = await pos.list(merchant, { status: query.status, terminalId: query.terminalId }, limit, offset);
    return { data: page.rows.map(record), total: page.total, limit, offset };
  });

  app.get('/api/pos/sessions/:sessionId', {
    config: merchantOrTerminal,
    schema: {
      tags: ['pos'],
      summary: 'A POS session; poll every second (or use the callback). An overdue pending session reads as expired.',
      params: SessionParams,
      response: { 200: PosSessionRecord, ...errors },
    },
  }, async (request) => {
    const merchant = posMerchant(request);
    const row = await pos.get({ mode: merchant.mode, merchantId: merchant.merchantId }, request.params.sessionId);
    return record(row);
  });

  app.post('/api/pos/sessions/:sessionId/tap', {
    config: {
      ...merchantOrTerminal,
      idempotency: 'optional',
      // The holder's PIN stays out of the stored request hash, and an answer that ran nothing (403
      // pin_required or wrong_pin, 429 lock-out) is not kept: the same key is repeated with the PIN.
      idempotencyBodyCredential: {
        scope: (request) => idempotencyScope(request.credential.state === 'valid' ? request.credential.principal : undefined),
        secrets: ['pin'],
        beforeReplay: async () => undefined,
        forgetStatuses: [403, 429],
      },
    },
    schema: {
      tags: ['pos'],
      summary: 'Submit a tap: the tag pays the session (one ledger transfer from its wallet to the merchant\'s)',
      description: `${STATE_MACHINE}\n\nA session with catalogue items: 409 out_of_stock (details: productId, available, requested) when a tracked product no longer has the units, 409 product_unavailable (details: productId, name, reason) when a product was archived or deactivated since; nothing is charged and the session stays pending.`,
      params: SessionParams,
      body: PosTapBody,
      response: { 200: PosSessionRecord, ...errors },
    },
  }, async (request) => {
    const { tagId, pin } = request.body;
    const row = await pos.tap(posMerchant(request), request.params.sessionId, tagId, pin);
    return record(row);
  });

  app.post('/api/pos/sessions/:sessionId/cancel', {
    config: merchantOrTerminal,
    schema: {
      tags: ['pos'],
      summary: 'Cancel a pending session (409 when it is not pending, 410 when it has expired)',
      params: SessionParams,
      response: { 200: PosSessionRecord, ...errors },
    },
  }, async (request) => {
    const row = await pos.cancel(posMerchant(request), request.params.sessionId);
    return record(row);
  });

  app.post('/api/pos/sessions/:sessionId/pay', {
    config: { auth: ['wallet'], idempotency: 'optional' },
    schema: {
      tags: ['pos'],
      summary: 'Pay a session from the signed-in wallet: the no-NFC path behind the session\'s tapUrl / qrPayload page',
      description: 'Sign in with POST /api/wallet/sessions {handle, pin, mode}, then call this with Bearer wallet.<token>. Same outcomes as a tap.',
      params: SessionParams,
      response: { 200: PosSessionRecord, ...errors },
    },
  }, async (request) => {
    const wallet = principalAs(request, 'wallet');
    const row = await pos.payWithWallet(wallet, request.params.sessionId);
    return sessionRecord(row, config.publicBaseUrl, { forPayer: true });
  });

  app.get('/api/pos/context', {
    config: merchantOrTerminal,
    schema: {
      tags: ['pos'],
      summary: 'Who a POS credential belongs to: merchant, mode and terminal (the /pos page shows it after sign-in)',
      response: { 200: PosContextResponse, ...errors },
    },
  }, async (request) => {
    const merchant = posMerchant(request);
    const row = await findMerchant(db, merchant.merchantId);
    if (!row) throw notFound('merchant_not_found', 'Merchant not found');
    let terminal: { id: string; name: string } | null = null;
    if (merchant.terminalId) {
      terminal = (await findTerminalName(db, merchant.terminalId)) ?? null;
    }
    return {
      merchant: { id: row.id, name: row.name, handle: displayHandle(row.handle), country: row.country, currency: row.currency },
      mode: merchant.mode,
      terminal,
    };
  });
}
