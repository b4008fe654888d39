import { DEFAULT_LANGUAGE, type Language, languageOf } from '@tapline/shared/i18n';

/**
 * The cashier's on-screen choice of language, kept on this kiosk, with the terminal language it
 * was made over: when the merchant later gives the terminal another language, the merchant's
 * new setting wins and the old choice is dropped.
 */
export interface LanguageChoice {
  language: Language;
  /** The terminal's language when the cashier chose (null: not known yet, e.g. before any hello). */
  over: Language | null;
}

export const LANGUAGE_STORAGE_KEY = 'tapline.language';

/** What the kiosk speaks: the cashier's choice, else the terminal's language, else English. */
export function kioskLanguageOf(choice: LanguageChoice | null, terminal: Language | null): Language {
  return choice?.language ?? terminal ?? DEFAULT_LANGUAGE;
}

/** The choice after the terminal's language became `terminal` (a hello arrived). */
export function choiceAfterTerminal(choice: LanguageChoice | null, terminal: Language | null): LanguageChoice | null {
  if (choice === null || terminal === null) return choice;
  if (choice.over === null) return { ...choice, over: terminal };
  return choice.over === terminal ? choice : null;
}

export function parseChoice(text: string | null): LanguageChoice | null {
  try {
    const value = JSON.parse(text ?? 'null') as { language?: unknown; over?: unknown } | null;
    const language = languageOf(typeof value?.language === 'string' ? value.language : null);
    if (language === null) return null;
    return { language, over: languageOf(typeof value?.over === 'string' ? value.over : null) };
  } catch {
    return null;
  }
}
