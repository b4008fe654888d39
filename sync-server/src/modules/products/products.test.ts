import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ProductDoc, PullResponse, StreamMessage, SyncFailure } from '@tapline/shared/sync-protocol';
import { SYNC_EVENTS } from '@tapline/shared/sync-protocol';
import { databaseTargets } from '../../testing/databases.ts';
import { useTestServer } from '../../testing/server.ts';
import { connectTerminal, pull, push } from '../../testing/offline.ts';

type Product = {
  id: string; name: string; price: number; currency: string; sku: string | null; barcode: string | null; category: string | null;
  taxRate: number; taxInclusive: boolean; imageUrl: string | null; trackStock: boolean; stock: number | null; oversold: boolean;
  active: boolean; archivedAt: string | null; createdAt: string; updatedAt: string; code?: string; error?: string;
};
type Page = { data: Product[]; total: number; limit: number; offset: number };

for (const target of await databaseTargets()) {
  describe(`the merchant's catalogue on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 50 });

    async function merchant() {
      const m = await server().createMerchant();
      return { m, key: { 'x-merchant-api-key': m.testKey }, live: { 'x-merchant-api-key': m.liveKey } };
    }
    const create = (key: Record<string, string>, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      server().request<Product>('POST', '/api/merchant/products', { headers: { ...key, ...headers }, body });

    it('creates a product with defaults (merchant currency, tax 0 inclusive, untracked, active) and answers it in major units', async () => {
      const { key } = await merchant();
      const created = await create(key, { name: ' Jollof rice ', price: 1500.5 });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const p = created.body;
      assert.match(p.id, /^prod_[0-9a-f]{32}$/);
      assert.deepEqual(
        { name: p.name, price: p.price, currency: p.currency, sku: p.sku, barcode: p.barcode, category: p.category, taxRate: p.taxRate, taxInclusive: p.taxInclusive, imageUrl: p.imageUrl, trackStock: p.trackStock, stock: p.stock, oversold: p.oversold, active: p.active, archivedAt: p.archivedAt },
        { name: 'Jollof rice', price: 1500.5, currency: 'NGN', sku: null, barcode: null, category: null, taxRate: 0, taxInclusive: true, imageUrl: null, trackStock: false, stock: null, oversold: false, active: true, archivedAt: null },
      );
      const read = await server().request<Product>('GET', `/api/merchant/products/${p.id}`, { headers: key });
      assert.equal(read.status, 200);
      assert.deepEqual(read.body, p);
    });

    it('stores every field: SKU, barcode, category, tax 7.5 % exclusive, image, tracked stock', async () => {
      const { key } = await merchant();
      const created = await create(key, { name: 'Chapman', price: 800, sku: 'CH-1', barcode: '6151100000012', category: 'Drinks', taxRate: 7.5, taxInclusive: false, imageUrl: 'https://img.example.com/c.png', trackStock: true, stock: 12, currency: 'ngn' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.taxRate, 7.5);
      assert.equal(created.body.taxInclusive, false);
      assert.equal(created.body.stock, 12);
      assert.equal(created.body.sku, 'CH-1');
      assert.equal(created.body.imageUrl, 'https://img.example.com/c.png');
      const [row] = await server().db.query<{ price: number; tax_rate: number }>('SELECT price, tax_rate FROM products WHERE id = $1', [created.body.id]);
      assert.equal(Number(row!.price), 80_000);
      assert.equal(row!.tax_rate, 750);
    });

    it('refuses bad input with 4xx codes: tax with three decimals, price decimals, stock missing, http image in live, taken SKU', async () => {
      const { key, live } = await merchant();
      const cases: [Record<string, string>, Record<string, unknown>, number, string][] = [
        [key, { name: 'A', price: 1, taxRate: 7.125 }, 400, 'invalid_tax_rate'],
        [key, { name: 'A', price: 1, taxRate: 101 }, 400, 'validation_failed'],
        [key, { name: 'A', price: 1.001 }, 400, 'invalid_price'],
        [key, { name: 'A', price: -1 }, 400, 'validation_failed'],
        [key, { name: 'A', price: 1, trackStock: true }, 400, 'stock_required'],
        [live, { name: 'A', price: 1, imageUrl: 'http://img.example.com/a.png' }, 400, 'invalid_image_url'],
        [key, { name: 'A', price: 1, imageUrl: 'ftp://x/a.png' }, 400, 'invalid_image_url'],
        [key, { name: '   ', price: 1 }, 400, 'validation_failed'],
        [key, { name: 'A', price: 1, currency: 'XXX' }, 400, 'currency_not_supported'],
      ];
      for (const [headers, body, status, code] of cases) {
        const answer = await create(headers, body);
        assert.equal(answer.status, status, `${JSON.stringify(body)}: ${JSON.stringify(answer.body)}`);
        assert.equal(answer.body.code, code, JSON.stringify(body));
      }
      assert.equal((await create(key, { name: 'A', price: 1, sku: 'dup-1' })).status, 201);
      const taken = await create(key, { name: 'B', price: 1, sku: 'DUP-1' });
      assert.equal(taken.status, 409);
      assert.equal(taken.body.code, 'sku_taken');
      const missing = await server().request<Product>('GET', '/api/merchant/products/prod_nope', { headers: key });
      assert.equal(missing.status, 404);
      assert.equal(missing.body.code, 'product_not_found');
    });

    it('creation is idempotent: the same Idempotency-Key answers the same product once', async () => {
      const { key } = await merchant();
      const first = await create(key, { name: 'Puff puff', price: 100 }, { 'idempotency-key': 'prod-once-1' });
      const again = await create(key, { name: 'Puff puff', price: 100 }, { 'idempotency-key': 'prod-once-1' });
      assert.equal(first.status, 201);
      assert.equal(again.status, 201);
      assert.equal(again.body.id, first.body.id);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      const list = await server().request<Page>('GET', '/api/merchant/products', { headers: key });
      assert.equal(list.body.total, 1);
    });

    it('keeps test and live apart', async () => {
      const { key, live } = await merchant();
      const testProduct = await create(key, { name: 'Test only', price: 1 });
      const read = await server().request<Product>('GET', `/api/merchant/products/${testProduct.body.id}`, { headers: live });
      assert.equal(read.status, 404);
      const list = await server().request<Page>('GET', '/api/merchant/products', { headers: live });
      assert.equal(list.body.total, 0);
      const other = await merchant();
      assert.equal((await server().request('GET', `/api/merchant/products/${testProduct.body.id}`, { headers: other.key })).status, 404);
    });

    it('lists by name with search (name, SKU prefix, barcode; any case), category, active, paging, archived apart', async () => {
      const { key } = await merchant();
      const made: Record<string, Product> = {};
      for (const [name, extra] of [
        ['Zobo drink', { sku: 'DRK-ZB', category: 'Drinks', barcode: '111' }],
        ['Chapman', { sku: 'DRK-CH', category: 'Drinks', barcode: '222' }],
        ['Jollof rice', { sku: 'FD-JR', category: 'Food' }],
        ['Fried rice', { sku: 'FD-FR', category: 'Food', active: false }],
        ['100% juice_mix', { category: 'Drinks' }],
      ] as const) {
        made[name] = (await create(key, { name, price: 10, ...extra })).body;
      }
      const list = async (query: string) => {
        const answer = await server().request<Page>('GET', `/api/merchant/products${query}`, { headers: key });
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        return answer.body;
      };
      assert.deepEqual((await list('')).data.map((p) => p.name), ['100% juice_mix', 'Chapman', 'Fried rice', 'Jollof rice', 'Zobo drink']);
      assert.deepEqual((await list('?search=RICE')).data.map((p) => p.name), ['Fried rice', 'Jollof rice']);
      assert.deepEqual((await list('?search=drk-')).data.map((p) => p.name), ['Chapman', 'Zobo drink']);
      assert.deepEqual((await list('?search=222')).data.map((p) => p.name), ['Chapman']);
      assert.deepEqual((await list('?search=%25')).data.map((p) => p.name), ['100% juice_mix'], 'LIKE wildcards are literal');
      assert.deepEqual((await list('?search=_')).data.map((p) => p.name), ['100% juice_mix']);
      // Bad input: wildcards and escapes are literal (never "everything"), too long or unstorable is a 400, never a 500.
      assert.deepEqual((await list('?search=%5C')).data.map((p) => p.name), [], 'a backslash is a literal character');
      assert.deepEqual((await list('?search=%25%25')).data.map((p) => p.name), []);
      assert.deepEqual((await list('?search=%25_')).data.map((p) => p.name), []);
      assert.deepEqual((await list('?search=0%25%20j')).data.map((p) => p.name), ['100% juice_mix']);
      // A 10 kB query string (Node refuses URLs past 16 kB with a bare 431, before any route).
      for (const [query, code] of [[`?search=${'a'.repeat(9_000)}${'%25_%5C'.repeat(150)}`, 'validation_failed'], [`?search=${'a'.repeat(121)}`, 'validation_failed'], ['?search=ri%00ce', 'invalid_text']] as const) {
        const answer = await server().request<{ code: string; error: string }>('GET', `/api/merchant/products${query}`, { headers: key });
        assert.equal(answer.status, 400, `${query.slice(0, 40)}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
        assert.equal(answer.body.code, code);
        assert.equal(typeof answer.body.error, 'string');
      }
      assert.deepEqual((await list('?category=Food')).data.map((p) => p.name), ['Fried rice', 'Jollof rice']);
      assert.deepEqual((await list('?category=Food&active=true')).data.map((p) => p.name), ['Jollof rice']);
      const page = await list('?limit=2&offset=2');
      assert.deepEqual({ names: page.data.map((p) => p.name), total: page.total, limit: page.limit, offset: page.offset }, { names: ['Fried rice', 'Jollof rice'], total: 5, limit: 2, offset: 2 });
      const archived = await server().request<Product>('POST', `/api/merchant/products/${made['Chapman']!.id}/archive`, { headers: key });
      assert.equal(archived.status, 200);
      assert.ok(archived.body.archivedAt);
      assert.deepEqual((await list('?category=Drinks')).data.map((p) => p.name), ['100% juice_mix', 'Zobo drink']);
      assert.deepEqual((await list('?archived=true')).data.map((p) => p.name), ['Chapman']);
      const bad = await server().request<Product>('GET', '/api/merchant/products?limit=500', { headers: key });
      assert.equal(bad.status, 400);
    });

    it('updates fields, sets stock (a stock take), stops tracking, and guards SKU on update and unarchive', async () => {
      const { key } = await merchant();
      const p = (await create(key, { name: 'Suya', price: 500, sku: 'S-1' })).body;
      const patch = (id: string, body: Record<string, unknown>) => server().request<Product>('PATCH', `/api/merchant/products/${id}`, { headers: key, body });
      const tracked = await patch(p.id, { trackStock: true, stock: 3, taxRate: 5, price: 550 });
      assert.equal(tracked.status, 200, JSON.stringify(tracked.body));
      assert.deepEqual([tracked.body.trackStock, tracked.body.stock, tracked.body.taxRate, tracked.body.price, tracked.body.name], [true, 3, 5, 550, 'Suya']);
      assert.ok(tracked.body.updatedAt >= p.updatedAt);
      const untracked = await patch(p.id, { trackStock: false });
      assert.deepEqual([untracked.body.trackStock, untracked.body.stock], [false, null]);
      const retracked = await patch(p.id, { trackStock: true });
      assert.deepEqual([retracked.body.trackStock, retracked.body.stock], [true, 0], 'tracking again starts at 0 when no count is given');
      assert.equal((await patch(p.id, {})).status, 400);
      assert.equal((await patch('prod_missing', { name: 'x' })).body.code, 'product_not_found');
      await server().request('POST', `/api/merchant/products/${p.id}/archive`, { headers: key });
      const twin = await create(key, { name: 'Suya 2', price: 500, sku: 's-1' });
      assert.equal(twin.status, 201, 'an archived product frees its SKU');
      const back = await server().request<Product>('POST', `/api/merchant/products/${p.id}/unarchive`, { headers: key });
      assert.equal(back.status, 409);
      assert.equal(back.body.code, 'sku_taken');
      assert.equal((await patch(twin.body.id, { sku: 'S-2' })).status, 200);
      const unarchived = await server().request<Product>('POST', `/api/merchant/products/${p.id}/unarchive`, { headers: key });
      assert.equal(unarchived.status, 200);
      assert.equal(unarchived.body.archivedAt, null);
    });

    it('replicates to the kiosk: pull with checkpoints (minor units, bps, archived as _deleted), changes streamed while online, pushes refused, other modes unseen', async () => {
      const { key, live } = await merchant();
      const s = server();
      const terminal = await s.request<{ id: string; token: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Till 1' } });
      assert.equal(terminal.status, 201);
      const a = (await create(key, { name: 'Akara', price: 150.25, taxRate: 7.5, category: 'Food', trackStock: true, stock: 4 })).body;
      const b = (await create(key, { name: 'Bread', price: 900 })).body;
      await create(live, { name: 'Live only', price: 1 });
      const { socket } = await connectTerminal(s, `term.${terminal.body.token}`);
      const first = await pull<ProductDoc>(socket, null, 1, 'products');
      assert.ok('documents' in first, JSON.stringify(first));
      assert.equal(first.documents.length, 1);
      const doc = first.documents[0]!;
      assert.deepEqual(
        { ...doc, updatedAt: undefined, serverSeq: undefined },
        { id: a.id, name: 'Akara', priceMinor: 15025, currency: 'NGN', sku: null, barcode: null, category: 'Food', taxRate: 750, taxInclusive: true, imageUrl: null, trackStock: true, stock: 4, active: true, updatedAt: undefined, serverSeq: undefined, _deleted: false },
      );
      const second = await pull<ProductDoc>(socket, first.checkpoint!.serverSeq, 100, 'products');
      assert.ok('documents' in second);
      assert.deepEqual(second.documents.map((d) => d.id), [b.id]);
      const rest = await pull<ProductDoc>(socket, second.checkpoint!.serverSeq, 100, 'products');
      assert.ok('documents' in rest);
      assert.equal(rest.documents.length, 0);
      assert.deepEqual(rest.checkpoint, second.checkpoint);

      const streamed = new Promise<StreamMessage<ProductDoc>>((resolve) => socket.once(SYNC_EVENTS.stream, resolve));
      await s.request('POST', `/api/merchant/products/${b.id}/archive`, { headers: key });
      const message = await streamed;
      assert.equal(message.collection, 'products');
      assert.deepEqual(message.documents.map((d) => [d.id, d._deleted]), [[b.id, true]]);
      assert.ok(message.checkpoint.serverSeq > second.checkpoint!.serverSeq);
      const after = await pull<ProductDoc>(socket, second.checkpoint!.serverSeq, 100, 'products');
      assert.ok('documents' in after);
      assert.deepEqual(after.documents.map((d) => [d.id, d._deleted]), [[b.id, true]]);

      const refused = await push(socket, [{ ...doc, name: 'Hacked' }], 'products');
      assert.deepEqual(refused, { code: 'pull_only', error: 'products is replicated from the server only: the terminal cannot push it' });
      const unchanged = await s.request<Product>('GET', `/api/merchant/products/${a.id}`, { headers: key });
      assert.equal(unchanged.body.name, 'Akara');
    });

    it('a fresh kiosk pulls a catalogue of 5,000 products by checkpoint: every one, once, in order, with its values', async () => {
      const { m, key } = await merchant();
      const s = server();
      // Seeded in one statement (the create path is tested above; the pull is what is tested here).
      await s.db.query(
        `INSERT INTO products (id, merchant_id, mode, name, price, currency, sku, barcode, category, created_at, updated_at, server_seq)
         SELECT 'prod_bench' || i, $1, 'test', 'Item ' || lpad(i::text, 4, '0'), 100 + i, 'NGN', 'SKU-' || i, (6000000000000 + i)::text, 'Cat ' || (i % 12), now(), now(), i
         FROM generate_series(1, 5000) AS i`,
        [m.id],
      );
      await s.db.query(`INSERT INTO product_sync_heads (merchant_id, mode, seq) VALUES ($1, 'test', 5000)`, [m.id]);
      const terminal = await s.request<{ id: string; token: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Bench till' } });
      const { socket } = await connectTerminal(s, `term.${terminal.body.token}`);
      const seen: ProductDoc[] = [];
      let checkpoint: number | null = null;
      for (;;) {
        const page: PullResponse<ProductDoc> | SyncFailure = await pull<ProductDoc>(socket, checkpoint, 100, 'products');
        assert.ok('documents' in page);
        if (page.documents.length === 0) break;
        seen.push(...page.documents);
        checkpoint = page.checkpoint!.serverSeq;
      }
      assert.equal(seen.length, 5000);
      assert.equal(new Set(seen.map((doc) => doc.id)).size, 5000, 'each product once');
      assert.deepEqual(seen.map((doc) => doc.serverSeq), Array.from({ length: 5000 }, (_, i) => i + 1), 'in server order');
      const sample = seen[4320]!;
      assert.deepEqual([sample.id, sample.name, sample.priceMinor, sample.currency, sample.sku, sample.barcode, sample.category, sample.active, sample._deleted], ['prod_bench4321', 'Item 4321', 4421, 'NGN', 'SKU-4321', '6000000004321', 'Cat 1', true, false]);
      // How fast is `npm run bench:catalogue`'s business (it prints this pull and the kiosk's), not a test's.
    });
  });
}
