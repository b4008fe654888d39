/**
 * The drop-in's words in the buyer's language: the explicit `locale` option, else the browser's
 * language, else English. The catalogues' words for the drop-in come in the bundle itself
 * (build/drop-in-words.ts puts them in place of the constant below), so nothing is fetched.
 */
import { DEFAULT_LANGUAGE, type Language, languageOf } from '@tapline/shared/i18n/languages';
import type { DropInWords } from './word-keys.ts';

declare const __TAPLINE_DROP_IN_WORDS__: Record<Language, DropInWords>;

export type TextName = keyof DropInWords['text'];

export interface Words {
  language: Language;
  /** The named text with its `{{placeholders}}` filled in. */
  t(name: TextName, values?: Record<string, string>): string;
  /** The sentence for an error code this language knows, else `fallback` (the server's words). */
  reason(code: string | null, fallback: string): string;
}

export function chooseLanguage(locale: unknown): Language {
  const browser = typeof navigator === 'undefined' ? undefined : navigator.language;
  return languageOf(typeof locale === 'string' ? locale : undefined) ?? languageOf(browser) ?? DEFAULT_LANGUAGE;
}

export function wordsFor(language: Language): Words {
  const { text, errors } = __TAPLINE_DROP_IN_WORDS__[language];
  return {
    language,
    t: (name, values = {}) => text[name].replace(/\{\{(\w+)\}\}/g, (whole, key: string) => values[key] ?? whole),
    reason: (code, fallback) => (code && {}.hasOwnProperty.call(errors, code) ? errors[code as keyof typeof errors] : fallback),
  };
}
