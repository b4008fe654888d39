import assert from 'node:assert/strict';
import type { AppContext } from '../context.ts';
import { sha256Hex } from '../auth/secrets.ts';
import { ADMIN, type ApiResponse, type TestServer, uniqueHandle } from './server.ts';
import { giftCardJobs } from '../modules/gift-cards/routes.ts';

export { balanceMinor, systemBalance } from './ledger.ts';

/** Shared by the gift-card suites (not a test file itself). */

export type Json = Record<string, unknown>;

export interface IssuedCard {
  id: string;
  code: string;
  qrPng: string;
  codePrefix: string;
  amount: number;
  currency: string;
  amountRemaining: number;
  expiresAt: string;
  status: string;
  brand: Json | null;
  deliveryScheduledAt: string | null;
  subscriptionPlanId: string | null;
  giftMonths: number | null;
  designTheme: string;
  [key: string]: unknown;
}

/** The modules' clock: a fixed instant the tests move forward (never a real wait). */
export function testClock(start = '2030-03-10T09:00:00.000Z') {
  let time = Date.parse(start);
  return {
    now: () => new Date(time),
    advance(ms: number) {
      time += ms;
    },
    advanceMinutes(minutes: number) {
      time += minutes * 60_000;
    },
  };
}

export const MINUTE = 60_000;
export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

export function keyHeaders(key: string): Record<string, string> {
  return { 'x-merchant-api-key': key };
}

/** A merchant and its key headers (its test wallet holds a sandbox float of 1,000,000). */
export async function merchant(s: TestServer, fields: Partial<{ currency: string; country: string }> = {}) {
  const created = await s.createMerchant(fields);
  return { ...created, headers: keyHeaders(created.testKey), liveHeaders: keyHeaders(created.liveKey), bare: created.handle.replace(/^@/, '') };
}

/**
 * Sessions are judged by the app's clock, which these suites move months ahead to reach expiries,
 * renewals and deliveries. They test cards and subscriptions, not sessions (wallets/clock.test.ts
 * does), so the session a helper signs in with does not end while a test runs.
 */
async function outliveTheClock(s: TestServer, table: 'wallet_sessions' | 'agent_sessions', token: string): Promise<void> {
  await s.db.query(`UPDATE ${table} SET expires_at = 'infinity' WHERE token_hash = $1`, [sha256Hex(token)]);
}

/** A person's wallet, funded, signed in (for as long as the test runs): its handle and `Bearer wallet.<token>` headers. */
export async function holder(s: TestServer, options: { fund?: number; currency?: string; pin?: string; prefix?: string } = {}) {
  const handle = uniqueHandle(options.prefix ?? 'holder');
  const currency = options.currency ?? 'NGN';
  await s.createWallet({ handle, currency, pin: options.pin ?? '1234', ...(options.fund ? { fund: options.fund } : {}) });
  const session = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle, pin: options.pin ?? '1234' } });
  assert.equal(session.status, 201, JSON.stringify(session.body));
  await outliveTheClock(s, 'wallet_sessions', session.body.token);
  return { handle, currency, headers: { authorization: `Bearer wallet.${session.body.token}` } };
}

/** An agent with a funded wallet, signed in. */
export async function agent(s: TestServer, options: { fund?: number; currency?: string; country?: string; mode?: 'test' | 'live' } = {}) {
  const handle = uniqueHandle('agent');
  const currency = options.currency ?? 'NGN';
  const mode = options.mode ?? 'test';
  const created = await s.request<{ agentId: string; secret: string }>('POST', '/api/admin/agents', { headers: ADMIN, body: { name: 'Agent', handle, country: options.country ?? 'NG', currency, mode } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  if (options.fund) {
    const credited = await s.request('POST', `/api/admin/wallets/${handle}/credit`, { headers: ADMIN, body: { amount: options.fund, currency, mode } });
    assert.equal(credited.status, 200, JSON.stringify(credited.body));
  }
  const session = await s.request<{ token: string }>('POST', '/api/agent/sessions', { body: { agentId: created.body.agentId, secret: created.body.secret } });
  assert.equal(session.status, 201, JSON.stringify(session.body));
  await outliveTheClock(s, 'agent_sessions', session.body.token);
  return { handle, currency, mode, agentId: created.body.agentId, secret: created.body.secret, headers: { authorization: `Bearer agent.${session.body.token}` } };
}

/** Issues a card and asserts 201. */
export async function issueCard(s: TestServer, headers: Record<string, string>, body: Json, surface = 'merchant'): Promise<IssuedCard> {
  const issued = await s.request<IssuedCard>('POST', `/api/${surface}/gift-cards`, { headers, body });
  assert.equal(issued.status, 201, JSON.stringify(issued.body));
  return issued.body;
}

export function redeem(s: TestServer, headers: Record<string, string>, body: Json, surface = 'merchant'): Promise<ApiResponse<Json>> {
  return s.request<Json>('POST', `/api/${surface}/gift-cards/redeem`, { headers, body });
}

/**
 * The liability invariant: the gift-card liability account holds exactly the balances of the
 * active and scheduled cards, per mode and currency.
 */
export async function assertLiabilityMatchesCards(s: TestServer): Promise<void> {
  const accounts = await s.db.query<{ mode: string; currency: string; balance: number }>(
    `SELECT mode, currency, balance FROM ledger_accounts WHERE owner_type = 'system' AND owner_id = 'gift_card_liability' ORDER BY mode, currency`,
  );
  const cards = await s.db.query<{ mode: string; currency: string; outstanding: number }>(
    `SELECT mode, currency, sum(amount_remaining)::int8 AS outstanding FROM gift_cards WHERE status IN ('active', 'scheduled') GROUP BY mode, currency`,
  );
  const owed = new Map(cards.map((row) => [`${row.mode}:${row.currency}`, row.outstanding]));
  for (const account of accounts) assert.equal(account.balance, owed.get(`${account.mode}:${account.currency}`) ?? 0, `liability ${account.mode} ${account.currency}`);
  for (const [key, outstanding] of owed) assert.ok(accounts.some((account) => `${account.mode}:${account.currency}` === key) || outstanding === 0, key);
}

export function runJobs(context: AppContext) {
  return giftCardJobs(context).runOnce();
}

/** `months` calendar months after `date` (tests use days below 29, where no clamping applies). */
export function monthsAfter(date: Date, months: number): string {
  const result = new Date(date.getTime());
  result.setUTCMonth(result.getUTCMonth() + months);
  return result.toISOString();
}
