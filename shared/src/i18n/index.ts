/**
 * The message catalogues the kiosk, its receipts and the customer pages share, and a translator
 * per language (i18next underneath, see runtime.ts). English is the reference: the others are
 * typed against it, so a missing or extra key fails the type check.
 */
import { en } from './messages/en.ts';
import { fr } from './messages/fr.ts';
import { pt } from './messages/pt.ts';
import { sw } from './messages/sw.ts';
import { DEFAULT_LANGUAGE, type Language } from './languages.ts';
import { type Catalogue, type Translator, createTranslator } from './runtime.ts';

export * from './languages.ts';
export type { Catalogue, Translator } from './runtime.ts';

/** A catalogue: the shape of the English one, every leaf a string. */
export type Messages = { [K in keyof typeof en]: Shape<(typeof en)[K]> };
type Shape<T> = T extends string ? string : { [K in keyof T]: Shape<T[K]> };

type PluralSuffix = '_zero' | '_one' | '_two' | '_few' | '_many' | '_other';
type WithoutPlural<K extends string> = K extends `${infer Base}${PluralSuffix}` ? Base : K;
type Leaves<T, Prefix extends string = ''> = {
  [K in keyof T & string]: T[K] extends string ? `${Prefix}${WithoutPlural<K>}` : Leaves<T[K], `${Prefix}${K}.`>;
}[keyof T & string];

/** Every message key ("kiosk.sale.charge"); plural forms are asked by their base key and `count`. */
export type MessageKey = Leaves<Messages>;

export const CATALOGUES: Readonly<Record<Language, Messages>> = { en, fr, pt, sw };

const translators = new Map<Language, Translator<MessageKey>>();

/** The translator of one language (made once per process or page). */
export function translator(language: Language = DEFAULT_LANGUAGE): Translator<MessageKey> {
  let found = translators.get(language);
  if (found === undefined) {
    found = createTranslator<MessageKey>(language, CATALOGUES[language] as Catalogue);
    translators.set(language, found);
  }
  return found;
}
