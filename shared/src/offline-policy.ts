import type { OfflineLimits, OfflinePaymentDoc } from './sync-protocol.ts';

/**
 * Whether a terminal may take one more payment while it cannot reach the server. The merchant
 * carries the risk of an offline tap (the wallet may be empty when it settles) and of a voucher
 * spent twice at two offline terminals, so the exposure is bounded: per payment, in total of
 * what is still unsettled, in taps taken on one UTC day, and in age (a terminal that has not
 * synced for too long must sync before it takes more). The customer's consent bounds a tap too:
 * without her PIN, which cannot be checked offline, a tag pays at most the no-PIN limit per tap,
 * and this terminal takes at most the no-PIN day limit from one tag in a UTC day (the server
 * holds every merchant's taps of the tag to that one day budget).
 */
export type OfflineDecision =
  | { ok: true }
  | {
      ok: false;
      code: 'offline_amount_over_limit' | 'offline_exposure_limit' | 'offline_sync_overdue' | 'offline_currency_not_allowed' | 'pin_required' | 'voucher_already_used';
      reason: string;
    };

export interface OfflineCandidate {
  amountMinor: number;
  currency: string;
  /** A voucher's id, for a QR payment: one voucher pays once. */
  voucherId?: string;
  /** The tag of a tap, when it has been read: one tag pays at most its no-PIN day limit. */
  tagId?: string;
}

type Taken = Pick<OfflinePaymentDoc, 'amountMinor' | 'currency' | 'capturedAt' | 'status'> & Partial<Pick<OfflinePaymentDoc, 'kind' | 'tagId' | 'voucherId'>>;

/** The UTC day of an ISO time (YYYY-MM-DD), '' when it is not one: the period of a terminal's offline total and of a tag's no-PIN budget. */
function utcDay(iso: string): string {
  const at = Date.parse(iso);
  return Number.isNaN(at) ? '' : new Date(at).toISOString().slice(0, 10);
}

/** This terminal's offline taps taken on `day` that are or may be paid (queued or accepted), in `currency`. */
function tapsOn(docs: readonly Taken[], day: string, currency: string, tagId?: string): number {
  return docs
    .filter((doc) => doc.kind !== 'qr' && doc.voucherId === undefined && (doc.status === 'queued' || doc.status === 'accepted'))
    .filter((doc) => doc.currency === currency && utcDay(doc.capturedAt) === day)
    .filter((doc) => tagId === undefined || doc.tagId === tagId)
    .reduce((sum, doc) => sum + doc.amountMinor, 0);
}

export function offlineDecision(
  limits: OfflineLimits,
  queued: readonly Taken[],
  candidate: OfflineCandidate,
  now: Date,
  usedVoucherIds: ReadonlySet<string> = new Set(),
): OfflineDecision {
  if (candidate.currency.toUpperCase() !== limits.currency.toUpperCase()) {
    return { ok: false, code: 'offline_currency_not_allowed', reason: `Offline payments are taken in ${limits.currency} only` };
  }
  if (candidate.voucherId !== undefined && usedVoucherIds.has(candidate.voucherId)) {
    return { ok: false, code: 'voucher_already_used', reason: 'This QR code has already paid at this terminal' };
  }
  if (candidate.amountMinor > limits.perPaymentMaxMinor) {
    return { ok: false, code: 'offline_amount_over_limit', reason: 'The amount is over the limit for one offline payment' };
  }
  // A tap (no voucher) above the no-PIN limits would need the customer's PIN, which cannot be
  // checked offline: the same code as online (the server declines it so too).
  const tap = candidate.voucherId === undefined;
  if (tap && limits.noPinPerTapMaxMinor !== undefined && candidate.amountMinor > limits.noPinPerTapMaxMinor) {
    return { ok: false, code: 'pin_required', reason: 'A tap of this amount needs the customer\'s PIN, which cannot be checked offline' };
  }

  const pending = queued.filter((doc) => doc.status === 'queued');
  const oldest = pending.reduce<number | undefined>((min, doc) => {
    const at = Date.parse(doc.capturedAt);
    return Number.isNaN(at) ? min : min === undefined ? at : Math.min(min, at);
  }, undefined);
  if (oldest !== undefined && now.getTime() - oldest > limits.maxAgeSeconds * 1000) {
    return { ok: false, code: 'offline_sync_overdue', reason: 'Offline payments have waited too long: connect to sync them before taking more' };
  }
  const exposure = pending.filter((doc) => doc.currency === limits.currency).reduce((sum, doc) => sum + doc.amountMinor, 0);
  if (exposure + candidate.amountMinor > limits.totalMaxMinor) {
    return { ok: false, code: 'offline_exposure_limit', reason: 'The terminal holds as much in unsynced offline payments as it may: connect to sync' };
  }
  const today = utcDay(now.toISOString());
  if (tap && candidate.tagId !== undefined && limits.noPinPerDayMaxMinor !== undefined
    && tapsOn(queued, today, limits.currency, candidate.tagId) + candidate.amountMinor > limits.noPinPerDayMaxMinor) {
    return { ok: false, code: 'pin_required', reason: 'This tag has paid as much without its PIN today as it may: its PIN cannot be checked offline' };
  }
  if (tap && tapsOn(queued, today, limits.currency) + candidate.amountMinor > limits.totalMaxMinor) {
    return { ok: false, code: 'offline_exposure_limit', reason: 'The terminal has taken as much in offline taps today as it may' };
  }
  return { ok: true };
}
