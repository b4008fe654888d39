// A POS session's expiry has one form, pos_session_overdue() in SQL: the tap asks it under the
// session's lock, and reads, cancels and the PIN check take its answer from the session's read
// (findSession / lockSession `overdue`). These hold each surface to it at the boundary: 89 s
// pending, exactly 90 s expired.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { databaseTargets } from '../../testing/databases.ts';
import { type TestServer, uniqueHandle, useTestServer } from '../../testing/server.ts';

type Session = { sessionId: string; status: string; errorMessage?: string; code?: string };

for (const target of await databaseTargets()) {
  describe(`a POS session's expiry on ${target.name}`, () => {
    let offsetMs = 0;
    const server = useTestServer(target, { now: () => new Date(Date.now() + offsetMs), rateLimitScale: 10 });
    const advance = (seconds: number) => {
      offsetMs += seconds * 1000;
    };

    async function shop(s: TestServer) {
      const merchant = await s.createMerchant();
      const key = { 'x-merchant-api-key': merchant.testKey };
      const payer = uniqueHandle('payer');
      await s.createWallet({ handle: payer, pin: '4321', fund: 100 });
      const tag = await s.request<{ tagId: string }>('POST', '/api/wearables', { headers: key, body: { handle: payer, tagType: 'ring', displayName: 'Ring' } });
      assert.equal(tag.status, 201);
      const open = async () => {
        const created = await s.request<Session>('POST', '/api/pos/sessions', { headers: key, body: { amount: 1, currency: 'NGN', description: 'Gum' } });
        assert.equal(created.status, 201);
        return created.body.sessionId;
      };
      return { key, tagId: tag.body.tagId, open };
    }

    it('reads and cancels a session pending at 89 s and expired at exactly 90 s', async () => {
      const s = server();
      const { key, open } = await shop(s);
      const kept = await open();
      const cancelled = await open();
      advance(89);
      assert.equal((await s.request<Session>('GET', `/api/pos/sessions/${kept}`, { headers: key })).body.status, 'pending');
      const early = await s.request<Session>('POST', `/api/pos/sessions/${cancelled}/cancel`, { headers: key });
      assert.equal(early.status, 200);
      assert.equal(early.body.status, 'cancelled');
      const late = await open();
      advance(1);
      const read = await s.request<Session>('GET', `/api/pos/sessions/${kept}`, { headers: key });
      assert.equal(read.body.status, 'expired');
      assert.equal(read.body.errorMessage, 'The session expired: no payment within 90 seconds');
      advance(89);
      const cancel = await s.request<Session>('POST', `/api/pos/sessions/${late}/cancel`, { headers: key });
      assert.equal(cancel.status, 410);
      assert.equal(cancel.body.code, 'session_expired');
      assert.equal((await s.request<Session>('GET', `/api/pos/sessions/${late}`, { headers: key })).body.status, 'expired');
    });

    it('spends no PIN attempt on a session past its 90 seconds: the tap answers 410 before the PIN is checked', async () => {
      const s = server();
      const { key, tagId, open } = await shop(s);
      const overdue = await Promise.all([1, 2, 3, 4, 5, 6].map(() => open()));
      advance(90);
      for (const sessionId of overdue) {
        const tap = await s.request<Session>('POST', `/api/pos/sessions/${sessionId}/tap`, { headers: key, body: { tagId, pin: '0000' } });
        assert.equal(tap.status, 410, JSON.stringify(tap.body));
        assert.equal(tap.body.code, 'session_expired');
      }
      // Six wrong PINs were sent, none was counted: the holder is not locked out.
      const fresh = await open();
      const wrong = await s.request<Session>('POST', `/api/pos/sessions/${fresh}/tap`, { headers: key, body: { tagId, pin: '0000' } });
      assert.equal(wrong.status, 403);
      assert.equal(wrong.body.code, 'wrong_pin');
      const paid = await s.request<Session>('POST', `/api/pos/sessions/${fresh}/tap`, { headers: key, body: { tagId, pin: '4321' } });
      assert.equal(paid.status, 200, JSON.stringify(paid.body));
      assert.equal(paid.body.status, 'completed');
    });
  });
}
