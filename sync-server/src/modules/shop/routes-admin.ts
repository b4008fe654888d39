import type { TypedApp } from '../../http/typed-app.ts';
import { ID_LENGTH_MAX } from '@tapline/shared/limits';
import { Type } from 'typebox';
import {
  AdminOrderListQuery,
  AdminOrderPatchBody,
  AdminProduct,
  AdminProductListQuery,
  CreateFlashSaleBody,
  CreateProductBody,
  CreateReferralBody,
  FlashSaleListQuery,
  FlashSaleRecord,
  ListOf,
  ReferralRecord,
  SeedBody,
  SeedResponse,
  StoreOrder,
  StoreStats,
  StoreStatsQuery,
  UpdateFlashSaleBody,
  UpdateProductBody,
  UpdateReferralBody,
} from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import type { GiftCards } from '../gift-cards/index.ts';
import type { RateSource } from '../fx/index.ts';
import { adminList, archiveProduct, createProduct, seedProducts, updateProduct } from './catalogue.ts';
import { productNotFound, storeModeOf } from './common.ts';
import { adminListFlashSales, createFlashSale, updateFlashSale } from './flash-sales.ts';
import { adminOrder, adminOrders, transitionOrder } from './orders.ts';
import { adminProductRecord } from './records.ts';
import { adminListReferrals, createReferral, updateReferral } from './referrals.ts';
import { storeErrors } from './routes-public.ts';
import { findProduct, runningSales } from './store.ts';
import { storeStats } from './stats.ts';

const admin = { auth: ['admin'] } as const;
const tags = ['store', 'admin'];
const IdParams = Type.Object({ id: Type.String({ maxLength: ID_LENGTH_MAX }) });

/** The store's admin surface (Authorization: Bearer admin.<token>). */
export async function adminStoreRoutes(app: TypedApp, context: AppContext, giftCards: GiftCards, rates: RateSource): Promise<void> {
  const { db } = context;

  app.get('/api/admin/store/products', {
    config: admin,
    schema: { tags, summary: 'Products of a mode in every status (draft, active, archived), newest first', querystring: AdminProductListQuery, response: { 200: ListOf(AdminProduct), ...storeErrors } },
  }, async (request) => adminList(db, context.now(), request.query));

  app.post('/api/admin/store/products', {
    config: admin,
    schema: {
      tags,
      summary: 'Create a product',
      description: 'slug: lower-case a-z, 0-9 and single hyphens, unique per mode (409 slug_taken). basePrice in major units of baseCurrency (more decimals than the currency allows, zero, negative or over 1e12: 400). variants [{name, priceDelta >= 0}] share the product\'s stock. images: relative (/store/images/x.png) or https URLs. status draft or active (default active). mode default test.',
      body: CreateProductBody,
      response: { 201: AdminProduct, ...storeErrors },
    },
  }, async (request, reply) => reply.status(201).send(await createProduct(context, request.body)));

  app.get('/api/admin/store/products/:id', {
    config: admin,
    schema: { tags, summary: 'One product, any status', params: IdParams, response: { 200: AdminProduct, ...storeErrors } },
  }, async (request) => {
    const product = await findProduct(db, request.params.id);
    if (!product) throw productNotFound(request.params.id);
    const now = context.now();
    return adminProductRecord(product, (await runningSales(db, [product.id], now)).get(product.id), now);
  });

  app.patch('/api/admin/store/products/:id', {
    config: admin,
    schema: {
      tags,
      summary: 'Update a product (any field but mode)',
      description: 'Raising stock to a positive value notifies the waiting stock alerts (in-app notice and queued e-mail) in the same transaction. Changing baseCurrency needs basePrice (and priced variants) in the new currency.',
      params: IdParams,
      body: UpdateProductBody,
      response: { 200: AdminProduct, ...storeErrors },
    },
  }, async (request) => updateProduct(context, request.params.id, request.body));

  app.delete('/api/admin/store/products/:id', {
    config: admin,
    schema: { tags, summary: 'Archive a product (status archived; its orders and reviews stay)', params: IdParams, response: { 200: AdminProduct, ...storeErrors } },
  }, async (request) => archiveProduct(context, request.params.id));

  app.post('/api/admin/store/seed', {
    config: admin,
    schema: {
      tags,
      summary: 'Seed the 9 sample NFC products (idempotent)',
      description: 'Stickers, cards, rings, bands, keychains and watches, priced in USD, with stock and relative image URLs. Keyed by slug: seeding again creates nothing (created 0, existing 9) and leaves edited products alone.',
      body: SeedBody,
      response: { 200: SeedResponse, 201: SeedResponse, ...storeErrors },
    },
  }, async (request, reply) => {
    const result = await seedProducts(context, storeModeOf(request.body.mode));
    return reply.status(result.created > 0 ? 201 : 200).send(result);
  });

  app.get('/api/admin/store/flash-sales', {
    config: admin,
    schema: { tags, summary: 'Flash sales of a mode, newest start first', querystring: FlashSaleListQuery, response: { 200: ListOf(FlashSaleRecord), ...storeErrors } },
  }, async (request) => adminListFlashSales(context, request.query));

  app.post('/api/admin/store/flash-sales', {
    config: admin,
    schema: {
      tags,
      summary: 'Create a flash sale',
      description: 'discountType percent (0 < value < 100, at most 2 decimals) or fixed (major units of the product currency, below basePrice). The sale price is basePrice less the discount, rounded down to the minor unit. One sale at a time per product: an overlapping window is 409 flash_sale_overlaps. maxUnits (optional) caps the units sold at the sale price, enforced under concurrency; a cancel or refund gives its units back.',
      body: CreateFlashSaleBody,
      response: { 201: FlashSaleRecord, ...storeErrors },
    },
  }, async (request, reply) => reply.status(201).send(await createFlashSale(context, request.body)));

  app.patch('/api/admin/store/flash-sales/:id', {
    config: admin,
    schema: {
      tags,
      summary: 'End early, pause, resume, rename, move endAt or change maxUnits',
      description: 'status ended (or an endAt now or past) ends the sale for good; a PATCH of an ended sale is 409 flash_sale_ended. maxUnits below the units sold is a 400.',
      params: IdParams,
      body: UpdateFlashSaleBody,
      response: { 200: FlashSaleRecord, ...storeErrors },
    },
  }, async (request) => updateFlashSale(context, request.params.id, request.body));

  app.get('/api/admin/store/referrals', {
    config: admin,
    schema: { tags, summary: 'Referral codes of a mode, newest first', querystring: FlashSaleListQuery, response: { 200: ListOf(ReferralRecord), ...storeErrors } },
  }, async (request) => adminListReferrals(context, request.query));

  app.post('/api/admin/store/referrals', {
    config: admin,
    schema: {
      tags,
      summary: 'Create a referral code',
      description: 'percent (0 < value <= 100, at most 2 decimals) or fixed (an amount in currency; applies only to orders in that currency). maxUses and expiresAt optional. Codes are case-insensitive and unique per mode (409 referral_code_taken). A use is counted in the checkout transaction (never past maxUses under concurrency) and not given back by a refund.',
      body: CreateReferralBody,
      response: { 201: ReferralRecord, ...storeErrors },
    },
  }, async (request, reply) => reply.status(201).send(await createReferral(context, request.body)));

  app.patch('/api/admin/store/referrals/:id', {
    config: admin,
    schema: { tags, summary: 'Activate or deactivate a code, change maxUses, expiresAt or description', params: IdParams, body: UpdateReferralBody, response: { 200: ReferralRecord, ...storeErrors } },
  }, async (request) => updateReferral(context, request.params.id, request.body));

  app.get('/api/admin/store/orders', {
    config: admin,
    schema: { tags, summary: 'Orders of a mode, newest first; filters status and buyerHandle', querystring: AdminOrderListQuery, response: { 200: ListOf(StoreOrder), ...storeErrors } },
  }, async (request) => adminOrders(db, request.query));

  app.get('/api/admin/store/orders/:id', {
    config: admin,
    schema: { tags, summary: 'One order, unmasked', params: IdParams, response: { 200: StoreOrder, ...storeErrors } },
  }, async (request) => adminOrder(db, request.params.id));

  app.patch('/api/admin/store/orders/:id', {
    config: admin,
    schema: {
      tags,
      summary: 'Move an order: fulfilled, shipped, delivered, cancelled or refunded',
      description: 'paid -> fulfilled -> shipped -> delivered; cancelled from pending, paid or fulfilled; refunded from paid, fulfilled, shipped or delivered; anything else 409 invalid_transition (a second refund included). Cancelling a paid order and refunding return the money exactly in one ledger transfer (the payment\'s negation): the wallet part to the wallet in the currency it paid, the gift-card part to the same card (balance restored, a used card active again; a card that has ended since: to the buyer\'s wallet). Stock comes back unless restock is false (notifying stock alerts); flash-sale units are released; referral uses are not. Events store.order.<status>.',
      params: IdParams,
      body: AdminOrderPatchBody,
      response: { 200: StoreOrder, ...storeErrors },
    },
  }, async (request) => transitionOrder(context, giftCards, request.params.id, request.body));

  app.get('/api/admin/store/stats', {
    config: admin,
    schema: {
      tags,
      summary: 'Store stats of a mode',
      description: 'totalProducts (not archived), totalOrders (all), totalRevenue (net totals of paid, fulfilled, shipped and delivered orders, every currency converted into revenueCurrency at the FX mid rate, half up; query currency, default USD) with the exact revenueByCurrency, totalReviews, pendingOrders (pending and paid: waiting for fulfilment), avgRating (2 decimals, null without reviews).',
      querystring: StoreStatsQuery,
      response: { 200: StoreStats, ...storeErrors },
    },
  }, async (request) => storeStats(context, rates, request.query));
}
