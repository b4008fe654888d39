import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import type { OfflinePaymentDoc, TillSaleDoc } from '@tapline/shared/sync-protocol';
import { databaseTargets } from '../../testing/databases.ts';
import { balanceMinor } from '../../testing/ledger.ts';
import { uniqueHandle, useTestServer } from '../../testing/server.ts';
import { checkLedger } from '../../ledger/check.ts';
import { conflictsOf, connectTerminal, push } from '../../testing/offline.ts';

type Sale = { saleId: string; status: string; unpaid: number; refundable: number; tenders: { kind: string; amount: number }[] };
type Refund = { amount: number; tenders: { kind: string; amount: number }[] };
type Report = { gross: number; methods: Record<string, { count: number; amount: number }>; declinedOffline: { count: number; amount: number } };

/**
 * A split sale paid partly by an offline tap (docs/till.md, "Split tender offline"): the kiosk
 * records the tap as an offline payment and the sale as a till sale naming it (`offline_tap`). Both
 * reach the server in either order, or at once; the tap settles once, and a tap the server declines
 * leaves the sale recorded with that part unpaid.
 */
for (const target of await databaseTargets()) {
  describe(`split sales with an offline tap on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 20 });

    async function till(fund: number) {
      const s = server();
      const merchant = await s.createMerchant();
      const key = { 'x-merchant-api-key': merchant.testKey };
      const created = await s.request<{ id: string; token: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Front till' } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const payer = uniqueHandle('offsplit');
      await s.createWallet({ handle: payer, ...(fund > 0 ? { fund } : {}) });
      const tag = await s.request<{ tagId: string }>('POST', '/api/wearables', { headers: key, body: { handle: payer, tagType: 'ring', displayName: 'Ring' } });
      assert.equal(tag.status, 201, JSON.stringify(tag.body));
      const { socket } = await connectTerminal(s, `term.${created.body.token}`);
      const terminalId = created.body.id;
      const tap = (amountMinor: number, tenderOf?: string): OfflinePaymentDoc => ({
        id: randomUUID(), terminalId, kind: 'tap', tagId: tag.body.tagId, amountMinor, currency: 'NGN', description: 'Suya', capturedAt: new Date().toISOString(), status: 'queued', serverSeq: 0,
        ...(tenderOf === undefined ? {} : { tenderOf }),
      });
      const sale = (cashMinor: number, tapDoc: OfflinePaymentDoc, tapMinor = tapDoc.amountMinor): TillSaleDoc => ({
        id: randomUUID(), terminalId, amountMinor: cashMinor + tapMinor, currency: 'NGN', capturedAt: new Date().toISOString(), status: 'queued', serverSeq: 0,
        tenders: [{ kind: 'cash', amountMinor: cashMinor, tenderedMinor: cashMinor, changeMinor: 0 }, { kind: 'offline_tap', amountMinor: tapMinor, reference: tapDoc.id }],
      });
      const events = async (type: string) =>
        (await s.db.query<{ body: string }>(`SELECT body FROM events WHERE merchant_id = $1 AND type = $2 ORDER BY created_at, id`, [merchant.id, type])).map((row) => JSON.parse(row.body) as Record<string, unknown>);
      return { s, merchant, key, term: { authorization: `Bearer term.${created.body.token}` }, socket, payer, tap, sale, events };
    }

    it('settles the tap once and records the sale, whether the tap or the sale reaches the server first, or both at once', async () => {
      const shop = await till(100_000);
      const { s } = shop;
      const payerBefore = await balanceMinor(s, shop.payer, 'NGN');
      const merchantBefore = await balanceMinor(s, shop.merchant.handle, 'NGN');

      // The sale first: recorded, its tap not here yet; then the tap settles and pays its part.
      const tapA = shop.tap(1_000);
      const saleA = shop.sale(2_000, tapA);
      const [recordedA] = conflictsOf<TillSaleDoc>(await push(shop.socket, [saleA], 'till_sales'));
      assert.deepEqual([recordedA?.status, recordedA?.unpaidMinor], ['accepted', undefined], JSON.stringify(recordedA));
      const [settledA] = conflictsOf(await push(shop.socket, [tapA]));
      assert.equal(settledA?.status, 'accepted', JSON.stringify(settledA));

      // The tap first, then the sale.
      const tapB = shop.tap(1_500);
      const saleB = shop.sale(500, tapB);
      assert.equal(conflictsOf(await push(shop.socket, [tapB]))[0]?.status, 'accepted');
      assert.equal(conflictsOf<TillSaleDoc>(await push(shop.socket, [saleB], 'till_sales'))[0]?.status, 'accepted');

      // Both at once (the kiosk pushes each collection on its own): the terminal's pushes settle one after the other.
      const tapC = shop.tap(700);
      const saleC = shop.sale(300, tapC);
      const [answerC, answerSaleC] = await Promise.all([push(shop.socket, [tapC]), push<TillSaleDoc>(shop.socket, [saleC], 'till_sales')]);
      assert.deepEqual([conflictsOf(answerC)[0]?.status, conflictsOf<TillSaleDoc>(answerSaleC)[0]?.status], ['accepted', 'accepted']);

      // Replays answer the first verdicts and move nothing again.
      assert.deepEqual(conflictsOf(await push(shop.socket, [tapA, tapB, tapC])).map((doc) => doc.status), ['accepted', 'accepted', 'accepted']);
      assert.deepEqual(conflictsOf<TillSaleDoc>(await push(shop.socket, [saleA, saleB, saleC], 'till_sales')).map((doc) => doc.status), ['accepted', 'accepted', 'accepted']);
      assert.equal(await balanceMinor(s, shop.payer, 'NGN'), payerBefore - 3_200, 'each tap paid once');
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'NGN'), merchantBefore + 3_200, 'the merchant got each tap once, and no wallet money for the cash');

      for (const sale of [saleA, saleB, saleC]) {
        const read = await s.request<Sale>('GET', `/api/pos/sales/${sale.id}`, { headers: shop.term });
        assert.equal(read.status, 200, JSON.stringify(read.body));
        assert.equal(read.body.status, 'accepted');
      }
      assert.deepEqual(await shop.events('pos.till_sale.tender_unpaid'), [], 'every tap paid its part');
      const claims = await s.db.query<{ n: number }>('SELECT count(*)::int AS n FROM till_sale_tender_claims WHERE reference = ANY ($1::text[])', [[tapA.id, tapB.id, tapC.id]]);
      assert.equal(Number(claims[0]?.n), 3, 'each tap claimed by its one sale');
      // The day report counts each tap once, as an offline tap, and only the rest of each sale as cash.
      const x = await s.request<Report>('GET', '/api/pos/reports/current', { headers: shop.term });
      assert.deepEqual([x.body.methods.offlineTap, x.body.methods.cash, x.body.gross], [{ count: 3, amount: 32 }, { count: 3, amount: 28 }, 60]);

      // A second sale naming a tap already claimed, or a tap of another amount, is declined.
      const twice = shop.sale(100, tapA);
      const tapD = shop.tap(900);
      assert.equal(conflictsOf(await push(shop.socket, [tapD]))[0]?.status, 'accepted');
      const wrong = shop.sale(100, tapD, 800);
      const refused = conflictsOf<TillSaleDoc>(await push(shop.socket, [twice, wrong], 'till_sales'));
      assert.deepEqual(refused.map((doc) => [doc.status, doc.declineCode]), [['declined', 'tender_claimed'], ['declined', 'tender_unverified']]);

      // A refund of the sale gives the tap back to the wallet that paid it first, then cash; the tap alone is refunded through its sale only.
      const alone = await s.request<{ code: string }>('POST', '/api/pos/refunds', { headers: shop.key, body: { saleId: tapB.id } });
      assert.deepEqual([alone.status, alone.body.code], [409, 'sale_in_till_sale']);
      const payerMid = await balanceMinor(s, shop.payer, 'NGN');
      const refund = await s.request<Refund>('POST', '/api/pos/refunds', { headers: shop.key, body: { saleId: saleB.id } });
      assert.equal(refund.status, 201, JSON.stringify(refund.body));
      assert.deepEqual([refund.body.amount, refund.body.tenders], [20, [{ kind: 'wallet', amount: 15 }, { kind: 'cash', amount: 5 }]]);
      assert.equal(await balanceMinor(s, shop.payer, 'NGN'), payerMid + 1_500, 'the offline tap went back to its wallet');

      // Before its tap has settled, the sale cannot give the tap back.
      const tapE = shop.tap(400);
      const saleE = shop.sale(100, tapE);
      assert.equal(conflictsOf<TillSaleDoc>(await push(shop.socket, [saleE], 'till_sales'))[0]?.status, 'accepted');
      const early = await s.request<{ code: string }>('POST', '/api/pos/refunds', { headers: shop.key, body: { saleId: saleE.id } });
      assert.deepEqual([early.status, early.body.code], [409, 'offline_tap_not_settled']);

      // A split sale cancelled after its offline tap synced: the tap (taken with tenderOf) goes back in full without a PIN, once;
      // an offline tap taken for a whole sale is not a tender.
      const cancelledSale = randomUUID();
      const tapF = shop.tap(650, cancelledSale);
      const [settledF] = conflictsOf(await push(shop.socket, [tapF]));
      assert.deepEqual([settledF?.status, settledF?.tenderOf], ['accepted', cancelledSale]);
      const payerBeforeReturn = await balanceMinor(s, shop.payer, 'NGN');
      const returned = await s.request<Refund>('POST', `/api/pos/sessions/${tapF.id}/return`, { headers: shop.term, body: {} });
      assert.equal(returned.status, 201, JSON.stringify(returned.body));
      assert.deepEqual([returned.body.amount, returned.body.tenders], [6.5, [{ kind: 'wallet', amount: 6.5 }]]);
      const again = await s.request<Refund>('POST', `/api/pos/sessions/${tapF.id}/return`, { headers: shop.term, body: {} });
      assert.equal(again.status, 201, 'asking again answers the same refund');
      assert.equal(await balanceMinor(s, shop.payer, 'NGN'), payerBeforeReturn + 650, 'given back once');
      const whole = shop.tap(200);
      assert.equal(conflictsOf(await push(shop.socket, [whole]))[0]?.status, 'accepted');
      const notTender = await s.request<{ code: string }>('POST', `/api/pos/sessions/${whole.id}/return`, { headers: shop.term, body: {} });
      assert.deepEqual([notTender.status, notTender.body.code], [409, 'not_a_tender']);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('a split tap whose tenderOf names another till\'s or another merchant\'s sale settles as the tap it was, and is not given back without the manager\'s PIN', async () => {
      const shop = await till(100_000);
      const other = await till(100_000);
      const { s } = shop;
      // A second till of the same merchant, and another merchant's till: each records a sale of its own.
      const second = await s.request<{ id: string; token: string }>('POST', '/api/merchant/terminals', { headers: shop.key, body: { name: 'Back till' } });
      assert.equal(second.status, 201, JSON.stringify(second.body));
      const { socket: backTill } = await connectTerminal(s, `term.${second.body.token}`);
      const cashSale = (terminalId: string): TillSaleDoc => ({
        id: randomUUID(), terminalId, amountMinor: 500, currency: 'NGN', capturedAt: new Date().toISOString(), status: 'queued', serverSeq: 0,
        tenders: [{ kind: 'cash', amountMinor: 500, tenderedMinor: 500, changeMinor: 0 }],
      });
      const backSale = cashSale(second.body.id);
      assert.equal(conflictsOf<TillSaleDoc>(await push(backTill, [backSale], 'till_sales'))[0]?.status, 'accepted');
      const foreignTerminal = (await s.db.query<{ id: string }>('SELECT id FROM terminals WHERE merchant_id = $1', [other.merchant.id]))[0]!.id;
      const foreignSale = cashSale(foreignTerminal);
      assert.equal(conflictsOf<TillSaleDoc>(await push(other.socket, [foreignSale], 'till_sales'))[0]?.status, 'accepted');
      backTill.disconnect();

      const payerBefore = await balanceMinor(s, shop.payer, 'NGN');
      const merchantBefore = await balanceMinor(s, shop.merchant.handle, 'NGN');
      const otherBefore = await balanceMinor(s, other.merchant.handle, 'NGN');
      const toBack = shop.tap(300, backSale.id);
      const toForeign = shop.tap(400, foreignSale.id);
      // The customer paid at this till: the tap settles (a tenderOf is never a reason to decline), once.
      const settled = conflictsOf(await push(shop.socket, [toBack, toForeign]));
      assert.deepEqual(settled.map((doc) => doc.status), ['accepted', 'accepted'], JSON.stringify(settled));
      assert.equal(await balanceMinor(s, shop.payer, 'NGN'), payerBefore - 700);
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'NGN'), merchantBefore + 700, 'this merchant was paid its taps');
      assert.equal(await balanceMinor(s, other.merchant.handle, 'NGN'), otherBefore, 'nothing reached the other merchant');

      // It is not a split tender of this till: giving it back takes the manager's PIN (a refund), never the return.
      for (const tap of [toBack, toForeign]) {
        const returned = await s.request<{ code: string; error: string }>('POST', `/api/pos/sessions/${tap.id}/return`, { headers: shop.term, body: {} });
        assert.deepEqual([returned.status, returned.body.code], [409, 'not_a_tender'], JSON.stringify(returned.body));
        assert.ok(returned.body.error.length > 0);
      }
      // The other till and the other merchant do not see this till's taps at all.
      const fromOther = await s.request<{ code: string }>('POST', `/api/pos/sessions/${toForeign.id}/return`, { headers: other.term, body: {} });
      assert.deepEqual([fromOther.status, fromOther.body.code], [404, 'sale_not_found'], JSON.stringify(fromOther.body));
      assert.equal(await balanceMinor(s, shop.payer, 'NGN'), payerBefore - 700, 'nothing given back');
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'NGN'), merchantBefore + 700);
      // The sales they name are untouched: nothing claimed, nothing unpaid, still refundable in full.
      for (const [sale, headers] of [[backSale, shop.key], [foreignSale, other.key]] as const) {
        const read = await s.request<Sale>('GET', `/api/pos/sales/${sale.id}`, { headers });
        assert.deepEqual([read.status, read.body.status, read.body.unpaid, read.body.refundable], [200, 'accepted', 0, 5], JSON.stringify(read.body));
      }
      const claims = await s.db.query('SELECT reference FROM till_sale_tender_claims WHERE reference = ANY ($1::text[])', [[toBack.id, toForeign.id]]);
      assert.deepEqual(claims, []);
      assert.deepEqual(await other.events('pos.till_sale.tender_unpaid'), []);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('records the sale with its tap unpaid when the server declines the tap, tap first or sale first, and tells the merchant', async () => {
      const shop = await till(0);
      const { s } = shop;
      const merchantBefore = await balanceMinor(s, shop.merchant.handle, 'NGN');

      // The sale first: recorded in full; the tap is then declined (an empty wallet) and the sale shows what it did not pay.
      const tapA = shop.tap(1_200);
      const saleA = shop.sale(800, tapA);
      assert.equal(conflictsOf<TillSaleDoc>(await push(shop.socket, [saleA], 'till_sales'))[0]?.status, 'accepted');
      const [declinedA] = conflictsOf(await push(shop.socket, [tapA]));
      assert.deepEqual([declinedA?.status, declinedA?.declineCode], ['declined', 'insufficient_funds']);
      const readA = await s.request<Sale>('GET', `/api/pos/sales/${saleA.id}`, { headers: shop.term });
      assert.equal(readA.status, 200, JSON.stringify(readA.body));
      const unpaidEvents = await shop.events('pos.till_sale.tender_unpaid');
      assert.equal(unpaidEvents.length, 1);
      assert.deepEqual(
        [unpaidEvents[0]!.saleId, unpaidEvents[0]!.paymentId, unpaidEvents[0]!.unpaid, unpaidEvents[0]!.tenderAmount, unpaidEvents[0]!.paymentDeclineCode, unpaidEvents[0]!.status],
        [saleA.id, tapA.id, 12, 12, 'insufficient_funds', 'accepted'],
      );
      const [rowA] = await s.db.query<{ unpaid: string | number }>('SELECT unpaid FROM till_sales WHERE id = $1', [saleA.id]);
      assert.equal(Number(rowA?.unpaid), 1_200);
      // Pushed again, the tap answers its verdict and the shortfall is not counted twice.
      assert.equal(conflictsOf(await push(shop.socket, [tapA]))[0]?.declineCode, 'insufficient_funds');
      const [againA] = await s.db.query<{ unpaid: string | number }>('SELECT unpaid FROM till_sales WHERE id = $1', [saleA.id]);
      assert.equal(Number(againA?.unpaid), 1_200);

      // The tap first (declined), then the sale: recorded with that part unpaid at once.
      const tapB = shop.tap(600);
      const saleB = shop.sale(400, tapB);
      assert.equal(conflictsOf(await push(shop.socket, [tapB]))[0]?.declineCode, 'insufficient_funds');
      const [recordedB] = conflictsOf<TillSaleDoc>(await push(shop.socket, [saleB], 'till_sales'));
      assert.deepEqual([recordedB?.status, recordedB?.unpaidMinor], ['accepted', 600], JSON.stringify(recordedB));
      const recordedEvents = (await shop.events('pos.till_sale.recorded')).filter((event) => event.saleId === saleB.id);
      assert.deepEqual(recordedEvents.map((event) => event.unpaid), [6]);
      const readB = await s.request<Sale>('GET', `/api/pos/sales/${saleB.id}`, { headers: shop.key });
      assert.deepEqual([readB.body.status, readB.body.unpaid, readB.body.refundable], ['accepted', 6, 4], 'the unpaid part is shown and is not refundable');
      // Refunded, only what was paid goes back, from the drawer: the declined tap paid nothing.
      const refund = await s.request<Refund>('POST', '/api/pos/refunds', { headers: shop.key, body: { saleId: saleB.id } });
      assert.equal(refund.status, 201, JSON.stringify(refund.body));
      assert.deepEqual([refund.body.amount, refund.body.tenders], [4, [{ kind: 'cash', amount: 4 }]]);

      assert.equal(await balanceMinor(s, shop.merchant.handle, 'NGN'), merchantBefore, 'a declined tap moved nothing');
      const x = await s.request<Report>('GET', '/api/pos/reports/current', { headers: shop.term });
      assert.deepEqual([x.body.declinedOffline, x.body.methods.cash, x.body.gross], [{ count: 2, amount: 18 }, { count: 2, amount: 12 }, 12], 'the declined taps counted as declined, never as cash or takings');
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });
  });
}
