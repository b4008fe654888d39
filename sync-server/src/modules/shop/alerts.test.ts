import assert from 'node:assert/strict';
import { before, after, describe, it } from 'node:test';
import { databaseTargets } from '../../testing/databases.ts';
import { ADMIN, useTestServer } from '../../testing/server.ts';
import { type MailMessage, type MailTransport, SmtpMailTransport } from './mail.ts';
import { storeMailOutbox } from './routes.ts';
import { type Json, type Order, buyer, checkout, createProduct, startSmtpCapture, testClock } from '../../testing/shop.ts';

for (const target of await databaseTargets()) {
  describe(`store stock alerts on ${target.name}`, () => {
    const clock = testClock();
    let capture: Awaited<ReturnType<typeof startSmtpCapture>> | undefined;
    let failNext = 0;
    // The real SMTP transport (nodemailer) pointed at a real SMTP server on a loopback port; the
    // port is known once the capture listens, so the transport is made on first use.
    let smtp: SmtpMailTransport | undefined;
    const transport: MailTransport = {
      enabled: true,
      name: 'smtp',
      async send(message: MailMessage) {
        if (failNext > 0) {
          failNext -= 1;
          throw new Error('SMTP server unreachable (simulated)');
        }
        smtp ??= new SmtpMailTransport(capture!.url, 'Tapline Store <store@tapline.test>');
        await smtp.send(message);
      },
    };
    before(async () => {
      capture = await startSmtpCapture();
    });
    after(async () => {
      await capture?.close();
    });
    const server = useTestServer(target, { now: clock.now, rateLimitScale: 100, app: { mailTransport: transport } });

    it('a stock alert is delivered over SMTP and in-app when stock returns from 0, once', async () => {
      const s = server();
      const product = await createProduct(s, { name: 'Ceramic Smart Ring', basePrice: 10, stock: 0 });
      const handle = await buyer(s, { fund: 100 });
      const subscribe = (body: Json) => s.request<Json>('POST', '/api/store/stock-alerts', { body: { productSlug: product.slug, buyerHandle: handle, email: 'Ada@Example.com', ...body } });
      const created = await subscribe({});
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.status, 'waiting');
      assert.equal(created.body.email, 'ada@example.com');
      const duplicate = await subscribe({ email: 'ada@example.com' });
      assert.equal(duplicate.status, 200);
      assert.equal(duplicate.body.id, created.body.id);
      assert.equal((await subscribe({ email: 'not-an-email' })).status, 400);
      assert.equal((await subscribe({ buyerHandle: 'nobody_at_all' })).status, 404);
      assert.equal((await subscribe({ productSlug: 'no-such-product' })).status, 404);

      const out = await checkout(s, { productSlug: product.slug, buyerHandle: handle, walletPin: '1234' });
      assert.equal(out.status, 409);
      assert.equal(out.body.code, 'out_of_stock');

      // Stock comes back: the notice and the mail row are written with the stock change.
      const restocked = await s.request<Json>('PATCH', `/api/admin/store/products/${product.id}`, { headers: ADMIN, body: { stock: 3 } });
      assert.equal(restocked.status, 200, JSON.stringify(restocked.body));
      const [pending] = await s.db.query<{ state: string; to_address: string }>(`SELECT state, to_address FROM mail_outbox WHERE source = $1`, [`stock_alert:${created.body.id}`]);
      assert.deepEqual(pending, { state: 'pending', to_address: 'ada@example.com' });

      // The first attempt fails (SMTP down): the mail waits for its retry; nothing is lost.
      failNext = 1;
      const firstRun = await storeMailOutbox(s.context).runOnce();
      assert.deepEqual(firstRun, { sent: 0, retrying: 1, failed: 0, waiting: 0 });
      assert.equal(capture!.messages.length, 0);
      assert.equal((await storeMailOutbox(s.context).runOnce()).sent, 0, 'not before the retry is due');
      clock.advance(61_000);
      const secondRun = await storeMailOutbox(s.context).runOnce();
      assert.equal(secondRun.sent, 1);
      assert.equal(capture!.messages.length, 1);
      const mail = capture!.messages[0]!;
      assert.deepEqual(mail.to, ['ada@example.com']);
      assert.equal(mail.from, 'store@tapline.test');
      assert.match(mail.raw, /Subject: Ceramic Smart Ring is back in stock/);
      assert.match(mail.raw, new RegExp(`/api/store/products/${product.slug}`));
      const [sent] = await s.db.query<{ state: string; attempts: number }>(`SELECT state, attempts FROM mail_outbox WHERE source = $1`, [`stock_alert:${created.body.id}`]);
      assert.deepEqual(sent, { state: 'sent', attempts: 2 });

      const session = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle, pin: '1234' } });
      const notices = await s.request<{ data: Json[]; total: number }>('GET', '/api/wallet/notifications', { headers: { authorization: `Bearer wallet.${session.body.token}` } });
      assert.equal(notices.status, 200);
      assert.equal(notices.body.total, 1);
      assert.equal(notices.body.data[0]?.kind, 'store.back_in_stock');
      assert.equal(notices.body.data[0]?.title, 'Ceramic Smart Ring is back in stock');
      assert.equal((notices.body.data[0]?.data as Json).productSlug, product.slug);
      assert.equal((await s.request('GET', '/api/wallet/notifications')).status, 401);

      // Notified once: the next restock sends nothing more; a new subscription waits again.
      await s.request('PATCH', `/api/admin/store/products/${product.id}`, { headers: ADMIN, body: { stock: 10 } });
      assert.equal((await storeMailOutbox(s.context).runOnce()).sent, 0);
      assert.equal(capture!.messages.length, 1);
      const alertState = await s.db.query<{ status: string }>('SELECT status FROM store_stock_alerts WHERE id = $1', [String(created.body.id)]);
      assert.equal(alertState[0]?.status, 'notified');
    });

    it('units given back by a refund bring stock back from 0 and notify too', async () => {
      const s = server();
      const product = await createProduct(s, { name: 'Woven Festival Band', basePrice: 10, stock: 1 });
      const handle = await buyer(s, { fund: 100 });
      const waiting = await buyer(s);
      const paid = await checkout(s, { productSlug: product.slug, buyerHandle: handle, walletPin: '1234' });
      assert.equal(paid.status, 201);
      const alert = await s.request<Json>('POST', '/api/store/stock-alerts', { body: { productSlug: product.slug, buyerHandle: waiting, email: 'wait@example.com' } });
      assert.equal(alert.status, 201);
      const refunded = await s.request<Order>('PATCH', `/api/admin/store/orders/${paid.body.order.id}`, { headers: ADMIN, body: { status: 'refunded' } });
      assert.equal(refunded.status, 200);
      const sentBefore = capture!.messages.length;
      assert.equal((await storeMailOutbox(s.context).runOnce()).sent, 1);
      assert.equal(capture!.messages.length, sentBefore + 1);
      assert.deepEqual(capture!.messages.at(-1)?.to, ['wait@example.com']);
      const [notice] = await s.db.query<{ kind: string }>('SELECT kind FROM wallet_notifications n JOIN wallets w ON w.id = n.wallet_id WHERE w.handle = $1', [waiting]);
      assert.equal(notice?.kind, 'store.back_in_stock');
    });
  });

  describe(`store mail without SMTP_URL on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 100 });

    it('mail is disabled: nothing crashes, the in-app notice arrives, the e-mail waits in the outbox', async () => {
      const s = server();
      const product = await createProduct(s, { basePrice: 10, stock: 0 });
      const handle = await buyer(s);
      assert.equal((await s.request('POST', '/api/store/stock-alerts', { body: { productSlug: product.slug, buyerHandle: handle, email: 'later@example.com' } })).status, 201);
      assert.equal((await s.request('PATCH', `/api/admin/store/products/${product.id}`, { headers: ADMIN, body: { stock: 2 } })).status, 200);
      const run = await storeMailOutbox(s.context).runOnce();
      assert.deepEqual(run, { sent: 0, retrying: 0, failed: 0, waiting: 1 });
      const [mail] = await s.db.query<{ state: string; attempts: number }>(`SELECT state, attempts FROM mail_outbox WHERE to_address = 'later@example.com'`);
      assert.deepEqual(mail, { state: 'pending', attempts: 0 });
      const [notice] = await s.db.query<{ count: number }>('SELECT count(*)::int8 AS count FROM wallet_notifications n JOIN wallets w ON w.id = n.wallet_id WHERE w.handle = $1', [handle]);
      assert.equal(notice?.count, 1);
    });
  });
}
