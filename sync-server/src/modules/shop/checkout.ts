import { toMajor } from '@tapline/shared/money';
import type { CheckoutBody } from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import type { Queryable } from '../../db/database.ts';
import { randomHex } from '../../auth/secrets.ts';
import { ApiError, badRequest, conflict, forbidden, unprocessable } from '../../http/errors.ts';
import { displayHandle, supportedCountry } from '../../http/validate.ts';
import { type AccountRef, systemAccount, walletAccount } from '../../ledger/accounts.ts';
import { type TransferLeg, accountBalance, transfer, walletBalances } from '../../ledger/ledger.ts';
import { enqueuePlatformEvent } from '../../events/outbox.ts';
import { type WalletRow, checkWalletPin } from '../wallets/index.ts';
import { type CardRow, type GiftCards, canonicalCode as canonicalCardCode, codeHash, drawFromCard, effectiveStatus, findCard, findCardByHash, giftCardNotFound, lockCard, stateError } from '../gift-cards/index.ts';
import { type RateSource } from '../fx/index.ts';
import { buyerWallet, productNotFound } from './common.ts';
import { convertUp, referralDiscount, referralRefusal, safeProduct, salePrice } from './pricing.ts';
import { canonicalCode as canonicalReferral } from './referrals.ts';
import {
  type FlashSaleRow,
  type OrderRow,
  type ProductRow,
  type ReferralRow,
  type VariantRow,
  findOrder,
  findProduct,
  findProductBySlug,
  findReferralByCode,
  insertOrder,
  runningSales,
  takeSaleUnits,
  takeStock,
  useReferral,
} from './store.ts';

/**
 * The checkout (POST /api/store/checkout). The slow and outside work happens first, outside any
 * transaction: resolving the buyer's wallet, the product, the referral code and the gift card,
 * checking the wallet PIN (the foundation's checker, with its lock-out) and the card's own PIN,
 * and reading the FX rate. Then ONE database transaction holds every effect, in this order:
 *
 *   1. the referral use (conditional update: uses < maxUses, active, not expired);
 *   2. the stock (conditional update: stock >= quantity; the product row lock queues concurrent
 *      checkouts of one product, so stock never goes below zero);
 *   3. the flash-sale units (conditional update: units_sold + quantity <= maxUnits);
 *   4. the gift-card draw (the card row locked, its state re-checked);
 *   5. the order row;
 *   6. ONE balanced ledger transfer: buyer wallet and/or gift-card liability -> store_revenue in the
 *      order currency, through the FX desk when the wallet pays in another currency;
 *   7. the outbox event store.order.paid.
 *
 * Any refusal (out of stock, sold out, insufficient funds, a code used up meanwhile) throws and
 * rolls the whole transaction back: no stock taken, no money moved, no use counted.
 */

export interface CheckoutResult {
  order: OrderRow;
  remaining: number;
  remainingCurrency: string;
  giftCardRemaining: number | null;
}

const outOfStock = (product: ProductRow, quantity: number) =>
  conflict('out_of_stock', product.stock > 0 ? `Only ${product.stock} of ${product.name} left; ${quantity} asked` : `${product.name} is out of stock`);

function variantOf(product: ProductRow, name: string | undefined): VariantRow | null {
  if (name === undefined) {
    if (product.variants.length > 0) throw badRequest('variant_required', `Choose a variantName: ${product.variants.map((variant) => variant.name).join(', ')}`);
    return null;
  }
  const variant = product.variants.find((candidate) => candidate.name.toLowerCase() === name.trim().toLowerCase());
  if (!variant) {
    throw badRequest('variant_not_found', product.variants.length > 0 ? `No variant ${name}: choose one of ${product.variants.map((candidate) => candidate.name).join(', ')}` : `${product.name} has no variants`);
  }
  return variant;
}

function checkShipping(product: ProductRow, country: string): void {
  const listed = product.available_countries.includes(country);
  if ((product.geo_mode === 'include' && !listed) || (product.geo_mode === 'exclude' && listed)) {
    throw unprocessable('shipping_country_not_available', `${product.name} does not ship to ${country}`);
  }
}

function referralInvalid(code: string, reason: string): ApiError {
  return new ApiError(422, 'referral_invalid', `Referral code ${code} cannot be used: ${reason.replace('_', ' ')}`, { details: [{ field: 'referralCode', reason }] });
}

/** The price at a given sale state, in minor units of the order currency. */
function priceOf(product: ProductRow, variant: VariantRow | null, sale: FlashSaleRow | undefined, quantity: number, referral: ReferralRow | undefined) {
  const unitPrice = (sale ? salePrice(product, sale) : product.base_price) + (variant?.priceDelta ?? 0);
  const subtotal = safeProduct(unitPrice, quantity);
  const discount = referral ? referralDiscount(subtotal, referral, product.base_currency) : 0;
  return { unitPrice, subtotal, discount, total: subtotal - discount };
}

/** The card the buyer names, checked before anything is locked (re-checked under its lock). */
async function usableCard(context: AppContext, giftCards: GiftCards, code: string, wallet: WalletRow, product: ProductRow, now: Date): Promise<CardRow> {
  const canonical = canonicalCardCode(code);
  const card = canonical ? await findCardByHash(context.db, codeHash(canonical)) : undefined;
  // A card of the other mode does not exist for this buyer (test and live never mix).
  if (!card || card.mode !== wallet.mode) throw giftCardNotFound();
  const status = effectiveStatus(card, now);
  if (status === 'expired' && card.status === 'active') {
    // Settle the expiry as the gift-card module does: the balance goes back to the issuer.
    await giftCards.expireDue(card.id);
  }
  if (status !== 'active') throw stateError(status);
  if (card.locked_to_handle !== null && card.locked_to_handle !== wallet.handle) throw forbidden('handle_locked', 'This gift card is locked to another @handle');
  if (card.currency !== product.base_currency) {
    throw unprocessable('gift_card_currency_mismatch', `This gift card is in ${card.currency} and the product is priced in ${product.base_currency}: redeem the card into your wallet (with targetCurrency) and pay from the wallet`);
  }
  return card;
}

/** Which balance pays the wallet's part: the order currency when the wallet holds enough of it, else its home currency through FX. */
async function payingCurrency(context: AppContext, rates: RateSource, wallet: WalletRow, orderCurrency: string, walletPart: number): Promise<{ currency: string; rate: string | null }> {
  if (wallet.currency === orderCurrency) return { currency: orderCurrency, rate: null };
  const balances = await walletBalances(context.db, wallet.id, wallet.mode);
  const held = balances.find((balance) => balance.currency === orderCurrency)?.available ?? 0;
  if (walletPart > 0 && held >= walletPart) return { currency: orderCurrency, rate: null };
  return { currency: wallet.currency, rate: (await rates.rate(orderCurrency, wallet.currency)).rate };
}

function addLeg(legs: Map<string, TransferLeg>, key: string, account: AccountRef, amount: number): void {
  if (amount === 0) return;
  const leg = legs.get(key);
  if (leg) leg.amount += amount;
  else legs.set(key, { account, amount });
}

export async function checkout(context: AppContext, giftCards: GiftCards, rates: RateSource, body: CheckoutBody, derivedOrderId: string | undefined): Promise<CheckoutResult> {
  const { db } = context;
  const now = context.now();
  const wallet = await buyerWallet(db, body.buyerHandle, body.mode);
  const mode = wallet.mode;
  const product = await findProductBySlug(db, mode, body.productSlug);
  if (!product || product.status !== 'active') throw productNotFound(body.productSlug);
  const variant = variantOf(product, body.variantName);
  const shippingCountry = supportedCountry(body.shippingCountry, 'shippingCountry');
  checkShipping(product, shippingCountry);

  let referral: ReferralRow | undefined;
  if (body.referralCode !== undefined) {
    const code = canonicalReferral(body.referralCode);
    referral = /^[A-Z0-9_-]{3,32}$/.test(code) ? await findReferralByCode(db, mode, code) : undefined;
    const refusal = referralRefusal(referral, now);
    if (refusal) throw referralInvalid(code, refusal);
  }

  const card = body.giftCardCode !== undefined ? await usableCard(context, giftCards, body.giftCardCode, wallet, product, now) : undefined;
  // The price as it stands now decides whether the wallet must pay a part (and so whether its PIN is needed).
  const estimate = priceOf(product, variant, (await runningSales(db, [product.id], now)).get(product.id), body.quantity, referral);
  const estimatedWalletPart = estimate.total - Math.min(card?.amount_remaining ?? 0, estimate.total);
  if (body.walletPin === undefined && (!card || estimatedWalletPart > 0 || card.locked_to_handle !== null)) {
    throw badRequest(
      'wallet_pin_required',
      !card ? 'walletPin is required: the wallet pays' : card.locked_to_handle !== null ? 'walletPin is required: the gift card is locked to a handle, which the PIN proves' : 'walletPin is required: the gift card does not cover the total, the wallet pays the rest',
    );
  }
  // A walletPin that is sent is always checked (wrong PINs count toward the lock-out).
  const walletProven = body.walletPin !== undefined;
  if (body.walletPin !== undefined) await checkWalletPin(db, wallet, body.walletPin, now);
  if (card) await giftCards.checkPin(card, body.giftCardPin, now);

  const orderId = derivedOrderId ?? `ord_${randomHex(16)}`;
  if (derivedOrderId) {
    // A re-run of an Idempotency-Key whose first run committed (then crashed before answering).
    const existing = await findOrder(db, derivedOrderId);
    if (existing) return resultOf(db, existing, wallet);
  }
  const paying = await payingCurrency(context, rates, wallet, product.base_currency, estimatedWalletPart);

  const order = await db.transaction(async (tx) => {
    if (referral && !(await useReferral(tx, referral.id, now))) {
      const current = await findReferralByCode(tx, mode, referral.code);
      throw referralInvalid(referral.code, referralRefusal(current, now) ?? 'exhausted');
    }
    const stocked = await takeStock(tx, product.id, body.quantity);
    if (!stocked) {
      const current = await findProduct(tx, product.id);
      if (!current || current.status !== 'active') throw productNotFound(body.productSlug);
      throw outOfStock(current, body.quantity);
    }
    const sale = (await runningSales(tx, [product.id], now)).get(product.id);
    if (sale && !(await takeSaleUnits(tx, sale.id, body.quantity, now))) {
      const left = sale.max_units === null ? 0 : sale.max_units - sale.units_sold;
      throw conflict('flash_sale_sold_out', `Only ${left} unit(s) of ${product.name} are left at the flash-sale price (${body.quantity} asked): buy fewer, or retry once the sale is over at the regular price`);
    }
    const price = priceOf(stocked, variant, sale, body.quantity, referral);

    let giftCardDebit = 0;
    if (card) {
      const locked = await lockCard(tx, card.id);
      if (!locked) throw giftCardNotFound();
      const status = effectiveStatus(locked, now);
      if (status !== 'active') throw stateError(status);
      giftCardDebit = Math.min(locked.amount_remaining, price.total);
      if (giftCardDebit > 0) await drawFromCard(tx, locked.id, giftCardDebit, now, false);
    }
    const walletDebit = price.total - giftCardDebit;
    if (walletDebit > 0 && !walletProven) throw badRequest('wallet_pin_required', 'walletPin is required: the gift card does not cover the total, the wallet pays the rest');
    const walletCharged = walletDebit === 0 ? 0 : paying.rate === null ? walletDebit : convertUp(walletDebit, product.base_currency, paying.currency, paying.rate);
    const crossCurrency = walletDebit > 0 && paying.currency !== product.base_currency;
    const transferId = price.total > 0 ? `store_order:${orderId}` : null;

    const parts = [walletDebit > 0 ? `${toMajor(walletDebit, product.base_currency)} by wallet` : null, giftCardDebit > 0 ? `${toMajor(giftCardDebit, product.base_currency)} by gift card ${card?.code_prefix}` : null].filter(Boolean);
    const inserted = await insertOrder(tx, {
      id: orderId,
      mode,
      status: 'paid',
      product_id: product.id,
      product_slug: product.slug,
      product_name: product.name,
      variant_name: variant?.name ?? null,
      quantity: body.quantity,
      currency: product.base_currency,
      unit_price: price.unitPrice,
      subtotal: price.subtotal,
      discount: price.discount,
      total: price.total,
      flash_sale_id: sale?.id ?? null,
      referral_code_id: referral?.id ?? null,
      referral_code: referral?.code ?? null,
      buyer_wallet_id: wallet.id,
      buyer_handle: wallet.handle,
      wallet_debit: walletDebit,
      wallet_charged: walletCharged,
      wallet_currency: walletDebit > 0 ? paying.currency : null,
      fx_rate: crossCurrency ? paying.rate : null,
      gift_card_id: card?.id ?? null,
      gift_card_prefix: card?.code_prefix ?? null,
      gift_card_debit: giftCardDebit,
      shipping_name: body.shippingName.trim(),
      shipping_phone: body.shippingPhone.trim(),
      shipping_address: body.shippingAddress.trim(),
      shipping_city: body.shippingCity.trim(),
      shipping_country: shippingCountry,
      notes: body.notes?.trim() || null,
      payment_transfer_id: transferId,
      timeline: [{ status: 'paid', at: now.toISOString(), note: `Paid ${toMajor(price.total, product.base_currency)} ${product.base_currency}${parts.length > 0 ? `: ${parts.join(', ')}` : ''}` }],
      created_at: now,
      updated_at: now,
    });

    if (transferId) {
      const legs = new Map<string, TransferLeg>();
      const currency = product.base_currency;
      if (walletDebit > 0) {
        addLeg(legs, `wallet:${paying.currency}`, walletAccount(wallet.id, paying.currency), -walletCharged);
        if (crossCurrency) {
          addLeg(legs, `fx:${paying.currency}`, systemAccount('fx', paying.currency), walletCharged);
          addLeg(legs, `fx:${currency}`, systemAccount('fx', currency), -walletDebit);
        }
      }
      addLeg(legs, `liability:${currency}`, systemAccount('gift_card_liability', currency), -giftCardDebit);
      addLeg(legs, `revenue:${currency}`, systemAccount('store_revenue', currency), price.total);
      // Last money statement before the event: the buyer's wallet is locked from here to COMMIT only.
      await transfer(tx, {
        id: transferId,
        mode,
        kind: 'store_order',
        legs: [...legs.values()],
        metadata: { orderId, ...(crossCurrency ? { fxRate: paying.rate } : {}) },
      });
    }
    await enqueuePlatformEvent(tx, {
      id: `evt_${randomHex(16)}`,
      mode,
      type: 'store.order.paid',
      data: orderEventData(inserted),
      at: now,
    });
    return inserted;
  });
  return resultOf(db, order, wallet);
}

/** The payload of the store.order.* events: what a fulfilment system needs, without shipping contact details. */
export function orderEventData(order: OrderRow): Record<string, unknown> {
  return {
    orderId: order.id,
    status: order.status,
    productId: order.product_id,
    productSlug: order.product_slug,
    variantName: order.variant_name,
    quantity: order.quantity,
    total: toMajor(order.total, order.currency),
    currency: order.currency,
    walletDebit: toMajor(order.wallet_debit, order.currency),
    giftCardDebit: toMajor(order.gift_card_debit, order.currency),
    discount: toMajor(order.discount, order.currency),
    buyerHandle: displayHandle(order.buyer_handle),
    mode: order.mode,
  };
}

async function resultOf(db: Queryable, order: OrderRow, wallet: WalletRow): Promise<CheckoutResult> {
  const remainingCurrency = order.wallet_currency ?? wallet.currency;
  const remaining = await accountBalance(db, walletAccount(wallet.id, remainingCurrency), wallet.mode);
  let giftCardRemaining: number | null = null;
  if (order.gift_card_id) {
    const card = await findCard(db, order.gift_card_id);
    if (card) giftCardRemaining = toMajor(card.amount_remaining, card.currency);
  }
  return { order, remaining: toMajor(remaining, remainingCurrency), remainingCurrency, giftCardRemaining };
}
