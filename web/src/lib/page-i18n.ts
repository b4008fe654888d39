/**
 * The customer pages' translator: the page's language and its part of the catalogue come in the
 * page itself (a JSON block the server writes, sync-server/src/web/i18n-page.ts), so the bundle
 * holds no catalogue and no page asks twice. Words with the shared translator (i18next), money
 * in the one format of shared/src/money.ts.
 */
import { type Catalogue, createTranslator } from '@tapline/shared/i18n/runtime';
import { isLanguage } from '@tapline/shared/i18n/languages';
import { formatAmount, formatMoney, minorFromMajor } from '@tapline/shared/money';
import { type Reply, errorOf } from './api.ts';

interface PageI18nData {
  language: string;
  messages: Catalogue;
}

const block = document.getElementById('tapline-i18n');
const data = JSON.parse(block?.textContent ?? '{}') as Partial<PageI18nData>;
export const language = isLanguage(data.language) ? data.language : 'en';
const translator = createTranslator(language, data.messages ?? {});

export const t = translator.t;
export const reason = translator.reason;

/** An API amount (major units, as JSON answers it) for people, in the one money format. */
export function money(amount: number, currency: string): string {
  try {
    return formatMoney(minorFromMajor(amount, currency), currency, language);
  } catch {
    // A currency this page does not know: still say something true.
    return `${currency} ${amount}`;
  }
}

/** "12.50" in the page's language ("12,50" in French): the example in "enter an amount such as". */
export function example(currency: string): string {
  return formatAmount(1250, /^[A-Z]{3}$/.test(currency) ? currency : 'USD', language);
}

export const dateTime = (iso: string): string => translator.dateTime(iso);
export const time = (iso: string): string => new Date(iso).toLocaleTimeString(language);

/** An API error as its code's sentence in the page's language, else the server's own words. */
export function errorText(answer: Reply<unknown>): string {
  const { code, words } = errorOf(answer);
  return reason(code, words ?? t('web.pay.serverAnswered', { status: answer.status }));
}
