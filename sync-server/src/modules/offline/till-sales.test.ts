import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { SYNC_EVENTS, type SyncHello, type TillSaleDoc } from '@tapline/shared/sync-protocol';
import { databaseTargets } from '../../testing/databases.ts';
import { balanceMinor } from '../../testing/ledger.ts';
import { ADMIN, uniqueHandle, useTestServer } from '../../testing/server.ts';
import { checkLedger } from '../../ledger/check.ts';
import { conflictsOf, connectTerminal, pull, push } from '../../testing/offline.ts';

type Tender = { kind: string; amount: number; tendered?: number; change?: number };
type Sale = { saleId: string; kind: string; status: string; amount: number; tenders: Tender[]; change: number; tip: number; cashierId: string | null; walletRef: string | null; refundable: number; items: unknown[] | null };
type Refund = { id: string; amount: number; walletRef: string | null; tenders: { kind: string; amount: number }[]; saleKind: string };
type Tally = { count: number; amount: number };
type Report = { gross: number; net: number; methods: Record<string, Tally>; cash: { sales: Tally; collected: number; tendered: number; change: number; refunds: Tally; net: number }; tips: Tally; declinedTill: Tally; taxes: { rate: number; tax: number }[] };

/** A cash sale of `lines` as the kiosk writes it: NGN, minor units, the customer handing over `tendered`. */
function cashSale(terminalId: string, amountMinor: number, tenderedMinor: number, extra: Partial<TillSaleDoc> = {}): TillSaleDoc {
  return {
    id: randomUUID(),
    terminalId,
    amountMinor,
    currency: 'NGN',
    capturedAt: new Date().toISOString(),
    status: 'queued',
    serverSeq: 0,
    tenders: [{ kind: 'cash', amountMinor, tenderedMinor, changeMinor: tenderedMinor - amountMinor }],
    ...extra,
  };
}

for (const target of await databaseTargets()) {
  describe(`cash sales at the till (till_sales) on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 20 });

    async function till() {
      const s = server();
      const merchant = await s.createMerchant();
      const key = { 'x-merchant-api-key': merchant.testKey };
      const product = await s.request<{ id: string }>('POST', '/api/merchant/products', { headers: key, body: { name: 'Malt', price: 500, taxRate: 7.5, trackStock: true, stock: 10 } });
      assert.equal(product.status, 201, JSON.stringify(product.body));
      const created = await s.request<{ id: string; token: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Front till' } });
      assert.equal(created.status, 201);
      const term = { authorization: `Bearer term.${created.body.token}` };
      const pin = await s.request('PUT', `/api/merchant/terminals/${created.body.id}/manager-pin`, { headers: key, body: { pin: '4321' } });
      assert.equal(pin.status, 200);
      const { socket } = await connectTerminal(s, `term.${created.body.token}`);
      // Two of the merchant's till staff: sales and refunds name them (an unknown cashier is refused or flagged).
      const staff = async (name: string) => {
        const made = await s.request<{ id: string }>('POST', '/api/merchant/staff', { headers: key, body: { name, role: 'cashier', pin: '2468' } });
        assert.equal(made.status, 201, JSON.stringify(made.body));
        return made.body.id;
      };
      return { merchant, key, term, terminalId: created.body.id, productId: product.body.id, socket, ada: await staff('Ada'), bo: await staff('Bo') };
    }

    it('records a cash sale once with its change, moves its stock, moves no wallet money, and refunds it from the drawer', async () => {
      const s = server();
      const shop = await till();
      const merchantBefore = await balanceMinor(s, shop.merchant.handle, 'NGN');
      const items = [{ productId: shop.productId, name: 'Malt', quantity: 3, unitPrice: 50_000, discount: 0, taxRate: 750, taxInclusive: true }];
      const doc = cashSale(shop.terminalId, 150_000, 200_000, { items, discountMinor: 0, cashierId: shop.ada, tipMinor: 0 });

      const [settled] = conflictsOf<TillSaleDoc>(await push(shop.socket, [doc], 'till_sales'));
      assert.equal(settled?.status, 'accepted', JSON.stringify(settled));
      assert.ok(settled!.serverSeq > 0);
      assert.deepEqual(settled?.tenders, [{ kind: 'cash', amountMinor: 150_000, tenderedMinor: 200_000, changeMinor: 50_000 }]);
      assert.equal(settled?.cashierId, shop.ada);
      const replay = conflictsOf<TillSaleDoc>(await push(shop.socket, [{ ...doc, amountMinor: 1 }], 'till_sales'));
      assert.deepEqual(replay[0], settled, 'a replay answers the first verdict');

      const product = await s.request<{ stock: number }>('GET', `/api/merchant/products/${shop.productId}`, { headers: shop.key });
      assert.equal(product.body.stock, 7, 'three units sold once');
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'NGN'), merchantBefore, 'cash moves no wallet money');

      const sale = await s.request<Sale>('GET', `/api/pos/sales/${doc.id}`, { headers: shop.term });
      assert.equal(sale.status, 200, JSON.stringify(sale.body));
      assert.deepEqual([sale.body.kind, sale.body.status, sale.body.amount, sale.body.change, sale.body.tip, sale.body.cashierId, sale.body.walletRef], ['till_sale', 'accepted', 1500, 500, 0, shop.ada, null]);
      assert.deepEqual(sale.body.tenders, [{ kind: 'cash', amount: 1500, tendered: 2000, change: 500 }]);
      const short = await s.request<Sale>('GET', `/api/pos/sales/${doc.id.slice(0, 8)}`, { headers: shop.term });
      assert.equal(short.body.saleId, doc.id, 'the receipt\'s short id finds a till sale too');

      const x = await s.request<Report>('GET', '/api/pos/reports/current', { headers: shop.term });
      assert.equal(x.status, 200, JSON.stringify(x.body));
      assert.deepEqual(x.body.methods.cash, { count: 1, amount: 1500 });
      assert.deepEqual(x.body.cash, { sales: { count: 1, amount: 1500 }, collected: 1500, tendered: 2000, change: 500, refunds: { count: 0, amount: 0 }, net: 1500 });
      assert.equal(x.body.gross, 1500);
      assert.deepEqual(x.body.taxes.map((t) => [t.rate, t.tax]), [[7.5, 104.65]]);

      const refund = await s.request<Refund>('POST', '/api/pos/refunds', { headers: shop.term, body: { saleId: doc.id, lines: [{ line: 0, quantity: 1 }], managerPin: '4321' } });
      assert.equal(refund.status, 201, JSON.stringify(refund.body));
      assert.deepEqual([refund.body.amount, refund.body.walletRef, refund.body.saleKind], [500, null, 'till_sale']);
      assert.deepEqual(refund.body.tenders, [{ kind: 'cash', amount: 500 }]);
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'NGN'), merchantBefore, 'a cash refund comes from the drawer, not the wallet');
      assert.equal((await s.request<{ stock: number }>('GET', `/api/merchant/products/${shop.productId}`, { headers: shop.key })).body.stock, 8);
      const after = await s.request<Report>('GET', '/api/pos/reports/current', { headers: shop.term });
      assert.deepEqual(after.body.cash.refunds, { count: 1, amount: 500 });
      assert.equal(after.body.cash.net, 1000);
      assert.equal(after.body.net, 1000);

      const z = await s.request<Report>('POST', '/api/pos/reports', { headers: { ...shop.term, 'idempotency-key': randomUUID() }, body: { managerPin: '4321' } });
      assert.equal(z.status, 201, JSON.stringify(z.body));
      assert.deepEqual(z.body.cash.sales, { count: 1, amount: 1500 });
      const next = await s.request<Report>('GET', '/api/pos/reports/current', { headers: shop.term });
      assert.deepEqual(next.body.cash.sales, { count: 0, amount: 0 }, 'the Z report claimed the sale');

      const all = await pull<TillSaleDoc>(shop.socket, null, 100, 'till_sales');
      assert.ok('documents' in all);
      assert.deepEqual(all.documents.map((d) => d.id), [doc.id]);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('records a split sale (cash + a wallet tap), claims the tap once, and refunds the tap to the wallet first, the rest from the drawer', async () => {
      const s = server();
      const shop = await till();
      const payer = uniqueHandle('split');
      await s.createWallet({ handle: payer, fund: 100_000 });
      const tag = await s.request<{ tagId: string }>('POST', '/api/wearables', { headers: shop.key, body: { handle: payer, tagType: 'ring', displayName: 'Ring' } });
      const tap = async (amount: number) => {
        const created = await s.request<{ sessionId: string }>('POST', '/api/pos/sessions', { headers: shop.term, body: { amount, currency: 'NGN' } });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        const paid = await s.request<{ status: string }>('POST', `/api/pos/sessions/${created.body.sessionId}/tap`, { headers: shop.term, body: { tagId: tag.body.tagId } });
        assert.equal(paid.body.status, 'completed', JSON.stringify(paid.body));
        return created.body.sessionId;
      };
      const sessionId = await tap(400);
      const merchantBefore = await balanceMinor(s, shop.merchant.handle, 'NGN');
      const payerBefore = await balanceMinor(s, payer, 'NGN');
      const split = cashSale(shop.terminalId, 100_000, 100_000, {
        tenders: [{ kind: 'cash', amountMinor: 60_000, tenderedMinor: 100_000, changeMinor: 40_000 }, { kind: 'wallet', amountMinor: 40_000, reference: sessionId }],
      });
      const again = cashSale(shop.terminalId, 50_000, 10_000, { tenders: [{ kind: 'cash', amountMinor: 10_000, tenderedMinor: 10_000, changeMinor: 0 }, { kind: 'wallet', amountMinor: 40_000, reference: sessionId }] });
      const wrongAmount = cashSale(shop.terminalId, 50_000, 25_000, { tenders: [{ kind: 'cash', amountMinor: 25_000, tenderedMinor: 25_000, changeMinor: 0 }, { kind: 'wallet', amountMinor: 25_000, reference: await tap(300) }] });
      const unknown = cashSale(shop.terminalId, 50_000, 20_000, { tenders: [{ kind: 'cash', amountMinor: 20_000, tenderedMinor: 20_000, changeMinor: 0 }, { kind: 'wallet', amountMinor: 30_000, reference: 'not-a-session' }] });
      const verdicts = conflictsOf<TillSaleDoc>(await push(shop.socket, [split, again, wrongAmount, unknown], 'till_sales'));
      assert.deepEqual(verdicts.map((doc) => [doc.status, doc.declineCode ?? null]), [['accepted', null], ['declined', 'tender_claimed'], ['declined', 'tender_unverified'], ['declined', 'tender_unverified']]);
      assert.match(verdicts[2]?.declineReason ?? '', /took 300 NGN, the tender says 250 NGN/);

      const direct = await s.request<{ code: string }>('POST', '/api/pos/refunds', { headers: shop.term, body: { saleId: sessionId, managerPin: '4321' } });
      assert.equal(direct.status, 409);
      assert.equal(direct.body.code, 'sale_in_till_sale');
      const x = await s.request<Report>('GET', '/api/pos/reports/current', { headers: shop.term });
      assert.deepEqual(x.body.methods.cash, { count: 1, amount: 600 }, 'the cash part; the tap counts with the online sales');
      assert.equal(x.body.methods.walletTap?.amount, 700);

      const first = await s.request<Refund>('POST', '/api/pos/refunds', { headers: shop.term, body: { saleId: split.id, managerPin: '4321' } });
      assert.equal(first.status, 201, JSON.stringify(first.body));
      assert.deepEqual(first.body.tenders, [{ kind: 'wallet', amount: 400 }, { kind: 'cash', amount: 600 }]);
      assert.match(first.body.walletRef ?? '', /refund/);
      // The 300 tap made for the mismatched tender paid too, and is not refunded.
      assert.equal(await balanceMinor(s, payer, 'NGN'), payerBefore - 30_000 + 40_000, 'the tap goes back to the wallet that paid');
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'NGN'), merchantBefore + 30_000 - 40_000);
      const after = await s.request<Report>('GET', '/api/pos/reports/current', { headers: shop.term });
      assert.deepEqual(after.body.cash.refunds, { count: 1, amount: 600 });
      const sale = await s.request<Sale>('GET', `/api/pos/sales/${split.id}`, { headers: shop.key });
      assert.deepEqual(sale.body.tenders.map((t) => [t.kind, t.amount]), [['cash', 600], ['wallet', 400]]);
      assert.equal(sale.body.refundable, 0);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('gives a cancelled split sale\'s tap back to its payer without the manager PIN, once, and only a tender nobody claims', async () => {
      const s = server();
      const shop = await till();
      const payer = uniqueHandle('back');
      await s.createWallet({ handle: payer, fund: 100_000 });
      const tag = await s.request<{ tagId: string }>('POST', '/api/wearables', { headers: shop.key, body: { handle: payer, tagType: 'ring', displayName: 'Ring' } });
      const tap = async (amount: number, tenderOf?: string) => {
        const created = await s.request<{ sessionId: string; tenderOf?: string }>('POST', '/api/pos/sessions', { headers: shop.term, body: { amount, currency: 'NGN', ...(tenderOf ? { tenderOf } : {}) } });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        assert.equal(created.body.tenderOf, tenderOf);
        const paid = await s.request<{ status: string }>('POST', `/api/pos/sessions/${created.body.sessionId}/tap`, { headers: shop.term, body: { tagId: tag.body.tagId } });
        assert.equal(paid.body.status, 'completed', JSON.stringify(paid.body));
        return created.body.sessionId;
      };
      const cancelledSale = randomUUID();
      const payerBefore = await balanceMinor(s, payer, 'NGN');
      const merchantBefore = await balanceMinor(s, shop.merchant.handle, 'NGN');
      const tender = await tap(250, cancelledSale);
      assert.equal(await balanceMinor(s, payer, 'NGN'), payerBefore - 25_000);

      const returned = await s.request<Refund & { reason: string }>('POST', `/api/pos/sessions/${tender}/return`, { headers: shop.term, body: { cashierId: shop.ada } });
      assert.equal(returned.status, 201, JSON.stringify(returned.body));
      assert.deepEqual([returned.body.amount, returned.body.saleKind, returned.body.tenders], [250, 'pos_session', [{ kind: 'wallet', amount: 250 }]]);
      const again = await s.request<Refund>('POST', `/api/pos/sessions/${tender}/return`, { headers: shop.term });
      assert.equal(again.status, 201);
      assert.equal(again.body.id, returned.body.id, 'asking again answers the same refund');
      assert.equal(await balanceMinor(s, payer, 'NGN'), payerBefore, 'the payer has her money back, once');
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'NGN'), merchantBefore);

      // A returned tender pays no till sale afterwards.
      const late = cashSale(shop.terminalId, 25_000, 1, { tenders: [{ kind: 'wallet', amountMinor: 25_000, reference: tender }] });
      const [verdict] = conflictsOf<TillSaleDoc>(await push(shop.socket, [late], 'till_sales'));
      assert.deepEqual([verdict?.status, verdict?.declineCode], ['declined', 'tender_unverified']);
      assert.match(verdict?.declineReason ?? '', /given back/);

      // A claimed tender, an ordinary sale and a session with lines are refused; so is another terminal.
      const claimedSale = randomUUID();
      const claimed = await tap(100, claimedSale);
      const sold = cashSale(shop.terminalId, 10_000, 1, { id: claimedSale, tenders: [{ kind: 'wallet', amountMinor: 10_000, reference: claimed }] });
      assert.equal(conflictsOf<TillSaleDoc>(await push(shop.socket, [sold], 'till_sales'))[0]?.status, 'accepted');
      const refusals = [
        [await s.request<{ code: string }>('POST', `/api/pos/sessions/${claimed}/return`, { headers: shop.term }), 409, 'sale_in_till_sale'],
        [await s.request<{ code: string }>('POST', `/api/pos/sessions/${await tap(50)}/return`, { headers: shop.term }), 409, 'not_a_tender'],
        [await s.request<{ code: string }>('POST', `/api/pos/sessions/${randomUUID()}/return`, { headers: shop.term }), 404, 'sale_not_found'],
        [await s.request<{ code: string }>('POST', '/api/pos/sessions/not-a-uuid/return', { headers: shop.term, body: { shiftId: 'nope' } }), 400, 'validation_failed'],
        [await s.request<{ code: string }>('POST', '/api/pos/sessions', { headers: shop.key, body: { amount: 10, currency: 'NGN', tenderOf: randomUUID() } }), 400, 'tender_needs_terminal'],
        [await s.request<{ code: string }>('POST', '/api/pos/sessions', { headers: shop.term, body: { amount: 10, currency: 'NGN', tenderOf: 'x' } }), 400, 'validation_failed'],
        [
          await s.request<{ code: string }>('POST', '/api/pos/sessions', {
            headers: shop.term,
            body: { amount: 5, currency: 'NGN', tenderOf: randomUUID(), items: [{ productId: shop.productId, name: 'Malt', quantity: 1, unitPrice: 5 }] },
          }),
          400,
          'items_invalid',
        ],
      ] as const;
      assert.deepEqual(refusals.map(([answer]) => [answer.status, answer.body.code]), refusals.map(([, status, code]) => [status, code]));
      const other = await s.request<{ token: string }>('POST', '/api/merchant/terminals', { headers: shop.key, body: { name: 'Back till' } });
      const stranger = await s.request<{ code: string }>('POST', `/api/pos/sessions/${tender}/return`, { headers: { authorization: `Bearer term.${other.body.token}` } });
      assert.deepEqual([stranger.status, stranger.body.code], [404, 'sale_not_found'], 'a terminal gives back its own tenders only');
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('records who charged a wallet sale and counts it for that cashier; a split sale\'s tap counts once, with its till sale', async () => {
      const s = server();
      const shop = await till();
      const payer = uniqueHandle('who');
      await s.createWallet({ handle: payer, fund: 100_000 });
      const tag = await s.request<{ tagId: string }>('POST', '/api/wearables', { headers: shop.key, body: { handle: payer, tagType: 'ring', displayName: 'Ring' } });
      const charge = async (body: Record<string, unknown>) => {
        const created = await s.request<{ sessionId: string; cashierId?: string }>('POST', '/api/pos/sessions', { headers: shop.term, body: { currency: 'NGN', ...body } });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        assert.equal(created.body.cashierId, body.cashierId);
        const paid = await s.request<{ status: string }>('POST', `/api/pos/sessions/${created.body.sessionId}/tap`, { headers: shop.term, body: { tagId: tag.body.tagId } });
        assert.equal(paid.body.status, 'completed');
        return created.body.sessionId;
      };
      await charge({ amount: 20, cashierId: shop.bo });
      const saleId = randomUUID();
      const part = await charge({ amount: 3, cashierId: shop.bo, tenderOf: saleId });
      const split = cashSale(shop.terminalId, 1_000, 700, { id: saleId, cashierId: shop.bo, tenders: [{ kind: 'cash', amountMinor: 700, tenderedMinor: 700, changeMinor: 0 }, { kind: 'wallet', amountMinor: 300, reference: part }] });
      assert.equal(conflictsOf<TillSaleDoc>(await push(shop.socket, [split], 'till_sales'))[0]?.status, 'accepted');
      const tooLong = await s.request<{ code: string }>('POST', '/api/pos/sessions', { headers: shop.term, body: { amount: 1, currency: 'NGN', cashierId: 'x'.repeat(65) } });
      assert.deepEqual([tooLong.status, tooLong.body.code], [400, 'validation_failed']);
      const x = await s.request<{ cashiers: { cashierId: string; sales: { count: number; amount: number } }[] }>('GET', '/api/pos/reports/current', { headers: shop.term });
      assert.deepEqual(x.body.cashiers.map((entry) => [entry.cashierId, entry.sales]), [[shop.bo, { count: 2, amount: 30 }]], 'the wallet sale and the split sale, its tap not twice');
    });

    it('refuses a cashier who is none of the merchant\'s people on the REST endpoints (422 cashier_unknown), and keeps a pushed till sale with one all the same', async () => {
      const s = server();
      const shop = await till();
      const otherShop = await till();
      const payer = uniqueHandle('who');
      await s.createWallet({ handle: payer, fund: 100_000 });
      const tag = await s.request<{ tagId: string }>('POST', '/api/wearables', { headers: shop.key, body: { handle: payer, tagType: 'ring', displayName: 'Ring' } });
      // A dashboard user of the merchant may be named too (the merchant's people); another merchant's staff may not.
      const owner = await s.request<{ userId: string }>('POST', `/api/admin/merchants/${shop.merchant.id}/owner`, { headers: ADMIN, body: { email: `owner.${uniqueHandle('o')}@example.com` } });
      assert.equal(owner.status, 201, JSON.stringify(owner.body));
      const ownerUser = { id: owner.body.userId };
      for (const cashierId of [otherShop.ada, 'staff_nobody']) {
        const session = await s.request<{ code: string; error: string }>('POST', '/api/pos/sessions', { headers: shop.term, body: { amount: 5, currency: 'NGN', cashierId } });
        assert.deepEqual([session.status, session.body.code], [422, 'cashier_unknown'], JSON.stringify(session.body));
        assert.match(session.body.error, /not one of the merchant's till staff/);
      }
      const [{ count: opened } = { count: 0 }] = await s.db.query<{ count: number }>('SELECT count(*)::int AS count FROM pos_sessions WHERE merchant_id = $1', [shop.merchant.id]);
      assert.equal(Number(opened), 0, 'nothing was opened for an unknown cashier');
      const byOwner = await s.request<{ sessionId: string; cashierId: string }>('POST', '/api/pos/sessions', { headers: shop.key, body: { amount: 5, currency: 'NGN', cashierId: ownerUser.id } });
      assert.deepEqual([byOwner.status, byOwner.body.cashierId], [201, ownerUser.id]);

      // Refunds and a split tender's return: refused before the PIN is spent.
      const sessionOf = async (body: Record<string, unknown>) => {
        const created = await s.request<{ sessionId: string }>('POST', '/api/pos/sessions', { headers: shop.term, body: { amount: 4, currency: 'NGN', ...body } });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        const paid = await s.request<{ status: string }>('POST', `/api/pos/sessions/${created.body.sessionId}/tap`, { headers: shop.term, body: { tagId: tag.body.tagId } });
        assert.equal(paid.body.status, 'completed');
        return created.body.sessionId;
      };
      const sale = await sessionOf({ cashierId: shop.ada });
      const refused = await s.request<{ code: string }>('POST', '/api/pos/refunds', { headers: shop.term, body: { saleId: sale, managerPin: '0000', cashierId: 'staff_nobody' } });
      assert.deepEqual([refused.status, refused.body.code], [422, 'cashier_unknown'], 'checked before the (wrong) PIN');
      const tender = await sessionOf({ cashierId: shop.ada, tenderOf: randomUUID() });
      const notReturned = await s.request<{ code: string }>('POST', `/api/pos/sessions/${tender}/return`, { headers: shop.term, body: { cashierId: otherShop.bo } });
      assert.deepEqual([notReturned.status, notReturned.body.code], [422, 'cashier_unknown']);
      const refund = await s.request<{ cashierId: string }>('POST', '/api/pos/refunds', { headers: shop.term, body: { saleId: sale, managerPin: '4321', cashierId: shop.bo } });
      assert.deepEqual([refund.status, refund.body.cashierId], [201, shop.bo]);
      const read = await s.request<Sale>('GET', `/api/pos/sales/${sale}`, { headers: shop.term });
      assert.equal(read.body.cashierId, shop.ada, 'a wallet sale answers who charged it');

      // Pushed from a kiosk (offline), a till sale the customer paid is never declined for its cashier: the id its kiosk recorded is kept.
      const pushed = [cashSale(shop.terminalId, 2_000, 2_000, { cashierId: otherShop.ada }), cashSale(shop.terminalId, 4_000, 4_000, { cashierId: shop.ada })];
      const verdicts = conflictsOf<TillSaleDoc>(await push(shop.socket, pushed, 'till_sales'));
      assert.deepEqual(verdicts.map((doc) => [doc.status, doc.cashierId]), [['accepted', otherShop.ada], ['accepted', shop.ada]]);
      const x = await s.request<{ cash: { sales: { count: number } } }>('GET', '/api/pos/reports/current', { headers: shop.term });
      assert.equal(x.body.cash.sales.count, 2, 'both till sales are in the day');
    });

    it('sets a till\'s tipping (off by default) and tells the kiosk in its hello', async () => {
      const s = server();
      const shop = await till();
      const before = await connectTerminal(s, `term.${(await s.request<{ token: string }>('POST', '/api/merchant/terminals', { headers: shop.key, body: { name: 'Bar' } })).body.token}`);
      assert.deepEqual(before.hello.tipping, { mode: 'off', percentages: [10, 15, 20] });
      before.socket.disconnect();
      const hello = new Promise<SyncHello>((resolve) => shop.socket.once(SYNC_EVENTS.hello, resolve));
      const set = await s.request<{ tipping: unknown }>('PATCH', `/api/merchant/terminals/${shop.terminalId}`, { headers: shop.key, body: { tipping: { mode: 'after', percentages: [15, 5, 10] } } });
      assert.equal(set.status, 200, JSON.stringify(set.body));
      assert.deepEqual(set.body.tipping, { mode: 'after', percentages: [5, 10, 15] });
      for (const tipping of [{ mode: 'sometimes', percentages: [10] }, { mode: 'before', percentages: [0] }, { mode: 'before', percentages: [5, 10, 15, 20] }, { mode: 'before', percentages: [10, 10] }, { mode: 'before' }]) {
        const refused = await s.request<{ code: string }>('PATCH', `/api/merchant/terminals/${shop.terminalId}`, { headers: shop.key, body: { tipping } });
        assert.equal(refused.status, 400, JSON.stringify(tipping));
      }
      assert.deepEqual((await hello).tipping, { mode: 'after', percentages: [5, 10, 15] }, 'the connected kiosk hears it at once');
    });

    it('declines what does not add up, with a precise code, and records each one for the terminal', async () => {
      const shop = await till();
      const docs = [
        cashSale(shop.terminalId, 10_000, 5_000, { tenders: [{ kind: 'cash', amountMinor: 10_000, tenderedMinor: 5_000, changeMinor: 0 }] }),
        cashSale(shop.terminalId, 10_000, 20_000, { tenders: [{ kind: 'cash', amountMinor: 10_000, tenderedMinor: 20_000, changeMinor: 5_000 }] }),
        cashSale(shop.terminalId, 10_000, 10_000, { tenders: [{ kind: 'cash', amountMinor: 9_000, tenderedMinor: 9_000, changeMinor: 0 }] }),
        cashSale(shop.terminalId, 10_000, 10_000, { tenders: [{ kind: 'wallet', amountMinor: 10_000, reference: randomUUID() }] }),
        cashSale(shop.terminalId, 10_000, 10_000, { tenders: [] }),
        cashSale(shop.terminalId, 10_000, 10_000, { tenders: 'cash' as never }),
        cashSale(shop.terminalId, 10_000, 10_000, { tenders: [{ kind: 'cash', amountMinor: 100.5, tenderedMinor: Number.MAX_VALUE, changeMinor: -1 }, null] as never }),
        cashSale(shop.terminalId, 10_000, 10_000, { currency: 'KES' }),
        cashSale(shop.terminalId, 10_000, 10_000, { items: [{ productId: null, name: 'Bag', quantity: 1, unitPrice: 9_000, discount: 0, taxRate: 0, taxInclusive: true }] }),
        cashSale(shop.terminalId, 10_000, 12_000, { tipMinor: 1_000, tenders: [{ kind: 'cash', amountMinor: 11_000, tenderedMinor: 12_000, changeMinor: 1_000 }] }),
      ];
      const verdicts = conflictsOf<TillSaleDoc>(await push(shop.socket, docs, 'till_sales'));
      assert.deepEqual(verdicts.map((doc) => [doc.status, doc.declineCode ?? null]), [
        ['declined', 'cash_short'],
        ['declined', 'change_mismatch'],
        ['declined', 'tenders_mismatch'],
        ['declined', 'tender_unverified'],
        ['declined', 'invalid_document'],
        ['declined', 'invalid_document'],
        ['declined', 'invalid_document'],
        ['declined', 'currency_not_accepted'],
        ['declined', 'items_total_mismatch'],
        ['accepted', null],
      ]);
      assert.match(verdicts[0]?.declineReason ?? '', /50 NGN handed over for 100 NGN due/);
      assert.match(verdicts[4]?.declineReason ?? '', /tenders must be a list of 1 to 8/);
      const x = await server().request<Report>('GET', '/api/pos/reports/current', { headers: shop.term });
      assert.deepEqual(x.body.declinedTill, { count: 9, amount: 900 });
      assert.match(verdicts[6]?.declineReason ?? '', /tenders\.0\.amountMinor must be a positive integer/);
      assert.deepEqual(x.body.tips, { count: 1, amount: 10 });
      assert.deepEqual([x.body.cash.collected, x.body.cash.tendered, x.body.cash.change, x.body.gross], [110, 120, 10, 100], 'the tip is cash kept, apart from the gross');
    });
  });
}
