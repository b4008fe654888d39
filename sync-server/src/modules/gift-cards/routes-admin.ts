import type { TypedApp } from '../../http/typed-app.ts';
import { ID_LENGTH_MAX } from '@tapline/shared/limits';
import { Type } from 'typebox';
import {
  AdminGiftCardAnalyticsQuery,
  AdminGiftCardListQuery,
  AdminGiftCardPatchBody,
  GiftCardAnalytics,
  GiftCardRecord,
  GiftCardRedemptionRecord,
  GiftCardStats,
  GiftCardStatsQuery,
  ListOf,
  ListQuery,
} from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import { badRequest } from '../../http/errors.ts';
import { supportedCurrency } from '../../http/validate.ts';
import { computeAnalytics, computeStats } from './analytics.ts';
import type { RateSource } from '../fx/index.ts';
import { cardRecord } from './records.ts';
import { giftCardErrors } from './routes-issuer.ts';
import { type GiftCards, giftCardNotFound } from './service.ts';
import { findCard, listCards, listRedemptions } from './store.ts';

const admin = { auth: ['admin'] } as const;
const CardParams = Type.Object({ id: Type.String({ maxLength: ID_LENGTH_MAX }) });
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** A date bound of the admin list: a date alone covers its whole UTC day. */
function dateBound(value: string | undefined, edge: 'from' | 'to', field: string): Date | undefined {
  if (value === undefined || value === '') return undefined;
  const text = value.trim();
  const time = DATE_ONLY.test(text) ? Date.parse(`${text}T00:00:00.000Z`) + (edge === 'to' ? 24 * 3600_000 - 1 : 0) : Date.parse(text);
  if (Number.isNaN(time)) throw badRequest('date_invalid', `${field} must be an ISO 8601 date or datetime`);
  return new Date(time);
}

/** Admin: every card of the platform, stats, analytics by issuer, cancel and refund, redemption history. */
export async function adminGiftCardRoutes(app: TypedApp, context: AppContext, service: GiftCards, rates: RateSource): Promise<void> {
  const { db } = context;
  const tags = ['gift-cards', 'admin'];

  app.get('/api/admin/gift-cards', {
    config: admin,
    schema: {
      tags,
      summary: 'List every card, newest first: filters status, issuerType, issuerId, mode and a date range on the issue time',
      querystring: AdminGiftCardListQuery,
      response: { 200: ListOf(GiftCardRecord), ...giftCardErrors },
    },
  }, async (request) => {
    const query = request.query;
    const limit = query.limit ?? 20;
    const offset = query.offset ?? 0;
    const createdFrom = dateBound(query.from ?? query.startDate ?? query.dateFrom ?? query.createdFrom, 'from', 'from');
    const createdTo = dateBound(query.to ?? query.endDate ?? query.dateTo ?? query.createdTo, 'to', 'to');
    await service.expireDue();
    const page = await listCards(
      db,
      { status: query.status, issuerType: query.issuerType, issuerIdOrHandle: query.issuerId, mode: query.mode, createdFrom, createdTo },
      limit,
      offset,
    );
    const now = context.now();
    return { data: page.rows.map((row) => cardRecord(row, now)), total: page.total, limit, offset };
  });

  app.get('/api/admin/gift-cards/stats', {
    config: admin,
    schema: { tags, summary: 'Aggregates over every card (one mode or both)', querystring: GiftCardStatsQuery, response: { 200: GiftCardStats, ...giftCardErrors } },
  }, async (request) => {
    const { mode } = request.query;
    await service.expireDue();
    return computeStats(db, { mode }, context.now());
  });

  app.get('/api/admin/gift-cards/analytics', {
    config: admin,
    schema: {
      tags,
      summary: 'Analytics scoped by issuerType and issuerId (merchant id, wallet id, agent id or @handle), or platform-wide',
      querystring: AdminGiftCardAnalyticsQuery,
      response: { 200: GiftCardAnalytics, ...giftCardErrors },
    },
  }, async (request) => {
    const query = request.query;
    await service.expireDue();
    const scoped = query.issuerType !== undefined || query.issuerId !== undefined;
    return computeAnalytics(
      db,
      rates,
      {
        filter: { issuerType: query.issuerType, issuerIdOrHandle: query.issuerId, mode: query.mode },
        type: scoped ? (query.issuerType ?? 'platform') : 'platform',
        id: query.issuerId ?? null,
        homeCurrency: 'USD',
      },
      query.currency ? supportedCurrency(query.currency) : undefined,
    );
  });

  app.get('/api/admin/gift-cards/:id', {
    config: admin,
    schema: { tags, summary: 'Any card', params: CardParams, response: { 200: GiftCardRecord, ...giftCardErrors } },
  }, async (request) => {
    const { id } = request.params;
    let card = await findCard(db, id);
    if (!card) throw giftCardNotFound();
    if (card.status === 'active' && card.expires_at.getTime() <= context.now().getTime()) {
      await service.expireDue(card.id);
      card = (await findCard(db, id)) ?? card;
    }
    return cardRecord(card, context.now());
  });

  app.patch('/api/admin/gift-cards/:id', {
    config: admin,
    schema: {
      tags,
      summary: 'action cancel (force-cancel) or refund (refund to the issuer) an active or scheduled card',
      description:
        'Both return the remaining balance from the gift-card liability account to the issuer\'s wallet in one ledger transfer and end the card (status cancelled or refunded; returnedAmount). A used card is 409 gift_card_used, an expired one 410 gift_card_expired, an ended one 409.',
      params: CardParams,
      body: AdminGiftCardPatchBody,
      response: { 200: GiftCardRecord, ...giftCardErrors },
    },
  }, async (request) => {
    const { id } = request.params;
    const body = request.body;
    return service.adminAction(id, body.action, body.reason);
  });

  app.get('/api/admin/gift-cards/:id/redemptions', {
    config: admin,
    schema: { tags, summary: 'Redemption records of any card, oldest first', params: CardParams, querystring: ListQuery, response: { 200: ListOf(GiftCardRedemptionRecord), ...giftCardErrors } },
  }, async (request) => {
    const { id } = request.params;
    const { limit = 20, offset = 0 } = request.query;
    if (!(await findCard(db, id))) throw giftCardNotFound();
    const page = await listRedemptions(db, id, limit, offset);
    return { data: await service.redemptionAnswers(page.rows), total: page.total, limit, offset };
  });
}
