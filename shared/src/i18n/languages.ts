/**
 * The languages Tapline speaks, and how one is chosen from what a browser or a setting says.
 * A language is its ISO 639-1 code; regional tags ("fr-SN", "pt_MZ") fall back to it.
 */
export const LANGUAGES = ['en', 'fr', 'pt', 'sw'] as const;
export type Language = (typeof LANGUAGES)[number];

export const DEFAULT_LANGUAGE: Language = 'en';

/** Each language named in itself (a switcher lists them so, whatever the page's language). */
export const LANGUAGE_NAMES: Readonly<Record<Language, string>> = { en: 'English', fr: 'Français', pt: 'Português', sw: 'Kiswahili' };

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

/** The supported language of a BCP 47 tag ("fr-SN" -> "fr"), or null. */
export function languageOf(tag: string | null | undefined): Language | null {
  if (typeof tag !== 'string') return null;
  const primary = tag.trim().toLowerCase().split(/[-_]/)[0];
  return isLanguage(primary) ? primary : null;
}

/**
 * The best supported language of an Accept-Language header ("fr-CI,fr;q=0.9,en;q=0.8"), by
 * quality then order; null when it names none we speak (the caller falls back to English).
 */
export function languageFromAcceptLanguage(header: string | null | undefined): Language | null {
  if (typeof header !== 'string' || header.length > 1_000) return null;
  const ranked = header
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((param) => /^\s*q=([0-9.]+)\s*$/.exec(param)).find((match) => match !== null);
      const quality = q ? Number(q[1]) : 1;
      return { language: languageOf(tag), quality: Number.isFinite(quality) ? quality : 0, index };
    })
    .filter((entry) => entry.language !== null && entry.quality > 0)
    .sort((a, b) => b.quality - a.quality || a.index - b.index);
  return ranked[0]?.language ?? null;
}
