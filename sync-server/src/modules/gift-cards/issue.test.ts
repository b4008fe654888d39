import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { databaseTargets } from '../../testing/databases.ts';
import { ADMIN, uniqueHandle, useTestServer } from '../../testing/server.ts';
import { checkLedger } from '../../ledger/check.ts';
import {
  DAY,
  HOUR,
  type IssuedCard,
  type Json,
  agent,
  assertLiabilityMatchesCards,
  balanceMinor,
  holder,
  issueCard,
  merchant,
  monthsAfter,
  systemBalance,
  testClock,
} from '../../testing/gift-cards.ts';

const SPEC_RESPONSE_FIELDS = [
  'id',
  'code',
  'qrPng',
  'codePrefix',
  'amount',
  'currency',
  'expiresAt',
  'amountRemaining',
  'brand',
  'deliveryScheduledAt',
  'subscriptionPlanId',
  'giftMonths',
  'designTheme',
];

function assertIssued(card: IssuedCard, amount: number, currency: string): void {
  for (const field of SPEC_RESPONSE_FIELDS) assert.ok(field in card, `issue answer carries ${field}`);
  assert.match(card.code, /^gc_[0-9a-f]{64}$/);
  assert.equal(card.codePrefix, card.code.slice(0, 10));
  assert.equal(card.amount, amount);
  assert.equal(card.amountRemaining, amount);
  assert.equal(card.currency, currency);
  assert.equal(card.status, 'active');
  assert.match(card.qrPng, /^data:image\/png;base64,/);
  const png = Buffer.from(card.qrPng.slice('data:image/png;base64,'.length), 'base64');
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a real PNG');
}

for (const target of await databaseTargets()) {
  describe(`gift card issue on ${target.name}`, () => {
    const clock = testClock();
    const server = useTestServer(target, { now: clock.now, rateLimitScale: 20 });

    it('issues on the merchant surface: every spec field, a 256-bit code stored only as SHA-256, the wallet debited into the liability', async () => {
      const s = server();
      const shop = await merchant(s);
      const liabilityBefore = await systemBalance(s, 'gift_card_liability', 'NGN');
      const card = await issueCard(s, shop.headers, {
        amount: 2500.5,
        currency: 'NGN',
        message: 'Happy birthday',
        designTheme: 'birthday',
        brandConfig: { brandName: 'Mama Put', logoUrl: 'https://cdn.example.com/logo.png', primaryColor: '#FF8800', accentColor: '#123' },
      });
      assertIssued(card, 2500.5, 'NGN');
      assert.equal(card.designTheme, 'birthday');
      assert.equal(card.message, 'Happy birthday');
      assert.deepEqual(card.brand, { brandName: 'Mama Put', logoUrl: 'https://cdn.example.com/logo.png', primaryColor: '#ff8800', accentColor: '#123' });
      assert.equal(card.deliveryScheduledAt, null);
      assert.equal(card.subscriptionPlanId, null);
      assert.equal(card.giftMonths, null);
      assert.equal(card.hasPin, false);
      assert.equal(card.multiMerchant, false);
      assert.equal(card.issuerType, 'merchant');
      assert.equal(card.issuerId, shop.id);
      assert.equal(card.mode, 'test');
      // Default expiry: 12 calendar months after issue, on the injected clock.
      assert.equal(card.expiresAt, '2031-03-10T09:00:00.000Z');
      assert.equal(card.createdAt, clock.now().toISOString());

      assert.equal(await balanceMinor(s, shop.bare, 'NGN'), 100_000_000 - 250_050, 'merchant wallet debited 2500.50');
      assert.equal((await systemBalance(s, 'gift_card_liability', 'NGN')) - liabilityBefore, 250_050, 'liability credited');
      const [stored] = await s.db.query<{ code_hash: string; code_prefix: string; amount: number; issue_transfer_id: string }>(
        'SELECT code_hash, code_prefix, amount, issue_transfer_id FROM gift_cards WHERE id = $1',
        [card.id],
      );
      assert.equal(stored?.code_hash, createHash('sha256').update(card.code).digest('hex'));
      assert.equal(stored?.code_prefix, card.codePrefix);
      assert.equal(stored?.amount, 250_050);
      // Net per owner: the merchant wallet's postings also hold the sweep of its inflow shards (README, "Merchant inflow shards").
      const legs = await s.db.query<{ amount: number }>(
        `SELECT sum(p.amount)::int8 AS amount FROM ledger_postings p JOIN ledger_accounts a ON a.id = p.account_id
         WHERE p.transfer_id = $1 GROUP BY a.owner_type, a.owner_id ORDER BY 1`,
        [stored?.issue_transfer_id],
      );
      assert.deepEqual(legs.map((leg) => leg.amount), [-250_050, 250_050]);

      const detail = await s.request<Json>('GET', `/api/merchant/gift-cards/${card.id}`, { headers: shop.headers });
      assert.equal(detail.status, 200);
      assert.equal(detail.body.code, undefined, 'the code is never shown again');
      assert.equal(detail.body.qrPng, undefined);
      assert.equal(detail.body.codePrefix, card.codePrefix);
      const list = await s.request<{ data: Json[]; total: number; limit: number; offset: number }>('GET', '/api/merchant/gift-cards', { headers: shop.headers });
      assert.equal(list.status, 200);
      assert.equal(list.body.total, 1);
      assert.equal(list.body.limit, 20);
      assert.equal(list.body.offset, 0);
      assert.equal(list.body.data[0]?.id, card.id);
    });

    it('issues with the same shapes on the wallet and agent surfaces, debiting the holder\'s and the agent\'s wallets', async () => {
      const s = server();
      const person = await holder(s, { fund: 500 });
      const byHolder = await issueCard(s, person.headers, { amount: 120, currency: 'NGN', pinCode: '4321', lockedToHandle: '@Friend_1' }, 'wallet');
      assertIssued(byHolder, 120, 'NGN');
      assert.equal(byHolder.issuerType, 'wallet');
      assert.equal(byHolder.hasPin, true);
      assert.equal(byHolder.lockedToHandle, '@friend_1');
      assert.equal(byHolder.issuerHandle, `@${person.handle}`);
      assert.equal(await balanceMinor(s, person.handle, 'NGN'), 38_000);

      const cashPoint = await agent(s, { fund: 1000 });
      const byAgent = await issueCard(s, cashPoint.headers, { amount: 300, currency: 'NGN', expiresInMonths: 1 }, 'agent');
      assertIssued(byAgent, 300, 'NGN');
      assert.equal(byAgent.issuerType, 'agent');
      assert.equal(byAgent.issuerId, cashPoint.agentId);
      assert.equal(byAgent.expiresAt, '2030-04-10T09:00:00.000Z');
      assert.equal(await balanceMinor(s, cashPoint.handle, 'NGN'), 70_000);

      // Each surface sees its own cards only; another issuer's card is a 404.
      const own = await s.request<{ total: number }>('GET', '/api/agent/gift-cards', { headers: cashPoint.headers });
      assert.equal(own.body.total, 1);
      const foreign = await s.request<Json>('GET', `/api/agent/gift-cards/${byHolder.id}`, { headers: cashPoint.headers });
      assert.equal(foreign.status, 404);
      assert.equal(foreign.body.code, 'gift_card_not_found');
      // A wallet token cannot use the merchant surface, and terminals cannot issue.
      const wrongSurface = await s.request<Json>('POST', '/api/merchant/gift-cards', { headers: person.headers, body: { amount: 1, currency: 'NGN' } });
      assert.equal(wrongSurface.status, 403);
      assert.equal((await s.request<Json>('POST', '/api/wallet/gift-cards', { body: { amount: 1, currency: 'NGN' } })).status, 401);
      await assertLiabilityMatchesCards(s);
    });

    it('holds every field rule at its boundary', async () => {
      const s = server();
      const shop = await merchant(s);
      const post = (body: Json) => s.request<Json>('POST', '/api/merchant/gift-cards', { headers: shop.headers, body: { amount: 10, currency: 'NGN', ...body } });
      const accepted = async (body: Json) => {
        const response = await post(body);
        assert.equal(response.status, 201, `${JSON.stringify(body)} -> ${JSON.stringify(response.body)}`);
        return response.body;
      };
      const refused = async (body: Json, code = 'validation_failed') => {
        const response = await post(body);
        assert.equal(response.status, 400, `${JSON.stringify(body)} -> ${response.status}`);
        assert.equal(response.body.code, code, JSON.stringify(body));
        assert.equal(typeof response.body.error, 'string');
      };
      // message: 160 characters pass, 161 do not.
      assert.equal((await accepted({ message: 'm'.repeat(160) })).message, 'm'.repeat(160));
      await refused({ message: 'm'.repeat(161) });
      // PIN: 4 and 8 digits pass; 3 and 9 do not, nor letters.
      assert.equal((await accepted({ pinCode: '1234' })).hasPin, true);
      assert.equal((await accepted({ pinCode: '12345678' })).hasPin, true);
      await refused({ pinCode: '123' });
      await refused({ pinCode: '123456789' });
      await refused({ pinCode: '12a4' });
      // expiresInMonths: 1 and 24 pass; 0 and 25 do not.
      assert.equal((await accepted({ expiresInMonths: 1 })).expiresAt, '2030-04-10T09:00:00.000Z');
      assert.equal((await accepted({ expiresInMonths: 24 })).expiresAt, '2032-03-10T09:00:00.000Z');
      await refused({ expiresInMonths: 0 });
      await refused({ expiresInMonths: 25 });
      await refused({ expiresInMonths: 2.5 });
      // currency and design theme enums, money rules, handles, brand config.
      await refused({ currency: 'XOF' });
      await refused({ currency: 'ngn' });
      await refused({ designTheme: 'wedding' });
      await refused({ amount: 10.001 }, 'amount_too_many_decimals');
      await refused({ amount: 0 }, 'amount_must_not_be_zero');
      await refused({ amount: -5 }, 'amount_must_be_positive');
      await refused({ amount: 2e12 }, 'amount_too_large');
      await refused({ amount: undefined }, 'amount_required');
      await refused({ lockedToHandle: 'no' });
      await refused({ brandConfig: { logoUrl: 'http://cdn.example.com/logo.png' } });
      await refused({ brandConfig: { primaryColor: 'orange' } });
      await refused({ brandConfig: { accentColor: '#12345' } });
      await refused({ deliverToHandle: 'someone' }, 'delivery_incomplete');
      await refused({ deliverAt: '2031-01-01T00:00:00Z' }, 'delivery_incomplete');
      await refused({ deliverToHandle: 'someone', deliverAt: clock.now().toISOString() }, 'deliver_at_must_be_future');
      await refused({ deliverToHandle: 'someone', deliverAt: 'tomorrow' });
      await refused({ giftMonths: 2 }, 'subscription_gift_incomplete');
      // A wallet holder may not issue subscription gifts.
      const person = await holder(s, { fund: 100 });
      const subscription = await s.request<Json>('POST', '/api/wallet/gift-cards', { headers: person.headers, body: { subscriptionPlanId: 'plan_x', giftMonths: 1 } });
      assert.equal(subscription.status, 403);
      assert.equal(subscription.body.code, 'subscription_gift_merchant_only');
      const [count] = await s.db.query<{ n: number }>('SELECT count(*)::int8 AS n FROM gift_cards WHERE issuer_id = $1', [shop.id]);
      assert.equal(count?.n, 5, 'only the accepted bodies issued cards');
    });

    it('refuses an issue the wallet cannot pay (422) and issues nothing', async () => {
      const s = server();
      const person = await holder(s, { fund: 50 });
      const refused = await s.request<Json>('POST', '/api/wallet/gift-cards', { headers: person.headers, body: { amount: 50.01, currency: 'NGN' } });
      assert.equal(refused.status, 422);
      assert.equal(refused.body.code, 'insufficient_funds');
      const usd = await s.request<Json>('POST', '/api/wallet/gift-cards', { headers: person.headers, body: { amount: 1, currency: 'USD' } });
      assert.equal(usd.status, 422, 'a card is paid in its own currency');
      const rows = await s.db.query('SELECT id FROM gift_cards WHERE issuer_handle = $1', [person.handle]);
      assert.equal(rows.length, 0);
      assert.equal(await balanceMinor(s, person.handle, 'NGN'), 5000);
    });

    it('allows 10 single issues per issuer per 24 hours: the 11th is 429 with Retry-After; bulk and import are exempt', async () => {
      const s = server();
      const shop = await merchant(s);
      const first = clock.now().getTime();
      for (let i = 0; i < 10; i += 1) {
        await issueCard(s, shop.headers, { amount: 1, currency: 'NGN' });
        clock.advance(HOUR);
      }
      const eleventh = await s.request<Json>('POST', '/api/merchant/gift-cards', { headers: shop.headers, body: { amount: 1, currency: 'NGN' } });
      assert.equal(eleventh.status, 429);
      assert.equal(eleventh.body.code, 'gift_card_issue_limit');
      // The oldest of the ten leaves the window 24 hours after it was issued.
      const expected = Math.ceil((first + DAY - clock.now().getTime()) / 1000);
      assert.equal(eleventh.headers.get('retry-after'), String(expected));
      const bulk = await s.request<{ cards: unknown[] }>('POST', '/api/merchant/gift-cards/bulk', { headers: shop.headers, body: { count: 3, amount: 1, currency: 'NGN' } });
      assert.equal(bulk.status, 201);
      assert.equal(bulk.body.cards.length, 3);
      const imported = await s.request<{ issuedCount: number }>('POST', '/api/merchant/gift-cards/import', { headers: shop.headers, body: { cards: [{ amount: 1, currency: 'NGN' }] } });
      assert.equal(imported.status, 201);
      assert.equal(imported.body.issuedCount, 1);
      // Another issuer is not affected.
      const other = await merchant(s);
      await issueCard(s, other.headers, { amount: 1, currency: 'NGN' });
      // Once the first card is 24 hours old a slot frees up.
      clock.advance(expected * 1000);
      await issueCard(s, shop.headers, { amount: 1, currency: 'NGN' });
      const again = await s.request<Json>('POST', '/api/merchant/gift-cards', { headers: shop.headers, body: { amount: 1, currency: 'NGN' } });
      assert.equal(again.status, 429);
    });

    it('counts the 24-hour limit under a lock: 12 concurrent single issues give exactly 10 cards', async () => {
      const s = server();
      const shop = await merchant(s);
      const answers = await Promise.all(Array.from({ length: 12 }, () => s.request<Json>('POST', '/api/merchant/gift-cards', { headers: shop.headers, body: { amount: 1, currency: 'NGN' } })));
      assert.deepEqual(answers.map((answer) => answer.status).sort(), [...Array(10).fill(201), 429, 429]);
      const [count] = await s.db.query<{ n: number }>('SELECT count(*)::int8 AS n FROM gift_cards WHERE issuer_id = $1', [shop.id]);
      assert.equal(count?.n, 10);
    });

    it('bulk-issues 100 identical cards under one batchId with one debit, and refuses 101', async () => {
      const s = server();
      const shop = await merchant(s);
      const before = await balanceMinor(s, shop.bare, 'NGN');
      const bulk = await s.request<{ batchId: string; count: number; cards: IssuedCard[] }>('POST', '/api/merchant/gift-cards/bulk', {
        headers: shop.headers,
        body: { count: 100, amount: 25, currency: 'NGN', designTheme: 'business', expiresInMonths: 6 },
      });
      assert.equal(bulk.status, 201, JSON.stringify(bulk.body).slice(0, 300));
      assert.match(bulk.body.batchId, /^gcb_/);
      assert.equal(bulk.body.count, 100);
      assert.equal(bulk.body.cards.length, 100);
      assert.equal(new Set(bulk.body.cards.map((card) => card.code)).size, 100, 'every card has its own code');
      for (const card of bulk.body.cards) {
        assertIssued(card, 25, 'NGN');
        assert.equal(card.designTheme, 'business');
        assert.equal(card.batchId, bulk.body.batchId);
        assert.equal(card.expiresAt, monthsAfter(clock.now(), 6));
      }
      assert.equal(before - (await balanceMinor(s, shop.bare, 'NGN')), 250_000);
      const transfers = await s.db.query<{ n: number }>('SELECT count(DISTINCT issue_transfer_id)::int8 AS n FROM gift_cards WHERE batch_id = $1', [bulk.body.batchId]);
      assert.equal(transfers[0]?.n, 1, 'one ledger transfer for the whole batch');

      const tooMany = await s.request<Json>('POST', '/api/merchant/gift-cards/bulk', { headers: shop.headers, body: { count: 101, amount: 1, currency: 'NGN' } });
      assert.equal(tooMany.status, 400);
      assert.equal(tooMany.body.code, 'validation_failed');
      const none = await s.request<Json>('POST', '/api/merchant/gift-cards/bulk', { headers: shop.headers, body: { count: 0, amount: 1, currency: 'NGN' } });
      assert.equal(none.status, 400);
      // All or nothing: a batch the wallet cannot pay issues no card at all.
      const person = await holder(s, { fund: 99 });
      const unpaid = await s.request<Json>('POST', '/api/wallet/gift-cards/bulk', { headers: person.headers, body: { count: 10, amount: 10, currency: 'NGN' } });
      assert.equal(unpaid.status, 422);
      assert.equal(unpaid.body.code, 'insufficient_funds');
      assert.equal((await s.db.query('SELECT id FROM gift_cards WHERE issuer_handle = $1', [person.handle])).length, 0);
      await assertLiabilityMatchesCards(s);
    });

    it('imports 500 rows (501 is refused), validating each row alone and reporting failures without aborting the batch', async () => {
      const s = server();
      const shop = await merchant(s);
      const rows: unknown[] = Array.from({ length: 500 }, (_, index) => ({ amount: 2, currency: 'NGN', message: `Card ${index}` }));
      rows[3] = { amount: 2.001, currency: 'NGN' };
      rows[10] = { amount: 2, currency: 'XOF' };
      rows[20] = { amount: 2, currency: 'NGN', message: 'x'.repeat(161) };
      rows[30] = { amount: 2, currency: 'NGN', expiresInMonths: 25 };
      rows[40] = { amount: 2, currency: 'NGN', expiresInMonths: 0 };
      rows[50] = { amount: 2, currency: 'NGN', designTheme: 'neon' };
      rows[60] = { amount: 2, currency: 'NGN', lockedToHandle: 'x' };
      rows[70] = { currency: 'NGN' };
      rows[80] = 'not a row';
      rows[90] = { amount: 2, currency: 'NGN', message: 'y'.repeat(160), expiresInMonths: 24, lockedToHandle: '@Someone', designTheme: 'celebration' };
      const before = await balanceMinor(s, shop.bare, 'NGN');
      const imported = await s.request<{ batchId: string; issuedCount: number; failedCount: number; issued: (IssuedCard & { index: number })[]; failed: { index: number; code: string; reason: string }[] }>(
        'POST',
        '/api/merchant/gift-cards/import',
        { headers: shop.headers, body: { cards: rows } },
      );
      assert.equal(imported.status, 201);
      assert.equal(imported.body.issuedCount, 491);
      assert.equal(imported.body.failedCount, 9);
      assert.deepEqual(
        imported.body.failed.map((failure) => [failure.index, failure.code]),
        [
          [3, 'amount_too_many_decimals'],
          [10, 'currency_not_supported'],
          [20, 'message_too_long'],
          [30, 'expires_in_months_out_of_range'],
          [40, 'expires_in_months_out_of_range'],
          [50, 'design_theme_invalid'],
          [60, 'handle_invalid'],
          [70, 'amount_required'],
          [80, 'row_invalid'],
        ],
      );
      for (const failure of imported.body.failed) assert.ok(failure.reason.length > 0);
      assert.equal(imported.body.issued.length, 491);
      const row90 = imported.body.issued.find((card) => card.index === 90);
      assert.equal(row90?.lockedToHandle, '@someone');
      assert.equal(row90?.designTheme, 'celebration');
      assert.equal(row90?.expiresAt, monthsAfter(clock.now(), 24));
      assert.ok(imported.body.issued.every((card) => card.batchId === imported.body.batchId && /^gc_[0-9a-f]{64}$/.test(card.code)));
      assert.equal(before - (await balanceMinor(s, shop.bare, 'NGN')), 491 * 200);

      const tooMany = await s.request<Json>('POST', '/api/merchant/gift-cards/import', { headers: shop.headers, body: { cards: Array.from({ length: 501 }, () => ({ amount: 1, currency: 'NGN' })) } });
      assert.equal(tooMany.status, 400);
      assert.equal(tooMany.body.code, 'validation_failed');
      await assertLiabilityMatchesCards(s);
    });

    it('imports what the balance covers, in row order, in one transaction: the rest fail with insufficient_funds', async () => {
      const s = server();
      const person = await holder(s, { fund: 100 });
      await s.request('POST', `/api/admin/wallets/${person.handle}/credit`, { headers: ADMIN, body: { amount: 20, currency: 'USD' } });
      const imported = await s.request<{ issuedCount: number; failed: { index: number; code: string }[]; issued: { index: number; currency: string }[] }>('POST', '/api/wallet/gift-cards/import', {
        headers: person.headers,
        body: {
          cards: [
            { amount: 60, currency: 'NGN' },
            { amount: 50, currency: 'NGN' },
            { amount: 40, currency: 'NGN' },
            { amount: 15, currency: 'USD' },
            { amount: 10, currency: 'USD' },
          ],
        },
      });
      assert.equal(imported.status, 201);
      assert.deepEqual(imported.body.issued.map((card) => [card.index, card.currency]), [[0, 'NGN'], [2, 'NGN'], [3, 'USD']]);
      assert.deepEqual(imported.body.failed.map((failure) => [failure.index, failure.code]), [[1, 'insufficient_funds'], [4, 'insufficient_funds']]);
      assert.equal(await balanceMinor(s, person.handle, 'NGN'), 0);
      assert.equal(await balanceMinor(s, person.handle, 'USD'), 500);
      const transfers = await s.db.query<{ n: number }>(`SELECT count(DISTINCT issue_transfer_id)::int8 AS n FROM gift_cards WHERE issuer_handle = $1`, [person.handle]);
      assert.equal(transfers[0]?.n, 1, 'the whole batch is one ledger transfer, balanced per currency');
      const report = await checkLedger(s.db);
      assert.deepEqual(report.violations, []);
    });

    it('replays an Idempotency-Key: same card, no second debit, and the code is not repeated', async () => {
      const s = server();
      const shop = await merchant(s);
      const key = { ...shop.headers, 'idempotency-key': `issue-${uniqueHandle()}` };
      const first = await s.request<IssuedCard>('POST', '/api/merchant/gift-cards', { headers: key, body: { amount: 40, currency: 'NGN' } });
      assert.equal(first.status, 201);
      const balance = await balanceMinor(s, shop.bare, 'NGN');
      const replay = await s.request<IssuedCard>('POST', '/api/merchant/gift-cards', { headers: key, body: { amount: 40, currency: 'NGN' } });
      assert.equal(replay.status, 201);
      assert.equal(replay.headers.get('idempotent-replayed'), 'true');
      assert.equal(replay.body.id, first.body.id);
      assert.equal(replay.body.codePrefix, first.body.codePrefix);
      assert.equal(replay.body.code, undefined, 'returned exactly once');
      assert.equal(replay.body.qrPng, undefined);
      assert.equal(await balanceMinor(s, shop.bare, 'NGN'), balance);
      const reused = await s.request<Json>('POST', '/api/merchant/gift-cards', { headers: key, body: { amount: 41, currency: 'NGN' } });
      assert.equal(reused.status, 422);
      assert.equal(reused.body.code, 'idempotency_key_reused');
      const bulkKey = { ...shop.headers, 'idempotency-key': `bulk-${uniqueHandle()}` };
      const bulk = await s.request<{ batchId: string; cards: IssuedCard[] }>('POST', '/api/merchant/gift-cards/bulk', { headers: bulkKey, body: { count: 2, amount: 1, currency: 'NGN' } });
      const bulkReplay = await s.request<{ batchId: string; cards: IssuedCard[] }>('POST', '/api/merchant/gift-cards/bulk', { headers: bulkKey, body: { count: 2, amount: 1, currency: 'NGN' } });
      assert.equal(bulkReplay.body.batchId, bulk.body.batchId);
      assert.deepEqual(bulkReplay.body.cards.map((card) => card.id), bulk.body.cards.map((card) => card.id));
      assert.ok(bulkReplay.body.cards.every((card) => card.code === undefined && card.qrPng === undefined));
      // The first answer lost in a crash (its claim abandoned): the re-run finds the batch its first
      // run made and answers its cards without codes (never stored), not a 500 from the serializer.
      await s.db.query(
        `UPDATE idempotency_keys SET state = 'in_progress', response_status = NULL, response_body = NULL, completed_at = NULL, created_at = now() - interval '10 minutes' WHERE key = $1`,
        [bulkKey['idempotency-key']],
      );
      const balanceBeforeRerun = await balanceMinor(s, shop.bare, 'NGN');
      const rerun = await s.request<{ batchId: string; count: number; cards: IssuedCard[] }>('POST', '/api/merchant/gift-cards/bulk', { headers: bulkKey, body: { count: 2, amount: 1, currency: 'NGN' } });
      assert.equal(rerun.status, 201, JSON.stringify(rerun.body).slice(0, 300));
      assert.equal(rerun.headers.get('idempotent-replayed'), null, 'a re-run, not a replay');
      assert.equal(rerun.body.batchId, bulk.body.batchId);
      assert.equal(rerun.body.count, 2);
      assert.deepEqual(rerun.body.cards.map((card) => card.id).sort(), bulk.body.cards.map((card) => card.id).sort());
      assert.ok(rerun.body.cards.every((card) => card.code === undefined && card.qrPng === undefined));
      assert.equal(await balanceMinor(s, shop.bare, 'NGN'), balanceBeforeRerun, 'nothing charged twice');
    });
  });
}
