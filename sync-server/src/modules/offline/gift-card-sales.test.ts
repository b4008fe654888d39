import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { giftCardCodeHash, giftCardCodePrefix, makeGiftCardCode } from '@tapline/shared/gift-card-code';
import type { GiftCardSaleDoc } from '@tapline/shared/sync-protocol';
import { databaseTargets } from '../../testing/databases.ts';
import { balanceMinor, systemBalance } from '../../testing/ledger.ts';
import { type TestServer, uniqueHandle, useTestServer } from '../../testing/server.ts';
import { checkLedger } from '../../ledger/check.ts';
import { conflictsOf, connectTerminal, pull, push } from '../../testing/offline.ts';

/** A sale as the terminal stores it: the code stays with the customer's receipt, the hash goes in the document. */
async function sale(terminalId: string, amountMinor: number, extra: Partial<GiftCardSaleDoc> = {}): Promise<{ doc: GiftCardSaleDoc; code: string }> {
  const code = makeGiftCardCode();
  const doc: GiftCardSaleDoc = {
    id: randomUUID(),
    terminalId,
    codeHash: await giftCardCodeHash(code),
    codePrefix: giftCardCodePrefix(code),
    amountMinor,
    currency: 'NGN',
    designTheme: 'birthday',
    message: 'Happy birthday',
    capturedAt: new Date().toISOString(),
    status: 'queued',
    serverSeq: 0,
    ...extra,
  };
  return { doc, code };
}

for (const target of await databaseTargets()) {
  describe(`gift cards sold at a terminal on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 20 });

    async function till(s: TestServer) {
      const merchant = await s.createMerchant();
      const key = { 'x-merchant-api-key': merchant.testKey };
      const created = await s.request<{ id: string; token: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Gift desk' } });
      assert.equal(created.status, 201);
      const { socket } = await connectTerminal(s, `term.${created.body.token}`);
      return { merchant, key, terminalId: created.body.id, socket };
    }

    it('issues the card the terminal printed from the merchant\'s wallet, once; the printed code verifies and redeems', async () => {
      const s = server();
      const { merchant, key, terminalId, socket } = await till(s);
      const merchantBefore = await balanceMinor(s, merchant.handle, 'NGN');
      const liabilityBefore = await systemBalance(s, 'gift_card_liability', 'NGN');
      const { doc, code } = await sale(terminalId, 500_000);

      const before = await s.request('GET', `/api/gift-cards/verify?code=${code}`);
      assert.equal(before.status, 404, 'the printed code works only once the sale has synced');

      const [settled] = conflictsOf<GiftCardSaleDoc>(await push(socket, [doc], 'gift_card_sales'));
      assert.equal(settled?.status, 'accepted');
      assert.match(settled?.cardId ?? '', /^gcard_/);
      assert.equal(settled?.codeHash, doc.codeHash);
      assert.equal(settled?.codePrefix, doc.codePrefix);
      assert.ok(settled!.serverSeq > 0);
      assert.ok(Date.parse(settled!.expiresAt!) > Date.now() + 300 * 86_400_000, 'a card sold at the till lasts the default 12 months');
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), merchantBefore - 500_000);
      assert.equal(await systemBalance(s, 'gift_card_liability', 'NGN'), liabilityBefore + 500_000);

      const replay = conflictsOf<GiftCardSaleDoc>(await push(socket, [{ ...doc, amountMinor: 1 }], 'gift_card_sales'));
      assert.deepEqual(replay[0], settled);
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), merchantBefore - 500_000, 'a replay issues nothing');

      const verified = await s.request<{ valid: boolean; amount: number; currency: string; hasPin: boolean }>('GET', `/api/gift-cards/verify?code=${code}`);
      assert.equal(verified.status, 200);
      assert.deepEqual([verified.body.valid, verified.body.amount, verified.body.currency, verified.body.hasPin], [true, 5000, 'NGN', false]);

      const customer = uniqueHandle('gift');
      await s.createWallet({ handle: customer });
      const session = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle: customer, pin: '1234' } });
      const redeemed = await s.request('POST', '/api/wallet/gift-cards/redeem', { headers: { authorization: `Bearer wallet.${session.body.token}` }, body: { code, redeemAmount: 1200 } });
      assert.equal(redeemed.status, 200, JSON.stringify(redeemed.body));
      assert.equal(await balanceMinor(s, customer, 'NGN'), 120_000);

      const card = await s.request<{ data: { id: string; source?: string; codePrefix: string }[] }>('GET', `/api/admin/gift-cards?limit=100`, { headers: { authorization: 'Bearer admin.test-admin-token-0123456789abcdef' } });
      assert.ok(card.body.data.some((row) => row.id === settled?.cardId && row.codePrefix === doc.codePrefix));
      assert.equal((await s.request('GET', '/api/merchant/balance', { headers: key })).status, 200);
    });

    it('declines a sale the merchant cannot fund, an unreadable one and a reused code, and keeps every one for the terminal', async () => {
      const s = server();
      const { merchant, terminalId, socket } = await till(s);
      const float = await balanceMinor(s, merchant.handle, 'NGN');
      const tooMuch = await sale(terminalId, float + 1);
      const badCurrency = await sale(terminalId, 1000, { currency: 'XOF' });
      const badHash = await sale(terminalId, 1000, { codeHash: 'abc' });
      const first = await sale(terminalId, 1000);
      const reused = { ...(await sale(terminalId, 2000)).doc, codeHash: first.doc.codeHash, codePrefix: first.doc.codePrefix };
      const verdicts = conflictsOf<GiftCardSaleDoc>(await push(socket, [tooMuch.doc, badCurrency.doc, badHash.doc, first.doc, reused], 'gift_card_sales'));
      assert.deepEqual(verdicts.map((doc) => [doc.status, doc.declineCode ?? null]), [
        ['declined', 'insufficient_funds'],
        ['declined', 'invalid_document'],
        ['declined', 'invalid_document'],
        ['accepted', null],
        ['declined', 'code_taken'],
      ]);
      assert.match(verdicts[1]?.declineReason ?? '', /currency must be one of USD/);
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), float - 1000);

      const all = await pull<GiftCardSaleDoc>(socket, null, 100, 'gift_card_sales');
      assert.ok('documents' in all);
      assert.deepEqual(all.documents.map((doc) => doc.id), verdicts.map((doc) => doc.id));
      const payments = await pull(socket, null);
      assert.ok('documents' in payments);
      assert.deepEqual(payments.documents, [], 'the two collections replicate apart');
      const unknown = await push(socket, [first.doc], 'catalog' as never);
      assert.equal('code' in unknown ? unknown.code : '', 'unknown_collection');
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });
  });
}
