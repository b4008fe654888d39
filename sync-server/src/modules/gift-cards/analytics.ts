import { toMajor } from '@tapline/shared/money';
import { GIFT_CARD_ISSUER_TYPES, GIFT_CARD_STATUSES } from '@tapline/shared/schemas';
import type { Queryable } from '../../db/database.ts';
import { type RateSource, convertMinor } from '../fx/index.ts';
import type { CardFilter } from './store.ts';
import { type CurrencyFiguresRow, cardCount, cardCountsByIssuerType, cardCountsByStatus, cardTotalsByCurrency, currencyFigures, redemptionCount } from './analytics-store.ts';

/**
 * Analytics (spec: issuedCount, issuedValue, redeemedCount, partialCount, activeCount,
 * outstandingValue, totalDrawn, redemptionRatePct, avgMinutesToFirstRedeem, byCurrency), for
 * one issuer, one program or the platform. Definitions, per card in scope:
 * - issuedCount, issuedValue: every card issued (any status) and the sum of its amounts;
 * - redeemedCount: cards fully redeemed (status used);
 * - partialCount: cards with at least one redemption and a balance left (whatever the status);
 * - activeCount: cards active now (expiry applied first);
 * - outstandingValue: balances of active and scheduled cards, i.e. what the liability still owes;
 * - totalDrawn: the sum of amount_drawn over all redemptions (= amount - amountRemaining per card);
 * - redemptionRatePct: cards with at least one redemption / issuedCount x 100, 2 decimals;
 * - avgMinutesToFirstRedeem: mean minutes from issue to first redemption, 2 decimals, or null.
 */

export interface AnalyticsScope {
  filter: CardFilter;
  type: 'merchant' | 'wallet' | 'agent' | 'program' | 'platform';
  id: string | null;
  /** Reporting currency when the request names none and the cards use several. */
  homeCurrency: string;
}

const round2 = (value: number) => Math.round(value * 100) / 100;

function rate(redeemedAny: number, issued: number): number {
  return issued === 0 ? 0 : round2((redeemedAny / issued) * 100);
}

function averageMinutes(seconds: number, redeemedAny: number): number | null {
  return redeemedAny === 0 ? null : round2(seconds / redeemedAny / 60);
}

export async function computeAnalytics(db: Queryable, rates: RateSource, scope: AnalyticsScope, requestedCurrency?: string) {
  const rows = await currencyFigures(db, scope.filter);

  const byCurrency: Record<string, ReturnType<typeof figures>> = {};
  function figures(row: CurrencyFiguresRow) {
    return {
      issuedCount: row.issued_count,
      issuedValue: toMajor(row.issued_value, row.currency),
      redeemedCount: row.redeemed_count,
      partialCount: row.partial_count,
      activeCount: row.active_count,
      outstandingValue: toMajor(row.outstanding_value, row.currency),
      totalDrawn: toMajor(row.total_drawn, row.currency),
      redemptionRatePct: rate(row.redeemed_any, row.issued_count),
      avgMinutesToFirstRedeem: averageMinutes(row.seconds_to_first, row.redeemed_any),
      currency: row.currency,
    };
  }
  for (const row of rows) byCurrency[row.currency] = figures(row);

  const reporting = requestedCurrency ?? (rows.length === 1 ? rows[0]!.currency : scope.homeCurrency);
  const totals = { issued: 0, issuedValue: 0, redeemed: 0, partial: 0, active: 0, outstanding: 0, drawn: 0, redeemedAny: 0, seconds: 0 };
  for (const row of rows) {
    const fx = row.currency === reporting ? '1' : (await rates.rate(row.currency, reporting)).rate;
    const convert = (minor: number) => convertMinor(minor, row.currency, reporting, fx, 'half_up');
    totals.issued += row.issued_count;
    totals.issuedValue += convert(row.issued_value);
    totals.redeemed += row.redeemed_count;
    totals.partial += row.partial_count;
    totals.active += row.active_count;
    totals.outstanding += convert(row.outstanding_value);
    totals.drawn += convert(row.total_drawn);
    totals.redeemedAny += row.redeemed_any;
    totals.seconds += row.seconds_to_first;
  }
  return {
    issuedCount: totals.issued,
    issuedValue: toMajor(totals.issuedValue, reporting),
    redeemedCount: totals.redeemed,
    partialCount: totals.partial,
    activeCount: totals.active,
    outstandingValue: toMajor(totals.outstanding, reporting),
    totalDrawn: toMajor(totals.drawn, reporting),
    redemptionRatePct: rate(totals.redeemedAny, totals.issued),
    avgMinutesToFirstRedeem: averageMinutes(totals.seconds, totals.redeemedAny),
    currency: reporting,
    scope: { type: scope.type, id: scope.id },
    byCurrency,
  };
}

/** Admin aggregates over every card (one mode or both). */
export async function computeStats(db: Queryable, filter: CardFilter, now: Date) {
  const byStatus: Record<string, number> = Object.fromEntries(GIFT_CARD_STATUSES.map((status) => [status, 0]));
  for (const row of await cardCountsByStatus(db, filter)) {
    byStatus[row.status] = row.count;
  }
  const byIssuerType: Record<string, number> = Object.fromEntries(GIFT_CARD_ISSUER_TYPES.map((type) => [type, 0]));
  for (const row of await cardCountsByIssuerType(db, filter)) {
    byIssuerType[row.issuer_type] = row.count;
  }
  const byCurrency: Record<string, { issuedCount: number; issuedValue: number; outstandingValue: number; totalDrawn: number; returnedValue: number }> = {};
  for (const row of await cardTotalsByCurrency(db, filter)) {
    byCurrency[row.currency] = {
      issuedCount: row.issued_count,
      issuedValue: toMajor(row.issued_value, row.currency),
      outstandingValue: toMajor(row.outstanding, row.currency),
      totalDrawn: toMajor(row.drawn, row.currency),
      returnedValue: toMajor(row.returned, row.currency),
    };
  }
  const redemptions = await redemptionCount(db, filter);
  const recent = await cardCount(db, { ...filter, createdFrom: new Date(now.getTime() - 24 * 3600_000) });
  return {
    totalCount: Object.values(byStatus).reduce((sum, count) => sum + count, 0),
    byStatus,
    byIssuerType,
    byCurrency,
    redemptionCount: redemptions,
    issuedLast24Hours: recent,
  };
}
