import type { Cart } from '@tapline/shared/cart';
import { ApiError } from './api.ts';

/** The server refused a cart's sale because of one of its products: which, and why. */
export interface LineRefusal {
  productId: string;
  /** As the cart shows it (the catalogue's name when it was rung up). */
  name: string;
  code: 'product_unavailable' | 'out_of_stock';
  /** out_of_stock: the units the server has. */
  available: number | null;
}

/**
 * The product an online sale was refused for (409 product_unavailable: archived or deactivated
 * since the replica last heard; 409 out_of_stock), found in the cart so the cashier can take it
 * out; null for any other failure, or a product the cart no longer holds.
 */
export function lineRefusal(error: unknown, cart: Cart): LineRefusal | null {
  if (!(error instanceof ApiError) || (error.code !== 'product_unavailable' && error.code !== 'out_of_stock')) return null;
  const detail = error.details.find((entry): entry is { productId: string; available?: unknown } => typeof (entry as { productId?: unknown } | null)?.productId === 'string');
  if (!detail) return null;
  const line = cart.lines.find((candidate) => candidate.productId === detail.productId);
  if (!line) return null;
  return { productId: detail.productId, name: line.name, code: error.code, available: typeof detail.available === 'number' ? detail.available : null };
}
