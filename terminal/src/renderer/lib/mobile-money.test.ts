// Mobile money at the till, the kiosk's side: the pending request kept per terminal (so a reload
// resumes the wait or repeats the request with the same key), the phone keypad, the countdown and
// the words for each ending.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CATALOGUES, translator } from '@tapline/shared/i18n';
import { ApiError } from './api.ts';
import {
  type Collection,
  clock,
  endedCode,
  failureKey,
  forgetPending,
  loadPending,
  phoneLooksComplete,
  pressPhoneKey,
  requestCollection,
  resumeCollection,
  secondsLeft,
  tenderOf,
} from './mobile-money.ts';

function memoryStore() {
  const map = new Map<string, string>();
  return { getItem: (key: string) => map.get(key) ?? null, setItem: (key: string, value: string) => void map.set(key, value), removeItem: (key: string) => void map.delete(key), map };
}

function collection(fields: Partial<Collection> = {}): Collection {
  return { id: 'col_abc', status: 'pending', amountMinor: 25_000, currency: 'KES', phone: '+254•••••••011', provider: 'sandbox', terminalId: 'term_1', claimedBy: null, returnedAt: null, returnPaymentId: null, returnAttempts: 0, expiresAt: '2026-01-01T00:02:00.000Z', createdAt: '2026-01-01T00:00:00.000Z', ...fields };
}

describe('the mobile money request a till keeps', () => {
  it('is kept with its key before it is sent, then with its id; a reload resumes it by id without asking the phone again', async () => {
    const store = memoryStore();
    const sent: { body: unknown; key: string }[] = [];
    const api = {
      createCollection: async (body: unknown, key: string) => {
        sent.push({ body, key });
        return collection();
      },
      collection: async (id: string) => collection({ id, status: 'completed', completedAt: '2026-01-01T00:00:05.000Z' }),
    };
    const created = await requestCollection(api, 'term_1', { amountMinor: 25_000, currency: 'KES', phone: '0700000011' }, 'key-1', store);
    assert.equal(created.status, 'pending');
    assert.deepEqual(sent, [{ body: { amountMinor: 25_000, currency: 'KES', phone: '0700000011' }, key: 'key-1' }]);
    assert.deepEqual(loadPending('term_1', 25_000, 'KES', store), { key: 'key-1', amountMinor: 25_000, currency: 'KES', phone: '0700000011', id: 'col_abc' });
    assert.equal(loadPending('term_1', 30_000, 'KES', store), null, 'another amount is another sale');
    assert.equal(loadPending('term_2', 25_000, 'KES', store), null, 'per terminal');

    const resumed = await resumeCollection(api, 'term_1', loadPending('term_1', 25_000, 'KES', store)!, store);
    assert.equal(resumed.status, 'completed');
    assert.equal(sent.length, 1, 'resumed by id: no second request');
    assert.equal(loadPending('term_1', 25_000, 'KES', store), null, 'forgotten once it ended');
    assert.deepEqual(tenderOf(resumed), { kind: 'mobile_money', amountMinor: 25_000, reference: 'col_abc', phone: '+254•••••••011' });
  });

  it('a request whose answer never came is repeated with the same key; a refused one is forgotten', async () => {
    const store = memoryStore();
    const keys: string[] = [];
    let reachable = false;
    const api = {
      createCollection: async (_body: unknown, key: string) => {
        keys.push(key);
        if (!reachable) throw new ApiError('The terminal cannot reach the server', 'network_error', 0);
        return collection();
      },
      collection: async () => collection(),
    };
    await assert.rejects(requestCollection(api, 'term_1', { amountMinor: 25_000, currency: 'KES', phone: '0700000011' }, 'key-9', store), ApiError);
    const kept = loadPending('term_1', 25_000, 'KES', store);
    assert.deepEqual(kept, { key: 'key-9', amountMinor: 25_000, currency: 'KES', phone: '0700000011' });
    reachable = true;
    await resumeCollection(api, 'term_1', kept!, store);
    assert.deepEqual(keys, ['key-9', 'key-9']);

    const refusing = { createCollection: async () => { throw new ApiError('bad number', 'invalid_phone', 400); }, collection: async () => collection() };
    await assert.rejects(requestCollection(refusing, 'term_3', { amountMinor: 1, currency: 'KES', phone: '12' }, 'k', store), (error: ApiError) => error.code === 'invalid_phone');
    assert.equal(loadPending('term_3', 1, 'KES', store), null);
    forgetPending('term_1', store);
    assert.equal(store.map.size, 0);
  });

  it('drops a kept value that is not one', () => {
    const store = memoryStore();
    store.setItem('tapline.mobileMoney.term_1', '{not json');
    assert.equal(loadPending('term_1', 1, 'KES', store), null);
    assert.equal(store.map.size, 0);
  });
});

describe('the mobile money screen\'s arithmetic and words', () => {
  it('types a phone number: digits, a leading + only, at most 16 characters', () => {
    let entry = '';
    for (const key of ['+', '2', '5', '4', '+', '7'] as const) entry = pressPhoneKey(entry, key);
    assert.equal(entry, '+2547');
    assert.equal(pressPhoneKey(entry, 'back'), '+254');
    assert.equal(pressPhoneKey(entry, 'clear'), '');
    let long = '';
    for (let i = 0; i < 20; i += 1) long = pressPhoneKey(long, '9');
    assert.equal(long.length, 16);
    assert.equal(phoneLooksComplete('070000'), false);
    assert.equal(phoneLooksComplete('0700000011'), true);
  });

  it('counts down in whole seconds to the expiry, never below zero', () => {
    const expiresAt = '2026-01-01T00:02:00.000Z';
    assert.equal(secondsLeft(expiresAt, Date.parse('2026-01-01T00:00:00.000Z')), 120);
    assert.equal(secondsLeft(expiresAt, Date.parse('2026-01-01T00:01:59.100Z')), 1);
    assert.equal(secondsLeft(expiresAt, Date.parse('2026-01-01T00:03:00.000Z')), 0);
    assert.equal(clock(120), '2:00');
    assert.equal(clock(65), '1:05');
    assert.equal(clock(0), '0:00');
  });

  it('says each ending in words, in every language', () => {
    assert.equal(endedCode(collection({ status: 'expired', failureCode: 'no_answer' })), 'no_answer');
    assert.equal(endedCode(collection({ status: 'cancelled' })), 'cancelled');
    assert.equal(endedCode(collection({ status: 'failed', failureCode: 'insufficient_funds' })), 'insufficient_funds');
    assert.equal(endedCode(collection({ status: 'failed' })), 'provider_error');
    assert.equal(failureKey('something_new'), 'kiosk.mobileMoney.failure.provider_error');
    const english = translator('en');
    assert.equal(english.t(failureKey('declined')), 'The customer declined the payment on their phone.');
    for (const language of Object.keys(CATALOGUES) as (keyof typeof CATALOGUES)[]) {
      for (const code of ['declined', 'insufficient_funds', 'no_answer', 'invalid_phone', 'collection_unavailable', 'cancelled', 'provider_error']) {
        const text = translator(language).t(failureKey(code));
        assert.ok(text.length > 10 && !text.includes('kiosk.'), `${language} ${code}: ${text}`);
      }
    }
    assert.throws(() => tenderOf(collection()), /not completed/);
  });
});
