import type { SyncHello } from '@tapline/shared/sync-protocol';
import type { PosContext } from './api.ts';

/**
 * The last sync hello, kept in localStorage with the token it was for, so a terminal that starts
 * without the server still knows who it is, its merchant and mode, its offline limits and the
 * keys that verify offline QR vouchers. Another token never reads it.
 */
const KEY = 'tapline.syncHello';

export function saveHello(token: string, hello: SyncHello): void {
  localStorage.setItem(KEY, JSON.stringify({ token, hello }));
}

export function loadHello(token: string): SyncHello | null {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) ?? 'null') as { token?: unknown; hello?: SyncHello } | null;
    return saved !== null && saved.token === token && saved.hello !== undefined ? saved.hello : null;
  } catch {
    return null;
  }
}

export function forgetHello(): void {
  localStorage.removeItem(KEY);
}

/** What the sale screens need to know, from a hello when GET /api/pos/context cannot be asked. */
export function contextFromHello(hello: SyncHello): PosContext {
  const { id, name, handle, currency } = hello.merchant;
  return { merchant: { id, name, handle, currency, country: '' }, mode: hello.mode, terminal: hello.terminal };
}
