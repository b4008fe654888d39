/**
 * The drop-in's words for the build: from the shared catalogues, in every language, only the keys
 * and error codes the drop-in names (sdk/word-keys.ts). Vite puts the result in place of
 * `__TAPLINE_DROP_IN_WORDS__` (sdk/words.ts), so the bundle carries a few hundred words instead
 * of the catalogues and their translator.
 */
import { CATALOGUES, type Catalogue, LANGUAGES, type Language } from '@tapline/shared/i18n';
import { DROP_IN_ERRORS, DROP_IN_TEXT, type DropInWords } from '../sdk/word-keys.ts';

function lookUp(catalogue: Catalogue, key: string, language: Language): string {
  let node: string | Catalogue | undefined = catalogue;
  for (const part of key.split('.')) node = typeof node === 'object' ? node[part] : undefined;
  // The catalogues are typed against English, so a missing word is a renamed key: fail the build.
  if (typeof node !== 'string') throw new Error(`The drop-in names ${key}, which the ${language} catalogue does not have`);
  return node;
}

export function dropInWords(): Record<Language, DropInWords> {
  const entries = LANGUAGES.map((language) => {
    const catalogue = CATALOGUES[language] as Catalogue;
    const text = Object.fromEntries(Object.entries(DROP_IN_TEXT).map(([name, key]) => [name, lookUp(catalogue, key, language)]));
    const errors = Object.fromEntries(DROP_IN_ERRORS.map((code) => [code, lookUp(catalogue, `errors.${code}`, language)]));
    return [language, { text, errors } as DropInWords];
  });
  return Object.fromEntries(entries) as Record<Language, DropInWords>;
}

/** Vite's `define` for the drop-in's build. */
export function dropInWordsDefine(): Record<string, string> {
  return { __TAPLINE_DROP_IN_WORDS__: JSON.stringify(dropInWords()) };
}
