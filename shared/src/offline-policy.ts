import type { OfflineLimits, OfflinePaymentDoc } from './sync-protocol.ts';

/**
 * Whether a terminal may take one more payment while it cannot reach the server. The merchant
 * carries the risk of an offline tap (the wallet may be empty when it settles) and of a voucher
 * spent twice at two offline terminals, so the exposure is bounded: per payment, in total of
 * what is still unsettled, and in age (a terminal that has not synced for too long must sync
 * before it takes more).
 */
export type OfflineDecision =
  | { ok: true }
  | {
      ok: false;
      code: 'offline_amount_over_limit' | 'offline_exposure_limit' | 'offline_sync_overdue' | 'offline_currency_not_allowed' | 'offline_over_no_pin_limit' | 'voucher_already_used';
      reason: string;
    };

export interface OfflineCandidate {
  amountMinor: number;
  currency: string;
  /** A voucher's id, for a QR payment: one voucher pays once. */
  voucherId?: string;
}

export function offlineDecision(
  limits: OfflineLimits,
  queued: readonly Pick<OfflinePaymentDoc, 'amountMinor' | 'currency' | 'capturedAt' | 'status'>[],
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
  // A tap (no voucher) above the no-PIN limit would need the customer's PIN, which cannot be checked offline.
  if (candidate.voucherId === undefined && limits.noPinPerTapMaxMinor !== undefined && candidate.amountMinor > limits.noPinPerTapMaxMinor) {
    return { ok: false, code: 'offline_over_no_pin_limit', reason: 'A tap of this amount needs the customer\'s PIN, which cannot be checked offline' };
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
  return { ok: true };
}
