import { toMajor } from '@tapline/shared/money';
import type { OrderStatus } from '@tapline/shared/schemas';
import type { AppContext } from '../../context.ts';
import type { Queryable } from '../../db/database.ts';
import { type Mode, randomHex } from '../../auth/secrets.ts';
import { conflict } from '../../http/errors.ts';
import { canonicalHandle } from '../../http/validate.ts';
import { type AccountRef, systemAccount, walletAccount } from '../../ledger/accounts.ts';
import { type TransferLeg, transfer } from '../../ledger/ledger.ts';
import { enqueuePlatformEvent } from '../../events/outbox.ts';
import { type GiftCards, lockCard, restoreCardBalance } from '../gift-cards/index.ts';
import { orderEventData } from './checkout.ts';
import { orderNotFound, provenBuyer, storeModeOf } from './common.ts';
import { orderRecord } from './records.ts';
import { type OrderRow, findOrder, findProduct, listOrders, listOrdersOfWallet, lockOrder, releaseSaleUnits, returnStock, updateOrderState } from './store.ts';
import { notifyIfBackInStock } from './stock-alerts.ts';

/**
 * Orders and their states. Checkout creates orders `paid` (payment is synchronous); `pending`
 * exists for orders created unpaid (none today) and can only be cancelled. Admin transitions:
 *
 *   paid -> fulfilled -> shipped -> delivered
 *   pending, paid, fulfilled -> cancelled
 *   paid, fulfilled, shipped, delivered -> refunded
 *
 * Anything else is 409 invalid_transition (so a second refund is a 409). Cancelling a paid order
 * and refunding both return the money exactly, in one transaction with the state change:
 * ONE ledger transfer that is the payment's negation (the wallet gets back exactly what it paid,
 * in the currency it paid in; the gift-card part goes back to the same card, whose balance is
 * restored and which becomes active again if the draw used it up; if the card has ended since
 * (expired, cancelled, refunded) that part goes to the buyer's wallet instead). Units go back in
 * stock (unless restock: false), which notifies waiting stock alerts; flash-sale units are
 * released; referral uses are not (see referrals.ts).
 */

export const ORDER_TRANSITIONS: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  pending: ['cancelled'],
  paid: ['fulfilled', 'cancelled', 'refunded'],
  fulfilled: ['shipped', 'cancelled', 'refunded'],
  shipped: ['delivered', 'refunded'],
  delivered: ['refunded'],
  cancelled: [],
  refunded: [],
};

/** The states after payment that count as a completed purchase (reviews, revenue). */
export const PURCHASED_STATES: readonly OrderStatus[] = ['paid', 'fulfilled', 'shipped', 'delivered'];

export async function publicOrder(db: Queryable, id: string) {
  const row = await findOrder(db, id);
  if (!row) throw orderNotFound(id);
  return orderRecord(row, true);
}

export async function myOrders(context: AppContext, body: { buyerHandle: string; walletPin: string; mode?: Mode | undefined; limit?: number | undefined; offset?: number | undefined }) {
  const wallet = await provenBuyer(context.db, body, context.now());
  const limit = body.limit ?? 20;
  const offset = body.offset ?? 0;
  const page = await listOrdersOfWallet(context.db, wallet.id, limit, offset);
  return { data: page.rows.map((row) => orderRecord(row, false)), total: page.total, limit, offset };
}

export async function adminOrders(db: Queryable, query: { limit?: number | undefined; offset?: number | undefined; status?: OrderStatus | undefined; mode?: Mode | undefined; buyerHandle?: string | undefined }) {
  const limit = query.limit ?? 20;
  const offset = query.offset ?? 0;
  const page = await listOrders(db, { mode: storeModeOf(query.mode), status: query.status, buyerHandle: query.buyerHandle ? canonicalHandle(query.buyerHandle) : undefined }, limit, offset);
  return { data: page.rows.map((row) => orderRecord(row, false)), total: page.total, limit, offset };
}

export async function adminOrder(db: Queryable, id: string) {
  const row = await findOrder(db, id);
  if (!row) throw orderNotFound(id);
  return orderRecord(row, false);
}

function addLeg(legs: Map<string, TransferLeg>, key: string, account: AccountRef, amount: number): void {
  if (amount === 0) return;
  const leg = legs.get(key);
  if (leg) leg.amount += amount;
  else legs.set(key, { account, amount });
}

/** Gives back what the order took, in the caller's transaction. Returns where the gift-card part went. */
async function returnMoney(tx: Queryable, order: OrderRow, now: Date): Promise<{ transferId: string | null; giftCardTo: 'card' | 'wallet' | null }> {
  if (order.total === 0) return { transferId: null, giftCardTo: null };
  const legs = new Map<string, TransferLeg>();
  const currency = order.currency;
  if (order.wallet_debit > 0 && order.wallet_currency) {
    addLeg(legs, `wallet:${order.wallet_currency}`, walletAccount(order.buyer_wallet_id, order.wallet_currency), order.wallet_charged);
    if (order.wallet_currency !== currency) {
      addLeg(legs, `fx:${order.wallet_currency}`, systemAccount('fx', order.wallet_currency), -order.wallet_charged);
      addLeg(legs, `fx:${currency}`, systemAccount('fx', currency), order.wallet_debit);
    }
  }
  let giftCardTo: 'card' | 'wallet' | null = null;
  if (order.gift_card_debit > 0 && order.gift_card_id) {
    const card = await lockCard(tx, order.gift_card_id);
    if (card && (card.status === 'active' || card.status === 'used')) {
      await restoreCardBalance(tx, card.id, order.gift_card_debit, now);
      addLeg(legs, `liability:${currency}`, systemAccount('gift_card_liability', currency), order.gift_card_debit);
      giftCardTo = 'card';
    } else {
      addLeg(legs, `wallet:${currency}`, walletAccount(order.buyer_wallet_id, currency), order.gift_card_debit);
      giftCardTo = 'wallet';
    }
  }
  addLeg(legs, `revenue:${currency}`, systemAccount('store_revenue', currency), -order.total);
  const transferId = `store_order:${order.id}:refund`;
  await transfer(tx, { id: transferId, mode: order.mode, kind: 'store_refund', legs: [...legs.values()], metadata: { orderId: order.id } });
  return { transferId, giftCardTo };
}

export async function transitionOrder(context: AppContext, giftCards: GiftCards, id: string, body: { status: OrderStatus; note?: string | undefined; restock?: boolean | undefined }) {
  const now = context.now();
  const updated = await context.db.transaction(async (tx) => {
    const order = await lockOrder(tx, id);
    if (!order) throw orderNotFound(id);
    if (!ORDER_TRANSITIONS[order.status].includes(body.status)) {
      throw conflict('invalid_transition', `An order that is ${order.status} cannot become ${body.status}${ORDER_TRANSITIONS[order.status].length > 0 ? ` (it can become ${ORDER_TRANSITIONS[order.status].join(', ')})` : ''}`);
    }
    const note = body.note?.trim();
    let fields: Parameters<typeof updateOrderState>[2] = { status: body.status, timeline: order.timeline, now };
    const notes: string[] = [];
    if (body.status === 'cancelled' || body.status === 'refunded') {
      const paid = order.status !== 'pending';
      let restocked = 0;
      if (paid && body.restock !== false) {
        const product = await findProduct(tx, order.product_id);
        const stock = await returnStock(tx, order.product_id, order.quantity, now);
        restocked = order.quantity;
        if (product) await notifyIfBackInStock(tx, { ...product, stock: stock.after }, stock.before, stock.after, now, context.config.publicBaseUrl);
      }
      if (paid && order.flash_sale_id) await releaseSaleUnits(tx, order.flash_sale_id, order.quantity);
      const money = paid ? await returnMoney(tx, order, now) : { transferId: null, giftCardTo: null };
      if (paid && order.total > 0) {
        notes.push(`Returned ${toMajor(order.total, order.currency)} ${order.currency}`);
        if (order.wallet_debit > 0 && order.wallet_currency) notes.push(`${toMajor(order.wallet_charged, order.wallet_currency)} ${order.wallet_currency} to the wallet`);
        if (money.giftCardTo) notes.push(`${toMajor(order.gift_card_debit, order.currency)} ${order.currency} to the ${money.giftCardTo === 'card' ? 'gift card' : 'wallet (the gift card has ended)'}`);
      }
      if (restocked > 0) notes.push(`${restocked} back in stock`);
      fields = { ...fields, refundTransferId: money.transferId, restocked, giftCardRefundedTo: money.giftCardTo };
    }
    if (note) notes.push(note);
    fields.timeline = [...order.timeline, { status: body.status, at: now.toISOString(), ...(notes.length > 0 ? { note: notes.join('; ') } : {}) }];
    const row = await updateOrderState(tx, order.id, fields);
    await enqueuePlatformEvent(tx, { id: `evt_${randomHex(16)}`, mode: row.mode, type: `store.order.${row.status}`, data: orderEventData(row), at: now });
    return row;
  });
  // A card given back after its expiry date is expired now, its balance returned to its issuer (the gift-card rule).
  if (updated.gift_card_refunded_to === 'card' && updated.gift_card_id && (body.status === 'cancelled' || body.status === 'refunded')) {
    await giftCards.expireDue(updated.gift_card_id);
  }
  return orderRecord(updated, false);
}
