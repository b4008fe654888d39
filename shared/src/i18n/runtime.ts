/**
 * A translator over i18next: messages by dotted key with i18next's interpolation and plurals
 * (Intl.PluralRules), money and dates in the language's conventions. It takes its catalogue as
 * an argument, so a page that needs one language and one part of the catalogue ships only that
 * (the server's page script); `./index.ts` binds the full catalogues.
 */
import i18next from 'i18next';
import { formatAmount, formatMoney } from '../money.ts';
import type { Language } from './languages.ts';

export type Catalogue = { readonly [key: string]: string | Catalogue };

export interface Translator<Key extends string = string> {
  readonly language: Language;
  /** The message in this language, `values` interpolated; `count` picks the plural form. */
  t(key: Key, values?: Record<string, string | number>): string;
  /**
   * The message split around one placeholder, for markup that wraps a live value: "Expires in
   * {{seconds}} s" -> ["Expires in ", " s"], so a page keeps its own element for the number.
   */
  around(key: Key, placeholder: string, values?: Record<string, string | number>): [string, string];
  /**
   * The sentence for an error, refusal or decline code (`errors.<code>`), else `fallback` (the
   * server's own words): codes the catalogue does not know still say something.
   */
  reason(code: string | null | undefined, fallback: string): string;
  /** Integer minor units in this language's money format (see money.ts formatMoney). */
  money(minor: number, currency: string): string;
  /** The number alone, grouped as money() groups it. */
  amount(minor: number, currency: string): string;
  /** A date and time for people, in this language and the given (else the device's) time zone. */
  dateTime(iso: string, timeZone?: string): string;
}

const PLURAL_FORMS = ['zero', 'one', 'two', 'few', 'many', 'other'] as const;

/**
 * Copies each `x_other` to the plural forms it lacks: French and Portuguese call a million
 * "many", and a key i18next cannot find is printed as the key itself. Authors write `_one` and
 * `_other`; a language that wants its own `_many` writes it. i18next asks `_zero` for a count
 * of 0 in every language: where the language's rules put 0 with 1 (French, Portuguese: "0 carte
 * émise"), that is the `_one` text, else the `_other` one.
 */
function withPluralFallbacks(catalogue: Catalogue, zeroIsOne: boolean): Catalogue {
  const out: Record<string, string | Catalogue> = {};
  for (const [key, value] of Object.entries(catalogue)) {
    out[key] = typeof value === 'string' ? value : withPluralFallbacks(value, zeroIsOne);
  }
  for (const [key, value] of Object.entries(catalogue)) {
    if (typeof value !== 'string' || !key.endsWith('_other')) continue;
    const base = key.slice(0, -'_other'.length);
    const one = catalogue[`${base}_one`];
    if (zeroIsOne && typeof one === 'string' && !(`${base}_zero` in out)) out[`${base}_zero`] = one;
    for (const form of PLURAL_FORMS) if (!(`${base}_${form}` in out)) out[`${base}_${form}`] = value;
  }
  return out;
}

export function createTranslator<Key extends string = string>(language: Language, catalogue: Catalogue): Translator<Key> {
  const instance = i18next.createInstance();
  // Synchronous: the resources are here, nothing is fetched. Values are not HTML-escaped: every
  // caller puts text into the page as text (Svelte, textContent, the server's html`` escapes).
  void instance.init({
    lng: language,
    fallbackLng: false,
    initAsync: false,
    resources: { [language]: { translation: withPluralFallbacks(catalogue, new Intl.PluralRules(language).select(0) === 'one') } },
    interpolation: { escapeValue: false },
    returnNull: false,
  });
  const dateTimes = new Map<string, Intl.DateTimeFormat>();
  return {
    language,
    t: (key, values) => instance.t(key, values ?? {}),
    around(key, placeholder, values) {
      const marker = '\u{E000}';
      const [before = '', after = ''] = instance.t(key, { ...values, [placeholder]: marker }).split(marker);
      return [before, after];
    },
    reason: (code, fallback) => (code && instance.exists(`errors.${code}`) ? instance.t(`errors.${code}`) : fallback),
    money: (minor, currency) => formatMoney(minor, currency, language),
    amount: (minor, currency) => formatAmount(minor, currency, language),
    dateTime(iso, timeZone) {
      const key = timeZone ?? '';
      let format = dateTimes.get(key);
      if (format === undefined) {
        format = new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short', ...(timeZone === undefined ? {} : { timeZone }) });
        dateTimes.set(key, format);
      }
      return format.format(new Date(iso));
    },
  };
}
