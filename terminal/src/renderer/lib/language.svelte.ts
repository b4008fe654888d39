/**
 * The kiosk's language, reactive: every `t()` in a template re-renders when it changes. The
 * terminal's language comes with the sync hello (the merchant sets it); the cashier may switch on
 * screen (LanguageSwitcher), and that choice is kept in localStorage (see language-choice.ts).
 */
import { type Language, type MessageKey, type Translator, languageOf, translator } from '@tapline/shared/i18n';
import { MoneyError } from '@tapline/shared/money';
import { ApiError } from './api.ts';
import { LANGUAGE_STORAGE_KEY, type LanguageChoice, choiceAfterTerminal, kioskLanguageOf, parseChoice } from './language-choice.ts';

function loadChoice(): LanguageChoice | null {
  try {
    return parseChoice(localStorage.getItem(LANGUAGE_STORAGE_KEY));
  } catch {
    return null;
  }
}

function saveChoice(choice: LanguageChoice | null): void {
  try {
    if (choice === null) localStorage.removeItem(LANGUAGE_STORAGE_KEY);
    else localStorage.setItem(LANGUAGE_STORAGE_KEY, JSON.stringify(choice));
  } catch {
    // A kiosk without storage still switches for this session.
  }
}

class KioskLanguage {
  #choice = $state<LanguageChoice | null>(loadChoice());
  #terminal = $state<Language | null>(null);
  readonly current: Language = $derived(kioskLanguageOf(this.#choice, this.#terminal));

  /** The terminal's language from a (cached or fresh) sync hello. */
  setTerminal(language: string | undefined): void {
    const terminal = languageOf(language);
    if (terminal === null) return;
    const next = choiceAfterTerminal(this.#choice, terminal);
    if (next !== this.#choice) saveChoice(next);
    this.#choice = next;
    this.#terminal = terminal;
  }

  /** The cashier switched on screen. */
  choose(language: Language): void {
    this.#choice = { language, over: this.#terminal };
    saveChoice(this.#choice);
  }
}

export const kioskLanguage = new KioskLanguage();

/** The translator of the kiosk's current language (for helpers that take one). */
export function kioskTranslator(): Translator<MessageKey> {
  return translator(kioskLanguage.current);
}

/** The message in the kiosk's current language. */
export function t(key: MessageKey, values?: Record<string, string | number>): string {
  return translator(kioskLanguage.current).t(key, values);
}

/** The message split around a placeholder whose value the template wraps in its own element. */
export function around(key: MessageKey, placeholder: string, values?: Record<string, string | number>): [string, string] {
  return translator(kioskLanguage.current).around(key, placeholder, values);
}

/** Integer minor units in the kiosk's language: the one money format (shared/money.ts). */
export function formatMoney(minor: number, currency: string): string {
  return translator(kioskLanguage.current).money(minor, currency);
}

/** A refusal or decline code as a sentence, else the words it came with. */
export function reason(code: string | null | undefined, fallback: string): string {
  return translator(kioskLanguage.current).reason(code, fallback);
}

/** What went wrong, for the cashier: a known code in the kiosk's language, else the error's own words. */
export function errorText(error: unknown): string {
  if (error instanceof ApiError || error instanceof MoneyError) return reason(error.code, error.message);
  return error instanceof Error ? error.message : String(error);
}
