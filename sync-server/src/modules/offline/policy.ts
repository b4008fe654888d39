import { toMajor } from '@tapline/shared/money';
import type { Queryable } from '../../db/database.ts';
import { type PolicyDecline, type SettlementLimits, timeDecline } from '../push/index.ts';
import { offlineWindowsUsed } from './store.ts';

/**
 * The offline policy a terminal is handed in its hello, enforced again by the server when what
 * the terminal took reaches it: a terminal that ignores its limits (a modified kiosk, a raw
 * client) can move no more than they allow. Beyond a rule the document is declined with the
 * rule's code and no money moves. The rules (modules/offline/README.md, "Offline policy"):
 *
 * - every document: captured at most 5 minutes ahead of the server's clock (`captured_in_future`)
 *   and not before the terminal existed (`captured_before_terminal`, with the same tolerance):
 *   push/time-rules.ts, the rules every synced collection keeps;
 * - offline payments (taps and vouchers): captured at most `maxAgeSeconds` before they reached the
 *   server (`offline_payment_too_old`);
 * - offline taps: offline payments on at all (`offline_payments_disabled` when a limit is 0), in the
 *   terminal's currency (`offline_currency_not_allowed`), at most `perPaymentMaxMinor` each
 *   (`offline_amount_over_limit`), and the taps it took on one UTC day together at most
 *   `totalMaxMinor` (`offline_exposure_limit`). Vouchers keep their own guarantees: their money is
 *   reserved when they are made and each pays once.
 * - offline taps, as online taps: only at a merchant the holder allows, within the tag's no-PIN
 *   limits per tap and per UTC day (`pin_required`; modules/wearables/README.md).
 */

/** The rules of an offline payment that need no database: time, age and, for a tap, its limits. */
export function paymentPolicyDecline(
  payment: { kind: 'tap' | 'qr'; amount: number; currency: string; capturedAt: Date },
  limits: SettlementLimits,
  terminalCreatedAt: Date,
  now: Date,
): PolicyDecline | null {
  const time = timeDecline(payment.capturedAt, now, terminalCreatedAt);
  if (time) return time;
  if (now.getTime() - payment.capturedAt.getTime() > limits.maxAgeSeconds * 1000) {
    const hours = Math.round((limits.maxAgeSeconds / 3600) * 10) / 10;
    return { code: 'offline_payment_too_old', reason: `The payment was taken more than ${hours} hours before it reached the server, the terminal's limit for offline payments` };
  }
  if (payment.kind !== 'tap') return null;
  if (limits.perPaymentMaxMinor === 0 || limits.totalMaxMinor === 0) {
    return { code: 'offline_payments_disabled', reason: 'Offline taps are turned off for this terminal (an offline limit is 0)' };
  }
  if (payment.currency !== limits.currency) {
    return { code: 'offline_currency_not_allowed', reason: `Offline payments are taken in ${limits.currency} only` };
  }
  if (payment.amount > limits.perPaymentMaxMinor) {
    return { code: 'offline_amount_over_limit', reason: `The amount is over the terminal's limit for one offline payment (${toMajor(limits.perPaymentMaxMinor, limits.currency)} ${limits.currency})` };
  }
  return null;
}

export const exposureDecline = (limits: SettlementLimits): PolicyDecline => ({
  code: 'offline_exposure_limit',
  reason: `The offline taps this terminal took on this UTC day add up to more than its limit (${toMajor(limits.totalMaxMinor, limits.currency)} ${limits.currency})`,
});

/** The UTC day of a time, YYYY-MM-DD: the period of a tag's no-PIN budget and of a terminal's offline total. */
export const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

/**
 * Why an offline tap is declined `pin_required`: what would need the holder's PIN online (one code
 * for every such reason, as online), which an offline terminal cannot ask.
 */
export const PIN_REQUIRED_OFFLINE = {
  merchant: 'The holder has not allowed this merchant to charge the tag without her PIN (she allows a merchant by paying it once with the tag and her PIN, or from her wallet), and an offline terminal cannot ask for the PIN',
  perTap: (limit: number, currency: string) =>
    `The tap is over the tag's limit for one payment without the holder's PIN (${toMajor(limit, currency)} ${currency}), which an offline terminal cannot ask`,
  perDay: (limit: number, currency: string) =>
    `Taps without the holder's PIN, online and offline, would take more than the tag's limit for one UTC day (${toMajor(limit, currency)} ${currency}), on the day this tap was taken or the day it settled; an offline terminal cannot ask for the PIN`,
};

/**
 * What each UTC day the given capture times fall in may still take from the terminal's offline
 * total: `totalMaxMinor` less the offline taps of that terminal accepted with a capture time on
 * that day. `windowOf` maps each capture time (by index) to its day; the caller spends from
 * `remaining` as it accepts taps. The budget belongs to the day a tap was taken, whenever and over
 * however many connections it is pushed: reconnecting opens nothing new.
 */
export interface ExposureBudgets {
  windowOf: number[];
  remaining: number[];
}

export async function exposureBudgets(tx: Queryable, terminalId: string, totalMaxMinor: number, captures: readonly Date[]): Promise<ExposureBudgets> {
  if (captures.length === 0) return { windowOf: [], remaining: [] };
  const days: string[] = [];
  const windowOf = captures.map((at) => {
    const day = utcDay(at);
    const known = days.indexOf(day);
    if (known >= 0) return known;
    days.push(day);
    return days.length - 1;
  });
  const starts = days.map((day) => `${day}T00:00:00.000Z`);
  const ends = days.map((day) => new Date(Date.parse(`${day}T00:00:00.000Z`) + 86_400_000).toISOString());
  const used = await offlineWindowsUsed(tx, terminalId, starts, ends);
  const remaining = days.map(() => totalMaxMinor);
  for (const row of used) remaining[row.i - 1] = totalMaxMinor - Number(row.used);
  return { windowOf, remaining };
}
