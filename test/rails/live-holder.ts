// What the tests of wallet top-ups by bank transfer through a live provider share: a live NGN
// wallet in Nigeria with its virtual account made.
import assert from 'node:assert/strict';
import { type TestServer, uniqueHandle } from '@tapline/sync-server/testing';

/** A wallet's virtual account as the API answers it. */
export type VirtualAccount = { id: string; currency: string; provider: string; bankName: string; accountNumber: string; accountName: string; feePercent: string; fee: string; code?: string };

/**
 * A live NGN wallet in Nigeria, her session's Authorization header, and her virtual account made
 * with `body` (Flutterwave needs `{ bvn }`).
 */
export async function liveHolder(s: TestServer, body: Record<string, string> = {}, prefix = 'vah') {
  const handle = uniqueHandle(prefix);
  await s.createWallet({ handle, pin: '2468', currency: 'NGN', country: 'NG', mode: 'live' });
  const auth = await holderSignIn(s, handle);
  const opened = await s.request<VirtualAccount>('POST', '/api/wallet/virtual-account', { headers: auth, body });
  assert.equal(opened.status, 201, JSON.stringify(opened.body));
  return { handle, auth, account: opened.body };
}

/**
 * The holder's Authorization header from a new wallet session: a test that moves its clock past
 * the session's lifetime (a day reconciled once it is over) signs in again.
 */
export async function holderSignIn(s: TestServer, handle: string): Promise<{ authorization: string }> {
  const session = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle, pin: '2468', mode: 'live' } });
  assert.equal(session.status, 201, JSON.stringify(session.body));
  return { authorization: `Bearer wallet.${session.body.token}` };
}
