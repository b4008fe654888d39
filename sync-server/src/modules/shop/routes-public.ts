import type { FastifyRequest } from 'fastify';
import type { TypedApp } from '../../http/typed-app.ts';
import { type Static, Type } from 'typebox';
import {
  CheckoutBody,
  CheckoutResponse,
  ErrorBody,
  FlashSaleRecord,
  ListOf,
  ListQuery,
  Mode,
  MyOrdersBody,
  OrderParams,
  ProductDetailQuery,
  ProductListQuery,
  ReviewBody,
  ReviewRecord,
  StockAlertBody,
  StockAlertRecord,
  StoreOrder,
  StoreProduct,
  StoreProductDetail,
  ValidateReferralBody,
  ValidateReferralResponse,
  WalletNotification,
} from '@tapline/shared/schemas';
import { toMajor } from '@tapline/shared/money';
import type { AppContext } from '../../context.ts';
import { principalAs } from '../../auth/hooks.ts';
import { idempotentId } from '../../http/idempotency.ts';
import { canonicalHandle } from '../../http/validate.ts';
import type { GiftCards } from '../gift-cards/index.ts';
import type { RateSource } from '../fx/index.ts';
import { listWalletNotifications } from '../wallets/index.ts';
import { checkout } from './checkout.ts';
import { publicDetail, publicList } from './catalogue.ts';
import { provenBuyer } from './common.ts';
import { activeFlashSales } from './flash-sales.ts';
import { myOrders, publicOrder } from './orders.ts';
import { notificationRecord, orderRecord } from './records.ts';
import { validateReferral } from './referrals.ts';
import { createReview } from './reviews.ts';
import { subscribe } from './stock-alerts.ts';

export const storeErrors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 410: ErrorBody, 422: ErrorBody, 429: ErrorBody };
const tags = ['store'];

const MODE_NOTE = 'The catalogue, codes and orders are per mode (test or live, default test): test and live never mix.';

const CHECKOUT_RULES = `Authenticated by buyerHandle + walletPin in the body (the wallet is resolved as POST /api/wallet/sessions: the given mode, else the test wallet when there is one, else the live one; the order carries the wallet's mode and buys from that mode's catalogue).

Payment modes: wallet (walletPin); gift card (giftCardCode, plus giftCardPin when the card has a PIN) - when the card covers the whole total and is not locked to a handle, walletPin may be omitted, and if sent it is still checked; mixed: the card pays what it can, the wallet the rest (walletPin required: 400 wallet_pin_required without it).

Price, in integer minor units of the order currency (the product's baseCurrency): unit price = (flash-sale price, else basePrice) + the variant's priceDelta; subtotal = unit price x quantity; referral discount = floor(subtotal x percent / 100), or min(amount, subtotal) for a fixed code (only for orders in its currency); total = subtotal - discount, never below zero. Discounts round down to the minor unit.

The wallet pays in the order currency when it holds enough of it, else in its home currency: the amount is converted at the FX rate service's mid rate and rounded up to the minor unit (order.payment.walletCharged), posted as balanced per-currency legs through the FX desk. A gift card must be in the order currency (422 gift_card_currency_mismatch otherwise: redeem it into the wallet with targetCurrency first).

One database transaction holds the referral use, the stock (a conditional update: stock never goes below zero), the flash-sale units (a conditional update on maxUnits), the gift-card draw (card row locked), the order, ONE ledger transfer into the platform's store_revenue account, and the outbox event store.order.paid. Any refusal rolls everything back.

Errors: wrong wallet PIN 403 wrong_pin (5 wrong PINs lock the wallet 15 minutes: 429 pin_attempts_exceeded); unknown product or handle 404; out of stock 409 out_of_stock; flash-sale units gone meanwhile 409 flash_sale_sold_out (the buyer is never charged a price other than the one the request was priced at; a retry pays the regular price); insufficient funds 422 insufficient_funds; gift card used 409, expired 410, locked to another handle 403 handle_locked, wrong card PIN 403 (5: 429); referral unknown, inactive, expired or used up 422 referral_invalid; shipping country not served 422 shipping_country_not_available.

Idempotency-Key (optional): keyed per buyer handle; a retry with the same body answers the first answer with Idempotent-Replayed: true and never charges twice. The PINs are left out of the stored request hash (and never stored), a replay re-checks the wallet PIN, and an answer to a wrong PIN or a lock-out is not stored, so a corrected retry with the same key runs afresh.

Answer 201 {order, walletDebit, giftCardDebit, remaining}: walletDebit and giftCardDebit in the order currency; remaining is the wallet's balance after the debit, in remainingCurrency (the currency it paid in).`;

export async function publicStoreRoutes(app: TypedApp, context: AppContext, giftCards: GiftCards, rates: RateSource): Promise<void> {
  const { db } = context;

  app.get('/api/store/products', {
    schema: {
      tags,
      summary: 'Active products: category, search, sort, pagination, and prices in the buyer\'s currency',
      description: `Only active products are listed. search matches name, description and slug (case-insensitive). sort: sort_order (default), price_asc, price_desc (by basePrice), newest, name; another value is a 400. walletCurrency adds priceInWalletCurrency (a number in walletCurrency, with walletCurrency and walletFxRate beside it): the effective unit price (the flash-sale price while one runs) converted at the FX rate service's mid rate, rounded up to the minor unit, which is what checkout charges a wallet in that currency; an unknown currency is a 400. ${MODE_NOTE}`,
      querystring: ProductListQuery,
      response: { 200: ListOf(StoreProduct), ...storeErrors },
    },
  }, async (request) => publicList(context, rates, request.query));

  app.get('/api/store/products/:slug', {
    schema: {
      tags,
      summary: 'One active product by slug, with variants, shipping countries and its reviews summary',
      description: `variants: [{name, priceDelta}], priceDelta in major units added to the unit price; a product with variants needs variantName at checkout. Stock is the product's (variants share it). geoMode all, include (only availableCountries) or exclude (all but them). reviews: {count, avgRating, recent (5 newest)}. Unknown slug 404. ${MODE_NOTE}`,
      params: Type.Object({ slug: Type.String({ maxLength: 80 }) }),
      querystring: ProductDetailQuery,
      response: { 200: StoreProductDetail, ...storeErrors },
    },
  }, async (request) => publicDetail(context, rates, request.params.slug, request.query));

  /** The checkout route's request as its schema types it, for its body-credential callbacks (http/idempotency.ts). */
  type CheckoutRequest = FastifyRequest<{ Body: Static<typeof CheckoutBody> }>;
  app.post('/api/store/checkout', {
    config: {
      idempotency: 'optional',
      idempotencyBodyCredential: {
        scope: (request: CheckoutRequest) => `store:${canonicalHandle(request.body.buyerHandle)}:${request.body.mode ?? 'default'}`,
        secrets: ['walletPin', 'giftCardPin'],
        beforeReplay: async (request: CheckoutRequest) => {
          const body = request.body;
          if (body.walletPin !== undefined) await provenBuyer(db, { buyerHandle: body.buyerHandle, walletPin: body.walletPin, mode: body.mode }, context.now());
        },
        forgetStatuses: [403, 429],
      },
    },
    schema: {
      tags,
      summary: 'Buy a product with the wallet PIN, a gift card, or both',
      description: CHECKOUT_RULES,
      body: CheckoutBody,
      headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String({ description: '1 to 255 characters, e.g. a UUID; optional' })) }),
      response: { 201: CheckoutResponse, ...storeErrors },
    },
  }, async (request, reply) => {
    const derived = idempotentId(request, 'store_order');
    const orderId = derived ? `ord_${derived.slice(derived.indexOf(':') + 1, derived.indexOf(':') + 33)}` : undefined;
    const result = await checkout(context, giftCards, rates, request.body, orderId);
    const order = result.order;
    return reply.status(201).send({
      order: orderRecord(order, false),
      walletDebit: toMajor(order.wallet_debit, order.currency),
      giftCardDebit: toMajor(order.gift_card_debit, order.currency),
      remaining: result.remaining,
      remainingCurrency: result.remainingCurrency,
      giftCardRemaining: result.giftCardRemaining,
    });
  });

  app.get('/api/store/orders/:id', {
    schema: {
      tags,
      summary: 'An order by id (public: ids are 128-bit random)',
      description: 'status, product, quantity, shipping, payment breakdown and timeline (oldest first). The public view masks the shipping phone (last 4 digits) and street address (first 4 characters) and omits notes; the buyer sees them in full through POST /api/store/my-orders, the admin through the admin routes. No view carries a PIN or a gift-card code (only its 10-character prefix).',
      params: OrderParams,
      response: { 200: StoreOrder, ...storeErrors },
    },
  }, async (request) => publicOrder(db, request.params.id));

  app.post('/api/store/my-orders', {
    schema: {
      tags,
      summary: 'All orders of a buyer, newest first (buyerHandle + walletPin)',
      description: 'The wallet PIN is checked with the wallet lock-out (403 wrong_pin; 429 after 5). Orders of the resolved wallet only: a test wallet never sees live orders. Full shipping details.',
      body: MyOrdersBody,
      response: { 200: ListOf(StoreOrder), ...storeErrors },
    },
  }, async (request) => myOrders(context, request.body));

  app.get('/api/store/flash-sales/active', {
    schema: {
      tags,
      summary: 'Flash sales running now',
      description: `A sale runs while its status is active, the clock is within [startAt, endAt) and units are left; listed soonest-to-end first with discount, salePrice, timeRemainingSeconds, maxUnits, unitsSold and unitsLeft. ${MODE_NOTE}`,
      querystring: Type.Object({ mode: Type.Optional(Mode) }),
      response: { 200: ListOf(FlashSaleRecord), ...storeErrors },
    },
  }, async (request) => activeFlashSales(context, request.query.mode));

  app.post('/api/store/reviews', {
    schema: {
      tags,
      summary: 'Review a product bought (buyerHandle + walletPin)',
      description: 'orderId must be the buyer\'s own order (else 403 order_not_owned), of this product (else 422 order_product_mismatch), paid or later: paid, fulfilled, shipped or delivered (else 422 order_not_eligible). One review per buyer per product (409 review_exists). rating: integer 1 to 5 (400 otherwise); title at most 120 characters, body at most 2000.',
      body: ReviewBody,
      response: { 201: ReviewRecord, ...storeErrors },
    },
  }, async (request, reply) => reply.status(201).send(await createReview(context, request.body)));

  app.post('/api/store/stock-alerts', {
    schema: {
      tags,
      summary: 'Ask to be told when a product is back in stock (public)',
      description: `201 with the new subscription; the same product, handle and e-mail while one is waiting answers that one with 200. When the product's stock is raised to a positive value (an admin update, or units given back by a cancel or refund), every waiting alert gets, in the same transaction as the stock change, an in-app notice on the buyer's wallet (GET /api/wallet/notifications) and an e-mail queued in a durable outbox that a background job sends over SMTP (SMTP_URL) with retries. ${MODE_NOTE}`,
      body: StockAlertBody,
      response: { 200: StockAlertRecord, 201: StockAlertRecord, ...storeErrors },
    },
  }, async (request, reply) => {
    const outcome = await subscribe(context, request.body);
    return reply.status(outcome.created ? 201 : 200).send(outcome.alert);
  });

  app.post('/api/store/referrals/validate', {
    schema: {
      tags,
      summary: 'Is this referral code good now?',
      description: `Answers 200 either way: {valid: true, discountType, discountValue, currency (fixed codes), expiresAt, usesLeft} or {valid: false, reason: not_found | inactive | expired | exhausted}. Codes are case-insensitive. ${MODE_NOTE}`,
      body: ValidateReferralBody,
      response: { 200: ValidateReferralResponse, ...storeErrors },
    },
  }, async (request) => validateReferral(context, request.body));

  app.get('/api/wallet/notifications', {
    config: { auth: ['wallet'] },
    schema: {
      tags: ['wallet', 'store'],
      summary: 'The signed-in wallet\'s in-app notices, newest first (e.g. store.back_in_stock)',
      querystring: ListQuery,
      response: { 200: ListOf(WalletNotification), ...storeErrors },
    },
  }, async (request) => {
    const principal = principalAs(request, 'wallet');
    const { limit = 20, offset = 0 } = request.query;
    const page = await listWalletNotifications(db, principal.walletId, limit, offset);
    return { data: page.rows.map(notificationRecord), total: page.total, limit, offset };
  });

  // An agent's wallet is its float: the news of its float top-ups and settlements (docs/agents.md).
  app.get('/api/agent/notifications', {
    config: { auth: ['agent'] },
    schema: {
      tags: ['agent'],
      summary: 'The agent\'s in-app notices, newest first (agent.float.top_up.completed, agent.float.settlement.paid, ...)',
      querystring: ListQuery,
      response: { 200: ListOf(WalletNotification), ...storeErrors },
    },
  }, async (request) => {
    const principal = principalAs(request, 'agent');
    const { limit = 20, offset = 0 } = request.query;
    const page = await listWalletNotifications(db, principal.walletId, limit, offset);
    return { data: page.rows.map(notificationRecord), total: page.total, limit, offset };
  });
}
