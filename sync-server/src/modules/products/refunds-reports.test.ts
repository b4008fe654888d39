import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import pg from 'pg';
import type { OfflinePaymentDoc } from '@tapline/shared/sync-protocol';
import { databaseTargets } from '../../testing/databases.ts';
import { balanceMinor } from '../../testing/ledger.ts';
import { uniqueHandle, useTestServer } from '../../testing/server.ts';
import { checkLedger } from '../../ledger/check.ts';
import { conflictsOf, connectTerminal, push } from '../../testing/offline.ts';

type Refund = { id: string; saleId: string; amount: number; lines: { line: number; quantity: number; amount: number; productId: string | null }[]; walletRef: string; terminalId: string | null; code?: string; error?: string };
type Sale = { saleId: string; refunded: number; refundable: number; refundableLines: { line: number; quantity: number; amount: number }[]; refunds: Refund[]; items: unknown[] | null; code?: string };
type Tally = { count: number; amount: number };
type Report = {
  id: string | null; kind: string; number: number | null; openedAt: string; closedAt: string; currency: string; gross: number; net: number;
  methods: Record<string, Tally>; online: Tally; offline: Tally; declinedOffline: Tally; giftCardsSold: Tally; refunds: Tally;
  taxes: { rate: number; taxable: number; tax: number }[]; oversold: { productId: string; stock: number }[]; code?: string;
};

for (const target of await databaseTargets()) {
  describe(`refunds and day reports on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 50 });

    /** A merchant with a tracked product, a terminal with a manager PIN, a customer with a ring. */
    async function till(stock = 10) {
      const s = server();
      const merchant = await s.createMerchant();
      const key = { 'x-merchant-api-key': merchant.testKey };
      const product = await s.request<{ id: string }>('POST', '/api/merchant/products', { headers: key, body: { name: 'Malt', price: 500, taxRate: 7.5, trackStock: true, stock } });
      const terminal = await s.request<{ id: string; token: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Till' } });
      const term = { authorization: `Bearer term.${terminal.body.token}` };
      const pin = await s.request<{ managerPinSet: boolean }>('PUT', `/api/merchant/terminals/${terminal.body.id}/manager-pin`, { headers: key, body: { pin: '4321' } });
      assert.equal(pin.status, 200, JSON.stringify(pin.body));
      assert.equal(pin.body.managerPinSet, true);
      const payer = uniqueHandle('buyer');
      await s.createWallet({ handle: payer, fund: 100_000 });
      const tag = await s.request<{ tagId: string }>('POST', '/api/wearables', { headers: key, body: { handle: payer, tagType: 'ring', displayName: 'Ring' } });
      return { merchant, key, term, terminalId: terminal.body.id, token: terminal.body.token, productId: product.body.id, payer, tagId: tag.body.tagId };
    }

    /** An online sale at the terminal: 3 Malt (one line) and a custom line of 100, paid by the ring. */
    async function sell(shop: Awaited<ReturnType<typeof till>>, quantity = 3) {
      const s = server();
      const created = await s.request<{ sessionId: string }>('POST', '/api/pos/sessions', {
        headers: shop.term,
        body: { amount: 500 * quantity + 100, currency: 'NGN', items: [{ productId: shop.productId, name: 'Malt', quantity, unitPrice: 500, taxRate: 7.5 }, { name: 'Bag', quantity: 1, unitPrice: 100 }] },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const paid = await s.request<{ status: string }>('POST', `/api/pos/sessions/${created.body.sessionId}/tap`, { headers: shop.term, body: { tagId: shop.tagId } });
      assert.equal(paid.body.status, 'completed');
      return created.body.sessionId;
    }

    const refund = (headers: Record<string, string>, body: Record<string, unknown>, extra: Record<string, string> = {}) =>
      server().request<Refund>('POST', '/api/pos/refunds', { headers: { ...headers, ...extra }, body });
    const stockOf = async (key: Record<string, string>, id: string) => (await server().request<{ stock: number }>('GET', `/api/merchant/products/${id}`, { headers: key })).body.stock;

    it('refunds by lines then the rest: money back to the payer by a ledger transfer, stock restored, never more than paid, an event', async () => {
      const s = server();
      const shop = await till(10);
      const saleId = await sell(shop);
      assert.equal(await stockOf(shop.key, shop.productId), 7);
      const payerBefore = await balanceMinor(s, shop.payer, 'NGN');
      const first = await refund(shop.term, { saleId, lines: [{ line: 0, quantity: 1 }], managerPin: '4321', reason: 'Broken bottle' });
      assert.equal(first.status, 201, JSON.stringify(first.body));
      assert.match(first.body.id, /^rf_[0-9a-f]{32}$/);
      assert.equal(first.body.amount, 500);
      assert.deepEqual(first.body.lines.map((l) => [l.line, l.quantity, l.amount, l.productId]), [[0, 1, 500, shop.productId]]);
      assert.equal(first.body.terminalId, shop.terminalId);
      assert.equal(await balanceMinor(s, shop.payer, 'NGN'), payerBefore + 50_000);
      assert.equal(await stockOf(shop.key, shop.productId), 8);
      const tooMany = await refund(shop.key, { saleId, lines: [{ line: 0, quantity: 3 }] });
      assert.equal(tooMany.status, 400);
      assert.equal(tooMany.body.code, 'refund_line_invalid');
      const badLine = await refund(shop.key, { saleId, lines: [{ line: 5, quantity: 1 }] });
      assert.equal(badLine.body.code, 'refund_line_invalid');
      const sale = await s.request<Sale>('GET', `/api/pos/sales/${saleId}`, { headers: shop.term });
      assert.equal(sale.status, 200, JSON.stringify(sale.body));
      assert.deepEqual([sale.body.refunded, sale.body.refundable], [500, 1100]);
      assert.deepEqual(sale.body.refundableLines, [{ line: 0, quantity: 2, amount: 1000 }, { line: 1, quantity: 1, amount: 100 }]);
      // The merchant refunds the rest without a PIN.
      const rest = await refund(shop.key, { saleId });
      assert.equal(rest.status, 201, JSON.stringify(rest.body));
      assert.equal(rest.body.amount, 1100);
      assert.equal(rest.body.terminalId, null);
      assert.equal(await balanceMinor(s, shop.payer, 'NGN'), payerBefore + 160_000);
      assert.equal(await stockOf(shop.key, shop.productId), 10);
      const nothing = await refund(shop.key, { saleId });
      assert.equal(nothing.status, 409);
      assert.equal(nothing.body.code, 'nothing_to_refund');
      const transfers = await s.db.query<{ kind: string }>('SELECT kind FROM ledger_transfers WHERE id = ANY($1::text[])', [[first.body.walletRef, rest.body.walletRef]]);
      assert.deepEqual(transfers.map((t) => t.kind), ['pos_refund', 'pos_refund']);
      const events = await s.db.query<{ type: string }>(`SELECT type FROM events WHERE merchant_id = $1 AND type = 'pos.refund.created'`, [shop.merchant.id]);
      assert.equal(events.length, 2);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('is idempotent, refuses concurrent over-refunds, and guards the manager PIN (required, wrong, lock-out) at the terminal', async () => {
      const s = server();
      const shop = await till(10);
      const saleId = await sell(shop, 1);
      const noPin = await refund(shop.term, { saleId });
      assert.deepEqual([noPin.status, noPin.body.code], [403, 'manager_pin_required']);
      const once = await refund(shop.term, { saleId, lines: [{ line: 1, quantity: 1 }], managerPin: '4321' }, { 'idempotency-key': 'refund-1' });
      const again = await refund(shop.term, { saleId, lines: [{ line: 1, quantity: 1 }], managerPin: '4321' }, { 'idempotency-key': 'refund-1' });
      assert.equal(once.status, 201);
      assert.equal(again.body.id, once.body.id);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      // Two full refunds at once: exactly one goes through.
      const racing = await Promise.all([refund(shop.key, { saleId }), refund(shop.key, { saleId })]);
      assert.deepEqual(racing.map((r) => r.status).sort(), [201, 409]);
      const sale = await s.request<Sale>('GET', `/api/pos/sales/${saleId}`, { headers: shop.key });
      assert.deepEqual([sale.body.refunded, sale.body.refundable, sale.body.refunds.length], [600, 0, 2]);
      const other = await sell(shop, 1);
      for (let i = 0; i < 4; i += 1) assert.equal((await refund(shop.term, { saleId: other, managerPin: '0000' })).body.code, 'wrong_manager_pin');
      const fifth = await refund(shop.term, { saleId: other, managerPin: '0000' });
      assert.equal(fifth.body.code, 'wrong_manager_pin');
      const locked = await refund(shop.term, { saleId: other, managerPin: '4321' });
      assert.equal(locked.status, 429);
      assert.equal(locked.body.code, 'manager_pin_locked');
      assert.ok(Number(locked.headers.get('retry-after')) > 0);
      const [stored] = await s.db.query<{ manager_pin_hash: string }>('SELECT manager_pin_hash FROM terminals WHERE id = $1', [shop.terminalId]);
      assert.ok(!stored!.manager_pin_hash.includes('4321'), 'the PIN is stored only as a slow hash');
      assert.equal((await s.request('PUT', `/api/merchant/terminals/${shop.terminalId}/manager-pin`, { headers: shop.key, body: { pin: '12' } })).status, 400);
      assert.equal((await s.request('PUT', `/api/merchant/terminals/${shop.terminalId}/manager-pin`, { headers: shop.key, body: { pin: '5555' } })).status, 200);
      assert.equal((await refund(shop.term, { saleId: other, managerPin: '5555' })).status, 201, 'a new PIN clears the lock-out');
      const unknown = await refund(shop.key, { saleId: randomUUID() });
      assert.deepEqual([unknown.status, unknown.body.code], [404, 'sale_not_found']);
    });

    it('finds a sale by the short id its receipt prints (8 hex digits or more, any case), by terminal and by merchant; two sales starting alike are a 409', async () => {
      const s = server();
      const shop = await till(10);
      const saleId = await sell(shop, 1);
      // The receipt prints "Session <first 8>" at the top, the whole id at the foot.
      for (const typed of [saleId.slice(0, 8), ` ${saleId.slice(0, 8).toUpperCase()} `, saleId.slice(0, 13), saleId.toUpperCase()]) {
        const found = await s.request<Sale>('GET', `/api/pos/sales/${encodeURIComponent(typed)}`, { headers: shop.term });
        assert.equal(found.status, 200, `${typed}: ${JSON.stringify(found.body)}`);
        assert.equal(found.body.saleId, saleId);
      }
      const byMerchant = await s.request<Sale>('GET', `/api/pos/sales/${saleId.slice(0, 8)}`, { headers: shop.key });
      assert.equal(byMerchant.body.saleId, saleId);
      // An offline payment's receipt prints its first 12 characters ("1a2b3c4d-5e6").
      const { socket } = await connectTerminal(s, `term.${shop.token}`);
      const offlineId = randomUUID();
      const verdicts = conflictsOf(await push(socket, [{ id: offlineId, terminalId: shop.terminalId, kind: 'tap', tagId: shop.tagId, amountMinor: 700, currency: 'NGN', description: '', capturedAt: new Date().toISOString(), status: 'queued', serverSeq: 0 }]));
      socket.disconnect();
      assert.deepEqual(verdicts.map((v) => v.status), ['accepted']);
      const offline = await s.request<Sale>('GET', `/api/pos/sales/${offlineId.slice(0, 12)}`, { headers: shop.term });
      assert.equal(offline.status, 200, JSON.stringify(offline.body));
      assert.equal(offline.body.saleId, offlineId);
      // Refunds take the short id too.
      const refunded = await refund(shop.term, { saleId: saleId.slice(0, 8), lines: [{ line: 1, quantity: 1 }], managerPin: '4321' });
      assert.equal(refunded.status, 201, JSON.stringify(refunded.body));
      assert.equal(refunded.body.saleId, saleId);
      // Too short, not hex, or nobody's: 404, as an unknown id.
      for (const typed of [saleId.slice(0, 7), 'zzzzzzzz', 'ffffffff-ffff']) {
        const missing = await s.request<Sale>('GET', `/api/pos/sales/${typed}`, { headers: shop.term });
        assert.deepEqual([missing.status, missing.body.code], [404, 'sale_not_found'], typed);
      }
      // Another terminal of the same merchant does not find this one's sale by its short id.
      const other = await s.request<{ token: string }>('POST', '/api/merchant/terminals', { headers: shop.key, body: { name: 'Back till' } });
      const elsewhere = await s.request<Sale>('GET', `/api/pos/sales/${saleId.slice(0, 8)}`, { headers: { authorization: `Bearer term.${other.body.token}` } });
      assert.deepEqual([elsewhere.status, elsewhere.body.code], [404, 'sale_not_found']);
      // Two sales starting with the same 8 digits (made so here; 1 in 4 billion by chance): the short id is ambiguous.
      const twins = await Promise.all([1, 2].map(() => s.request<{ sessionId: string }>('POST', '/api/pos/sessions', { headers: shop.term, body: { amount: 100, currency: 'NGN' } })));
      await s.db.query(`UPDATE pos_sessions SET id = ('abcdef01' || substr(id::text, 9))::uuid WHERE id = ANY($1::uuid[])`, [twins.map((twin) => twin.body.sessionId)]);
      const ambiguous = await s.request<Sale>('GET', '/api/pos/sales/ABCDEF01', { headers: shop.term });
      assert.deepEqual([ambiguous.status, ambiguous.body.code], [409, 'sale_id_ambiguous']);
    });

    it('tells the kiosk whether the terminal has a manager PIN and checks one, with the refunds\' lock-out', async () => {
      const s = server();
      const shop = await till(10);
      const check = (body: Record<string, unknown>, headers: Record<string, string> = shop.term) => s.request<{ terminalId: string; managerPinSet: boolean; verified: boolean; code?: string }>('POST', '/api/pos/manager-pin/check', { headers, body });
      assert.deepEqual((await check({})).body, { terminalId: shop.terminalId, managerPinSet: true, verified: false });
      assert.deepEqual((await check({ managerPin: '4321' })).body, { terminalId: shop.terminalId, managerPinSet: true, verified: true });
      const wrong = await check({ managerPin: '0000' });
      assert.deepEqual([wrong.status, wrong.body.code], [403, 'wrong_manager_pin']);
      assert.deepEqual([(await check({ managerPin: '12' })).status], [400]);
      assert.equal((await check({}, shop.key)).status, 403, 'a terminal token only');
      for (let i = 0; i < 5; i += 1) await check({ managerPin: '0000' });
      const locked = await check({ managerPin: '4321' });
      assert.deepEqual([locked.status, locked.body.code], [429, 'manager_pin_locked']);
      // A terminal without a manager PIN says so, and a PIN sent is refused as for a refund.
      const bare = await s.request<{ id: string; token: string }>('POST', '/api/merchant/terminals', { headers: shop.key, body: { name: 'No PIN' } });
      const bareTerm = { authorization: `Bearer term.${bare.body.token}` };
      assert.deepEqual((await check({}, bareTerm)).body, { terminalId: bare.body.id, managerPinSet: false, verified: false });
      const notSet = await check({ managerPin: '4321' }, bareTerm);
      assert.deepEqual([notSet.status, notSet.body.code], [403, 'manager_pin_not_set']);
    });

    it('the Z report closes the day, is numbered and immutable, and its totals equal the ledger\'s movements for that terminal and day', async () => {
      const s = server();
      const shop = await till(1);
      // Online: one sale (1600), refunded 500. Offline: an accepted tap with lines (overselling the product), a declined one.
      const saleId = await sell(shop, 1); // 600
      const { socket } = await connectTerminal(s, `term.${shop.token}`);
      const doc = (amountMinor: number, extra: Partial<OfflinePaymentDoc> = {}): OfflinePaymentDoc => ({
        id: randomUUID(), terminalId: shop.terminalId, kind: 'tap', tagId: shop.tagId, amountMinor, currency: 'NGN', description: 'Malt',
        capturedAt: new Date().toISOString(), status: 'queued', serverSeq: 0, ...extra,
      });
      const offlineSale = doc(100_000, { items: [{ productId: shop.productId, name: 'Malt', quantity: 2, unitPrice: 50_000, discount: 0, taxRate: 750, taxInclusive: true }] });
      const declinedSale = doc(5_000, { tagId: 'TG00000000' });
      const verdicts = conflictsOf(await push(socket, [offlineSale, declinedSale]));
      assert.deepEqual(verdicts.map((v) => v.status), ['accepted', 'declined']);
      const refunded = await refund(shop.term, { saleId, lines: [{ line: 0, quantity: 1 }], managerPin: '4321' });
      assert.equal(refunded.status, 201);

      const x = await s.request<Report>('GET', '/api/pos/reports/current', { headers: shop.term });
      assert.equal(x.status, 200, JSON.stringify(x.body));
      assert.deepEqual([x.body.kind, x.body.id, x.body.number], ['X', null, null]);
      const noPin = await s.request<Report>('POST', '/api/pos/reports', { headers: shop.term, body: {} });
      assert.deepEqual([noPin.status, noPin.body.code], [403, 'manager_pin_required']);
      const z = await s.request<Report>('POST', '/api/pos/reports', { headers: shop.term, body: { managerPin: '4321' } });
      assert.equal(z.status, 201, JSON.stringify(z.body));
      const r = z.body;
      assert.deepEqual([r.kind, r.number, r.currency], ['Z', 1, 'NGN']);
      assert.match(String(r.id), /^zr_/);
      assert.deepEqual(r.methods.walletTap, { count: 1, amount: 600 });
      assert.deepEqual(r.methods.offlineTap, { count: 1, amount: 1000 });
      assert.deepEqual(r.methods.qrOnline, { count: 0, amount: 0 });
      assert.deepEqual(r.online, { count: 1, amount: 600 });
      assert.deepEqual(r.offline, { count: 1, amount: 1000 });
      assert.deepEqual(r.declinedOffline, { count: 1, amount: 50 });
      assert.deepEqual(r.refunds, { count: 1, amount: 500 });
      assert.deepEqual([r.gross, r.net], [1600, 1100]);
      assert.deepEqual(r.oversold.map((o) => [o.productId, o.stock]), [[shop.productId, -1]]);
      assert.deepEqual(r.taxes.map((t) => t.rate), [0, 7.5]);
      assert.deepEqual([x.body.gross, x.body.net], [r.gross, r.net], 'the X report before closing said the same');

      // The ledger: every transfer into and out of the merchant's wallet for this terminal's sales and refunds that day.
      const [ledger] = await s.db.query<{ sales: number; refunds: number }>(
        `SELECT coalesce(sum(p.amount) FILTER (WHERE t.kind <> 'pos_refund'), 0)::int8 AS sales,
                coalesce(-sum(p.amount) FILTER (WHERE t.kind = 'pos_refund'), 0)::int8 AS refunds
         FROM ledger_postings p JOIN ledger_accounts a ON a.id = p.account_id JOIN ledger_transfers t ON t.id = p.transfer_id
         JOIN wallets w ON w.id = a.owner_id AND a.owner_type = 'wallet'
         WHERE w.merchant_id = $1 AND w.owner_type = 'merchant' AND a.mode = 'test' AND t.created_at <= $2 AND (
           t.id IN (SELECT wallet_ref FROM pos_sessions WHERE terminal_id = $3 AND status = 'completed')
           OR t.id IN (SELECT transfer_id FROM offline_payments WHERE terminal_id = $3 AND status = 'accepted')
           OR t.id IN (SELECT transfer_id FROM sale_refunds WHERE sale_terminal_id = $3))`,
        [shop.merchant.id, r.closedAt, shop.terminalId],
      );
      assert.equal(ledger!.sales, Math.round(r.gross * 100), 'gross = the ledger\'s credits to the merchant for the day');
      assert.equal(ledger!.refunds, Math.round(r.refunds.amount * 100), 'refunds = the ledger\'s debits');

      // Immutable, numbered, and the next day starts empty.
      await assert.rejects(s.db.query('UPDATE terminal_reports SET number = 9 WHERE id = $1', [r.id]), /immutable/);
      const list = await s.request<{ data: Report[]; total: number }>('GET', `/api/merchant/terminals/${shop.terminalId}/reports`, { headers: shop.key });
      assert.equal(list.body.total, 1);
      assert.deepEqual(list.body.data[0], r);
      const one = await s.request<Report>('GET', `/api/merchant/terminals/${shop.terminalId}/reports/${r.id}`, { headers: shop.key });
      assert.deepEqual(one.body, r);
      const mine = await s.request<Report>('GET', `/api/pos/reports/${r.id}`, { headers: shop.term });
      assert.deepEqual(mine.body, r);
      const z2 = await s.request<Report>('POST', '/api/pos/reports', { headers: shop.term, body: { managerPin: '4321' } });
      assert.equal(z2.body.number, 2);
      assert.equal(z2.body.openedAt, r.closedAt);
      assert.deepEqual([z2.body.gross, z2.body.refunds.count], [0, 0]);
      const other = await s.createMerchant();
      assert.equal((await s.request('GET', `/api/merchant/terminals/${shop.terminalId}/reports`, { headers: { 'x-merchant-api-key': other.testKey } })).status, 404);

      // An offline sale refunds too (the merchant's key, in full): its stock comes back, and the new day counts the refund.
      const offlineRefund = await refund(shop.key, { saleId: offlineSale.id });
      assert.equal(offlineRefund.status, 201, JSON.stringify(offlineRefund.body));
      assert.equal(offlineRefund.body.amount, 1000);
      assert.equal(await stockOf(shop.key, shop.productId), 1);
      const declinedRefund = await refund(shop.key, { saleId: declinedSale.id });
      assert.deepEqual([declinedRefund.status, declinedRefund.body.code], [409, 'sale_not_refundable']);
      const x3 = await s.request<Report>('GET', '/api/pos/reports/current', { headers: shop.term });
      assert.deepEqual([x3.body.refunds, x3.body.gross, x3.body.net, x3.body.oversold], [{ count: 1, amount: 1000 }, 0, -1000, []]);
    });

    /** Every transfer into and out of the merchant's wallet for this terminal's sales and refunds (minor units), up to `until`. */
    async function ledgerOfTerminal(merchantId: string, terminalId: string) {
      const [ledger] = await server().db.query<{ sales: number; refunds: number }>(
        `SELECT coalesce(sum(p.amount) FILTER (WHERE t.kind <> 'pos_refund'), 0)::int8 AS sales,
                coalesce(-sum(p.amount) FILTER (WHERE t.kind = 'pos_refund'), 0)::int8 AS refunds
         FROM ledger_postings p JOIN ledger_accounts a ON a.id = p.account_id JOIN ledger_transfers t ON t.id = p.transfer_id
         JOIN wallets w ON w.id = a.owner_id AND a.owner_type = 'wallet'
         WHERE w.merchant_id = $1 AND w.owner_type = 'merchant' AND a.mode = 'test' AND (
           t.id IN (SELECT wallet_ref FROM pos_sessions WHERE terminal_id = $2 AND status = 'completed')
           OR t.id IN (SELECT transfer_id FROM offline_payments WHERE terminal_id = $2 AND status = 'accepted')
           OR t.id IN (SELECT transfer_id FROM sale_refunds WHERE sale_terminal_id = $2))`,
        [merchantId, terminalId],
      );
      return { sales: Number(ledger!.sales), refunds: Number(ledger!.refunds) };
    }

    it('report taxes are net of refunds: a line refund gives back its share of the line\'s tax, a full refund the rest', async () => {
      const s = server();
      const shop = await till(10);
      // 3 Malt at 500 (7.5 % included): 1500, tax round(150000 × 750 / 10750) = 10465 minor; a Bag at 100, 0 %.
      const saleId = await sell(shop, 3);
      const x0 = await s.request<Report>('GET', '/api/pos/reports/current', { headers: shop.term });
      assert.deepEqual(x0.body.taxes, [{ rate: 0, taxable: 100, tax: 0 }, { rate: 7.5, taxable: 1395.35, tax: 104.65 }]);
      // One unit back: 500, of which tax 3488 (a third of 10465, half up) and taxable 46512.
      assert.equal((await refund(shop.term, { saleId, lines: [{ line: 0, quantity: 1 }], managerPin: '4321' })).status, 201);
      const x1 = await s.request<Report>('GET', '/api/pos/reports/current', { headers: shop.term });
      assert.deepEqual(x1.body.taxes, [{ rate: 0, taxable: 100, tax: 0 }, { rate: 7.5, taxable: 930.23, tax: 69.77 }]);
      // Another unit: cumulative shares (6977 - 3488 = 3489), so the three units give back exactly 10465.
      assert.equal((await refund(shop.term, { saleId, lines: [{ line: 0, quantity: 1 }], managerPin: '4321' })).status, 201);
      const x2 = await s.request<Report>('GET', '/api/pos/reports/current', { headers: shop.term });
      assert.deepEqual(x2.body.taxes, [{ rate: 0, taxable: 100, tax: 0 }, { rate: 7.5, taxable: 465.12, tax: 34.88 }]);
      // The rest in full (the last Malt and the Bag): every tax given back.
      assert.equal((await refund(shop.key, { saleId })).status, 201);
      const z = await s.request<Report>('POST', '/api/pos/reports', { headers: shop.term, body: { managerPin: '4321' } });
      assert.equal(z.status, 201);
      assert.deepEqual(z.body.taxes, [{ rate: 0, taxable: 0, tax: 0 }, { rate: 7.5, taxable: 0, tax: 0 }]);
      assert.deepEqual([z.body.gross, z.body.refunds, z.body.net], [1600, { count: 3, amount: 1600 }, 0]);
      // A refund the next day of a sale closed in an earlier report takes its tax off that day.
      const second = await sell(shop, 1); // 500 (tax 3488) + 100
      const z2 = await s.request<Report>('POST', '/api/pos/reports', { headers: shop.term, body: { managerPin: '4321' } });
      assert.deepEqual(z2.body.taxes, [{ rate: 0, taxable: 100, tax: 0 }, { rate: 7.5, taxable: 465.12, tax: 34.88 }]);
      assert.equal((await refund(shop.key, { saleId: second, lines: [{ line: 0, quantity: 1 }] })).status, 201);
      const x3 = await s.request<Report>('GET', '/api/pos/reports/current', { headers: shop.term });
      assert.deepEqual([x3.body.taxes, x3.body.gross, x3.body.net], [[{ rate: 7.5, taxable: -465.12, tax: -34.88 }], 0, -500]);
    });

    if (target.name === 'postgres') {
      it('a sale settling in a transaction still open while the Z report closes falls into the next report; the reports add up to the ledger', async () => {
        const s = server();
        const shop = await till(10);
        await sell(shop, 1); // 600, settled and committed before the close
        const created = await s.request<{ sessionId: string }>('POST', '/api/pos/sessions', {
          headers: shop.term, body: { amount: 1000, currency: 'NGN', items: [{ productId: shop.productId, name: 'Malt', quantity: 2, unitPrice: 500, taxRate: 7.5 }] },
        });
        assert.equal(created.status, 201);
        // Another connection holds the catalogue's change-number row: the tap's transaction runs
        // pos_tap (the session completed, the ledger transfer posted) and then waits to move the stock.
        const holder = new pg.Client({ connectionString: target.connectionString });
        await holder.connect();
        try {
          await holder.query('BEGIN');
          await holder.query('SELECT seq FROM product_sync_heads WHERE merchant_id = $1 AND mode = $2 FOR UPDATE', [shop.merchant.id, 'test']);
          const tapping = s.request<{ status: string }>('POST', `/api/pos/sessions/${created.body.sessionId}/tap`, { headers: shop.term, body: { tagId: shop.tagId } });
          const waiting = async () => Number((await holder.query<{ n: string }>(
            `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
          )).rows[0]!.n);
          for (const deadline = Date.now() + 60_000; (await waiting()) === 0 && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 25));
          assert.equal(await waiting(), 1, 'the tap waits inside its transaction, after pos_tap');
          const [ledgerSide] = (await holder.query<{ status: string }>('SELECT status FROM pos_sessions WHERE id = $1', [created.body.sessionId])).rows;
          assert.equal(ledgerSide!.status, 'pending', 'its completion is not committed yet');

          const x = await s.request<Report>('GET', '/api/pos/reports/current', { headers: shop.term });
          assert.deepEqual(x.body.online, { count: 1, amount: 600 }, 'the X report shows what the Z report will claim');
          const z1 = await s.request<Report>('POST', '/api/pos/reports', { headers: shop.term, body: { managerPin: '4321' } });
          assert.equal(z1.status, 201, JSON.stringify(z1.body));
          assert.deepEqual([z1.body.number, z1.body.online, z1.body.gross], [1, { count: 1, amount: 600 }, 600]);

          await holder.query('COMMIT');
          const tapped = await tapping;
          assert.equal(tapped.status, 200, JSON.stringify(tapped.body));
          assert.equal(tapped.body.status, 'completed');
          const [settled] = await s.db.query<{ ended_at: Date; z_report_id: string | null }>('SELECT ended_at, z_report_id FROM pos_sessions WHERE id = $1', [created.body.sessionId]);
          assert.ok(settled!.ended_at.getTime() <= new Date(z1.body.closedAt).getTime(), 'settled before the close: a window by settlement time would lose it');
          assert.equal(settled!.z_report_id, null);

          const x2 = await s.request<Report>('GET', '/api/pos/reports/current', { headers: shop.term });
          assert.deepEqual(x2.body.online, { count: 1, amount: 1000 });
          const z2 = await s.request<Report>('POST', '/api/pos/reports', { headers: shop.term, body: { managerPin: '4321' } });
          assert.deepEqual([z2.body.number, z2.body.online, z2.body.gross], [2, { count: 1, amount: 1000 }, 1000]);
          const [claimed] = await s.db.query<{ z_report_id: string }>('SELECT z_report_id FROM pos_sessions WHERE id = $1', [created.body.sessionId]);
          assert.equal(claimed!.z_report_id, z2.body.id);
          const z3 = await s.request<Report>('POST', '/api/pos/reports', { headers: shop.term, body: { managerPin: '4321' } });
          assert.deepEqual([z3.body.number, z3.body.gross], [3, 0], 'nothing is counted twice');

          const ledger = await ledgerOfTerminal(shop.merchant.id, shop.terminalId);
          const reports = [z1.body, z2.body, z3.body];
          assert.equal(ledger.sales, Math.round(reports.reduce((sum, r) => sum + r.gross, 0) * 100), 'the Z reports together hold every sale in the ledger');
          assert.equal(ledger.refunds, Math.round(reports.reduce((sum, r) => sum + r.refunds.amount, 0) * 100));
          assert.equal(ledger.sales, 160_000);
        } finally {
          await holder.query('ROLLBACK').catch(() => undefined);
          await holder.end();
        }
      });
    }
  });
}
