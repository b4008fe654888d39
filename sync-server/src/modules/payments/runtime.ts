import type { Config } from '../../config.ts';
import type { Database } from '../../db/database.ts';
import type { BillerProvider } from '../bills/providers.ts';
import { EmbeddedRateProvider, type FxRateProvider, UrlRateProvider } from '../fx/providers.ts';
import { FxRateService } from '../fx/rates.ts';
import type { PayoutProvider } from './providers.ts';
import { PaymentScheduler } from './scheduler.ts';

export interface MoneyServices {
  fx: FxRateService;
  payments: PaymentScheduler;
  providers: { payouts: readonly PayoutProvider[]; billers: readonly BillerProvider[] };
}

export interface MoneyServiceOptions {
  config: Config;
  db: Database;
  now: () => Date;
  payoutProviders?: readonly PayoutProvider[] | undefined;
  billerProviders?: readonly BillerProvider[] | undefined;
  /** Replaces the configured FX provider (tests). */
  fxProvider?: FxRateProvider | undefined;
  onError: (scope: string, error: unknown) => void;
}

/** The FX rate service, the payment scheduler and the provider adapters, built from the configuration. */
export function createMoneyServices(options: MoneyServiceOptions): MoneyServices {
  const { config, db, now } = options;
  const embedded = new EmbeddedRateProvider();
  const provider = options.fxProvider ?? (config.fxSourceUrl ? new UrlRateProvider(config.fxSourceUrl) : embedded);
  const fx = new FxRateService({
    db,
    now,
    provider,
    // The pinned table only when a live source has never answered and none of its tables was saved.
    ...(provider !== embedded ? { fallback: embedded } : {}),
    refreshMs: config.fxRefreshMs,
    spreadPercent: config.fxSpreadPercent,
    onError: (error) => options.onError('fx refresh', error),
  });
  const payouts = options.payoutProviders ?? [];
  const payments = new PaymentScheduler({
    db,
    now,
    stepMs: config.sandboxStepMs,
    pollIntervalMs: config.schedulerPollMs,
    payoutProviders: payouts,
    onError: (error) => options.onError('payment scheduler', error),
  });
  return { fx, payments, providers: { payouts, billers: options.billerProviders ?? [] } };
}
