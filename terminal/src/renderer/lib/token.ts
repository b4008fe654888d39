/** The terminal token lives in localStorage so a reload or restart of the kiosk stays signed in. */
const KEY = 'tapline.terminalToken';

export function loadToken(): string | null {
  return localStorage.getItem(KEY);
}

export function saveToken(token: string): void {
  localStorage.setItem(KEY, token);
}

export function forgetToken(): void {
  localStorage.removeItem(KEY);
}

/** Accepts the token as issued (`term.<token>`) or without its prefix; null when it cannot be one. */
export function normaliseToken(input: string): string | null {
  const text = input.trim();
  if (text === '') return null;
  const token = text.startsWith('term.') ? text : `term.${text}`;
  return /^term\.[A-Za-z0-9_-]{8,}$/.test(token) ? token : null;
}
