import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { databaseTargets, useDatabase } from '../testing/databases.ts';
import { ApiError, registerErrorHandling } from './errors.ts';
import { idempotentId, registerIdempotency } from './idempotency.ts';

for (const target of await databaseTargets()) {
  describe(`Idempotency-Key mechanism on ${target.name}`, () => {
    const database = useDatabase(target);

    async function appWith(handler: (id: string) => Promise<unknown>) {
      const app = Fastify({ logger: false });
      registerErrorHandling(app);
      app.decorateRequest('credential', null as never);
      app.addHook('onRequest', async (request) => {
        request.credential = { state: 'none' };
      });
      registerIdempotency(app, database(), () => 'public');
      app.post('/thing', { config: { idempotency: 'required' } }, async (request) => handler(idempotentId(request, 'thing')!));
      await app.ready();
      return app;
    }

    it('a server fault keeps the key with its seed: the retry runs again and derives the same id', async () => {
      const seen: string[] = [];
      const app = await appWith(async (id) => {
        seen.push(id);
        // The effect commits, then the request fails once.
        if (seen.length === 1) throw new ApiError(500, 'internal_error', 'failed after committing');
        return { id };
      });
      const send = (body: unknown) => app.inject({ method: 'POST', url: '/thing', headers: { 'idempotency-key': 'fault-1' }, payload: body as object });
      assert.equal((await send({ a: 1 })).statusCode, 500);
      const other = await send({ a: 2 });
      assert.equal(other.statusCode, 422, 'the key still belongs to the first request');
      const retry = await send({ a: 1 });
      assert.equal(retry.statusCode, 200);
      assert.deepEqual(seen, [seen[0], seen[0]], 'the same derived id both times');
      const replay = await send({ a: 1 });
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.deepEqual(replay.json(), { id: seen[0] });
      await app.close();
    });

    it('a key whose 24 hours are over starts afresh with a new seed', async () => {
      const seen: string[] = [];
      const app = await appWith(async (id) => {
        seen.push(id);
        return { id };
      });
      const send = () => app.inject({ method: 'POST', url: '/thing', headers: { 'idempotency-key': 'old-1' }, payload: { a: 1 } });
      await send();
      await database().query(`UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = 'old-1'`);
      await send();
      assert.equal(seen.length, 2);
      assert.notEqual(seen[0], seen[1]);
      const missing = await app.inject({ method: 'POST', url: '/thing', payload: { a: 1 } });
      assert.equal(missing.statusCode, 400);
      assert.equal(missing.json().code, 'idempotency_key_required');
      await app.close();
    });
  });
}
