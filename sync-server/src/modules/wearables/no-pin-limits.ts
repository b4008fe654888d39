import type { TypedApp } from '../../http/typed-app.ts';
import { SUPPORTED_CURRENCIES } from '@tapline/shared/countries';
import { toMajor, toMinor } from '@tapline/shared/money';
import type { AppContext } from '../../context.ts';
import { unprocessable } from '../../http/errors.ts';
import { Poller } from '../../jobs/poller.ts';
import { convertMinor, fxServiceRateSource } from '../fx/index.ts';
import { type WearableRow, saveNoPinLimitDefaults } from './store.ts';

/**
 * The default no-PIN limits of every supported currency: NO_PIN_PER_TAP_USD and
 * NO_PIN_PER_DAY_USD at the FX service's mid rate, rounded down, written where pos_tap reads them
 * (no_pin_limit_defaults). A currency without a rate gets no row, so every tap in it needs the
 * PIN: a missing rate never grants an allowance.
 */
export async function refreshNoPinLimitDefaults(context: Pick<AppContext, 'db' | 'config' | 'fx' | 'now'>): Promise<void> {
  const rates = fxServiceRateSource(context.fx);
  const limits: { currency: string; perTap: number; perDay: number }[] = [];
  for (const currency of SUPPORTED_CURRENCIES) {
    let rate: string;
    try {
      rate = (await rates.rate('USD', currency)).rate;
    } catch {
      continue;
    }
    limits.push({
      currency,
      perTap: convertMinor(context.config.noPinPerTapUsd * 100, 'USD', currency, rate, 'down'),
      perDay: convertMinor(context.config.noPinPerDayUsd * 100, 'USD', currency, rate, 'down'),
    });
  }
  await saveNoPinLimitDefaults(context.db, limits, context.now());
}

/** Follows the FX table: the defaults are written again every FX_REFRESH_MS while the app runs. */
export function startNoPinLimitDefaultsRefresh(app: TypedApp, context: AppContext): void {
  const poller = new Poller(() => refreshNoPinLimitDefaults(context), context.config.fxRefreshMs, (error) => app.log.error({ err: error }, 'no-PIN limit defaults refresh failed'));
  app.addHook('onReady', async () => poller.start());
  app.addHook('onClose', async () => poller.stop());
}

/** The limits in force, minor units: the lower of the holder's own and the default (0 when the currency has none). */
export function noPinLimitsInForce(row: WearableRow): { perTap: number; perDay: number; perTapDefault: number; perDayDefault: number } {
  const perTapDefault = row.default_per_tap ?? 0;
  const perDayDefault = row.default_per_day ?? 0;
  return {
    perTap: Math.min(row.no_pin_per_tap ?? perTapDefault, perTapDefault),
    perDay: Math.min(row.no_pin_per_day ?? perDayDefault, perDayDefault),
    perTapDefault,
    perDayDefault,
  };
}

/** What taps without the PIN took from the tag on the UTC day of `now`, minor units. */
export function noPinSpentOn(row: WearableRow, now: Date): number {
  return row.no_pin_day === now.toISOString().slice(0, 10) ? row.no_pin_spent : 0;
}

/** The noPinLimits field of a tag record, major units; `spentToday` only for its holder. */
export function noPinLimitsRecord(row: WearableRow, holder: { now: Date } | undefined) {
  const limits = noPinLimitsInForce(row);
  const major = (minor: number) => toMajor(minor, row.currency);
  return {
    currency: row.currency,
    perTap: major(limits.perTap),
    perDay: major(limits.perDay),
    perTapDefault: major(limits.perTapDefault),
    perDayDefault: major(limits.perDayDefault),
    ...(holder ? { spentToday: major(noPinSpentOn(row, holder.now)) } : {}),
  };
}

/**
 * A holder's own limit in minor units of the tag's currency: undefined keeps the current one,
 * null restores the default, 0 means every tap needs the PIN. The holder may only lower the
 * default, never raise it: 422 no_pin_limit_above_default.
 */
export function holderNoPinLimit(row: WearableRow, field: 'perTap' | 'perDay', value: number | null | undefined): number | null | undefined {
  if (value === undefined || value === null) return value;
  const minor = value === 0 ? 0 : toMinor(value, row.currency);
  const limits = noPinLimitsInForce(row);
  const ceiling = field === 'perTap' ? limits.perTapDefault : limits.perDayDefault;
  if (minor > ceiling) {
    throw unprocessable('no_pin_limit_above_default', `noPinLimits.${field} may be at most the default, ${toMajor(ceiling, row.currency)} ${row.currency}: a holder can only lower it`);
  }
  return minor;
}
