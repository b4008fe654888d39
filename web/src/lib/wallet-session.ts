/**
 * The wallet holder's session on the customer pages (/wallet, /wallet/offline-qr): its token and
 * expiry, never the PIN, kept in sessionStorage, so a reload of the tab (or moving between the two
 * pages in it) stays signed in until the session expires; closing the tab forgets it.
 */
import type { Answer, Method, Parts, PartsArgument, Route } from '@tapline/shared/api';
import { isHandle, isPin } from '@tapline/shared/wallet-input';
import { call, errorOf } from './api.ts';
import { byId, input } from './dom.ts';
import { errorText, t } from './page-i18n.ts';

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
  await call('DELETE', '/api/wallet/sessions/current', { headers: { authorization: `Bearer wallet.${token}` } }).catch(() => undefined);
}

/** A failed answer: its sentence in the page's language, its status (401: the session ended) and the server's error code, when it sent one. */
export class RequestError extends Error {
  constructor(message: string, readonly status: number, readonly code: string | null = null) {
    super(message);
  }
}

/**
 * Calls a route as the signed-in holder: the answer's body, typed by the route, or throws a
 * RequestError with the error's sentence in the page's language. `onSignedOut` runs on a 401
 * while signed in.
 */
export async function walletRequest<M extends Method, P extends Route<M>>(
  session: WalletSession | null,
  method: M,
  path: P,
  parts: Omit<Parts<M, P>, 'headers'> & { idempotencyKey?: string; onSignedOut?: () => void },
): Promise<Answer<M, P>> {
  const headers: Record<string, string> = {};
  if (session) headers.authorization = `Bearer wallet.${session.token}`;
  if (parts.idempotencyKey) headers['idempotency-key'] = parts.idempotencyKey;
  const { idempotencyKey: _key, onSignedOut, ...route } = parts;
  const answer = await call(method, path, ...([{ ...route, headers }] as unknown as PartsArgument<M, P>));
  if (!answer.ok) {
    if (answer.status === 401 && session) onSignedOut?.();
    throw new RequestError(errorText(answer), answer.status, errorOf(answer).code);
  }
  return answer.data as Answer<M, P>;
}

export const failureText = (failure: unknown): string => (failure instanceof Error ? failure.message : String(failure));

/**
 * The pages' sign-in form (#signin-form with #handle, #pin, #signin-button, #signin-error): checks
 * what was typed, opens a wallet session, keeps it for the tab, forgets the PIN, then hands the
 * session to the page (`signedIn`); a refusal is said under the form.
 */
export function handleSignIn(signedIn: (session: WalletSession) => Promise<void>): void {
  byId('signin-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const error = byId('signin-error');
    error.textContent = '';
    const handle = input('handle').value.trim();
    const pin = input('pin').value.trim();
    if (!isHandle(handle)) return void (error.textContent = t('web.pay.enterHandle'));
    if (!isPin(pin)) return void (error.textContent = t('web.pay.pinDigits'));
    const button = byId<HTMLButtonElement>('signin-button');
    button.disabled = true;
    try {
      const created = await walletRequest(null, 'POST', '/api/wallet/sessions', { body: { handle, pin } });
      const session = { token: created.token, expiresAt: created.expiresAt, handle: created.handle };
      saveWalletSession(session);
      input('pin').value = '';
      await signedIn(session);
    } catch (failure) {
      error.textContent = failureText(failure);
    } finally {
      button.disabled = false;
    }
  });
}

/**
 * A reload (or a move between the customer pages): the tab's session, when it has one, is handed
 * to the page (`use`) and the page enters with it; the sign-in form shows again only if it no
 * longer works (`ended`) or the page could not be read (the failure said under the form).
 */
export function resumeWalletSession(use: (session: WalletSession) => void, enter: () => Promise<boolean>, ended: () => void): void {
  const session = storedWalletSession();
  if (!session) return;
  use(session);
  byId('signin-card').hidden = true;
  void enter().then(
    (working) => {
      if (!working) ended();
    },
    (failure: unknown) => {
      byId('signin-card').hidden = false;
      byId('signin-error').textContent = failureText(failure);
    },
  );
}
