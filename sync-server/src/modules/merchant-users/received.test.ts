import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { verifySignature } from '@tapline/shared/webhook-signature';
import { databaseTargets } from '../../testing/databases.ts';
import { type TestServer, WebhookReceiver, uniqueHandle, useTestServer } from '../../testing/index.ts';
import { conflictsOf, connectTerminal, push } from '../../testing/offline.ts';

type Json = Record<string, unknown>;
interface Received {
  id: string;
  channel: string;
  method: string;
  amount: number;
  fee: number;
  net: number;
  currency: string;
  payerHandle: string | null;
  reference: string | null;
  terminalId: string | null;
  transferId: string | null;
  receivedAt: string;
}

/**
 * Every way a merchant is paid reaches its webhook URL as an event and its payments view
 * (GET /api/merchant/received) and daily sales: a kiosk sale by tap and by the wallet page, an
 * offline tap, a drop-in checkout, the /pay/<handle> page, a payment link, a subscription.
 */
for (const target of await databaseTargets()) {
  describe(`money received, every channel, on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 20 });
    let hooks: WebhookReceiver;
    before(async () => {
      hooks = await WebhookReceiver.start();
    });
    after(async () => {
      await hooks.close();
    });

    /** A merchant whose webhook URL is the receiver (its own path), with a terminal, and a customer with funds, a ring and a wallet session. */
    async function shop(s: TestServer, options: { webhook?: boolean } = {}) {
      const webhookUrl = `${hooks.url}/m/${uniqueHandle('m')}`;
      const hookPath = new URL(webhookUrl).pathname;
      const merchant = await s.createMerchant(options.webhook === false ? {} : { webhookUrl });
      const key = { 'x-merchant-api-key': merchant.testKey };
      const customer = uniqueHandle('cust');
      await s.createWallet({ handle: customer, fund: 1000 });
      const tag = await s.request<{ tagId: string }>('POST', '/api/wearables', { headers: key, body: { handle: customer, tagType: 'ring', displayName: 'Ring' } });
      assert.equal(tag.status, 201, JSON.stringify(tag.body));
      const session = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle: customer, pin: '1234' } });
      assert.equal(session.status, 201, JSON.stringify(session.body));
      const terminal = await s.request<{ id: string; token: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Front counter' } });
      assert.equal(terminal.status, 201);
      return { merchant, key, customer, tagId: tag.body.tagId, wallet: { authorization: `Bearer wallet.${session.body.token}` }, terminal: terminal.body, webhookUrl, hookPath };
    }

    /** The events delivered to one URL path, after the dispatcher ran, each with its signature checked. */
    async function delivered(s: TestServer, path: string, secret: string): Promise<Json[]> {
      await s.context.events.runOnce();
      return hooks.received
        .filter((request) => request.path === path)
        .map((request) => {
          const signature = String(request.headers['x-service-signature']);
          assert.ok(verifySignature(secret, request.rawBody.toString('utf8'), signature), `a valid signature on ${path}`);
          return JSON.parse(request.rawBody.toString('utf8')) as Json;
        });
    }

    async function payAll(s: TestServer, fixture: Awaited<ReturnType<typeof shop>>) {
      const { key, customer, tagId, wallet, terminal, merchant } = fixture;
      // A kiosk sale paid by a tap, and one paid on the session's wallet page.
      const byTap = await s.request<Json>('POST', '/api/pos/sessions', { headers: key, body: { amount: 10, currency: 'NGN', description: 'Jollof' } });
      assert.equal(byTap.status, 201);
      const tapped = await s.request<Json>('POST', `/api/pos/sessions/${String(byTap.body.sessionId)}/tap`, { headers: key, body: { tagId } });
      assert.equal(tapped.body.status, 'completed', JSON.stringify(tapped.body));
      const byPage = await s.request<Json>('POST', '/api/pos/sessions', { headers: key, body: { amount: 11, currency: 'NGN', description: 'Suya' } });
      const paidOnPage = await s.request<Json>('POST', `/api/pos/sessions/${String(byPage.body.sessionId)}/pay`, { headers: wallet, body: {} });
      assert.equal(paidOnPage.body.status, 'completed', JSON.stringify(paidOnPage.body));
      // An offline tap the terminal pushes when it syncs.
      const { socket } = await connectTerminal(s, `term.${terminal.token}`);
      const offlineId = randomUUID();
      try {
        const [verdict] = conflictsOf(await push(socket, [{ id: offlineId, terminalId: terminal.id, kind: 'tap', tagId, amountMinor: 1200, currency: 'NGN', description: 'Chapman', capturedAt: new Date().toISOString(), status: 'queued', serverSeq: 0 }]));
        assert.equal(verdict?.status, 'accepted', JSON.stringify(verdict));
      } finally {
        socket.disconnect();
      }
      // The website drop-in, paid from a wallet.
      const checkout = await s.request<Json>('POST', '/api/checkout/sessions', { headers: key, body: { amount: 13, currency: 'NGN', reference: 'order-13' } });
      assert.equal(checkout.status, 201, JSON.stringify(checkout.body));
      const checkoutPaid = await s.request<Json>('POST', `/api/checkout/sessions/${String(checkout.body.id)}/pay`, { body: { method: 'wallet', handle: customer, pin: '1234' } });
      assert.equal(checkoutPaid.body.status, 'paid', JSON.stringify(checkoutPaid.body));
      // The /pay/<handle> page: the customer pays the merchant's @handle from their wallet.
      const payPage = await s.request<Json>('POST', '/api/wallet/pay', { headers: { ...wallet, 'idempotency-key': uniqueHandle('pp') }, body: { to: merchant.handle, amount: 14, note: 'Table 4' } });
      assert.equal(payPage.status, 201, JSON.stringify(payPage.body));
      // A payment link.
      const link = await s.request<Json>('POST', '/api/payment-links', { headers: key, body: { amount: 15, currency: 'NGN', description: 'Catering deposit', reference: 'dep-15' } });
      assert.equal(link.status, 201, JSON.stringify(link.body));
      const linkPaid = await s.request<Json>('POST', `/api/payment-links/${String(link.body.id)}/pay`, { body: { handle: customer, pin: '1234' } });
      assert.equal(linkPaid.status, 200, JSON.stringify(linkPaid.body));
      // A subscription: its first period is charged at once.
      const plan = await s.request<Json>('POST', '/api/merchant/subscription-plans', { headers: key, body: { name: 'Lunch club', price: 16, currency: 'NGN' } });
      assert.equal(plan.status, 201, JSON.stringify(plan.body));
      const subscription = await s.request<Json>('POST', '/api/subscriptions', { headers: wallet, body: { planId: plan.body.id } });
      assert.equal(subscription.status, 201, JSON.stringify(subscription.body));
      const [charge] = await s.db.query<{ id: string }>('SELECT id FROM subscription_charges WHERE subscription_id = $1', [String(subscription.body.id)]);
      return {
        tapSession: String(byTap.body.sessionId), pageSession: String(byPage.body.sessionId), offlineId, checkoutId: String(checkout.body.id), payPageTransfer: String(payPage.body.transferId),
        linkPayment: String(linkPaid.body.paymentId), linkId: String(link.body.id), subscriptionId: String(subscription.body.id), chargeId: charge!.id,
      };
    }

    it('sends each channel to the merchant webhook URL and lists it, with a channel filter and the day\'s sales', async () => {
      const s = server();
      const fixture = await shop(s);
      const ids = await payAll(s, fixture);
      const customer = `@${fixture.customer}`;

      const events = await delivered(s, fixture.hookPath, fixture.merchant.webhookSecret);
      const byType = (type: string) => events.filter((event) => event.event === type);
      assert.deepEqual(events.map((event) => event.event).sort(), [
        'checkout.session.completed', 'offline.payment.accepted', 'payment.completed', 'pos.session.completed', 'pos.session.completed', 'subscription.charged', 'wallet.payment.received',
      ]);
      const [charged] = byType('subscription.charged');
      assert.deepEqual([charged!.subscriptionId, charged!.amount, charged!.customerHandle], [ids.subscriptionId, 16, customer]);
      const pos = byType('pos.session.completed');
      assert.deepEqual(pos.map((event) => [event.sessionId, event.amount, event.currency, event.payerHandle, event.merchantId]).sort(), [
        [ids.tapSession, 10, 'NGN', customer, fixture.merchant.id],
        [ids.pageSession, 11, 'NGN', customer, fixture.merchant.id],
      ].sort());
      const [offline] = byType('offline.payment.accepted');
      assert.deepEqual([offline!.paymentId, offline!.terminalId, offline!.kind, offline!.amount, offline!.payerHandle], [ids.offlineId, fixture.terminal.id, 'tap', 12, customer]);
      const [checkout] = byType('checkout.session.completed');
      assert.deepEqual([checkout!.sessionId, checkout!.amount, checkout!.reference, checkout!.payerHandle], [ids.checkoutId, 13, 'order-13', customer]);
      const [payPage] = byType('wallet.payment.received');
      assert.deepEqual(
        [payPage!.transferId, payPage!.merchantId, payPage!.amount, payPage!.currency, payPage!.payerHandle, payPage!.note],
        [ids.payPageTransfer, fixture.merchant.id, 14, 'NGN', customer, 'Table 4'],
      );
      assert.match(String(payPage!.receivedAt), /^\d{4}-\d\d-\d\dT/);
      const [link] = byType('payment.completed');
      assert.deepEqual([link!.paymentId, link!.paymentLinkId, link!.payerHandle], [ids.linkPayment, ids.linkId, customer]);

      const list = await s.request<{ data: Received[]; total: number }>('GET', '/api/merchant/received?limit=100', { headers: fixture.key });
      assert.equal(list.status, 200, JSON.stringify(list.body));
      assert.equal(list.body.total, 7);
      const rows = Object.fromEntries(list.body.data.map((row) => [row.id, row]));
      assert.deepEqual(
        [ids.tapSession, ids.pageSession, ids.offlineId, ids.checkoutId, ids.payPageTransfer, ids.linkPayment, ids.chargeId].map((id) => [rows[id]?.channel, rows[id]?.method, rows[id]?.amount, rows[id]?.payerHandle]),
        [['pos', 'tap', 10, customer], ['pos', 'wallet', 11, customer], ['offline', 'tap', 12, customer], ['checkout', 'wallet', 13, customer], ['pay_page', 'wallet', 14, customer], ['payment_link', 'wallet', 15, customer], ['subscription', 'wallet', 16, customer]],
      );
      assert.equal(rows[ids.offlineId]!.terminalId, fixture.terminal.id);
      assert.equal(rows[ids.payPageTransfer]!.reference, 'Table 4');
      assert.equal(rows[ids.checkoutId]!.reference, 'order-13');
      assert.equal(rows[ids.linkPayment]!.reference, 'dep-15');
      assert.equal(rows[ids.chargeId]!.reference, 'Lunch club');
      assert.equal(rows[ids.linkPayment]!.net, rows[ids.linkPayment]!.amount - rows[ids.linkPayment]!.fee);
      assert.equal(rows[ids.checkoutId]!.transferId, `checkout:${ids.checkoutId}`);
      // Newest first.
      const times = list.body.data.map((row) => Date.parse(row.receivedAt));
      assert.deepEqual(times, [...times].sort((a, b) => b - a));

      for (const [channel, count] of [['pos', 2], ['offline', 1], ['checkout', 1], ['pay_page', 1], ['payment_link', 1], ['subscription', 1]] as const) {
        const filtered = await s.request<{ data: Received[]; total: number }>('GET', `/api/merchant/received?channel=${channel}`, { headers: fixture.key });
        assert.equal(filtered.body.total, count, channel);
        assert.ok(filtered.body.data.every((row) => row.channel === channel), channel);
      }
      const paged = await s.request<{ data: Received[]; total: number; limit: number; offset: number }>('GET', '/api/merchant/received?limit=4&offset=4', { headers: fixture.key });
      assert.deepEqual([paged.body.data.length, paged.body.total, paged.body.limit, paged.body.offset], [3, 7, 4, 4]);
      const beyond = await s.request<{ data: Received[]; total: number }>('GET', '/api/merchant/received?offset=50', { headers: fixture.key });
      assert.deepEqual([beyond.body.data.length, beyond.body.total], [0, 7]);
      // /api/payments tells the merchant's payouts from its links' payments.
      const links = await s.request<{ data: { id: string }[]; total: number }>('GET', '/api/payments?kind=link', { headers: fixture.key });
      assert.deepEqual(links.body.data.map((row) => row.id), [ids.linkPayment]);
      assert.equal((await s.request<{ total: number }>('GET', '/api/payments?kind=payout', { headers: fixture.key })).body.total, 0);
      assert.equal((await s.request<Json>('GET', '/api/payments?kind=refund', { headers: fixture.key })).status, 400);
      const bad = await s.request<Json>('GET', '/api/merchant/received?channel=cash', { headers: fixture.key });
      assert.equal(bad.status, 400);
      assert.equal(typeof bad.body.code, 'string');
      // Another merchant sees none of it; the live mode neither.
      const other = await s.createMerchant();
      assert.equal((await s.request<{ total: number }>('GET', '/api/merchant/received', { headers: { 'x-merchant-api-key': other.testKey } })).body.total, 0);
      assert.equal((await s.request<{ total: number }>('GET', '/api/merchant/received', { headers: { 'x-merchant-api-key': fixture.merchant.liveKey } })).body.total, 0);

      // The overview's figures: today's sales count every channel, what the customers paid.
      // (Two days: a run that crosses midnight UTC still finds every payment.)
      const daily = await s.request<{ currencies: { currency: string; total: number; count: number; daily: { amount: number; count: number }[] }[] }>('GET', '/api/merchant/sales/daily?days=2', { headers: fixture.key });
      assert.equal(daily.status, 200);
      assert.deepEqual(daily.body.currencies.map((c) => [c.currency, c.total, c.count, c.daily.reduce((sum, day) => sum + day.count, 0)]), [['NGN', 91, 7, 7]]);
    });

    it('a POS session with a callbackUrl: one delivery to the callback and one to the webhook URL; the same URL gets one; no URL writes no event', async () => {
      const s = server();
      const fixture = await shop(s);
      const callbackUrl = `${hooks.url}/cb/${uniqueHandle('cb')}`;
      const callbackPath = new URL(callbackUrl).pathname;
      const open = async (callbackUrl: string | undefined) => {
        const created = await s.request<Json>('POST', '/api/pos/sessions', { headers: fixture.key, body: { amount: 5, currency: 'NGN', ...(callbackUrl ? { callbackUrl } : {}) } });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        const tapped = await s.request<Json>('POST', `/api/pos/sessions/${String(created.body.sessionId)}/tap`, { headers: fixture.key, body: { tagId: fixture.tagId } });
        assert.equal(tapped.body.status, 'completed');
        return String(created.body.sessionId);
      };
      const apart = await open(callbackUrl);
      const same = await open(fixture.webhookUrl);
      await s.context.events.runOnce();
      const deliveries = await s.db.query<{ url: string; signature_format: string; session_id: string }>(
        `SELECT d.url, d.signature_format, e.body::json ->> 'sessionId' AS session_id FROM event_deliveries d JOIN events e ON e.id = d.event_id
         WHERE d.merchant_id = $1 ORDER BY d.signature_format`,
        [fixture.merchant.id],
      );
      assert.deepEqual(deliveries.filter((d) => d.session_id === apart).map((d) => [d.url, d.signature_format]), [[fixture.webhookUrl, 'hex'], [callbackUrl, 'sha256=']]);
      assert.deepEqual(deliveries.filter((d) => d.session_id === same).map((d) => [d.url, d.signature_format]), [[fixture.webhookUrl, 'hex']]);
      const callbacks = hooks.received.filter((request) => request.path === callbackPath);
      assert.equal(callbacks.length, 1);
      assert.match(String(callbacks[0]!.headers['x-service-signature']), /^sha256=[0-9a-f]{64}$/);
      const webhook = await delivered(s, fixture.hookPath, fixture.merchant.webhookSecret);
      assert.deepEqual(webhook.map((event) => [event.event, event.sessionId]).sort(), [['pos.session.completed', apart], ['pos.session.completed', same]].sort());
      // The same event reached both: one id.
      const callbackBody = JSON.parse(callbacks[0]!.rawBody.toString('utf8')) as Json;
      assert.equal(callbackBody.id, webhook.find((event) => event.sessionId === apart)!.id);

      // A merchant without a webhook URL, a session without a callback: nothing to deliver, no event row.
      const quiet = await shop(s, { webhook: false });
      const created = await s.request<Json>('POST', '/api/pos/sessions', { headers: quiet.key, body: { amount: 5, currency: 'NGN' } });
      const tapped = await s.request<Json>('POST', `/api/pos/sessions/${String(created.body.sessionId)}/tap`, { headers: quiet.key, body: { tagId: quiet.tagId } });
      assert.equal(tapped.body.status, 'completed');
      const [events] = await s.db.query<{ count: number }>('SELECT count(*)::int AS count FROM events WHERE merchant_id = $1', [quiet.merchant.id]);
      assert.equal(events!.count, 0);
      // Its sale still counts in its payments view.
      const list = await s.request<{ data: Received[] }>('GET', '/api/merchant/received', { headers: quiet.key });
      assert.deepEqual(list.body.data.map((row) => [row.id, row.channel, row.amount]), [[String(created.body.sessionId), 'pos', 5]]);
    });

    it('a failed kiosk sale reaches the webhook URL as pos.session.failed and is not listed as received', async () => {
      const s = server();
      const fixture = await shop(s);
      const created = await s.request<Json>('POST', '/api/pos/sessions', { headers: fixture.key, body: { amount: 5000, currency: 'NGN' } });
      const paid = await s.request<Json>('POST', `/api/pos/sessions/${String(created.body.sessionId)}/pay`, { headers: fixture.wallet, body: {} });
      assert.equal(paid.body.status, 'failed', JSON.stringify(paid.body));
      const events = await delivered(s, fixture.hookPath, fixture.merchant.webhookSecret);
      assert.deepEqual(events.map((event) => [event.event, event.sessionId, event.amount]), [['pos.session.failed', created.body.sessionId, 5000]]);
      assert.match(String(events[0]!.errorMessage), /Insufficient funds/);
      assert.equal((await s.request<{ total: number }>('GET', '/api/merchant/received', { headers: fixture.key })).body.total, 0);
    });

    it('a /pay/<handle> retry with the same Idempotency-Key records and announces the payment once; paying a person sends no merchant event', async () => {
      const s = server();
      const fixture = await shop(s);
      const headers = { ...fixture.wallet, 'idempotency-key': uniqueHandle('retry') };
      const first = await s.request<Json>('POST', '/api/wallet/pay', { headers, body: { to: fixture.merchant.handle, amount: 3 } });
      const again = await s.request<Json>('POST', '/api/wallet/pay', { headers, body: { to: fixture.merchant.handle, amount: 3 } });
      assert.equal(first.status, 201);
      assert.equal(again.body.transferId, first.body.transferId);
      const friend = uniqueHandle('friend');
      await s.createWallet({ handle: friend });
      assert.equal((await s.request<Json>('POST', '/api/wallet/pay', { headers: fixture.wallet, body: { to: friend, amount: 2 } })).status, 201);
      const events = await delivered(s, fixture.hookPath, fixture.merchant.webhookSecret);
      assert.deepEqual(events.map((event) => [event.event, event.transferId, event.amount, event.note]), [['wallet.payment.received', first.body.transferId, 3, null]]);
      const list = await s.request<{ data: Received[] }>('GET', '/api/merchant/received?channel=pay_page', { headers: fixture.key });
      assert.deepEqual(list.body.data.map((row) => [row.id, row.amount, row.reference]), [[first.body.transferId, 3, null]]);
    });
  });
}
