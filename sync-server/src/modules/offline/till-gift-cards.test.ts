import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import type { TillSaleDoc, TillTender } from '@tapline/shared/sync-protocol';
import { databaseTargets } from '../../testing/databases.ts';
import { type IssuedCard, holder } from '../../testing/gift-cards.ts';
import { balanceMinor, systemBalance } from '../../testing/ledger.ts';
import { ADMIN, useTestServer } from '../../testing/server.ts';
import { checkLedger } from '../../ledger/check.ts';
import { conflictsOf, connectTerminal, push } from '../../testing/offline.ts';

type Redeemed = { card: { id: string; status: string; amountRemaining: number }; redemption: { id: string; amount_drawn: number; credited_amount: number } };
type Returned = { id: string; redemptionId: string; amount: number; returnedTo: string; reason: string; cardAmountRemaining: number | null; cardStatus: string | null };
type Refund = { id: string; amount: number; tenders: { kind: string; amount: number }[] };
type Verify = { valid: boolean; amountRemaining: number; status: string };

function tillSale(terminalId: string, amountMinor: number, tenders: TillTender[]): TillSaleDoc {
  return { id: randomUUID(), terminalId, amountMinor, currency: 'NGN', capturedAt: new Date().toISOString(), status: 'queued', serverSeq: 0, tenders };
}

for (const target of await databaseTargets()) {
  describe(`gift cards at the till on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 20 });

    async function till(name = 'Front till') {
      const s = server();
      const merchant = await s.createMerchant();
      return { merchant, ...(await terminalOf(merchant, name)) };
    }

    async function terminalOf(merchant: { testKey: string }, name: string) {
      const s = server();
      const key = { 'x-merchant-api-key': merchant.testKey };
      const created = await s.request<{ id: string; token: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name } });
      assert.equal(created.status, 201);
      const term = { authorization: `Bearer term.${created.body.token}` };
      assert.equal((await s.request('PUT', `/api/merchant/terminals/${created.body.id}/manager-pin`, { headers: key, body: { pin: '4321' } })).status, 200);
      const { socket } = await connectTerminal(s, `term.${created.body.token}`);
      return { key, term, terminalId: created.body.id, socket };
    }

    /** A card a customer bought for a friend: issued from her wallet, accepted at any merchant. */
    async function card(amount: number, pinCode?: string) {
      const s = server();
      const giver = await holder(s, { fund: 10_000, prefix: 'giver' });
      const issued = await s.request<IssuedCard>('POST', '/api/wallet/gift-cards', { headers: giver.headers, body: { amount, currency: 'NGN', ...(pinCode ? { pinCode } : {}) } });
      assert.equal(issued.status, 201, JSON.stringify(issued.body));
      return issued.body;
    }

    async function redeemAtTill(term: Record<string, string>, code: string, redeemAmount: number, extra: Record<string, unknown> = {}, key = randomUUID()) {
      const redeemed = await server().request<Redeemed>('POST', '/api/merchant/gift-cards/redeem', { headers: { ...term, 'idempotency-key': key }, body: { code, redeemAmount, ...extra } });
      assert.equal(redeemed.status, 200, JSON.stringify(redeemed.body));
      return redeemed.body;
    }

    it('records a sale paid by a gift card and cash, claims the redemption once, and its refund puts the card\'s part back on the card', async () => {
      const s = server();
      const shop = await till();
      const gift = await card(50, '2468');
      const merchantBefore = await balanceMinor(s, shop.merchant.handle, 'NGN');
      const liabilityBefore = await systemBalance(s, 'gift_card_liability', 'NGN', 'test');

      const key = randomUUID();
      const redeemed = await redeemAtTill(shop.term, gift.code, 30, { pinCode: '2468' }, key);
      assert.deepEqual([redeemed.card.status, redeemed.card.amountRemaining, redeemed.redemption.credited_amount], ['active', 20, 30]);
      const retried = await redeemAtTill(shop.term, gift.code, 30, { pinCode: '2468' }, key);
      assert.equal(retried.redemption.id, redeemed.redemption.id, 'a retried redemption draws once');
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'NGN'), merchantBefore + 3000);

      const giftTender: TillTender = { kind: 'gift_card', amountMinor: 3000, reference: redeemed.redemption.id };
      const sale = tillSale(shop.terminalId, 5000, [giftTender, { kind: 'cash', amountMinor: 2000, tenderedMinor: 2000, changeMinor: 0 }]);
      const twice = tillSale(shop.terminalId, 3000, [giftTender]);
      const wrongAmount = tillSale(shop.terminalId, 2500, [{ ...giftTender, amountMinor: 2500 }]);
      const unnamed = tillSale(shop.terminalId, 1000, [{ kind: 'gift_card', amountMinor: 1000 }]);
      const verdicts = conflictsOf<TillSaleDoc>(await push(shop.socket, [sale, twice, wrongAmount, unnamed], 'till_sales'));
      assert.deepEqual(verdicts.map((doc) => [doc.status, doc.declineCode ?? null]), [['accepted', null], ['declined', 'tender_claimed'], ['declined', 'tender_unverified'], ['declined', 'tender_unverified']]);
      assert.match(verdicts[2]?.declineReason ?? '', /the card paid 30 NGN, the tender says 25 NGN/);
      assert.deepEqual(verdicts[0]?.tenders, sale.tenders);

      const x = await s.request<{ methods: Record<string, { count: number; amount: number }>; gross: number }>('GET', '/api/pos/reports/current', { headers: shop.term });
      assert.deepEqual([x.body.methods.giftCardTender, x.body.methods.cash, x.body.gross], [{ count: 1, amount: 30 }, { count: 1, amount: 20 }, 50], 'the card\'s part and the cash part of the sale');

      const claimed = await s.request<{ code: string }>('POST', `/api/pos/gift-card-redemptions/${redeemed.redemption.id}/return`, { headers: shop.term });
      assert.deepEqual([claimed.status, claimed.body.code], [409, 'tender_claimed'], 'a tender a sale claims goes back only by refunding the sale');

      const refund = await s.request<Refund>('POST', '/api/pos/refunds', { headers: shop.term, body: { saleId: sale.id, managerPin: '4321' } });
      assert.equal(refund.status, 201, JSON.stringify(refund.body));
      assert.deepEqual(refund.body.tenders, [{ kind: 'gift_card', amount: 30 }, { kind: 'cash', amount: 20 }], 'the card first, the rest from the drawer');
      const verified = await s.request<Verify>('GET', `/api/gift-cards/verify?code=${gift.code}`);
      assert.deepEqual([verified.body.valid, verified.body.amountRemaining], [true, 50], 'the card has its 30 back');
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'NGN'), merchantBefore, 'the merchant gave back what the card paid');
      assert.equal(await systemBalance(s, 'gift_card_liability', 'NGN', 'test'), liabilityBefore);
      const again = await s.request<{ code: string }>('POST', '/api/pos/refunds', { headers: shop.term, body: { saleId: sale.id, managerPin: '4321' } });
      assert.deepEqual([again.status, again.body.code], [409, 'nothing_to_refund']);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('gives a cancelled split sale\'s gift card back to the card once, never another till\'s, and in cash when the card has ended', async () => {
      const s = server();
      const shop = await till();
      const other = await terminalOf(shop.merchant, 'Back till');
      const gift = await card(40);
      const merchantBefore = await balanceMinor(s, shop.merchant.handle, 'NGN');
      const redeemed = await redeemAtTill(shop.term, gift.code, 40);
      assert.equal(redeemed.card.status, 'used');

      const notHers = await s.request<{ code: string }>('POST', `/api/pos/gift-card-redemptions/${redeemed.redemption.id}/return`, { headers: other.term });
      assert.deepEqual([notHers.status, notHers.body.code], [404, 'redemption_not_found']);
      const returned = await s.request<Returned>('POST', `/api/pos/gift-card-redemptions/${redeemed.redemption.id}/return`, { headers: shop.term });
      assert.equal(returned.status, 201, JSON.stringify(returned.body));
      assert.deepEqual(
        [returned.body.amount, returned.body.returnedTo, returned.body.reason, returned.body.cardAmountRemaining, returned.body.cardStatus],
        [40, 'card', 'tender_return', 40, 'active'],
      );
      const retried = await s.request<Returned>('POST', `/api/pos/gift-card-redemptions/${redeemed.redemption.id}/return`, { headers: shop.term });
      assert.deepEqual([retried.status, retried.body.id, retried.body.cardAmountRemaining], [201, returned.body.id, 40], 'asking again gives back nothing more');
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'NGN'), merchantBefore);
      const [late] = conflictsOf<TillSaleDoc>(await push(shop.socket, [tillSale(shop.terminalId, 4000, [{ kind: 'gift_card', amountMinor: 4000, reference: redeemed.redemption.id }])], 'till_sales'));
      assert.deepEqual([late?.status, late?.declineCode], ['declined', 'tender_unverified'], 'a tender given back pays no sale');
      assert.match(late?.declineReason ?? '', /given back/);

      // Redeemed with the merchant's key, not at a till: no till's tender.
      const byKey = await s.request<Redeemed>('POST', '/api/merchant/gift-cards/redeem', { headers: shop.key, body: { code: gift.code, redeemAmount: 5 } });
      assert.equal(byKey.status, 200);
      const keyReturn = await s.request<{ code: string }>('POST', `/api/pos/gift-card-redemptions/${byKey.body.redemption.id}/return`, { headers: shop.key });
      assert.deepEqual([keyReturn.status, keyReturn.body.code], [404, 'redemption_not_found']);
      const unknown = await s.request<{ code: string }>('POST', '/api/pos/gift-card-redemptions/gcr_nothing/return', { headers: shop.term });
      assert.deepEqual([unknown.status, unknown.body.code], [404, 'redemption_not_found']);

      // The card is cancelled after the till drew from it: nothing goes back onto it, the till gives cash.
      const drawn = await redeemAtTill(shop.term, gift.code, 10);
      const cancelled = await s.request('PATCH', `/api/admin/gift-cards/${gift.id}`, { headers: ADMIN, body: { action: 'cancel' } });
      assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
      const merchantBeforeCash = await balanceMinor(s, shop.merchant.handle, 'NGN');
      const inCash = await s.request<Returned>('POST', `/api/pos/gift-card-redemptions/${drawn.redemption.id}/return`, { headers: shop.key });
      assert.equal(inCash.status, 201, JSON.stringify(inCash.body));
      assert.deepEqual([inCash.body.returnedTo, inCash.body.amount, inCash.body.cardStatus], ['cash', 10, 'cancelled']);
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'NGN'), merchantBeforeCash, 'the merchant keeps it and the drawer pays it');
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('lets a till sale claiming a tender and its return race: exactly one of them wins, for a gift card and for a tap', async () => {
      const s = server();
      const shop = await till();
      const payer = await holder(s, { fund: 1_000, prefix: 'racer' });
      const tag = await s.request<{ tagId: string }>('POST', '/api/wearables', { headers: shop.key, body: { handle: payer.handle, tagType: 'ring', displayName: 'Ring' } });
      assert.equal(tag.status, 201, JSON.stringify(tag.body));
      for (let round = 0; round < 3; round += 1) {
        const gift = await card(20);
        const redeemed = await redeemAtTill(shop.term, gift.code, 20);
        const saleId = randomUUID();
        const session = await s.request<{ sessionId: string }>('POST', '/api/pos/sessions', { headers: shop.term, body: { amount: 5, currency: 'NGN', tenderOf: saleId } });
        assert.equal(session.status, 201, JSON.stringify(session.body));
        const paid = await s.request<{ status: string }>('POST', `/api/pos/sessions/${session.body.sessionId}/tap`, { headers: shop.term, body: { tagId: tag.body.tagId } });
        assert.equal(paid.body.status, 'completed', JSON.stringify(paid.body));
        const sale = { ...tillSale(shop.terminalId, 2500, [{ kind: 'gift_card', amountMinor: 2000, reference: redeemed.redemption.id }, { kind: 'wallet', amountMinor: 500, reference: session.body.sessionId }]), id: saleId };
        const pushing = push<TillSaleDoc>(shop.socket, [sale], 'till_sales');
        const [pushed, cardBack, tapBack] = await Promise.all([
          pushing,
          s.request<{ code?: string }>('POST', `/api/pos/gift-card-redemptions/${redeemed.redemption.id}/return`, { headers: shop.term }),
          s.request<{ code?: string }>('POST', `/api/pos/sessions/${session.body.sessionId}/return`, { headers: shop.term, body: {} }),
        ]);
        const [verdict] = conflictsOf<TillSaleDoc>(pushed);
        const balance = (await s.request<Verify>('GET', `/api/gift-cards/verify?code=${gift.code}`)).body.amountRemaining;
        if (verdict?.status === 'accepted') {
          assert.deepEqual([cardBack.status, cardBack.body.code, tapBack.status, tapBack.body.code], [409, 'tender_claimed', 409, 'sale_in_till_sale'], `round ${round}: the sale won`);
          assert.equal(balance, 0);
        } else {
          assert.equal(verdict?.declineCode, 'tender_unverified', `round ${round}: ${JSON.stringify(verdict)}`);
          // The sale lost to at least one return; what was not given back stays with the merchant, unclaimed.
          assert.ok(cardBack.status === 201 || tapBack.status === 201, `round ${round}: a return won (${cardBack.status}, ${tapBack.status})`);
          assert.equal(balance, cardBack.status === 201 ? 20 : 0);
        }
      }
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });
  });
}
