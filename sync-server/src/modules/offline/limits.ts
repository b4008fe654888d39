import type { OfflineLimits } from '@tapline/shared/sync-protocol';
import type { AppContext } from '../../context.ts';
import { convertMinor, fxServiceRateSource, roundLimitDown } from '../fx/index.ts';
import type { SettlementLimits } from '../push/index.ts';
import { noPinLimitDefault } from '../wearables/index.ts';
import type { TerminalSyncRow } from './store.ts';

/**
 * A terminal's offline limits in its merchant's currency. Limits the merchant has not set come
 * from the configured defaults in US dollars, converted at the FX service's mid rate and rounded
 * down to a round figure (fx's roundLimitDown); if no rate is known the default is 0 (no offline
 * payments), never a guess. The largest offline tap is the currency's default no-PIN limit per
 * tap (modules/wearables/no-pin-limits.ts).
 */


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
