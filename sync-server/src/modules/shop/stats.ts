import { toMajor } from '@tapline/shared/money';
import type { AppContext } from '../../context.ts';
import type { Mode } from '../../auth/secrets.ts';
import { supportedCurrency } from '../../http/validate.ts';
import { type RateSource, convertMinor } from '../fx/index.ts';
import { storeModeOf } from './common.ts';
import { revenueByCurrency, storeCounts } from './store.ts';

/**
 * GET /api/admin/store/stats, per mode. Revenue is the net total (after discounts) of the orders
 * that are paid, fulfilled, shipped or delivered (cancelled and refunded orders gave it back).
 * Orders are in their products' currencies, so revenue is reported per currency
 * (revenueByCurrency, exact) and as one totalRevenue in revenueCurrency (query currency, default
 * USD): each currency's sum converted at the FX service's mid rate, rounded half up, then added.
 */
export async function storeStats(context: AppContext, rates: RateSource, query: { mode?: Mode | undefined; currency?: string | undefined }) {
  const mode = storeModeOf(query.mode);
  const revenueCurrency = supportedCurrency(query.currency ?? 'USD');
  const counts = await storeCounts(context.db, mode);
  const revenue = await revenueByCurrency(context.db, mode);
  let total = 0;
  for (const row of revenue) {
    const rate = row.currency === revenueCurrency ? '1' : (await rates.rate(row.currency, revenueCurrency)).rate;
    total += convertMinor(row.amount, row.currency, revenueCurrency, rate, 'half_up');
  }
  return {
    totalProducts: counts.products,
    totalOrders: counts.orders,
    totalRevenue: toMajor(total, revenueCurrency),
    revenueCurrency,
    revenueByCurrency: revenue.map((row) => ({ currency: row.currency, amount: toMajor(row.amount, row.currency), orders: row.orders })),
    totalReviews: counts.reviews,
    pendingOrders: counts.pending,
    avgRating: counts.average === null ? null : Number(counts.average),
    mode,
  };
}
