/**
 * The wallet holder's session on the customer pages (/wallet, /wallet/offline-qr): its token and
 * expiry, never the PIN, kept in sessionStorage, so a reload of the tab (or moving between the two
 * pages in it) stays signed in until the session expires; closing the tab forgets it.
 */
import { call } from './api.ts';
import { errorText } from './page-i18n.ts';

export interface WalletSession {
  token: string;
  expiresAt: string;
  handle: string;
}

/** The key of the wallet session in sessionStorage (this tab only). */
const SESSION_KEY = 'tapline.wallet.session';

/** The tab's session, when there is one that has not expired. */
export function storedWalletSession(): WalletSession | null {
  try {
    const saved = JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? 'null') as Partial<WalletSession> | null;
    if (!saved || typeof saved.token !== 'string' || typeof saved.expiresAt !== 'string' || typeof saved.handle !== 'string') return forgetWalletSession();
    if (!(Date.parse(saved.expiresAt) > Date.now())) return forgetWalletSession();
    return { token: saved.token, expiresAt: saved.expiresAt, handle: saved.handle };
  } catch {
    return forgetWalletSession();
  }
}

export function saveWalletSession(session: WalletSession): void {
  sessionStorage.setItem(SESSION_KEY, JSON.stringify(session));
  sessionStorage.setItem('tapline.wallet.handle', session.handle);
}

export function forgetWalletSession(): null {
  sessionStorage.removeItem(SESSION_KEY);
  return null;
}

/** Ends the session on the server too; the page has already forgotten it, whatever the answer. */
export async function endWalletSession(token: string): Promise<void> {
  await call('DELETE', '/api/wallet/sessions/current', undefined, { authorization: `Bearer wallet.${token}` }).catch(() => undefined);
}

/** A failed answer: its sentence in the page's language, and its status (401: the session ended). */
export class RequestError extends Error {
  constructor(message: string, readonly status: number) {
    super(message);
  }
}

/**
 * Calls the API as the signed-in holder: the answer's body, or throws a RequestError with the
 * error's sentence in the page's language. `onSignedOut` runs on a 401 while signed in.
 */
export async function walletRequest<T>(session: WalletSession | null, method: string, path: string, options: { body?: unknown; idempotencyKey?: string; onSignedOut?: () => void } = {}): Promise<T> {
  const headers: Record<string, string> = {};
  if (session) headers.authorization = `Bearer wallet.${session.token}`;
  if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
  const answer = await call<T>(method, path, options.body, headers);
  if (!answer.ok) {
    if (answer.status === 401 && session) options.onSignedOut?.();
    throw new RequestError(errorText(answer), answer.status);
  }
  return answer.data as T;
}

export const failureText = (failure: unknown): string => (failure instanceof Error ? failure.message : String(failure));
