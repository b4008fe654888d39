// Two sync servers on one PostgreSQL (ARCHITECTURE.md, scale-out): a terminal connected to one
// hears what happens through the other, by the PostgreSQL adapter.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { type OfflinePaymentDoc, SYNC_EVENTS, SYNC_NAMESPACE, type StreamMessage, type SyncHello } from '@tapline/shared/sync-protocol';
import { sha256Hex } from '../auth/secrets.ts';
import { loadConfig } from '../config.ts';
import { databaseTargets } from '../testing/databases.ts';
import { TEST_ADMIN_TOKEN, TEST_SECRETS_KEY_HEX, type TestServer, buildApp, uniqueHandle, useTestServer } from '../testing/server.ts';
import { conflictsOf, connectTerminal, push } from '../testing/offline.ts';

for (const target of (await databaseTargets()).filter((candidate) => candidate.name === 'postgres')) {
  describe('two sync servers on one PostgreSQL', () => {
    let second: { app: FastifyInstance; server: Pick<TestServer, 'baseUrl'> } | undefined;
    // Registered before the first server's own hooks, so it closes before that server drops the database.
    after(async () => {
      await second?.app.close();
    });
    const first = useTestServer(target, { rateLimitScale: 20 });

    before(async () => {
      const { app, io } = await buildApp({
        config: loadConfig({ ADMIN_TOKEN: TEST_ADMIN_TOKEN, LOG_LEVEL: 'silent' }),
        db: first().db,
        adminTokenHash: sha256Hex(TEST_ADMIN_TOKEN),
        secretsKey: Buffer.from(TEST_SECRETS_KEY_HEX, 'hex'),
        logger: false,
        backgroundJobs: false,
      });
      await app.listen({ port: 0, host: '127.0.0.1' });
      const address = app.server.address();
      second = { app, server: { baseUrl: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` } };
      // The second server relays what the first publishes only once its LISTEN connection is up:
      // it has heard the first server's heartbeat (within the adapter's 5 s interval) when it counts two.
      const adapter = io.of(SYNC_NAMESPACE).adapter as unknown as { serverCount(): Promise<number> };
      const ceiling = Date.now() + 60_000;
      while ((await adapter.serverCount()) < 2) {
        assert.ok(Date.now() < ceiling, 'the second server never heard the first one over LISTEN/NOTIFY');
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    });
    // A relay that never comes fails within the ceiling instead of holding the run.
    it('relays new limits and pushed verdicts to a terminal connected to the other server', { timeout: 120_000 }, async () => {
      const s = first();
      const merchant = await s.createMerchant();
      const key = { 'x-merchant-api-key': merchant.testKey };
      const terminal = await s.request<{ id: string; token: string }>('POST', '/api/merchant/terminals', { headers: key, body: { name: 'Till' } });
      const customer = uniqueHandle('cluster');
      await s.createWallet({ handle: customer, fund: 100 });
      const tag = await s.request<{ tagId: string }>('POST', '/api/wearables', { headers: key, body: { handle: customer, tagType: 'ring', displayName: 'Ring' } });

      // The terminal's window is on the second server; its other connection and the merchant use the first.
      const onSecond = await connectTerminal({ ...s, baseUrl: second!.server.baseUrl }, `term.${terminal.body.token}`);
      const onFirst = await connectTerminal(s, `term.${terminal.body.token}`);

      const greeted = new Promise<SyncHello>((resolve) => onSecond.socket.once(SYNC_EVENTS.hello, resolve));
      const changed = await s.request('PATCH', `/api/merchant/terminals/${terminal.body.id}`, { headers: key, body: { offlineLimits: { perPayment: 12.5 } } });
      assert.equal(changed.status, 200);
      assert.equal((await greeted).offlineLimits.perPaymentMaxMinor, 1250);

      const streamed = new Promise<StreamMessage>((resolve) => onSecond.socket.once(SYNC_EVENTS.stream, resolve));
      const doc: OfflinePaymentDoc = {
        id: randomUUID(), terminalId: terminal.body.id, kind: 'tap', tagId: tag.body.tagId, amountMinor: 700, currency: 'NGN',
        description: 'Akara', capturedAt: new Date().toISOString(), status: 'queued', serverSeq: 0,
      };
      const [verdict] = conflictsOf(await push(onFirst.socket, [doc]));
      assert.equal(verdict?.status, 'accepted');
      const message = await streamed;
      assert.equal(message.collection, 'offline_payments');
      assert.deepEqual(message.documents, [verdict]);
    });
  });
}
