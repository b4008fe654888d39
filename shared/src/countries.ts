import countryToCurrency from 'country-to-currency';

/**
 * The 54 sovereign African states (UN members), by ISO 3166-1 alpha-2 code. This list is the
 * definition of "Africa" for the service; currencies come from a maintained data package.
 */
export const AFRICAN_COUNTRIES = [
  'DZ', 'AO', 'BJ', 'BW', 'BF', 'BI', 'CV', 'CM', 'CF', 'TD', 'KM', 'CG', 'CD', 'CI', 'DJ', 'EG', 'GQ', 'ER',
  'SZ', 'ET', 'GA', 'GM', 'GH', 'GN', 'GW', 'KE', 'LS', 'LR', 'LY', 'MG', 'MW', 'ML', 'MR', 'MU', 'MA', 'MZ',
  'NA', 'NE', 'NG', 'RW', 'ST', 'SN', 'SC', 'SL', 'SO', 'ZA', 'SS', 'SD', 'TZ', 'TG', 'TN', 'UG', 'ZM', 'ZW',
] as const;

/** Countries the service accepts: Africa plus the US and GB corridors of the FX examples. */
export const SUPPORTED_COUNTRIES: readonly string[] = [...AFRICAN_COUNTRIES, 'US', 'GB'];

const supportedCountrySet = new Set(SUPPORTED_COUNTRIES);

export function isSupportedCountry(code: string): boolean {
  return supportedCountrySet.has(code);
}

/** The default currency of a country, from the `country-to-currency` package. */
export function currencyOfCountry(country: string): string | undefined {
  return (countryToCurrency as Record<string, string>)[country.toUpperCase()];
}

/** Currencies of all 54 African countries plus USD, GBP and EUR, sorted. */
export const SUPPORTED_CURRENCIES: readonly string[] = [
  ...new Set([...AFRICAN_COUNTRIES.map((c) => currencyOfCountry(c)).filter((c): c is string => c !== undefined), 'USD', 'GBP', 'EUR']),
].sort();

const supportedCurrencySet = new Set(SUPPORTED_CURRENCIES);

export function isSupportedCurrency(code: string): boolean {
  return supportedCurrencySet.has(code);
}
