// The shop both browser suites sell in: a merchant with a terminal token, and a funded
// customer wallet with a ring.
import assert from 'node:assert/strict';
import { type TestServer, uniqueHandle } from '@tapline/sync-server/testing';

/** What a shop needs of a server: the in-process test server, or a real server process (server-process.ts). */
export type ShopServer = Pick<TestServer, 'request' | 'createMerchant' | 'createWallet'>;

export async function shopWithTerminal<S extends ShopServer>(s: S, customer: { fund: number; pin?: string }) {
  const merchant = await s.createMerchant({ name: 'Mama Put Kitchen' });
  const key = { 'x-merchant-api-key': merchant.testKey };
  const terminal = await s.request<{ id: string; token: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Front counter' } });
  assert.equal(terminal.status, 201);
  const payer = uniqueHandle('ada');
  await s.createWallet({ handle: payer, fund: customer.fund, ...(customer.pin ? { pin: customer.pin } : {}) });
  const tag = await s.request<{ tagId: string }>('POST', '/api/wearables', { headers: key, body: { handle: payer, tagType: 'ring', displayName: 'Ada\'s ring' } });
  assert.equal(tag.status, 201);
  return { s, merchant, key, terminalId: terminal.body.id, terminalToken: terminal.body.token, payer, tagId: tag.body.tagId };
}
