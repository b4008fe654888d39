import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { SUPPORTED_CURRENCIES } from '@tapline/shared/countries';

/**
 * A rate table in the @fawazahmed0/currency-api format: `{date, usd: {ngn: 1326.16, ...}}`, the
 * units of each currency one US dollar buys. Every pair is a cross rate through USD.
 */
export interface UsdRateTable {
  /** Where the table came from, e.g. `@fawazahmed0/currency-api@2026.9.29` or a URL. */
  source: string;
  /** The table's own date (its `date` field): the as-of date reported to clients. */
  asOf: string;
  /** Upper-case ISO 4217 code -> units per 1 USD, exactly as published (decimal text). */
  usdRates: Record<string, string>;
}

/** Where rates come from. Implementations never invent a rate: they return a published table or throw. */
export interface FxRateProvider {
  readonly name: string;
  fetchTable(): Promise<UsdRateTable>;
}

export class RateTableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RateTableError';
  }
}

/**
 * Checks a table in the currency-api format and keeps the supported currencies. A table that
 * misses any supported currency, or carries a non-positive rate, is refused whole.
 */
export function parseUsdTable(json: unknown, source: string): UsdRateTable {
  if (typeof json !== 'object' || json === null) throw new RateTableError(`${source}: not a JSON object`);
  const { date, usd } = json as { date?: unknown; usd?: unknown };
  if (typeof date !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new RateTableError(`${source}: missing or malformed date`);
  if (typeof usd !== 'object' || usd === null) throw new RateTableError(`${source}: missing usd table`);
  const rates = usd as Record<string, unknown>;
  const usdRates: Record<string, string> = {};
  const missing: string[] = [];
  for (const currency of SUPPORTED_CURRENCIES) {
    const value = rates[currency.toLowerCase()];
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) missing.push(currency);
    else usdRates[currency] = String(value);
  }
  if (missing.length > 0) throw new RateTableError(`${source}: no usable rate for ${missing.join(', ')}`);
  if (usdRates.USD !== '1') throw new RateTableError(`${source}: USD must be 1 in a USD table`);
  return { source, asOf: date, usdRates };
}

const require = createRequire(import.meta.url);

/** The default: the dated USD table of the pinned npm package @fawazahmed0/currency-api. */
export class EmbeddedRateProvider implements FxRateProvider {
  readonly name: string;
  private readonly path: string;

  constructor() {
    const packageJson = require('@fawazahmed0/currency-api/package.json') as { version: string };
    this.name = `@fawazahmed0/currency-api@${packageJson.version}`;
    this.path = require.resolve('@fawazahmed0/currency-api/v1/currencies/usd.json');
  }

  async fetchTable(): Promise<UsdRateTable> {
    return parseUsdTable(JSON.parse(await readFile(this.path, 'utf8')), this.name);
  }
}

/** A live source serving the same JSON format (FX_SOURCE_URL). */
export class UrlRateProvider implements FxRateProvider {
  readonly name: string;

  constructor(
    private readonly url: string,
    private readonly fetchImpl: typeof fetch = fetch,
    private readonly timeoutMs = 5_000,
  ) {
    this.name = url;
  }

  async fetchTable(): Promise<UsdRateTable> {
    const response = await this.fetchImpl(this.url, { signal: AbortSignal.timeout(this.timeoutMs), headers: { accept: 'application/json' } });
    if (!response.ok) throw new RateTableError(`${this.url}: HTTP ${response.status}`);
    return parseUsdTable(await response.json(), this.url);
  }
}
