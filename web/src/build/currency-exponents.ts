/**
 * Vite plugins for browser bundles, replacing two data packages with what the bundles use of them,
 * generated at build time from those same packages:
 *
 * - `currency-codes` (ISO 4217 with every currency's name, number and countries, about 20 KB
 *   minified) becomes the exponents of the supported currencies, with the one function
 *   shared/src/money.ts calls (`code(c).digits`, only for SUPPORTED_CURRENCIES).
 * - `country-to-currency` (every country of the world) becomes the supported countries' entries:
 *   shared/src/countries.ts reads it for those alone (SUPPORTED_CURRENCIES), and no browser script
 *   calls `currencyOfCountry` (grep it before changing that).
 *
 * Same data, a fraction of the bytes in the drop-in merchants load.
 */
import { createRequire } from 'node:module';
import type { Plugin } from 'vite';
import { SUPPORTED_COUNTRIES, SUPPORTED_CURRENCIES, currencyOfCountry } from '@tapline/shared/countries';

const require = createRequire(import.meta.url);

/** A plugin that answers `source` with the module `code()` writes. */
function replaceModule(name: string, source: string, code: () => string): Plugin {
  const id = `\0tapline:${name}`;
  return {
    name: `tapline-${name}`,
    enforce: 'pre',
    resolveId: (requested) => (requested === source ? id : null),
    load: (requested) => (requested === id ? code() : null),
  };
}

export function currencyExponents(): Plugin {
  return replaceModule('currency-exponents', 'currency-codes', () => {
    const codes = require('currency-codes') as { data: { code: string; digits: number }[] };
    const supported = new Set(SUPPORTED_CURRENCIES);
    const digits = Object.fromEntries(codes.data.filter((entry) => supported.has(entry.code)).map((entry) => [entry.code, entry.digits]));
    return `const DIGITS = ${JSON.stringify(digits)};
export function code(c) { const d = DIGITS[String(c).toUpperCase()]; return d === undefined ? undefined : { code: String(c).toUpperCase(), digits: d }; }
export default { code };
`;
  });
}

export function countryCurrencies(): Plugin {
  return replaceModule('country-currencies', 'country-to-currency', () => {
    const table = Object.fromEntries(SUPPORTED_COUNTRIES.map((country) => [country, currencyOfCountry(country)]).filter(([, currency]) => currency !== undefined));
    return `export default ${JSON.stringify(table)};\n`;
  });
}
