/// <reference lib="dom" />
/**
 * The customer pages' translator in the browser: bundled by ../page-script.ts into /web/i18n.js
 * and loaded before each page's own script, which reads it as `window.TaplineI18n`. The page's
 * language and its part of the catalogue come in the page itself (a JSON block the server
 * writes, see ../i18n-page.ts), so the bundle holds no catalogue and no page asks twice.
 */
import { createTranslator, type Catalogue } from '@tapline/shared/i18n/runtime';
import { isLanguage } from '@tapline/shared/i18n/languages';
import { formatAmount, formatMoney, minorFromMajor } from '@tapline/shared/money';

interface PageI18nData {
  language: string;
  messages: Catalogue;
}

const block = document.getElementById('tapline-i18n');
const data = JSON.parse(block?.textContent ?? '{}') as Partial<PageI18nData>;
const language = isLanguage(data.language) ? data.language : 'en';
const translator = createTranslator(language, data.messages ?? {});

/** An API amount (major units, as JSON answers it) for people, in the one money format. */
function money(amount: number, currency: string): string {
  try {
    return formatMoney(minorFromMajor(amount, currency), currency, language);
  } catch {
    // A currency this page does not know: still say something true.
    return `${currency} ${amount}`;
  }
}

(window as unknown as { TaplineI18n: unknown }).TaplineI18n = {
  language,
  t: translator.t,
  reason: translator.reason,
  money,
  /** "12.50" in the page's language ("12,50" in French): the example in "enter an amount such as". */
  example: (currency: string) => formatAmount(1250, /^[A-Z]{3}$/.test(currency) ? currency : 'USD', language),
  dateTime: (iso: string) => translator.dateTime(iso),
  time: (iso: string) => new Date(iso).toLocaleTimeString(language),
};
