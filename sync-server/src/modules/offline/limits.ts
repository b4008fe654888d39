import { currencyExponent } from '@tapline/shared/money';
import type { OfflineLimits } from '@tapline/shared/sync-protocol';
import type { AppContext } from '../../context.ts';
import { convertMinor, fxServiceRateSource } from '../gift-cards/index.ts';
import { noPinLimitDefault } from '../wearables/index.ts';
import type { TerminalSyncRow } from './store.ts';

/**
 * A terminal's offline limits in its merchant's currency. Limits the merchant has not set come
 * from the configured defaults in US dollars, converted at the FX service's mid rate and rounded
 * down to a round figure (roundLimitDown); if no rate is known the default is 0 (no offline
 * payments), never a guess. The largest offline tap is the currency's default no-PIN limit per
 * tap (modules/wearables/no-pin-limits.ts).
 */

/**
 * A default converted from US dollars, rounded down to whole major units and then to two
 * significant figures (a merchant reads NGN 26,000, not NGN 26,523.28): 0 to 99 major units
 * stay as they are, 26,523.28 becomes 26,000 and 265,232.80 becomes 260,000. Never more than
 * the converted amount, so a default is never looser than the dollars configured.
 */
export function roundLimitDown(minor: number, currency: string): number {
  const unit = 10 ** currencyExponent(currency);
  const major = Math.floor(minor / unit);
  const step = major < 100 ? 1 : 10 ** (String(major).length - 2);
  return Math.floor(major / step) * step * unit;
}
/** What a push is judged by: the hello's limits but the largest offline tap (each tap meets its own tag's no-PIN limit). */
export type SettlementLimits = Omit<OfflineLimits, 'noPinPerTapMaxMinor' | 'noPinPerDayMaxMinor'>;

export async function terminalSettlementLimits(context: Pick<AppContext, 'config' | 'fx'>, terminal: TerminalSyncRow): Promise<SettlementLimits> {
  const currency = terminal.merchant_currency;
  const fromUsd = async (dollars: number): Promise<number> => {
    if (dollars === 0) return 0;
    try {
      const { rate } = await fxServiceRateSource(context.fx).rate('USD', currency);
      return roundLimitDown(convertMinor(dollars * 100, 'USD', currency, rate, 'down'), currency);
    } catch {
      return 0;
    }
  };
  return {
    currency,
    perPaymentMaxMinor: terminal.offline_per_payment_max ?? (await fromUsd(context.config.offlinePerPaymentUsd)),
    totalMaxMinor: terminal.offline_total_max ?? (await fromUsd(context.config.offlineTotalUsd)),
    maxAgeSeconds: terminal.offline_max_age_seconds ?? context.config.offlineMaxAgeHours * 3600,
  };
}

export async function terminalOfflineLimits(context: Pick<AppContext, 'config' | 'fx' | 'db'>, terminal: TerminalSyncRow): Promise<OfflineLimits> {
  const limits = await terminalSettlementLimits(context, terminal);
  const noPin = await noPinLimitDefault(context.db, limits.currency);
  return { ...limits, noPinPerTapMaxMinor: noPin?.perTap ?? 0, noPinPerDayMaxMinor: noPin?.perDay ?? 0 };
}
