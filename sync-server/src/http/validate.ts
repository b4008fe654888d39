import { isSupportedCountry, isSupportedCurrency } from '@tapline/shared/countries';
import { badRequest } from './errors.ts';

/** CONTRACT.md: canonical handles are lower-case, accepted with or without the leading @. */
export function canonicalHandle(input: string): string {
  const handle = input.trim().replace(/^@/, '').toLowerCase();
  if (!/^[a-z0-9_.]{3,30}$/.test(handle)) throw badRequest('handle_invalid', 'A handle is 3 to 30 of a-z, 0-9, _ and .');
  return handle;
}

export function displayHandle(handle: string): string {
  return `@${handle}`;
}

export function supportedCountry(input: string, field = 'country'): string {
  const country = input.toUpperCase();
  if (!isSupportedCountry(country)) {
    throw badRequest('country_not_supported', `${field} ${input} is not supported: use one of the 54 African countries, US or GB`);
  }
  return country;
}

export function supportedCurrency(input: string, field = 'currency'): string {
  const currency = input.toUpperCase();
  if (!isSupportedCurrency(currency)) {
    throw badRequest('currency_not_supported', `${field} ${input} is not supported: use an African currency, USD, GBP or EUR`);
  }
  return currency;
}

export function isoTimestamp(value: Date | string | null): string | null {
  if (value === null) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}
