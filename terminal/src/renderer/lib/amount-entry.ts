import { type MessageKey, type Translator, translator } from '@tapline/shared/i18n';
import { AMOUNT_INTEGER_DIGITS_MAX } from '@tapline/shared/limits';
import { currencyExponent, MoneyError, toMajor, toMinor } from '@tapline/shared/money';

/** Keys of the keypad; the physical keyboard maps onto the same ones. `00` is the keypad's key for currencies without decimals. */
export type AmountKey = '0' | '1' | '2' | '3' | '4' | '5' | '6' | '7' | '8' | '9' | '00' | '.' | 'back' | 'clear';


/** Why a key changed nothing: the screen says so rather than drop or shift a digit silently. */
export type AmountKeyRefusal = 'no_decimals' | 'decimals_full' | 'too_many_digits';

export interface AmountKeyResult {
  entry: string;
  refused: AmountKeyRefusal | null;
}

/**
 * The amount being typed, as text ("12.5" while typing 12.50), after one key. The entry follows
 * the currency's ISO 4217 minor unit: no decimal point in UGX or XOF, two decimals in NGN, three
 * in TND. A key that would break that changes nothing and says why, so a digit is never dropped
 * or moved to the wrong side of the point.
 */
export function pressAmountKey(current: string, key: AmountKey, currency: string): AmountKeyResult {
  const exponent = currencyExponent(currency);
  if (key === 'clear') return { entry: '', refused: null };
  if (key === 'back') return { entry: current.slice(0, -1), refused: null };
  const [integer = '', fraction] = current.split('.');
  if (key === '.') {
    // Without decimals the point is kept (hidden on the display) so the digits typed after it
    // are refused too, instead of joining the whole amount: 1500.5 must never become 15005.
    if (fraction !== undefined) return { entry: current, refused: exponent === 0 ? 'no_decimals' : null };
    return { entry: current === '' ? '0.' : `${current}.`, refused: exponent === 0 ? 'no_decimals' : null };
  }
  if (key === '00') {
    if (current === '' || integer === '0') return { entry: current, refused: null };
    const once = pressAmountKey(current, '0', currency);
    return once.refused === null ? pressAmountKey(once.entry, '0', currency) : once;
  }
  if (fraction !== undefined) return fraction.length >= exponent ? { entry: current, refused: exponent === 0 ? 'no_decimals' : 'decimals_full' } : { entry: current + key, refused: null };
  if (integer === '0') return { entry: key, refused: null };
  return integer.length >= AMOUNT_INTEGER_DIGITS_MAX ? { entry: current, refused: 'too_many_digits' } : { entry: current + key, refused: null };
}

/** What the screen says about a refused key (one place for the words). */
export function amountKeyHint(refused: AmountKeyRefusal, currency: string, words: Translator<MessageKey> = translator('en')): string {
  if (refused === 'no_decimals') return words.t('kiosk.amountHint.noDecimals', { currency });
  if (refused === 'decimals_full') return words.t('kiosk.amountHint.decimalsFull', { currency, count: currencyExponent(currency) });
  return words.t('kiosk.amountHint.tooLarge');
}

export function keyFromKeyboard(key: string): AmountKey | null {
  if (/^[0-9]$/.test(key)) return key as AmountKey;
  if (key === '.' || key === ',') return '.';
  if (key === 'Backspace') return 'back';
  if (key === 'Escape' || key === 'Delete') return 'clear';
  return null;
}

/** The decimal separator of a language's numbers ("." in English, "," in French): the keypad's point key shows it. */
export function decimalSeparator(language = 'en'): string {
  return new Intl.NumberFormat(language).formatToParts(1.5).find((part) => part.type === 'decimal')?.value ?? '.';
}

/**
 * Shown on the display while typing, grouped as the money format groups it in the kiosk's
 * language ("1,250", "12.5" while typing 12.50; "1 250", "12,5" in French); nothing typed reads
 * "0". The Charge button shows the amount in full.
 */
export function displayAmount(current: string, currency: string, language = 'en'): string {
  if (current === '') return '0';
  const [integer = '', fraction] = current.split('.');
  const grouped = new Intl.NumberFormat(language, { useGrouping: true }).format(BigInt(integer === '' ? '0' : integer));
  return fraction === undefined || currencyExponent(currency) === 0 ? grouped : `${grouped}${decimalSeparator(language)}${fraction}`;
}

/** The typed amount in integer minor units (offline payments), or the reason it cannot be charged. */
export function amountMinorForEntry(current: string, currency: string): { ok: true; amountMinor: number } | { ok: false; code: string; message: string } {
  try {
    return { ok: true, amountMinor: toMinor(current === '' ? '0' : current.replace(/\.$/, ''), currency) };
  } catch (error) {
    if (error instanceof MoneyError) return { ok: false, code: error.code, message: error.message };
    throw error;
  }
}

/** The typed amount as the API's JSON number in major units, or the reason it cannot be charged. */
export function amountForApi(current: string, currency: string): { ok: true; amount: number } | { ok: false; code: string; message: string } {
  const minor = amountMinorForEntry(current, currency);
  return minor.ok ? { ok: true, amount: toMajor(minor.amountMinor, currency) } : minor;
}

/**
 * Amount typing on the whole page: digits, `.`, Backspace and Escape go to `onKey` without
 * focusing anything, Enter submits; text fields keep their own keys (Enter in a one-line field
 * submits too). Returns the function that stops listening.
 */
export function listenForAmountKeys(onKey: (key: AmountKey) => void, onEnter: () => void): () => void {
  const onKeyDown = (event: KeyboardEvent) => {
    const target = event.target as HTMLElement | null;
    if (target !== null && ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName)) {
      if (event.key === 'Enter' && target.tagName === 'INPUT') onEnter();
      return;
    }
    if (event.key === 'Enter') {
      event.preventDefault();
      onEnter();
      return;
    }
    const key = keyFromKeyboard(event.key);
    if (key !== null) {
      event.preventDefault();
      onKey(key);
    }
  };
  window.addEventListener('keydown', onKeyDown);
  return () => window.removeEventListener('keydown', onKeyDown);
}
