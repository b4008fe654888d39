// Counting a tag's tap has one rule, modules/wearables countTaps; pos_tap writes it into the one
// UPDATE that also takes the no-PIN allowance (a second statement on the hot tag row cost a third
// of bench:pos).
// This holds the two to the same effect: an active tag counts once with the tap's time, a
// disabled tag counts nothing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { databaseTargets } from '../../testing/databases.ts';
import { uniqueHandle, useTestServer } from '../../testing/server.ts';
import { countTaps } from '../wearables/index.ts';

const NOW = new Date('2030-02-03T10:00:00.000Z');

for (const target of await databaseTargets()) {
  describe(`a tap's count, at the POS and through countTaps, on ${target.name}`, () => {
    const server = useTestServer(target, { now: () => NOW, rateLimitScale: 20 });

    it('counts an active tag once with the tap\'s time either way, and a disabled tag not at all', async () => {
      const s = server();
      const merchant = await s.createMerchant();
      const key = { 'x-merchant-api-key': merchant.testKey };
      const payer = uniqueHandle('counted');
      await s.createWallet({ handle: payer, pin: '2468', fund: 1000 });
      const tags: string[] = [];
      for (let index = 0; index < 4; index++) {
        const tag = await s.request<{ tagId: string }>('POST', '/api/wearables', { headers: key, body: { handle: payer, tagType: 'ring' } });
        assert.equal(tag.status, 201, JSON.stringify(tag.body));
        tags.push(tag.body.tagId);
      }
      const [posActive, ruleActive, posDisabled, ruleDisabled] = tags as [string, string, string, string];
      await s.db.query(`UPDATE wearables SET status = 'disabled' WHERE tag_id = ANY ($1::text[])`, [[posDisabled, ruleDisabled]]);
      const counts = async () =>
        Object.fromEntries(
          (await s.db.query<{ tag_id: string; tap_count: number | string; last_tapped_at: Date | null }>('SELECT tag_id, tap_count, last_tapped_at FROM wearables WHERE tag_id = ANY ($1::text[])', [tags])).map((row) => [
            row.tag_id,
            [Number(row.tap_count), row.last_tapped_at ? new Date(row.last_tapped_at).toISOString() : null],
          ]),
        );

      const tapAt = async (tagId: string) => {
        const session = await s.request<{ sessionId: string }>('POST', '/api/pos/sessions', { headers: key, body: { amount: 1, currency: 'NGN' } });
        assert.equal(session.status, 201, JSON.stringify(session.body));
        return s.request<{ status?: string; code?: string }>('POST', `/api/pos/sessions/${session.body.sessionId}/tap`, { headers: key, body: { tagId } });
      };
      const paid = await tapAt(posActive);
      assert.equal(paid.body.status, 'completed', JSON.stringify(paid.body));
      const refused = await tapAt(posDisabled);
      assert.equal(refused.body.code, 'tag_disabled', JSON.stringify(refused.body));
      const ruled = await countTaps(s.db, [ruleActive, ruleDisabled], 'test', NOW);
      assert.deepEqual([ruled.get(ruleActive)?.outcome, ruled.get(ruleDisabled)?.outcome], ['active', 'disabled']);

      const after = await counts();
      assert.deepEqual(after[posActive], after[ruleActive], 'the POS and the rule count alike');
      assert.deepEqual(after[posActive], [1, NOW.toISOString()]);
      assert.deepEqual(after[posDisabled], after[ruleDisabled]);
      assert.deepEqual(after[posDisabled], [0, null]);
    });
  });
}
