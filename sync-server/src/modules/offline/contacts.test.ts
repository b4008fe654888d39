import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OFFLINE_MAX_AGE_HOURS_MAX } from '@tapline/shared/sync-protocol';
import { databaseTargets } from '../../testing/databases.ts';
import { useTestServer } from '../../testing/server.ts';
import { recordContact } from './index.ts';

const DAY = 86_400_000;

for (const target of await databaseTargets()) {
  describe(`a terminal's contacts on ${target.name}`, () => {
    const server = useTestServer(target);

    it('forgets those before the longest offline age but the last of them, which still starts a window', async () => {
      const s = server();
      const merchant = await s.createMerchant();
      const key = { 'x-merchant-api-key': merchant.testKey };
      const created = await s.request<{ id: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Till 1' } });
      const other = await s.request<{ id: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Till 2' } });
      assert.equal(OFFLINE_MAX_AGE_HOURS_MAX, 720);
      const now = Date.now();
      const ago = (days: number) => new Date(now - days * DAY);
      for (const terminalId of [created.body.id, other.body.id]) {
        for (const days of [60, 40, 31, 29, 10]) await s.db.query('INSERT INTO terminal_contacts (terminal_id, connected_at) VALUES ($1, $2)', [terminalId, ago(days)]);
      }
      await recordContact(s.db, created.body.id, new Date(now));
      const contacts = async (terminalId: string) =>
        (await s.db.query<{ connected_at: Date }>('SELECT connected_at FROM terminal_contacts WHERE terminal_id = $1 ORDER BY connected_at', [terminalId])).map((row) => Math.round((now - new Date(row.connected_at).getTime()) / DAY));
      assert.deepEqual(await contacts(created.body.id), [31, 29, 10, 0], 'the 31-day contact starts the window 30 days ago falls in');
      assert.deepEqual(await contacts(other.body.id), [60, 40, 31, 29, 10], 'another terminal\'s contacts are its own');
      // Again: nothing more to forget.
      await recordContact(s.db, created.body.id, new Date(now + 1000));
      assert.equal((await contacts(created.body.id)).length, 5);
    });
  });
}
