import { SYNC_MESSAGE_BURST_MAX, SYNC_MESSAGES_PER_SECOND_MAX } from '@tapline/shared/limits';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SYNC_EVENTS, type SyncHello } from '@tapline/shared/sync-protocol';
import { databaseTargets } from '../../testing/databases.ts';
import { useTestServer } from '../../testing/server.ts';
import { connectTerminal } from '../../testing/offline.ts';

type Terminal = { id: string; token: string; name: string; language: string };

for (const target of await databaseTargets()) {
  describe(`a terminal's language on ${target.name}`, () => {
    const server = useTestServer(target, { rateLimitScale: 20 });

    it('is English unless created otherwise, is listed, and reaches the kiosk in its hello', async () => {
      const s = server();
      const merchant = await s.createMerchant();
      const key = { 'x-merchant-api-key': merchant.testKey };
      const plain = await s.request<Terminal>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Front counter' } });
      assert.equal(plain.status, 201);
      assert.equal(plain.body.language, 'en');
      const french = await s.request<Terminal>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Comptoir', language: 'fr' } });
      assert.equal(french.status, 201);
      assert.equal(french.body.language, 'fr');
      const list = await s.request<{ data: Terminal[] }>('GET', '/api/merchant/terminals', { headers: key });
      assert.deepEqual(list.body.data.map((terminal) => [terminal.name, terminal.language]), [['Front counter', 'en'], ['Comptoir', 'fr']]);

      const { hello, socket } = await connectTerminal(s, `term.${french.body.token}`);
      assert.equal(hello.language, 'fr');
      socket.disconnect();
      const { hello: english, socket: other } = await connectTerminal(s, `term.${plain.body.token}`);
      assert.equal(english.language, 'en');
      other.disconnect();
    });

    it('changes with PATCH {language}: the connected kiosk hears it at once; the limits stay as they were', async () => {
      const s = server();
      const merchant = await s.createMerchant();
      const key = { 'x-merchant-api-key': merchant.testKey };
      const terminal = await s.request<Terminal>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Till 2' } });
      const limits = await s.request('PATCH', `/api/merchant/terminals/${terminal.body.id}`, { headers: key, body: { offlineLimits: { perPayment: 50 } } });
      assert.equal(limits.status, 200, JSON.stringify(limits.body));
      const { socket } = await connectTerminal(s, `term.${terminal.body.token}`);
      const greeted = new Promise<SyncHello>((resolve) => socket.once(SYNC_EVENTS.hello, resolve));
      const changed = await s.request<{ language: string; perPayment: number }>('PATCH', `/api/merchant/terminals/${terminal.body.id}`, { headers: key, body: { language: 'sw' } });
      assert.equal(changed.status, 200, JSON.stringify(changed.body));
      assert.equal(changed.body.language, 'sw');
      assert.equal(changed.body.perPayment, 50, 'a language change leaves the limits alone');
      const hello = await greeted;
      assert.equal(hello.language, 'sw');
      assert.equal(hello.offlineLimits.perPaymentMaxMinor, 5000);
      socket.disconnect();

      // Both at once.
      const both = await s.request<{ language: string; perPayment: number }>('PATCH', `/api/merchant/terminals/${terminal.body.id}`, { headers: key, body: { language: 'pt', offlineLimits: { perPayment: 40 } } });
      assert.deepEqual([both.status, both.body.language, both.body.perPayment], [200, 'pt', 40]);
      const list = await s.request<{ data: Terminal[] }>('GET', '/api/merchant/terminals', { headers: key });
      assert.equal(list.body.data[0]?.language, 'pt');
    });

    it('shows what the kiosk reports it holds unsent (sync:status), and refuses a count that is not one', async () => {
      const s = server();
      const merchant = await s.createMerchant();
      const key = { 'x-merchant-api-key': merchant.testKey };
      const terminal = await s.request<Terminal>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Till 3' } });
      type Listed = { data: { queuedCount: number | null; queuedReportedAt: string | null }[] };
      const before = await s.request<Listed>('GET', '/api/merchant/terminals', { headers: key });
      assert.deepEqual([before.body.data[0]?.queuedCount, before.body.data[0]?.queuedReportedAt], [null, null], 'not reported yet');
      const { socket } = await connectTerminal(s, `term.${terminal.body.token}`);
      assert.deepEqual(await socket.timeout(60_000).emitWithAck(SYNC_EVENTS.status, { queued: 3 }), { ok: true });
      for (const queued of [-1, 1.5, 'three', 2_000_000, null]) {
        const answer = (await socket.timeout(60_000).emitWithAck(SYNC_EVENTS.status, { queued })) as { code: string };
        assert.equal(answer.code, 'invalid_status', `queued ${String(queued)}`);
      }
      const after = await s.request<Listed>('GET', '/api/merchant/terminals', { headers: key });
      assert.equal(after.body.data[0]?.queuedCount, 3);
      assert.ok(after.body.data[0]?.queuedReportedAt, 'with the time of the report');
      assert.deepEqual(await socket.timeout(60_000).emitWithAck(SYNC_EVENTS.status, { queued: 0 }), { ok: true });
      const synced = await s.request<Listed>('GET', '/api/merchant/terminals', { headers: key });
      assert.equal(synced.body.data[0]?.queuedCount, 0);
      socket.disconnect();
    });

    it('answers a kiosk that reports in a loop rate_limited before doing any work, and hears it again a moment later', async () => {
      const s = server();
      const merchant = await s.createMerchant();
      const key = { 'x-merchant-api-key': merchant.testKey };
      const terminal = await s.request<Terminal>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Till 6' } });
      const { socket } = await connectTerminal(s, `term.${terminal.body.token}`);
      const flood = 3 * SYNC_MESSAGE_BURST_MAX;
      const floodStarted = performance.now();
      const answers = (await Promise.all(Array.from({ length: flood }, (_, index) => socket.timeout(60_000).emitWithAck(SYNC_EVENTS.status, { queued: index })))) as ({ ok: true } | { code: string; error: string })[];
      // What the allowance could refill while the flood was on its way (more on a loaded machine).
      const refillable = Math.ceil(((performance.now() - floodStarted) * SYNC_MESSAGES_PER_SECOND_MAX) / 1000);
      const refused = answers.filter((answer) => 'code' in answer);
      const stored = answers.length - refused.length;
      assert.ok(refused.every((answer) => 'code' in answer && answer.code === 'rate_limited' && /sync messages a second/.test(answer.error)), JSON.stringify(refused[0]));
      // The burst, and what refilled while the messages arrived (a little, on a fast loop).
      assert.ok(stored >= SYNC_MESSAGE_BURST_MAX && stored <= SYNC_MESSAGE_BURST_MAX + refillable, `${stored} of ${flood} stored (burst ${SYNC_MESSAGE_BURST_MAX}, refillable ${refillable})`);
      assert.equal(refused.length, flood - stored);
      assert.ok(refused.length > 0 || refillable >= flood - SYNC_MESSAGE_BURST_MAX, 'refused beyond the burst and what refilled');
      // The last stored report is one that was answered ok, in order: never a refused one.
      const lastStored = answers.findLastIndex((answer) => !('code' in answer));
      const listed = await s.request<{ data: { queuedCount: number | null }[] }>('GET', '/api/merchant/terminals', { headers: key });
      assert.equal(listed.body.data[0]?.queuedCount, lastStored);
      // Heard again once the allowance refills: asked until it is (each refusal is an answer too).
      let again: { ok: true } | { code: string } = { code: 'not asked' };
      for (const deadline = Date.now() + 60_000; !('ok' in again) && Date.now() < deadline; ) {
        await new Promise((resolve) => setTimeout(resolve, 1_000 / SYNC_MESSAGES_PER_SECOND_MAX));
        again = (await socket.timeout(60_000).emitWithAck(SYNC_EVENTS.status, { queued: 2 })) as typeof again;
        if ('code' in again) assert.equal(again.code, 'rate_limited');
      }
      assert.deepEqual(again, { ok: true }, 'the connection is heard again');
      socket.disconnect();
    });

    it('shares one budget between all the connections of a terminal: four sockets flooding together get one burst', async () => {
      const s = server();
      const merchant = await s.createMerchant();
      const key = { 'x-merchant-api-key': merchant.testKey };
      const terminal = await s.request<Terminal>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Till 7' } });
      const sockets = await Promise.all(Array.from({ length: 4 }, async () => (await connectTerminal(s, `term.${terminal.body.token}`)).socket));
      const each = SYNC_MESSAGE_BURST_MAX;
      const floodStarted = performance.now();
      const answers = (await Promise.all(sockets.flatMap((socket) => Array.from({ length: each }, (_, index) => socket.timeout(60_000).emitWithAck(SYNC_EVENTS.status, { queued: index }))))) as ({ ok: true } | { code: string })[];
      const refillable = Math.ceil(((performance.now() - floodStarted) * SYNC_MESSAGES_PER_SECOND_MAX) / 1000);
      const stored = answers.filter((answer) => !('code' in answer)).length;
      assert.ok(answers.every((answer) => !('code' in answer) || answer.code === 'rate_limited'));
      // One burst and what refilled meanwhile (more on a loaded machine), not four bursts.
      assert.ok(stored >= SYNC_MESSAGE_BURST_MAX && stored <= SYNC_MESSAGE_BURST_MAX + refillable, `${stored} of ${answers.length} stored (burst ${SYNC_MESSAGE_BURST_MAX}, refillable ${refillable})`);
      // Another terminal of the same merchant is not held back by this one.
      const other = await s.request<Terminal>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Till 8' } });
      const { socket: otherSocket } = await connectTerminal(s, `term.${other.body.token}`);
      assert.deepEqual(await otherSocket.timeout(60_000).emitWithAck(SYNC_EVENTS.status, { queued: 1 }), { ok: true });
      for (const socket of [...sockets, otherSocket]) socket.disconnect();
    });

    it('renames a terminal with PATCH {name}: trimmed, listed, and heard by the connected kiosk', async () => {
      const s = server();
      const merchant = await s.createMerchant();
      const key = { 'x-merchant-api-key': merchant.testKey };
      const terminal = await s.request<Terminal>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Till 5', language: 'fr' } });
      const { socket } = await connectTerminal(s, `term.${terminal.body.token}`);
      const greeted = new Promise<SyncHello>((resolve) => socket.once(SYNC_EVENTS.hello, resolve));
      const renamed = await s.request<{ name: string; language: string }>('PATCH', `/api/merchant/terminals/${terminal.body.id}`, { headers: key, body: { name: '  Back bar  ' } });
      assert.deepEqual([renamed.status, renamed.body.name, renamed.body.language], [200, 'Back bar', 'fr']);
      assert.equal((await greeted).terminal.name, 'Back bar');
      socket.disconnect();
      const list = await s.request<{ data: Terminal[] }>('GET', '/api/merchant/terminals', { headers: key });
      assert.deepEqual(list.body.data.map((row) => [row.name, row.language]), [['Back bar', 'fr']]);
    });

    it('refuses a language without a catalogue, an empty change and other merchants\' terminals', async () => {
      const s = server();
      const merchant = await s.createMerchant();
      const key = { 'x-merchant-api-key': merchant.testKey };
      const terminal = await s.request<Terminal>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Till 3' } });
      for (const body of [{ language: 'de' }, { language: 'FR' }, { language: 7 }, {}, { name: '   ' }, { name: '' }]) {
        const refused = await s.request<{ code: string; error: string }>('PATCH', `/api/merchant/terminals/${terminal.body.id}`, { headers: key, body });
        assert.equal(refused.status, 400, JSON.stringify(body));
        assert.equal(refused.body.code, 'validation_failed');
        assert.equal(typeof refused.body.error, 'string');
      }
      const created = await s.request<{ code: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Till 4', language: 'zz' } });
      assert.deepEqual([created.status, created.body.code], [400, 'validation_failed']);
      const other = await s.createMerchant();
      const foreign = await s.request<{ code: string }>('PATCH', `/api/merchant/terminals/${terminal.body.id}`, { headers: { 'x-merchant-api-key': other.testKey }, body: { language: 'fr' } });
      assert.deepEqual([foreign.status, foreign.body.code], [404, 'terminal_not_found']);
      const list = await s.request<{ data: Terminal[] }>('GET', '/api/merchant/terminals', { headers: key });
      assert.equal(list.body.data[0]?.language, 'en', 'nothing changed');
    });
  });
}
