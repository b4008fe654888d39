import { currencyExponent, MoneyError, toMajor, toMinor } from '@tapline/shared/money';

/** Keys of the keypad; the physical keyboard maps onto the same ones. */
export type AmountKey = '0' | '1' | '2' | '3' | '4' | '5' | '6' | '7' | '8' | '9' | '.' | 'back' | 'clear';

/** Twelve integer digits: the API's limit is 1e12 major units. */
const MAX_INTEGER_DIGITS = 12;

/**
 * The amount being typed, as text ("12.5" while typing 12.50): the keypad never offers more
 * decimals than the currency has, so what is shown is what will be charged.
 */
export function pressAmountKey(current: string, key: AmountKey, currency: string): string {
  const exponent = currencyExponent(currency);
  if (key === 'clear') return '';
  if (key === 'back') return current.slice(0, -1);
  const [integer = '', fraction] = current.split('.');
  if (key === '.') {
    if (exponent === 0 || fraction !== undefined) return current;
    return current === '' ? '0.' : `${current}.`;
  }
  if (fraction !== undefined) return fraction.length >= exponent ? current : current + key;
  if (integer === '0') return key;
  return integer.length >= MAX_INTEGER_DIGITS ? current : current + key;
}

export function keyFromKeyboard(key: string): AmountKey | null {
  if (/^[0-9]$/.test(key)) return key as AmountKey;
  if (key === '.' || key === ',') return '.';
  if (key === 'Backspace') return 'back';
  if (key === 'Escape' || key === 'Delete') return 'clear';
  return null;
}

/** Shown on the display: "12.5" reads "12.50"-in-progress, nothing typed reads "0". */
export function displayAmount(current: string): string {
  return current === '' ? '0' : current;
}

/** The typed amount in integer minor units (offline payments), or the reason it cannot be charged. */
export function amountMinorForEntry(current: string, currency: string): { ok: true; amountMinor: number } | { ok: false; message: string } {
  try {
    return { ok: true, amountMinor: toMinor(current === '' ? '0' : current.replace(/\.$/, ''), currency) };
  } catch (error) {
    if (error instanceof MoneyError) return { ok: false, message: error.message };
    throw error;
  }
}

/** The typed amount as the API's JSON number in major units, or the reason it cannot be charged. */
export function amountForApi(current: string, currency: string): { ok: true; amount: number } | { ok: false; message: string } {
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
