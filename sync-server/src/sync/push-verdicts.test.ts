// Every pushed document gets its own verdict, whatever one document or one terminal does: a bad
// document is declined and recorded while the others settle, and the server enforces the offline
// policy it hands terminals (issue: "Offline sync you can trust").
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { giftCardCodeHash, giftCardCodePrefix, makeGiftCardCode } from '@tapline/shared/gift-card-code';
import { type GiftCardSaleDoc, type OfflinePaymentDoc, type PushResponse, SYNC_EVENTS, type SyncFailure } from '@tapline/shared/sync-protocol';
import { checkLedger } from '../ledger/check.ts';
import { databaseTargets } from '../testing/databases.ts';
import { balanceMinor } from '../testing/ledger.ts';
import { type TestServer, uniqueHandle, useTestServer } from '../testing/server.ts';
import { conflictsOf, connectTerminal, pull, push } from '../testing/offline.ts';

type Doc = OfflinePaymentDoc;

function tapDoc(terminalId: string, tagId: string, amountMinor: number, extra: Record<string, unknown> = {}): Doc {
  return { id: randomUUID(), terminalId, kind: 'tap', tagId, amountMinor, currency: 'NGN', description: 'Suya', capturedAt: new Date().toISOString(), status: 'queued', serverSeq: 0, ...extra } as Doc;
}

async function saleDoc(terminalId: string, amountMinor: number, extra: Record<string, unknown> = {}): Promise<GiftCardSaleDoc> {
  const code = makeGiftCardCode();
  return {
    id: randomUUID(), terminalId, codeHash: await giftCardCodeHash(code), codePrefix: giftCardCodePrefix(code), amountMinor, currency: 'NGN',
    message: 'Enjoy', capturedAt: new Date().toISOString(), status: 'queued', serverSeq: 0, ...extra,
  } as GiftCardSaleDoc;
}

const statuses = (docs: { status: string; declineCode?: string }[]) => docs.map((doc) => [doc.status, doc.declineCode ?? null]);

for (const target of await databaseTargets()) {
  describe(`sync pushes settle document by document on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 50 });

    /** A merchant with a terminal, `customers` funded wallets with a ring each, and the terminal connected. */
    async function shop(s: TestServer, { fund = 1000, customers = 1 } = {}) {
      const merchant = await s.createMerchant();
      const key = { 'x-merchant-api-key': merchant.testKey };
      const terminal = await s.request<{ id: string; token: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Front counter' } });
      assert.equal(terminal.status, 201);
      const tags: string[] = [];
      const handles: string[] = [];
      for (let index = 0; index < customers; index++) {
        const handle = uniqueHandle('cust');
        await s.createWallet({ handle, fund });
        const tag = await s.request<{ tagId: string }>('POST', '/api/wearables', { headers: key, body: { handle, tagType: 'ring', displayName: 'Ring' } });
        assert.equal(tag.status, 201);
        tags.push(tag.body.tagId);
        handles.push(handle);
      }
      const { socket } = await connectTerminal(s, `term.${terminal.body.token}`);
      return { merchant, key, terminalId: terminal.body.id, token: terminal.body.token, socket, tagId: tags[0]!, tags, customer: handles[0]!, handles };
    }

    /** [good, bad, good]: two settle, the bad one is declined and recorded, and the terminal's next push goes through. */
    async function goodBadGood(s: TestServer, bad: (terminalId: string) => Record<string, unknown>, code: string, recordedHere = true) {
      const { terminalId, socket, tagId, customer, merchant } = await shop(s);
      const merchantBefore = await balanceMinor(s, merchant.handle, 'NGN');
      const docs = [tapDoc(terminalId, tagId, 1_000), bad(terminalId), tapDoc(terminalId, tagId, 2_000)];
      const verdicts = conflictsOf(await push(socket, docs));
      assert.deepEqual(statuses(verdicts), [['accepted', null], ['declined', code], ['accepted', null]]);
      assert.deepEqual(verdicts.map((doc) => doc.id), docs.map((doc) => String(doc.id).toLowerCase()));
      assert.equal(await balanceMinor(s, customer, 'NGN'), 100_000 - 3_000);
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), merchantBefore + 3_000);
      const recorded = await s.db.query<{ status: string; decline_code: string | null }>('SELECT status, decline_code FROM offline_payments WHERE id = $1', [verdicts[1]!.id]);
      if (recordedHere) assert.deepEqual(recorded, [{ status: 'declined', decline_code: code }], 'the decline is recorded, not lost');
      const next = conflictsOf(await push(socket, [tapDoc(terminalId, tagId, 500)]));
      assert.deepEqual(statuses(next), [['accepted', null]], 'the kiosk\'s next push goes through');
      const replay = conflictsOf(await push(socket, docs));
      // An unrecorded decline is answered afresh (its settledAt is the time of the answer).
      const comparable = (docs: Doc[]) => (recordedHere ? docs : docs.map((doc, index) => (index === 1 ? { ...doc, settledAt: '' } : doc)));
      assert.deepEqual(comparable(replay), comparable(verdicts), 'a repeated push answers the recorded verdicts');
      assert.equal(await balanceMinor(s, customer, 'NGN'), 100_000 - 3_500, 'and moves nothing');
      return verdicts[1]!;
    }

    it('declines a NUL character or an unpaired surrogate in the description, and settles the others', async () => {
      const s = server();
      const nul = await goodBadGood(s, (terminalId) => ({ ...tapDoc(terminalId, 'TG00000000', 100), description: 'Suya\u0000 and chips' }), 'invalid_document');
      assert.match(nul.declineReason ?? '', /description must not contain a NUL character/);
      assert.equal(nul.description, 'Suya\uFFFD and chips', 'recorded with what could not be stored replaced');
      const surrogate = await goodBadGood(s, (terminalId) => ({ ...tapDoc(terminalId, 'TG00000000', 100), description: 'half \uD83D emoji' }), 'invalid_document');
      assert.match(surrogate.declineReason ?? '', /unpaired UTF-16 surrogate/);
      const long = await goodBadGood(s, (terminalId) => ({ ...tapDoc(terminalId, 'TG00000000', 100), description: 'x'.repeat(501) }), 'invalid_document');
      assert.match(long.declineReason ?? '', /at most 500 characters/);
    });

    it('declines an unknown currency or one that is not a string', async () => {
      const s = server();
      const unknown = await goodBadGood(s, (terminalId) => ({ ...tapDoc(terminalId, 'TG00000000', 100), currency: 'ZZZ' }), 'invalid_document');
      assert.match(unknown.declineReason ?? '', /currency must be a supported ISO 4217 code/);
      assert.equal(unknown.currency, 'NGN', 'recorded in the terminal\'s currency');
      await goodBadGood(s, (terminalId) => ({ ...tapDoc(terminalId, 'TG00000000', 100), currency: 42 }), 'invalid_document');
      await goodBadGood(s, (terminalId) => ({ ...tapDoc(terminalId, 'TG00000000', 100), currency: { code: 'NGN' } }), 'invalid_document');
      await goodBadGood(s, (terminalId) => ({ ...tapDoc(terminalId, 'TG00000000', 100), amountMinor: 1e17 }), 'invalid_document');
    });

    it('declines a description that is not a string and a capture date at the edge of JavaScript dates, and settles the others', async () => {
      const s = server();
      const number = await goodBadGood(s, (terminalId) => ({ ...tapDoc(terminalId, 'TG00000000', 100), description: 42 }), 'invalid_document');
      assert.match(number.declineReason ?? '', /description/);
      await goodBadGood(s, (terminalId) => ({ ...tapDoc(terminalId, 'TG00000000', 100), description: { text: 'Suya' } }), 'invalid_document');
      // Dates JavaScript can hold but the database cannot: declined, never a crash or a settled payment.
      const edge = await goodBadGood(s, (terminalId) => ({ ...tapDoc(terminalId, 'TG00000000', 100), capturedAt: '+275760-09-13T00:00:00.000Z' }), 'invalid_document');
      assert.match(edge.declineReason ?? '', /capturedAt must be an ISO 8601 time between 1970 and 9999/);
      await goodBadGood(s, (terminalId) => ({ ...tapDoc(terminalId, 'TG00000000', 100), capturedAt: '-271821-04-20T00:00:00.000Z' }), 'invalid_document');
      await goodBadGood(s, (terminalId) => ({ ...tapDoc(terminalId, 'TG00000000', 100), capturedAt: '+275760-09-13T00:00:00.001Z' }), 'invalid_document');
      // A kiosk whose clock battery died: a time the rules judge.
      await goodBadGood(s, (terminalId) => ({ ...tapDoc(terminalId, 'TG00000000', 100), capturedAt: '1970-01-01T00:00:00.000Z' }), 'captured_before_terminal');
    });

    it('declines what the document schema refuses where no rule of the server looks (a tap carrying a voucher that is not text)', async () => {
      const s = server();
      const number = await goodBadGood(s, (terminalId) => ({ ...tapDoc(terminalId, 'TG00000000', 100), voucher: 42 }), 'invalid_document');
      assert.equal(number.declineReason, 'voucher must be string');
      const long = await goodBadGood(s, (terminalId) => ({ ...tapDoc(terminalId, 'TG00000000', 100), voucher: 'TLQ1.'.padEnd(2_001, 'x') }), 'invalid_document');
      assert.equal(long.declineReason, 'voucher must not have more than 2000 characters');
      // A rule's own sentence is not repeated by the schema's: one reason per field.
      const both = await goodBadGood(s, (terminalId) => ({ ...tapDoc(terminalId, 'TG00000000', 100), amountMinor: 'ten' }), 'invalid_document');
      assert.equal(both.declineReason, 'amountMinor must be a positive integer');
      // A cart discount without lines is the cart rules' to judge, with their code.
      await goodBadGood(s, (terminalId) => ({ ...tapDoc(terminalId, 'TG00000000', 100), discountMinor: 'lots' }), 'items_invalid');
    });

    it('declines a gift-card sale whose design theme is not a string, and settles the others', async () => {
      const s = server();
      const { terminalId, socket, merchant } = await shop(s);
      const before = await balanceMinor(s, merchant.handle, 'NGN');
      const docs = [await saleDoc(terminalId, 1_000), await saleDoc(terminalId, 1_000, { designTheme: 7 }), await saleDoc(terminalId, 1_000, { designTheme: ['birthday'] }), await saleDoc(terminalId, 2_000)];
      const verdicts = conflictsOf<GiftCardSaleDoc>(await push(socket, docs, 'gift_card_sales'));
      assert.deepEqual(statuses(verdicts), [['accepted', null], ['declined', 'invalid_document'], ['declined', 'invalid_document'], ['accepted', null]]);
      assert.match(verdicts[1]!.declineReason ?? '', /designTheme/);
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), before - 3_000);
    });

    it('answers an id another merchant used with id_taken, unrecorded, and settles the others', async () => {
      const s = server();
      const other = await shop(s);
      const theirs = tapDoc(other.terminalId, other.tagId, 700);
      assert.deepEqual(statuses(conflictsOf(await push(other.socket, [theirs]))), [['accepted', null]]);
      const taken = await goodBadGood(s, () => ({ ...theirs }), 'id_taken', false);
      assert.equal(taken.serverSeq, 0, 'not recorded for this terminal');
      const [row] = await s.db.query<{ terminal_id: string; status: string }>('SELECT terminal_id, status FROM offline_payments WHERE id = $1', [theirs.id]);
      assert.deepEqual(row, { terminal_id: other.terminalId, status: 'accepted' }, 'the other merchant\'s payment is untouched');
    });

    it('answers a re-provisioned terminal the verdicts its old terminal recorded, and settles its new payments', async () => {
      const s = server();
      const { key, terminalId, socket, tagId, customer } = await shop(s);
      const taken = [tapDoc(terminalId, tagId, 1_000), tapDoc(terminalId, 'TG00000000', 1_000)];
      const first = conflictsOf(await push(socket, taken));
      assert.deepEqual(statuses(first), [['accepted', null], ['declined', 'tag_not_found']]);
      // The merchant revokes the kiosk's token and gives it a new one; the kiosk pushes everything again.
      assert.equal((await s.request('DELETE', `/api/merchant/terminals/${terminalId}`, { headers: key })).status, 200);
      const fresh = await s.request<{ id: string; token: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Front counter again' } });
      const again = await connectTerminal(s, `term.${fresh.body.token}`);
      const newer = tapDoc(fresh.body.id, tagId, 500);
      const verdicts = conflictsOf(await push(again.socket, [...taken, newer]));
      assert.deepEqual(verdicts.slice(0, 2), first, 'the recorded verdicts, as the old terminal settled them');
      assert.deepEqual(statuses(verdicts.slice(2)), [['accepted', null]]);
      assert.equal(await balanceMinor(s, customer, 'NGN'), 100_000 - 1_500, 'nothing settled twice');
    });

    it('refuses an unknown collection, prototype names included, as a whole and stores nothing; the next push goes through', async () => {
      const s = server();
      const { terminalId, socket, tagId } = await shop(s);
      for (const collection of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 42, null]) {
        const answer = (await socket.timeout(60_000).emitWithAck(SYNC_EVENTS.push, { collection, rows: [{ newDocumentState: tapDoc(terminalId, tagId, 100) }] })) as SyncFailure;
        assert.equal(answer.code, 'unknown_collection', String(collection));
        const pulled = (await socket.timeout(60_000).emitWithAck(SYNC_EVENTS.pull, { collection, checkpoint: null, batchSize: 10 })) as SyncFailure;
        assert.equal(pulled.code, 'unknown_collection', String(collection));
      }
      const [count] = await s.db.query<{ n: number }>('SELECT count(*)::int8 AS n FROM offline_payments WHERE terminal_id = $1', [terminalId]);
      assert.equal(count?.n, 0);
      assert.deepEqual(statuses(conflictsOf(await push(socket, [tapDoc(terminalId, tagId, 100)]))), [['accepted', null]]);
    });

    it('answers rows that are not documents in `rejected` by their index and settles the rest', async () => {
      const s = server();
      const { terminalId, socket, tagId } = await shop(s);
      const good = tapDoc(terminalId, tagId, 100);
      const answer = (await socket.timeout(60_000).emitWithAck(SYNC_EVENTS.push, {
        collection: 'offline_payments',
        rows: [null, 'row', { newDocumentState: null }, { newDocumentState: { ...good, id: 42 } }, { newDocumentState: good }],
      })) as PushResponse;
      assert.deepEqual(answer.rejected?.map((row) => row.index), [0, 1, 2, 3]);
      assert.deepEqual(statuses(answer.conflicts), [['accepted', null]]);
    });

    it('declines a gift-card sale with a NUL or an unpaired surrogate in its message, and settles the others', async () => {
      const s = server();
      const { terminalId, socket, merchant } = await shop(s);
      const before = await balanceMinor(s, merchant.handle, 'NGN');
      const docs = [await saleDoc(terminalId, 1_000), await saleDoc(terminalId, 1_000, { message: 'Happy\u0000birthday' }), await saleDoc(terminalId, 1_000, { message: '\uDC00' }), await saleDoc(terminalId, 2_000)];
      const verdicts = conflictsOf<GiftCardSaleDoc>(await push(socket, docs, 'gift_card_sales'));
      assert.deepEqual(statuses(verdicts), [['accepted', null], ['declined', 'invalid_document'], ['declined', 'invalid_document'], ['accepted', null]]);
      assert.match(verdicts[1]!.declineReason ?? '', /message must not contain a NUL character/);
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), before - 3_000);
      assert.deepEqual(statuses(conflictsOf<GiftCardSaleDoc>(await push(socket, [await saleDoc(terminalId, 100)], 'gift_card_sales'))), [['accepted', null]]);
    });

    it('declines one of two gift-card sales with the same code pushed at once by two terminals code_taken, never a server error', async () => {
      const s = server();
      const { key, terminalId, socket, merchant } = await shop(s);
      const second = await s.request<{ id: string; token: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Gift desk' } });
      const other = await connectTerminal(s, `term.${second.body.token}`);
      const before = await balanceMinor(s, merchant.handle, 'NGN');
      for (let round = 0; round < 5; round++) {
        const one = await saleDoc(terminalId, 1_000);
        const two = { ...(await saleDoc(second.body.id, 1_000)), codeHash: one.codeHash, codePrefix: one.codePrefix };
        const answers = await Promise.all([push<GiftCardSaleDoc>(socket, [one], 'gift_card_sales'), push<GiftCardSaleDoc>(other.socket, [two], 'gift_card_sales')]);
        const verdicts = answers.flatMap((answer) => conflictsOf<GiftCardSaleDoc>(answer));
        assert.deepEqual(statuses(verdicts).sort(), [['accepted', null], ['declined', 'code_taken']]);
      }
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), before - 5_000);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('settles a push of 500 documents with 10 bad ones: 490 accepted, 10 declined; replaying it moves nothing', async () => {
      const s = server();
      const { terminalId, socket, tags, handles, key, merchant } = await shop(s, { customers: 10, fund: 5_000 });
      assert.equal((await s.request('PATCH', `/api/merchant/terminals/${terminalId}`, { headers: key, body: { offlineLimits: { total: 1_000_000 } } })).status, 200);
      const merchantBefore = await balanceMinor(s, merchant.handle, 'NGN');
      const docs = Array.from({ length: 500 }, (_, index) =>
        index % 50 === 7 ? { ...tapDoc(terminalId, tags[index % 10]!, 100), description: `bad\u0000${index}` } : tapDoc(terminalId, tags[index % 10]!, 100 + (index % 3)),
      );
      const verdicts: Doc[] = [];
      for (let start = 0; start < docs.length; start += 100) verdicts.push(...conflictsOf(await push(socket, docs.slice(start, start + 100))));
      assert.equal(verdicts.length, 500);
      assert.equal(verdicts.filter((doc) => doc.status === 'accepted').length, 490);
      assert.deepEqual([...new Set(verdicts.filter((doc) => doc.status === 'declined').map((doc) => doc.declineCode))], ['invalid_document']);
      const total = docs.filter((_, index) => index % 50 !== 7).reduce((sum, doc) => sum + doc.amountMinor, 0);
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), merchantBefore + total);
      const balances = async () => Promise.all(handles.map((handle) => balanceMinor(s, handle, 'NGN')));
      const before = await balances();
      assert.equal(before.reduce((sum, value) => sum + value, 0), 10 * 500_000 - total);

      const replayed: Doc[] = [];
      for (let start = 0; start < docs.length; start += 100) replayed.push(...conflictsOf(await push(socket, docs.slice(start, start + 100))));
      assert.deepEqual(replayed, verdicts);
      assert.deepEqual(await balances(), before);
      assert.equal(await balanceMinor(s, merchant.handle, 'NGN'), merchantBefore + total);
      const pulled = await pull(socket, null, 100);
      assert.ok('documents' in pulled);
      assert.deepEqual(pulled.documents.map((doc) => doc.serverSeq), [...pulled.documents.map((doc) => doc.serverSeq)].sort((a, b) => a - b), 'change numbers in order');
      const [counts] = await s.db.query<{ rows: number; transfers: number }>(
        `SELECT count(*)::int8 AS rows, count(DISTINCT transfer_id)::int8 AS transfers FROM offline_payments WHERE terminal_id = $1`,
        [terminalId],
      );
      assert.deepEqual(counts, { rows: 500, transfers: 490 });
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });
  });

  describe(`the server enforces a terminal's offline limits on ${target.name}`, () => {
    let offsetMs = 0;
    const now = () => new Date(Date.now() + offsetMs);
    const server = useTestServer(target, { now, rateLimitScale: 50 });

    async function till(s: TestServer, limits: Record<string, number>, fund = 5_000) {
      const merchant = await s.createMerchant();
      const key = { 'x-merchant-api-key': merchant.testKey };
      const terminal = await s.request<{ id: string; token: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Till' } });
      const changed = await s.request('PATCH', `/api/merchant/terminals/${terminal.body.id}`, { headers: key, body: { offlineLimits: limits } });
      assert.equal(changed.status, 200, JSON.stringify(changed.body));
      const customer = uniqueHandle('cust');
      await s.createWallet({ handle: customer, fund });
      const tag = await s.request<{ tagId: string }>('POST', '/api/wearables', { headers: key, body: { handle: customer, tagType: 'ring', displayName: 'Ring' } });
      const token = `term.${terminal.body.token}`;
      const { socket } = await connectTerminal(s, token);
      return { merchant, key, terminalId: terminal.body.id, token, socket, tagId: tag.body.tagId, customer };
    }

    it('declines a tap over the per-payment limit, dated long ago or before the terminal existed, and every tap when the limits are 0', async () => {
      const s = server();
      const shop = await till(s, { perPayment: 100, total: 300 });
      const days = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString();
      const verdicts = conflictsOf(await push(shop.socket, [
        tapDoc(shop.terminalId, shop.tagId, 10_001),
        tapDoc(shop.terminalId, shop.tagId, 10_000),
        tapDoc(shop.terminalId, shop.tagId, 1_000, { capturedAt: days(30) }),
        tapDoc(shop.terminalId, shop.tagId, 1_000, { capturedAt: '1970-01-01T00:00:00.000Z' }),
        tapDoc(shop.terminalId, shop.tagId, 1_000, { capturedAt: new Date(Date.now() + 3600_000).toISOString() }),
        tapDoc(shop.terminalId, shop.tagId, 1_000, { currency: 'GHS' }),
      ]));
      assert.deepEqual(statuses(verdicts), [
        ['declined', 'offline_amount_over_limit'],
        ['accepted', null],
        ['declined', 'captured_before_terminal'],
        ['declined', 'captured_before_terminal'],
        ['declined', 'captured_in_future'],
        ['declined', 'offline_currency_not_allowed'],
      ]);
      assert.equal(await balanceMinor(s, shop.customer, 'NGN'), 500_000 - 10_000);

      // Older than the age limit (here 2 hours), though after the terminal was made.
      const aged = await till(s, { perPayment: 100, total: 300, maxAgeHours: 2 });
      offsetMs = 3 * 3600_000;
      const old = conflictsOf(await push(aged.socket, [tapDoc(aged.terminalId, aged.tagId, 500), tapDoc(aged.terminalId, aged.tagId, 500, { capturedAt: new Date(Date.now() + 2 * 3600_000).toISOString() })]));
      offsetMs = 0;
      assert.deepEqual(statuses(old), [['declined', 'offline_payment_too_old'], ['accepted', null]]);

      const off = await till(s, { perPayment: 0, total: 0 });
      const before = await balanceMinor(s, off.customer, 'NGN');
      const refused = conflictsOf(await push(off.socket, [tapDoc(off.terminalId, off.tagId, 5_000_000), tapDoc(off.terminalId, off.tagId, 1)]));
      assert.deepEqual(statuses(refused), [['declined', 'offline_payments_disabled'], ['declined', 'offline_payments_disabled']]);
      assert.equal(await balanceMinor(s, off.customer, 'NGN'), before, 'no money moved');
    });

    it('lets a terminal that ignores its limits move no more than they allow: 1,000 taps beyond them', async () => {
      const s = server();
      const shop = await till(s, { perPayment: 50, total: 200 }, 100_000);
      const merchantBefore = await balanceMinor(s, shop.merchant.handle, 'NGN');
      // Taps of 40 NGN and of 60 NGN (over the per-payment limit), all taken on one UTC day.
      const docs = Array.from({ length: 1_000 }, (_, index) => tapDoc(shop.terminalId, shop.tagId, index % 4 === 3 ? 6_000 : 4_000, { capturedAt: new Date(Date.now() - 60_000 + index).toISOString() }));
      const verdicts: Doc[] = [];
      for (let start = 0; start < docs.length; start += 100) verdicts.push(...conflictsOf(await push(shop.socket, docs.slice(start, start + 100))));
      const accepted = verdicts.filter((doc) => doc.status === 'accepted');
      assert.equal(accepted.length, 5, '5 taps of 40 NGN fill the 200 NGN window');
      assert.equal(accepted.reduce((sum, doc) => sum + doc.amountMinor, 0), 20_000);
      const codes = new Map<string, number>();
      for (const doc of verdicts) if (doc.declineCode) codes.set(doc.declineCode, (codes.get(doc.declineCode) ?? 0) + 1);
      assert.deepEqual(Object.fromEntries(codes), { offline_amount_over_limit: 250, offline_exposure_limit: 745 });
      assert.equal(await balanceMinor(s, shop.customer, 'NGN'), 10_000_000 - 20_000);
      assert.equal(await balanceMinor(s, shop.merchant.handle, 'NGN'), merchantBefore + 20_000);

      // Taps dated back into the same window, pushed again in any order, change nothing.
      const backdated = Array.from({ length: 100 }, (_, index) => tapDoc(shop.terminalId, shop.tagId, 100, { capturedAt: new Date(Date.now() - 30_000 - index).toISOString() }));
      assert.deepEqual([...new Set(conflictsOf(await push(shop.socket, backdated)).map((doc) => doc.declineCode))], ['offline_exposure_limit']);

      // Reconnecting opens nothing new: the total is the terminal's for the UTC day the taps were taken.
      shop.socket.disconnect();
      const again = await connectTerminal(s, shop.token);
      const later = conflictsOf(await push(again.socket, [tapDoc(shop.terminalId, shop.tagId, 4_000), ...backdated.slice(0, 1)]));
      assert.deepEqual(statuses(later), [['declined', 'offline_exposure_limit'], ['declined', 'offline_exposure_limit']]);
      assert.equal(await balanceMinor(s, shop.customer, 'NGN'), 10_000_000 - 20_000);
      assert.deepEqual((await checkLedger(s.db)).violations, []);
    });

    it('declines an offline tap over the tag\'s no-PIN limit: the holder\'s PIN cannot be asked offline', async () => {
      const s = server();
      const shop = await till(s, { perPayment: 100, total: 1_000 });
      const session = await s.request<{ token: string }>('POST', '/api/wallet/sessions', { body: { handle: shop.customer, pin: '1234' } });
      const holder = { authorization: `Bearer wallet.${session.body.token}` };
      const lowered = await s.request('PATCH', `/api/wallet/wearables/${shop.tagId}`, { headers: holder, body: { noPinLimits: { perTap: 25, perDay: 50 } } });
      assert.equal(lowered.status, 200, JSON.stringify(lowered.body));
      const verdicts = conflictsOf(await push(shop.socket, [tapDoc(shop.terminalId, shop.tagId, 2_500), tapDoc(shop.terminalId, shop.tagId, 2_501)]));
      assert.deepEqual(statuses(verdicts), [['accepted', null], ['declined', 'pin_required']], 'the code an online tap above the limit gets');
      assert.match(verdicts[1]!.declineReason ?? '', /25 NGN/);
      assert.equal(await balanceMinor(s, shop.customer, 'NGN'), 500_000 - 2_500);
    });

    it('counts only accepted taps against the window: a tap the wallet cannot pay leaves room for the next', async () => {
      const s = server();
      const shop = await till(s, { perPayment: 50, total: 55 }, 45);
      const verdicts = conflictsOf(await push(shop.socket, [
        tapDoc(shop.terminalId, shop.tagId, 5_000),
        tapDoc(shop.terminalId, 'TG00000000', 1_000),
        tapDoc(shop.terminalId, shop.tagId, 4_000),
        tapDoc(shop.terminalId, shop.tagId, 2_000),
        tapDoc(shop.terminalId, shop.tagId, 500),
      ]));
      assert.deepEqual(statuses(verdicts), [['declined', 'insufficient_funds'], ['declined', 'tag_not_found'], ['accepted', null], ['declined', 'offline_exposure_limit'], ['accepted', null]]);
      assert.equal(await balanceMinor(s, shop.customer, 'NGN'), 0);
    });
  });
}

