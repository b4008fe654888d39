import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { sha256Hex } from '../../auth/secrets.ts';
import { loadConfig } from '../../config.ts';
import type { AppContext } from '../../context.ts';
import type { Database } from '../../db/database.ts';
import { openDatabase } from '../../db/open.ts';
import { createPostgresDatabase, databaseTargets } from '../../testing/databases.ts';
import { ManualClock, WebhookReceiver } from '../../testing/receiver.ts';
import { ADMIN, TEST_ADMIN_TOKEN, TEST_SECRETS_KEY_HEX, buildApp } from '../../testing/server.ts';

const STEP_MS = 2_000;

/** One server "process": its own database connection and app on the same stored data. */
async function boot(open: () => Promise<Database>, clock: ManualClock, backgroundJobs = false): Promise<{ app: FastifyInstance; context: AppContext; stop(): Promise<void> }> {
  const db = await open();
  const config = loadConfig({ ADMIN_TOKEN: TEST_ADMIN_TOKEN, LOG_LEVEL: 'silent', SANDBOX_STEP_MS: String(STEP_MS), SCHEDULER_POLL_MS: '20', WEBHOOK_POLL_MS: '20' });
  const { app, context } = await buildApp({ config, db, adminTokenHash: sha256Hex(TEST_ADMIN_TOKEN), secretsKey: Buffer.from(TEST_SECRETS_KEY_HEX, 'hex'), logger: false, backgroundJobs, now: clock.now });
  await app.ready();
  return {
    app,
    context,
    async stop() {
      await app.close();
      await db.close();
    },
  };
}

for (const target of await databaseTargets()) {
  describe(`payments survive a restart on ${target.name}`, () => {
    it('a restarted server carries on from the stored schedule: no step and no event is lost', async () => {
      const clock = new ManualClock(Date.parse('2026-11-03T10:00:00.000Z'));
      let open: () => Promise<Database>;
      let cleanup: () => Promise<void>;
      if (target.name === 'pglite') {
        const directory = mkdtempSync(join(tmpdir(), 'tapline-restart-'));
        open = () => openDatabase({ dataDirectory: directory });
        cleanup = async () => rmSync(directory, { recursive: true, force: true });
      } else {
        const created = await createPostgresDatabase();
        open = () => openDatabase({ databaseUrl: created.url, poolSize: 4 });
        cleanup = () => created.drop();
      }
      const receiver = await WebhookReceiver.start();
      try {
        let server = await boot(open, clock);
        const merchant = (await server.app.inject({ method: 'POST', url: '/api/admin/merchants', headers: ADMIN, payload: { name: 'Restart Shop', handle: 'restart_shop', country: 'NG', currency: 'NGN', webhookUrl: receiver.url } })).json();
        const paid = await server.app.inject({
          method: 'POST',
          url: '/api/pay',
          headers: { 'x-merchant-api-key': merchant.testKey, 'idempotency-key': 'restart-1' },
          payload: { fromCode: 'NG', toCode: 'GH', rail: 'mobile_money', amount: 2500, currency: 'NGN', receiver: '+233201234567' },
        });
        assert.equal(paid.statusCode, 201);
        const id = paid.json().paymentId as string;
        await server.stop();

        // Restart 1: the step that fell due while the server was down is taken.
        clock.advance(STEP_MS);
        server = await boot(open, clock);
        assert.equal(await server.context.payments.runOnce(), 1);
        assert.equal((await server.app.inject({ method: 'GET', url: `/api/payments/${id}` })).json().status, 'processing');
        // The same key after the restart replays the stored answer: still one payment.
        const replay = await server.app.inject({
          method: 'POST',
          url: '/api/pay',
          headers: { 'x-merchant-api-key': merchant.testKey, 'idempotency-key': 'restart-1' },
          payload: { fromCode: 'NG', toCode: 'GH', rail: 'mobile_money', amount: 2500, currency: 'NGN', receiver: '+233201234567' },
        });
        assert.equal(replay.headers['idempotent-replayed'], 'true');
        assert.equal(replay.json().paymentId, id);
        await server.stop();

        // Restart 2, with the background workers on: the scheduler completes the payment and the
        // dispatcher delivers payment.completed, all by themselves.
        clock.advance(STEP_MS);
        server = await boot(open, clock, true);
        await receiver.waitFor(1);
        const completed = (await server.app.inject({ method: 'GET', url: `/api/payments/${id}` })).json();
        assert.equal(completed.status, 'completed');
        assert.deepEqual(completed.timeline.map((entry: { status: string }) => entry.status), ['pending', 'processing', 'completed']);
        const event = JSON.parse(receiver.received[0]!.rawBody.toString('utf8'));
        assert.equal(event.event, 'payment.completed');
        assert.equal(event.paymentId, id);
        await server.stop();
        assert.equal(receiver.received.length, 1);
      } finally {
        await receiver.close();
        await cleanup();
      }
    });
  });
}
