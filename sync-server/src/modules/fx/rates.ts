import type { Database } from '../../db/database.ts';
import { ApiError } from '../../http/errors.ts';
import { Poller } from '../../jobs/poller.ts';
import { type Decimal, divideDecimal, multiplyDecimal, parseDecimal, roundSignificant } from '@tapline/shared/money';

/**
 * The FX rate rules, on the exact decimals of @tapline/shared/money:
 * - A mid-market cross rate from/to is USD->to divided by USD->from (the published USD table),
 *   rounded half-even to RATE_SIGNIFICANT_DIGITS significant digits.
 * - The merchant's rate is the mid rate times (1 - spread/100), rounded DOWN to the same number of
 *   significant digits (the platform's favour).
 * - A converted amount rounds DOWN to the target's minor unit and a fee UP (the platform's
 *   favour): convertMinor(..., 'down') and percentOf(..., 'up') at the call sites.
 */
export const RATE_SIGNIFICANT_DIGITS = 10;

/** The mid-market cross rate from -> to, given each currency's units per 1 USD. */
export function crossRate(usdToFrom: Decimal, usdToTo: Decimal): Decimal {
  return divideDecimal(usdToTo, usdToFrom, RATE_SIGNIFICANT_DIGITS, 'half_even');
}

/** The mid rate less a spread in percent ("1.25"), rounded down. A zero spread keeps the mid rate. */
export function applySpread(mid: Decimal, spreadPercent: string): Decimal {
  const spread = parseDecimal(spreadPercent);
  if (spread.units === 0n) return mid;
  // mid * (100 - spread) / 100
  const factor = { units: 100n * 10n ** BigInt(spread.scale) - spread.units, scale: spread.scale + 2 };
  if (factor.units <= 0n) throw new RangeError('spread must be below 100%');
  return roundSignificant(multiplyDecimal(mid, factor), RATE_SIGNIFICANT_DIGITS, 'down');
}
import { type FxRateProvider, type UsdRateTable, parseUsdTable } from './providers.ts';
import { findRateTable, saveRateTable } from './store.ts';

/** One rate table in use: where it came from, its own date, and when this server last fetched it. */
export interface RateSnapshot {
  source: string;
  asOf: string;
  updatedAt: Date;
  usd: ReadonlyMap<string, Decimal>;
  /** Mid rates computed so far, by "FROM>TO". */
  mids: Map<string, Decimal>;
}

/** 503: no table was ever available (the provider never answered and nothing was saved). */
function fxUnavailable(message: string): ApiError {
  return new ApiError(503, 'fx_unavailable', message);
}

export interface FxRateServiceOptions {
  db: Database;
  now: () => Date;
  provider: FxRateProvider;
  /** Used only when the provider has never answered and no table of it was saved (the pinned table). */
  fallback?: FxRateProvider;
  refreshMs: number;
  spreadPercent: string;
  onError?: (error: unknown) => void;
}

const ONE: Decimal = { units: 1n, scale: 0 };

/**
 * The FX rate service. The table is refreshed every `refreshMs` measured on the injected clock:
 * lazily, when a reader finds it older than that, and by a background poller in production. A
 * failed refresh keeps the last good table (and is not retried before another interval); the
 * last good table of a live source is saved in the database so a restart with the source down
 * still has it. Rates are never invented: every rate is a cross rate of a published table.
 */
export class FxRateService {
  readonly spreadPercent: string;
  private current: RateSnapshot | undefined;
  private lastAttemptAt = 0;
  private refreshing: Promise<void> | undefined;
  private polling = false;
  private readonly poller: Poller;

  constructor(private readonly options: FxRateServiceOptions) {
    this.spreadPercent = options.spreadPercent;
    this.poller = new Poller(() => this.refresh(), options.refreshMs, options.onError ?? ((error) => console.error('fx refresh:', error)));
  }

  get providerName(): string {
    return this.options.provider.name;
  }

  start(): void {
    this.polling = true;
    this.poller.start();
  }

  async stop(): Promise<void> {
    this.polling = false;
    await this.poller.stop();
  }

  /**
   * The table to quote from. When it is due for a refresh, the refresh is awaited, except while
   * the background poller runs and a table exists: then the reader gets the current table at once
   * and the refresh happens behind it (no request waits on the rate source).
   */
  async snapshot(): Promise<RateSnapshot> {
    const due = this.options.now().getTime() - this.lastAttemptAt >= this.options.refreshMs;
    if (this.current && due && this.polling) void this.refresh().catch((error: unknown) => this.options.onError?.(error));
    else if (!this.current || due) await this.refresh();
    if (!this.current) throw fxUnavailable('No FX rate table is available');
    return this.current;
  }

  /** Fetches the table now; on failure keeps the last good one. Concurrent callers share one fetch. */
  refresh(): Promise<void> {
    this.refreshing ??= this.load().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async load(): Promise<void> {
    const { db, provider, fallback, now } = this.options;
    this.lastAttemptAt = now().getTime();
    try {
      const table = await provider.fetchTable();
      this.install(table, now());
      await saveRateTable(db, provider.name, table.asOf, now(), Object.fromEntries(Object.entries(table.usdRates).map(([code, rate]) => [code.toLowerCase(), Number(rate)])))
        .catch((error: unknown) => this.options.onError?.(error));
      return;
    } catch (error) {
      this.options.onError?.(error);
      if (this.current) return;
    }
    // Never fetched since start: the last good table saved by an earlier run, else the fallback.
    const saved = await findRateTable(db, provider.name);
    if (saved) {
      this.install(parseUsdTable({ date: saved.as_of, usd: saved.usd_rates }, provider.name), saved.fetched_at);
      return;
    }
    if (fallback) this.install(await fallback.fetchTable(), now());
  }

  private install(table: UsdRateTable, fetchedAt: Date): void {
    const usd = new Map<string, Decimal>();
    for (const [currency, rate] of Object.entries(table.usdRates)) usd.set(currency, parseDecimal(rate));
    this.current = { source: table.source, asOf: table.asOf, updatedAt: fetchedAt, usd, mids: new Map() };
  }

  /** The mid-market rate from -> to (1 for one currency). */
  midRate(snapshot: RateSnapshot, from: string, to: string): Decimal {
    if (from === to) return ONE;
    const key = `${from}>${to}`;
    let mid = snapshot.mids.get(key);
    if (!mid) {
      const usdFrom = snapshot.usd.get(from);
      const usdTo = snapshot.usd.get(to);
      if (!usdFrom || !usdTo) throw fxUnavailable(`No rate for ${from} -> ${to} in the table of ${snapshot.asOf}`);
      mid = crossRate(usdFrom, usdTo);
      snapshot.mids.set(key, mid);
    }
    return mid;
  }

  /** The rate a merchant gets: the mid rate less the spread (no spread within one currency). */
  merchantRate(snapshot: RateSnapshot, from: string, to: string): { mid: Decimal; rate: Decimal; spreadPercent: string } {
    const mid = this.midRate(snapshot, from, to);
    if (from === to) return { mid, rate: mid, spreadPercent: '0' };
    return { mid, rate: applySpread(mid, this.spreadPercent), spreadPercent: this.spreadPercent };
  }
}
