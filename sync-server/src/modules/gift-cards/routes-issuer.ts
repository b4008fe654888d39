import { ID_LENGTH_MAX } from '@tapline/shared/limits';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { TypedApp } from '../../http/typed-app.ts';
import {
  ErrorBody,
  GiftCardAnalytics,
  GiftCardAnalyticsQuery,
  GiftCardBulkBody,
  GiftCardBulkResponse,
  GiftCardImportBody,
  GiftCardImportResponse,
  GiftCardIssued,
  GiftCardListQuery,
  GiftCardRecord,
  GiftCardRedeemBody,
  GiftCardRedeemResponse,
  GiftCardRedemptionRecord,
  IssueGiftCardBody,
  ListOf,
  ListQuery,
} from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import { principalOf } from '../../auth/hooks.ts';
import { supportedCurrency } from '../../http/validate.ts';
import { computeAnalytics } from './analytics.ts';
import type { RateSource } from '../fx/index.ts';
import { derivedId } from '../../http/idempotency.ts';
import { withoutSecrets } from './idempotency.ts';
import { type Surface, issuerOf, redeemerOf } from './principals.ts';
import { cardRecord } from './records.ts';
import { type GiftCards, type Issuer, giftCardNotFound } from './service.ts';
import { type CardRow, findCard, listCards, listRedemptions } from './store.ts';

export const giftCardErrors = {
  400: ErrorBody,
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  409: ErrorBody,
  410: ErrorBody,
  422: ErrorBody,
  429: ErrorBody,
};

const CardParams = Type.Object({ id: Type.String({ maxLength: ID_LENGTH_MAX }) });

const ISSUE_RULES = `Rules: amount (major units, the currency's decimals, over 0, at most 1e12) and currency (USD, GHS, NGN, KES, ZAR,
EUR, GBP); message at most 160 characters; pinCode 4 to 8 digits; lockedToHandle an @handle; designTheme default, birthday,
business or celebration; expiresInMonths 1 to 24 (default 12); brandConfig {brandName, logoUrl (https only), primaryColor,
accentColor (hex colours)}; deliverToHandle + deliverAt (future ISO datetime, before expiry) together: the card is redeemed
in full into that wallet at deliverAt; subscriptionPlanId + giftMonths together, merchants only: amount = plan price x
months, redeeming activates the plan instead of crediting a wallet; multiMerchant. Issuing debits the issuer's wallet
(422 insufficient_funds) into the gift-card liability account. At most 10 single issues per issuer per 24 hours: the
11th is 429 gift_card_issue_limit with Retry-After (bulk, import, programs and rewards are exempt). The code (gc_ + 64 hex)
and its QR PNG (a data URL) are in this answer only: the server keeps its SHA-256. With an Idempotency-Key, a replay
answers the same card without code and qrPng.`;

const REDEEM_RULES = `The redeemer is the caller's wallet (merchant surface: the merchant's wallet, also for its terminals). Without
redeemAmount the whole remaining balance is drawn and the card becomes used; with it, that much (less than the balance:
the card stays active; equal: used). Errors: unknown code or other mode 404 gift_card_not_found; used 409 gift_card_used;
expired 410 gift_card_expired; cancelled, refunded or scheduled 409; locked to another @handle 403 handle_locked; a
merchant-issued card without multiMerchant at another merchant 403 card_not_accepted; PIN missing 403 pin_required,
wrong 403 wrong_pin, after 5 wrong PINs 429 pin_attempts_exceeded for 15 minutes (Retry-After); redeemAmount over the
balance 422 redeem_amount_exceeds_balance. targetCurrency credits the wallet in that currency at the FX service's
mid-market rate: credited = floor(drawn x fx_rate) in minor units. Every redemption is one ledger transfer from the
gift-card liability account to the wallet and adds a redemption record.`;

/** Cards of this issuer only: another issuer's card, or one of the other mode, is a 404. */
async function ownCard(context: AppContext, issuer: Issuer, id: string): Promise<CardRow> {
  const card = await findCard(context.db, id);
  if (!card || card.issuer_wallet_id !== issuer.walletId || card.mode !== issuer.mode) throw giftCardNotFound();
  return card;
}

/** Issue, bulk, import, redeem, list, detail, redemption history and analytics on one surface. */
export async function issuerSurfaceRoutes(app: TypedApp, context: AppContext, service: GiftCards, rates: RateSource, surface: Surface): Promise<void> {
  const { db } = context;
  const base = `/api/${surface}/gift-cards`;
  const own = { auth: [surface] } as const;
  const tags = ['gift-cards'];
  const issuer = (request: FastifyRequest) => issuerOf(db, request);

  app.post(base, {
    config: { ...own, idempotency: 'optional', idempotencyRedact: withoutSecrets },
    schema: { tags, summary: 'Issue a gift card paid from the caller\'s wallet', description: ISSUE_RULES, body: IssueGiftCardBody, response: { 200: GiftCardRecord, 201: GiftCardIssued, ...giftCardErrors } },
  }, async (request, reply) => {
    const outcome = await service.issue(await issuer(request), request.body, { cardId: derivedId(request, 'gift_card', 'gcard') });
    if (!outcome.created) return reply.status(200).send(outcome.card);
    return reply.status(201).send(outcome.card);
  });

  app.post(`${base}/bulk`, {
    config: { ...own, idempotency: 'optional', idempotencyRedact: withoutSecrets },
    schema: {
      tags,
      summary: 'Issue up to 100 identical cards in one batch (exempt from the 24-hour limit)',
      description: 'One database transaction and one ledger transfer for the batch: all cards or none (422 insufficient_funds).',
      body: GiftCardBulkBody,
      response: { 201: GiftCardBulkResponse, ...giftCardErrors },
    },
  }, async (request, reply) => {
    const body = request.body;
    const result = await service.bulk(await issuer(request), body, { batchId: derivedId(request, 'gift_card_batch', 'gcb') });
    const answer = { batchId: result.batchId, count: result.cards.length, cards: result.cards };
    return reply.status(201).send(answer);
  });

  app.post(`${base}/import`, {
    config: { ...own, idempotency: 'optional', idempotencyRedact: withoutSecrets },
    schema: {
      tags,
      summary: 'Import up to 500 cards; each row is validated on its own and a bad row never aborts the batch',
      description:
        'Rows that fail a rule (or do not fit the wallet\'s balance, in row order) are listed in failed with their index, code and reason; the rest are issued in ONE database transaction with one ledger transfer. Exempt from the 24-hour limit. 201 even when every row failed.',
      body: GiftCardImportBody,
      response: { 201: GiftCardImportResponse, ...giftCardErrors },
    },
  }, async (request, reply) => {
    const body = request.body;
    const result = await service.importCards(await issuer(request), body.cards, { batchId: derivedId(request, 'gift_card_batch', 'gcb') });
    const answer = { batchId: result.batchId, issuedCount: result.issuedCount, failedCount: result.failedCount, issued: result.issued, failed: result.failed };
    return reply.status(201).send(answer);
  });

  app.post(`${base}/redeem`, {
    config: { auth: surface === 'merchant' ? ['merchant', 'terminal'] : [surface], idempotency: 'optional', idempotencyRedact: withoutSecrets },
    schema: { tags, summary: 'Redeem a gift card, in full or in part, into the caller\'s wallet', description: REDEEM_RULES, body: GiftCardRedeemBody, response: { 200: GiftCardRedeemResponse, ...giftCardErrors } },
  }, async (request) => {
    const redeemer = await redeemerOf(db, request);
    return service.redeem(redeemer, request.body, { redemptionId: derivedId(request, 'gift_card_redemption', 'gcr') });
  });

  app.get(base, {
    config: own,
    schema: { tags, summary: 'The caller\'s own cards, newest first (expiry applied)', querystring: GiftCardListQuery, response: { 200: ListOf(GiftCardRecord), ...giftCardErrors } },
  }, async (request) => {
    const query = request.query;
    const limit = query.limit ?? 20;
    const offset = query.offset ?? 0;
    const who = await issuer(request);
    await service.expireDue();
    const page = await listCards(db, { issuerWalletId: who.walletId, mode: who.mode, status: query.status }, limit, offset);
    const now = context.now();
    return { data: page.rows.map((row) => cardRecord(row, now)), total: page.total, limit, offset };
  });

  app.get(`${base}/analytics`, {
    config: own,
    schema: { tags, summary: 'Analytics of the caller\'s own cards', querystring: GiftCardAnalyticsQuery, response: { 200: GiftCardAnalytics, ...giftCardErrors } },
  }, async (request) => {
    const query = request.query;
    const who = await issuer(request);
    await service.expireDue();
    return computeAnalytics(
      db,
      rates,
      { filter: { issuerWalletId: who.walletId, mode: who.mode }, type: who.type, id: who.id, homeCurrency: who.homeCurrency },
      query.currency ? supportedCurrency(query.currency) : undefined,
    );
  });

  app.get(`${base}/:id`, {
    config: own,
    schema: { tags, summary: 'One of the caller\'s own cards', params: CardParams, response: { 200: GiftCardRecord, ...giftCardErrors } },
  }, async (request) => {
    const { id } = request.params;
    const who = await issuer(request);
    let card = await ownCard(context, who, id);
    if (card.status === 'active' && card.expires_at.getTime() <= context.now().getTime()) {
      await service.expireDue(card.id);
      card = await ownCard(context, who, id);
    }
    return cardRecord(card, context.now());
  });

  app.get(`${base}/:id/redemptions`, {
    config: { auth: surface === 'merchant' ? ['merchant', 'admin'] : [surface] },
    schema: {
      tags,
      summary: surface === 'merchant' ? 'Redemption records of one of the merchant\'s own cards (or any card, with the admin token), oldest first' : 'Redemption records of one of the caller\'s own cards, oldest first',
      params: CardParams,
      querystring: ListQuery,
      response: { 200: ListOf(GiftCardRedemptionRecord), ...giftCardErrors },
    },
  }, async (request) => {
    const { id } = request.params;
    const { limit = 20, offset = 0 } = request.query;
    if (principalOf(request).kind === 'admin') {
      if (!(await findCard(db, id))) throw giftCardNotFound();
    } else {
      await ownCard(context, await issuer(request), id);
    }
    const page = await listRedemptions(db, id, limit, offset);
    return { data: await service.redemptionAnswers(page.rows), total: page.total, limit, offset };
  });
}
