import { LANGUAGES, type Language, type MessageKey, translator } from '@tapline/shared/i18n';
import { minorFromMajor } from '@tapline/shared/money';

const STORED = 'tapline.dashboard.language';

/** The language: the one chosen here before, else the browser's first supported one, else English. */
export function initialLanguage(): Language {
  const stored = localStorage.getItem(STORED);
  if (stored && (LANGUAGES as readonly string[]).includes(stored)) return stored as Language;
  for (const tag of navigator.languages ?? []) {
    const base = tag.slice(0, 2).toLowerCase();
    if ((LANGUAGES as readonly string[]).includes(base)) return base as Language;
  }
  return 'en';
}

export function rememberLanguage(language: Language): void {
  localStorage.setItem(STORED, language);
}

/** The dashboard's words in one language; money from the API's major units, formatted by the shared rules. */
export function words(language: Language) {
  const translate = translator(language);
  return {
    language,
    t: (key: MessageKey, values?: Record<string, string | number>) => translate.t(key, values),
    money: (major: number, currency: string) => translate.money(minorFromMajor(major, currency), currency),
    dateTime: (iso: string) => translate.dateTime(iso),
    /** An API error's sentence: the dashboard's own, else the shared catalogue's, else the server's words. */
    reason: (code: string, fallback: string) => {
      const own = `dashboard.errors.${code}`;
      const text = translate.t(own as MessageKey);
      return text !== own ? text : translate.reason(code, fallback);
    },
  };
}

export type Words = ReturnType<typeof words>;
export { LANGUAGES };

/** The sentence for a failed call, in the page's language. */
export function failureText(w: Words, error: unknown): string {
  if (error && typeof error === 'object' && 'code' in error && typeof error.code === 'string') {
    return w.reason(error.code, error instanceof Error ? error.message : error.code);
  }
  return w.reason('http_error', String(error));
}
