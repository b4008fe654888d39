import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { randomUUID } from 'node:crypto';
import type { OfflinePaymentDoc, ProductDoc, StreamMessage } from '@tapline/shared/sync-protocol';
import { SYNC_EVENTS } from '@tapline/shared/sync-protocol';
import { databaseTargets } from '../../testing/databases.ts';
import { conflictsOf, connectTerminal, push } from '../../testing/offline.ts';
import { balanceMinor } from '../../testing/ledger.ts';
import { type TestServer, uniqueHandle, useTestServer } from '../../testing/server.ts';

type Line = { line: number; productId: string | null; name: string; quantity: number; unitPrice: number; discount: number; taxRate: number; taxInclusive: boolean; net: number; tax: number; total: number };
type Session = {
  sessionId: string; status: string; amount: number; items?: Line[]; cartDiscount?: number;
  totals?: { subtotal: number; discount: number; tax: number; total: number }; code?: string; error?: string; details?: unknown[];
};

/** A merchant with a catalogue product, a terminal, and funded customers with rings. */
export async function shopWithStock(server: TestServer, stock: number, customers = 1) {
  const merchant = await server.createMerchant();
  const key = { 'x-merchant-api-key': merchant.testKey };
  const product = await server.request<{ id: string }>('POST', '/api/merchant/products', { headers: key, body: { name: 'Malt', price: 500, taxRate: 7.5, trackStock: true, stock } });
  assert.equal(product.status, 201, JSON.stringify(product.body));
  const tags: string[] = [];
  const payers: string[] = [];
  for (let i = 0; i < customers; i += 1) {
    const payer = uniqueHandle('buyer');
    await server.createWallet({ handle: payer, fund: 100_000 });
    const tag = await server.request<{ tagId: string }>('POST', '/api/wearables', { headers: key, body: { handle: payer, tagType: 'ring', displayName: 'Ring' } });
    assert.equal(tag.status, 201);
    tags.push(tag.body.tagId);
    payers.push(payer);
  }
  return { merchant, key, productId: product.body.id, tags, payers };
}

for (const target of await databaseTargets()) {
  describe(`lines on POS sessions and stock on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 50 });
    const received: { body: Record<string, unknown> }[] = [];
    const receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        received.push({ body: JSON.parse(body) as Record<string, unknown> });
        response.end('ok');
      });
    });
    let callbackUrl = '';
    before(async () => {
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    });
    after(() => receiver.close());

    const open = (key: Record<string, string>, body: Record<string, unknown>) => server().request<Session>('POST', '/api/pos/sessions', { headers: key, body: { currency: 'NGN', ...body } });
    const tap = (key: Record<string, string>, sessionId: string, tagId: string) => server().request<Session>('POST', `/api/pos/sessions/${sessionId}/tap`, { headers: key, body: { tagId } });
    const stockOf = async (key: Record<string, string>, productId: string) => (await server().request<{ stock: number }>('GET', `/api/merchant/products/${productId}`, { headers: key })).body.stock;

    it('stores the lines with the sale and answers them with totals in create, GET, list, tap and the callback; stock goes down when it settles', async () => {
      const s = server();
      const { key, productId, tags } = await shopWithStock(s, 10);
      // 2 × 500 (7.5 % inclusive) − 100 line discount, a custom line 250 at 0 %, cart discount 50: total 1100.
      const items = [
        { productId, name: 'Malt', quantity: 2, unitPrice: 500, discount: 100, taxRate: 7.5 },
        { name: 'Delivery', quantity: 1, unitPrice: 250 },
      ];
      const created = await open(key, { amount: 1100, items, discount: 50, callbackUrl });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.cartDiscount, 50);
      assert.deepEqual(created.body.totals, { subtotal: 1250, discount: 150, tax: 60.06, total: 1100 });
      assert.deepEqual(created.body.items!.map((l) => [l.line, l.productId, l.name, l.quantity, l.unitPrice, l.discount, l.taxRate, l.taxInclusive, l.net, l.tax, l.total]), [
        [0, productId, 'Malt', 2, 500, 139.13, 7.5, true, 800.81, 60.06, 860.87],
        [1, null, 'Delivery', 1, 250, 10.87, 0, true, 239.13, 0, 239.13],
      ]);
      assert.equal(await stockOf(key, productId), 10, 'nothing moves before the sale settles');
      const paid = await tap(key, created.body.sessionId, tags[0]!);
      assert.equal(paid.status, 200, JSON.stringify(paid.body));
      assert.equal(paid.body.status, 'completed');
      assert.deepEqual(paid.body.items, created.body.items);
      assert.equal(await stockOf(key, productId), 8);
      const read = await s.request<Session>('GET', `/api/pos/sessions/${created.body.sessionId}`, { headers: key });
      assert.deepEqual(read.body.totals, created.body.totals);
      const list = await s.request<{ data: Session[] }>('GET', '/api/pos/sessions', { headers: key });
      assert.deepEqual(list.body.data.find((row) => row.sessionId === created.body.sessionId)?.items, created.body.items);
      await s.context.events.runOnce();
      const hook = received.find((entry) => entry.body.sessionId === created.body.sessionId);
      assert.ok(hook, 'the callback was delivered');
      assert.equal(hook.body.event, 'pos.session.completed');
      assert.deepEqual(hook.body.items, created.body.items);
      assert.deepEqual(hook.body.totals, created.body.totals);
    });

    it('a session without items answers no lines (unchanged)', async () => {
      const { key } = await shopWithStock(server(), 1);
      const created = await open(key, { amount: 10 });
      assert.equal(created.status, 201);
      assert.equal(created.body.items, undefined);
      assert.equal(created.body.totals, undefined);
    });

    it('refuses lines that do not add up (items_total_mismatch with both totals) and every CartError rule with its code', async () => {
      const { key, productId } = await shopWithStock(server(), 5);
      const mismatch = await open(key, { amount: 999, items: [{ productId, name: 'Malt', quantity: 2, unitPrice: 500 }] });
      assert.equal(mismatch.status, 400);
      assert.equal(mismatch.body.code, 'items_total_mismatch');
      assert.deepEqual(mismatch.body.details, [{ itemsTotal: 1000, amount: 999 }]);
      const line = { name: 'X', quantity: 1, unitPrice: 10 };
      const cases: [Record<string, unknown>, string][] = [
        [{ amount: 10, items: [] }, 'validation_failed'],
        [{ amount: 10, items: Array.from({ length: 201 }, () => line) }, 'validation_failed'],
        [{ amount: 10, items: [{ ...line, name: '   ' }] }, 'item_name_invalid'],
        [{ amount: 10, items: [{ ...line, unitPrice: 10.001 }] }, 'item_price_invalid'],
        [{ amount: 10, items: [{ ...line, discount: 11 }] }, 'item_discount_invalid'],
        [{ amount: 10, items: [{ ...line, discount: 0.001 }] }, 'item_discount_invalid'],
        [{ amount: 10, items: [{ ...line, taxRate: 7.555 }] }, 'item_tax_rate_invalid'],
        [{ amount: 10, items: [line], discount: 11 }, 'discount_invalid'],
        [{ amount: 10, discount: 1 }, 'items_invalid'],
        [{ amount: 10, items: [{ ...line, productId: 'prod_unknown' }] }, 'product_not_found'],
      ];
      for (const [body, code] of cases) {
        const answer = await open(key, body);
        assert.ok(answer.status === 400 || answer.status === 404, `${code}: ${answer.status}`);
        assert.equal(answer.body.code, code, `${JSON.stringify(body).slice(0, 120)} -> ${JSON.stringify(answer.body)}`);
      }
    });

    it('refuses a tracked product out of stock before any charge (409 out_of_stock with productId, available, requested)', async () => {
      const s = server();
      const { key, productId } = await shopWithStock(s, 2);
      const refused = await open(key, { amount: 1500, items: [{ productId, name: 'Malt', quantity: 2, unitPrice: 500 }, { productId, name: 'Malt', quantity: 1, unitPrice: 500 }] });
      assert.equal(refused.status, 409);
      assert.equal(refused.body.code, 'out_of_stock');
      assert.deepEqual(refused.body.details, [{ productId, available: 2, requested: 3 }]);
      const exact = await open(key, { amount: 1000, items: [{ productId, name: 'Malt', quantity: 2, unitPrice: 500 }] });
      assert.equal(exact.status, 201, 'exactly the units in stock is fine');
    });

    it('refuses an archived or deactivated product on an online sale before any charge (409 product_unavailable naming it), at creation and at the tap', async () => {
      const s = server();
      const { key, productId, tags, payers } = await shopWithStock(s, 5);
      const item = { productId, name: 'Malt', quantity: 1, unitPrice: 500 };
      // Created while the product is sold, archived before the tap: the tap is refused, nothing is charged.
      const pending = await open(key, { amount: 500, items: [item] });
      assert.equal(pending.status, 201);
      assert.equal((await s.request('POST', `/api/merchant/products/${productId}/archive`, { headers: key })).status, 200);
      const before = await balanceMinor(s, payers[0]!, 'NGN');
      const tapped = await tap(key, pending.body.sessionId, tags[0]!);
      assert.deepEqual([tapped.status, tapped.body.code], [409, 'product_unavailable']);
      assert.deepEqual(tapped.body.details, [{ productId, name: 'Malt', reason: 'archived' }]);
      assert.equal(await balanceMinor(s, payers[0]!, 'NGN'), before, 'nothing charged');
      assert.equal(await stockOf(key, productId), 5);
      const archived = await open(key, { amount: 500, items: [item] });
      assert.deepEqual([archived.status, archived.body.code, archived.body.details], [409, 'product_unavailable', [{ productId, name: 'Malt', reason: 'archived' }]]);
      // Deactivated (not archived): refused the same way, with its reason.
      assert.equal((await s.request('POST', `/api/merchant/products/${productId}/unarchive`, { headers: key })).status, 200);
      assert.equal((await s.request('PATCH', `/api/merchant/products/${productId}`, { headers: key, body: { active: false } })).status, 200);
      const inactive = await open(key, { amount: 1000, items: [{ name: 'Bag', quantity: 1, unitPrice: 500 }, item] });
      assert.deepEqual([inactive.status, inactive.body.code, inactive.body.details], [409, 'product_unavailable', [{ productId, name: 'Malt', reason: 'inactive' }]]);
      assert.equal((await s.request('PATCH', `/api/merchant/products/${productId}`, { headers: key, body: { active: true } })).status, 200);
      assert.equal((await open(key, { amount: 500, items: [item] })).status, 201, 'sold again once active');
    });

    it('an offline sale of an archived product is never refused (it already happened); a cart discount without lines is declined items_invalid', async () => {
      const s = server();
      const { key, productId, tags } = await shopWithStock(s, 4, 1);
      assert.equal((await s.request('POST', `/api/merchant/products/${productId}/archive`, { headers: key })).status, 200);
      const terminal = await s.request<{ id: string; token: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Till' } });
      const { socket } = await connectTerminal(s, `term.${terminal.body.token}`);
      const doc = (amountMinor: number, extra: Partial<OfflinePaymentDoc>): OfflinePaymentDoc => ({
        id: randomUUID(), terminalId: terminal.body.id, kind: 'tap', tagId: tags[0]!, amountMinor, currency: 'NGN', description: 'Malt',
        capturedAt: new Date().toISOString(), status: 'queued', serverSeq: 0, ...extra,
      });
      const archivedSale = doc(100_000, { items: [{ productId, name: 'Malt', quantity: 2, unitPrice: 50_000, discount: 0, taxRate: 750, taxInclusive: true }] });
      const discountOnly = doc(9_000, { discountMinor: 1_000 });
      const zeroDiscount = doc(9_000, { discountMinor: 0 });
      const verdicts = new Map(conflictsOf(await push(socket, [archivedSale, discountOnly, zeroDiscount])).map((v) => [v.id, v]));
      assert.equal(verdicts.get(archivedSale.id)!.status, 'accepted', JSON.stringify(verdicts.get(archivedSale.id)));
      assert.deepEqual([verdicts.get(discountOnly.id)!.status, verdicts.get(discountOnly.id)!.declineCode], ['declined', 'items_invalid']);
      assert.equal(verdicts.get(zeroDiscount.id)!.status, 'accepted', 'a zero discount without lines says nothing wrong');
      const product = await s.request<{ stock: number }>('GET', `/api/merchant/products/${productId}?`, { headers: key });
      assert.equal(product.body.stock, 2, 'the archived product\'s stock still moves');
    });

    it('two kiosks racing for the last units: exactly the available units are sold, the other tap is refused uncharged', async () => {
      const s = server();
      const { key, productId, tags, payers } = await shopWithStock(s, 3, 4);
      // Four sessions of 1 unit each pass the creation check (3 in stock); they settle concurrently.
      const sessions = [];
      for (let i = 0; i < 4; i += 1) {
        const created = await open(key, { amount: 500, items: [{ productId, name: 'Malt', quantity: 1, unitPrice: 500 }] });
        assert.equal(created.status, 201);
        sessions.push(created.body.sessionId);
      }
      const before = await Promise.all(payers.map((payer) => balanceMinor(s, payer, 'NGN')));
      const answers = await Promise.all(sessions.map((id, i) => tap(key, id, tags[i]!)));
      const completed = answers.filter((a) => a.status === 200 && a.body.status === 'completed');
      const refused = answers.filter((a) => a.status === 409);
      assert.equal(completed.length, 3, JSON.stringify(answers.map((a) => [a.status, a.body.code ?? a.body.status])));
      assert.equal(refused.length, 1);
      assert.equal(refused[0]!.body.code, 'out_of_stock');
      assert.equal(await stockOf(key, productId), 0);
      const afterBalances = await Promise.all(payers.map((payer) => balanceMinor(s, payer, 'NGN')));
      const charged = afterBalances.map((balance, i) => before[i]! - balance).filter((delta) => delta !== 0);
      assert.deepEqual(charged, [50_000, 50_000, 50_000], 'exactly three customers were charged');
      const refusedIndex = answers.findIndex((a) => a.status === 409);
      const pending = await s.request<Session>('GET', `/api/pos/sessions/${sessions[refusedIndex]!}`, { headers: key });
      assert.equal(pending.body.status, 'pending', 'the refused session is left for the kiosk to cancel');
    });

    it('offline sales carry their lines: kept and answered, never refused for stock (oversold), mismatches declined with the CartError code while the rest settle', async () => {
      const s = server();
      const { key, productId, tags } = await shopWithStock(s, 1, 1);
      const terminal = await s.request<{ id: string; token: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Till' } });
      const { socket } = await connectTerminal(s, `term.${terminal.body.token}`);
      const doc = (amountMinor: number, items: unknown, extra: Record<string, unknown> = {}): OfflinePaymentDoc => ({
        id: randomUUID(), terminalId: terminal.body.id, kind: 'tap', tagId: tags[0]!, amountMinor, currency: 'NGN', description: 'Malt',
        capturedAt: new Date().toISOString(), status: 'queued', serverSeq: 0, items: items as OfflinePaymentDoc['items'], ...extra,
      });
      const line = { productId, name: 'Malt', quantity: 3, unitPrice: 50_000, discount: 0, taxRate: 750, taxInclusive: true };
      const good = doc(140_000, [line], { discountMinor: 10_000 });
      const mismatch = doc(100, [line]);
      const badQuantity = doc(50_000, [{ ...line, quantity: 0 }]);
      const nulName = doc(50_000, [{ ...line, quantity: 1, name: 'Ma\u0000lt' }]);
      const streamed = new Promise<StreamMessage<ProductDoc>>((resolve) => socket.on(SYNC_EVENTS.stream, (message: StreamMessage<ProductDoc>) => {
        if (message.collection === 'products') resolve(message);
      }));
      const verdicts = conflictsOf(await push(socket, [good, mismatch, badQuantity, nulName]));
      const byId = new Map(verdicts.map((v) => [v.id, v]));
      assert.equal(byId.get(good.id)!.status, 'accepted', JSON.stringify(byId.get(good.id)));
      assert.deepEqual(byId.get(good.id)!.items, [line]);
      assert.equal(byId.get(good.id)!.discountMinor, 10_000);
      assert.deepEqual([byId.get(mismatch.id)!.status, byId.get(mismatch.id)!.declineCode], ['declined', 'items_total_mismatch']);
      assert.deepEqual([byId.get(badQuantity.id)!.status, byId.get(badQuantity.id)!.declineCode], ['declined', 'item_quantity_invalid']);
      assert.deepEqual([byId.get(nulName.id)!.status, byId.get(nulName.id)!.declineCode], ['declined', 'item_name_invalid']);
      const product = await s.request<{ stock: number; oversold: boolean }>('GET', `/api/merchant/products/${productId}`, { headers: key });
      assert.deepEqual([product.body.stock, product.body.oversold], [-2, true], 'three sold offline with one in stock: oversold by two');
      const message = await streamed;
      assert.deepEqual(message.documents.map((d) => [d.id, d.stock]), [[productId, -2]]);
      const record = await s.request<{ items: Line[]; totals: unknown; cartDiscount: number }>('GET', `/api/offline/payments/${good.id}`, { headers: key });
      assert.equal(record.status, 200);
      assert.deepEqual(record.body.totals, { subtotal: 1500, discount: 100, tax: 97.67, total: 1400 });
      assert.equal(record.body.items[0]!.quantity, 3);
      assert.equal(record.body.cartDiscount, 100);
      const replay = conflictsOf(await push(socket, [good]));
      assert.equal(replay[0]!.status, 'accepted');
      const again = await s.request<{ stock: number }>('GET', `/api/merchant/products/${productId}`, { headers: key });
      assert.equal(again.body.stock, -2, 'a replayed push moves no stock');
    });
  });
}
