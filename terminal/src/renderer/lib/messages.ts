import { CATALOGUES, type MessageKey, type Translator, translator } from '@tapline/shared/i18n';
import { MoneyError } from '@tapline/shared/money';
import { ApiError, isUnreachable } from './api.ts';

/**
 * What the cashier reads when something goes wrong: a sentence in the shop's words, and the
 * code kept for support on a detail line under it (never an HTTP path, an errno or a raw code
 * in the sentence). The sentences are in the message catalogues; callers on screen pass the
 * kiosk's translator (kioskTranslator()), tests get English.
 */
export interface CashierMessage {
  text: string;
  /** For support: the server's or the terminal's code. */
  code: string | null;
}

type Words = Translator<MessageKey>;
const CASHIER = CATALOGUES.en.kiosk.cashier;

/**
 * The cashier's sentence for a code: the kiosk's own wording (`kiosk.cashier`, spoken to the
 * cashier: "ask the customer..."), else the shared one (`errors`), else null.
 */
export function messageForCode(code: string, words: Words = translator('en')): string | null {
  if (Object.hasOwn(CASHIER, code)) return words.t(`kiosk.cashier.${code}` as MessageKey);
  const shared = words.reason(code, '');
  return shared === '' ? null : shared;
}

/**
 * A tag the reader could not use (the bridge's nfc.unsupported: a bank card or phone, a blank tag,
 * a read that failed), in the kiosk's words rather than the reader's English.
 */
export function unsupportedTagMessage(reason: string, words: Words = translator('en')): CashierMessage {
  return { text: messageForCode(reason, words) ?? words.t('kiosk.cashier.not_a_tapline_tag'), code: reason };
}

/** Any failure, as the cashier reads it. */
export function cashierMessage(error: unknown, words: Words = translator('en')): CashierMessage {
  const generic = words.t('kiosk.cashier.generic');
  if (error instanceof ApiError) {
    if (Object.hasOwn(CASHIER, error.code)) return { text: words.t(`kiosk.cashier.${error.code}` as MessageKey), code: error.code };
    if (isUnreachable(error)) return { text: words.t('kiosk.cashier.sync_server_unreachable'), code: error.code === 'http_error' ? `http_${error.status}` : error.code };
    if (error.status === 429) return { text: words.t('kiosk.cashier.rate_limited'), code: error.code };
    return { text: messageForCode(error.code, words) ?? generic, code: error.code };
  }
  if (error instanceof MoneyError) return { text: messageForCode(error.code, words) ?? generic, code: error.code };
  return { text: generic, code: error instanceof Error ? error.message.slice(0, 120) : null };
}

/**
 * Codes whose sentence differs when the kiosk is offline or reports an offline verdict: what
 * would need the customer's PIN online (`pin_required`, one code online and offline) cannot be
 * asked offline, so the payment is refused or declined instead.
 */
const OFFLINE_WORDING: Readonly<Record<string, MessageKey>> = { pin_required: 'errors.pin_required_offline' };

/** The cashier's sentence for the code of an offline refusal or an offline payment's decline. */
export function offlineMessageForCode(code: string, words: Words = translator('en')): string | null {
  const key = OFFLINE_WORDING[code];
  return key ? words.t(key) : messageForCode(code, words);
}

/** A refusal that already has a sentence (the offline policy's), with its code for support. */
export function refusalMessage(refusal: { code: string; reason: string }, words: Words = translator('en')): CashierMessage {
  return { text: offlineMessageForCode(refusal.code, words) ?? refusal.reason, code: refusal.code };
}
