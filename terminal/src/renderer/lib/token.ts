import { type MessageKey, type Translator, translator } from '@tapline/shared/i18n';
import { kioskApi } from './hardware-ipc.ts';
import type { CashierMessage } from './messages.ts';

/** The terminal token lives in localStorage so a reload or restart of the kiosk stays signed in. */
const KEY = 'tapline.terminalToken';

export function loadToken(): string | null {
  return localStorage.getItem(KEY);
}

export function saveToken(token: string): void {
  localStorage.setItem(KEY, token);
}

/**
 * The token to start with: in the Electron app, the one its first start just paired (handed over
 * once, then kept here), else the saved one.
 */
export async function startToken(): Promise<string | null> {
  const handed = await kioskApi()
    ?.app.takeTerminalToken()
    .catch(() => null);
  if (typeof handed === 'string') saveToken(handed);
  return loadToken();
}

export function forgetToken(): void {
  localStorage.removeItem(KEY);
}

/** A terminal token is `term.` and 64 lower-case hex characters. */
const TERMINAL_TOKEN = /^term\.[0-9a-f]{64}$/;

/** Accepts the token as issued (`term.<token>`) or without its prefix; null when it cannot be one. */
export function normaliseToken(input: string): string | null {
  const text = input.trim();
  if (text === '') return null;
  const token = text.startsWith('term.') ? text : `term.${text}`;
  return TERMINAL_TOKEN.test(token) ? token : null;
}

/** Why a typed token cannot be a terminal's, in words for the person at the till. */
export function tokenInputProblem(input: string, words: Translator<MessageKey> = translator('en')): CashierMessage {
  const text = input.trim();
  const problem = (code: 'token_missing' | 'merchant_key_not_a_terminal_token' | 'not_a_terminal_token' | 'terminal_token_malformed'): CashierMessage => ({ text: words.t(`kiosk.cashier.${code}`), code });
  if (text === '') return problem('token_missing');
  if (/^mk_(test|live)_/.test(text)) return problem('merchant_key_not_a_terminal_token');
  if (/^(wallet|agent|admin)\./.test(text) || /^pk_(test|live)_/.test(text)) return problem('not_a_terminal_token');
  return problem('terminal_token_malformed');
}
