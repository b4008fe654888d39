import { type Mode, newId } from '../../auth/secrets.ts';
import type { AppContext } from '../../context.ts';
import { conflict, forbidden, unprocessable } from '../../http/errors.ts';
import { productNotFound, provenBuyer } from './common.ts';
import { PURCHASED_STATES } from './orders.ts';
import { reviewRecord } from './records.ts';
import { findOrder, findProductBySlug, insertReview } from './store.ts';

/**
 * Reviews (POST /api/store/reviews, buyer handle + wallet PIN). The spec asks for a completed
 * order of the product: the orderId must be the buyer's own order (else 403 order_not_owned,
 * an unknown id included, so ids of others' orders are not confirmed), of this product (else 422
 * order_product_mismatch), and paid or further along: paid, fulfilled, shipped or delivered
 * (pending, cancelled or refunded: 422 order_not_eligible). One review per buyer per product,
 * enforced by a unique key: the second is 409 review_exists.
 */
export async function createReview(
  context: AppContext,
  body: { productSlug: string; buyerHandle: string; walletPin: string; orderId: string; rating: number; title?: string | undefined; body?: string | undefined; mode?: Mode | undefined },
) {
  const wallet = await provenBuyer(context.db, body, context.now());
  const product = await findProductBySlug(context.db, wallet.mode, body.productSlug);
  if (!product || product.status === 'archived') throw productNotFound(body.productSlug);
  const order = await findOrder(context.db, body.orderId);
  if (!order || order.buyer_wallet_id !== wallet.id) throw forbidden('order_not_owned', 'orderId is not an order of this buyer');
  if (order.product_id !== product.id) throw unprocessable('order_product_mismatch', `Order ${order.id} is not for ${product.slug}`);
  if (!PURCHASED_STATES.includes(order.status)) throw unprocessable('order_not_eligible', `Order ${order.id} is ${order.status}: only a paid (or later) order can be reviewed`);
  const review = await insertReview(context.db, {
    id: newId('rev'),
    mode: wallet.mode,
    product_id: product.id,
    order_id: order.id,
    buyer_wallet_id: wallet.id,
    buyer_handle: wallet.handle,
    rating: body.rating,
    title: body.title?.trim() || null,
    body: body.body?.trim() || null,
    created_at: context.now(),
  });
  if (!review) throw conflict('review_exists', 'This buyer has already reviewed this product');
  return reviewRecord(review);
}

