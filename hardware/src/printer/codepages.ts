/**
 * Which printer code page suits the merchant's language. Receipt printers have no Unicode:
 * every character goes through a single-byte code page, and characters outside it print as
 * "?". Amounts never need a currency symbol (we print the ISO code), so this only matters for
 * names, addresses and item descriptions.
 */

/** cp858 is cp850 (Western European, also fine for Latin-script African languages) plus "€". */
export const DEFAULT_CODEPAGE = 'cp858';

const CODEPAGE_BY_LANGUAGE: Readonly<Record<string, string>> = {
  en: 'cp858',
  fr: 'cp858',
  es: 'cp858',
  de: 'cp858',
  it: 'cp858',
  nl: 'cp858',
  af: 'cp858',
  sw: 'cp858',
  ha: 'cp858',
  yo: 'cp858',
  ig: 'cp858',
  zu: 'cp858',
  xh: 'cp858',
  rw: 'cp858',
  wo: 'cp858',
  so: 'cp858',
  pt: 'cp860',
  // Arabic glyphs exist in cp864, but the printer neither shapes nor reverses them: Arabic text
  // prints letter by letter, left to right. Good enough for a name, not for sentences.
  ar: 'cp864',
};

/** The code page for a BCP 47 language tag ("fr-SN" -> cp858); unknown languages get cp858. */
export function codepageForLanguage(language: string): string {
  const primary = language.toLowerCase().split(/[-_]/)[0] ?? '';
  return CODEPAGE_BY_LANGUAGE[primary] ?? DEFAULT_CODEPAGE;
}
