import type { Queryable } from '../../db/database.ts';
import { newId } from '../../auth/secrets.ts';
import type { AppContext } from '../../context.ts';
import { canonicalHandle, displayHandle } from '../../http/validate.ts';
import { findWallet, insertWalletNotifications } from '../wallets/index.ts';
import { storeModeOf, productNotFound, walletNotFound } from './common.ts';
import { stockAlertRecord } from './records.ts';
import { type ProductRow, claimWaitingAlerts, findProductBySlug, insertMails, insertStockAlert } from './store.ts';

/**
 * Stock alerts. A subscription waits until the product's stock is raised to a positive value (an
 * admin update, or units put back by a cancel or refund). Then, in the same transaction as that
 * stock change, every waiting alert is marked notified, an in-app notice is written for the
 * buyer's wallet (GET /api/wallet/notifications) and an e-mail is queued in the mail outbox,
 * which a background job sends with retries: a crash loses neither.
 */

export async function subscribe(context: AppContext, body: { productSlug: string; buyerHandle: string; email: string; mode?: 'test' | 'live' | undefined }) {
  const mode = storeModeOf(body.mode);
  const product = await findProductBySlug(context.db, mode, body.productSlug);
  if (!product || product.status !== 'active') throw productNotFound(body.productSlug);
  const handle = canonicalHandle(body.buyerHandle);
  const wallet = await findWallet(context.db, handle, mode);
  if (!wallet) throw walletNotFound(handle, mode);
  const { alert, created } = await insertStockAlert(context.db, {
    id: newId('salert'),
    mode,
    product_id: product.id,
    wallet_id: wallet.id,
    handle: wallet.handle,
    email: body.email.trim().toLowerCase(),
    status: 'waiting',
    created_at: context.now(),
    notified_at: null,
  });
  return { created, alert: stockAlertRecord(alert, product) };
}

/**
 * Called in the transaction that changed a product's stock from `before` to `after`: when stock
 * went up and is now positive, notifies every waiting alert. Returns how many were notified.
 */
export async function notifyIfBackInStock(tx: Queryable, product: ProductRow, before: number, after: number, now: Date, publicBaseUrl: string): Promise<number> {
  if (after <= 0 || after <= before) return 0;
  const alerts = await claimWaitingAlerts(tx, product.id, now);
  if (alerts.length === 0) return 0;
  const title = `${product.name} is back in stock`;
  const link = `${publicBaseUrl}/api/store/products/${product.slug}${product.mode === 'live' ? '' : '?mode=test'}`;
  await insertWalletNotifications(
    tx,
    alerts.map((alert) => ({
      id: newId('ntf'),
      wallet_id: alert.wallet_id,
      mode: alert.mode,
      kind: 'store.back_in_stock',
      title,
      body: `${product.name} is available again (${after} in stock). You asked to be told, ${displayHandle(alert.handle)}.`,
      data: { productId: product.id, productSlug: product.slug, stock: after, alertId: alert.id },
      created_at: now,
      read_at: null,
    })),
  );
  await insertMails(
    tx,
    alerts.map((alert) => ({
      id: newId('mail'),
      mode: alert.mode,
      to_address: alert.email,
      subject: title,
      text_body: `Good news: ${product.name} is back in stock (${after} available).\n\nSee it at ${link}\n\nYou receive this e-mail because ${displayHandle(alert.handle)} asked for a stock alert.`,
      html_body: null,
      source: `stock_alert:${alert.id}`,
      next_attempt_at: now,
      created_at: now,
    })),
  );
  return alerts.length;
}
