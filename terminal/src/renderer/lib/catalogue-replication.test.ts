// The catalogue's pull-only replication (lib/sync.ts's replicateCollection with push off) against
// a stand-in for the sync server's pull handler: a fresh replica pulls 5,000 products by
// checkpoint in batches of 100, archived ones arrive deleted, a streamed change lands, and
// nothing is ever pushed. RxDB in memory here; the Chromium e2e runs the real IndexedDB (how
// fast is printed, never judged by a test: `npm run bench:catalogue` times the kiosk's pull).
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { performance } from 'node:perf_hooks';
import { createRxDatabase, type RxDatabase } from 'rxdb';
import { getRxStorageMemory } from 'rxdb/plugins/storage-memory';
import { firstValueFrom, filter } from 'rxjs';
import { SYNC_EVENTS } from '@tapline/shared/sync-protocol';
import { PRODUCT_SCHEMA, type ProductDoc } from './catalogue.ts';
import { fakeCatalogue } from './catalogue-fixtures.ts';
import type { ProductCollection } from './replica.ts';
import { type Ask, replicateCollection } from './sync.ts';

const databases: RxDatabase[] = [];
after(() => Promise.all(databases.map((db) => db.close())));

async function products(): Promise<ProductCollection> {
  const db = await createRxDatabase({ name: `products_test_${databases.length}_${Date.now()}`, storage: getRxStorageMemory(), multiInstance: false });
  databases.push(db);
  return (await db.addCollections({ products: { schema: PRODUCT_SCHEMA } })).products as ProductCollection;
}

/** The server's pull: documents after the checkpoint, by serverSeq; archived ones as deletions. */
function server(catalogue: ProductDoc[]) {
  const calls: { event: string; collection: string }[] = [];
  const ask: Ask = async <T,>(event: string, request: unknown): Promise<T> => {
    const { collection, checkpoint, batchSize } = request as { collection: string; checkpoint: { serverSeq: number } | null; batchSize: number };
    calls.push({ event, collection });
    if (event !== SYNC_EVENTS.pull) throw new Error(`${event} is not accepted for products`);
    const after = checkpoint?.serverSeq ?? 0;
    const documents = catalogue.filter((p) => p.serverSeq > after).slice(0, batchSize).map((p) => (p.active ? p : { ...p, _deleted: true }));
    const last = documents.at(-1);
    return { documents, checkpoint: last === undefined ? checkpoint : { serverSeq: last.serverSeq } } as T;
  };
  return { ask, calls };
}

describe('the catalogue in the replica', () => {
  it('pulls 5,000 products into a fresh replica, archived ones deleted, and never pushes', async () => {
    const catalogue = fakeCatalogue(5_000);
    const { ask, calls } = server(catalogue);
    const collection = await products();
    const replication = replicateCollection('products', collection, 'trm_1', ask, null, { push: false });
    const started = performance.now();
    replication.connected();
    const active = catalogue.filter((p) => p.active).length;
    await firstValueFrom(collection.count().$.pipe(filter((count) => count === active)));
    const elapsed = performance.now() - started;
    console.log(`catalogue replication (RxDB memory, stand-in server): 5,000 products pulled in ${elapsed.toFixed(0)} ms, ${calls.length} pulls (figures only)`);
    assert.equal(await collection.count().exec(), active);
    assert.equal(await collection.findOne('prod_000001').exec(), null, 'archived: deleted on the kiosk');
    assert.ok(calls.every((call) => call.event === SYNC_EVENTS.pull && call.collection === 'products'));

    // A product the merchant changes while the kiosk is online streams in.
    const changed = { ...catalogue[42]!, name: 'Jollof special', priceMinor: 99_900, serverSeq: 5_001 };
    replication.streamed({ documents: [changed], checkpoint: { serverSeq: 5_001 } });
    const doc = await firstValueFrom(collection.findOne('prod_000042').$.pipe(filter((found) => found?.name === 'Jollof special')));
    assert.equal(doc?.priceMinor, 99_900);

    // A local write is never sent (pull only): once the replication is in sync again (both
    // directions have handled the write: the control below shows a pushing one has sent it by then).
    await (await collection.findOne('prod_000002').exec())!.incrementalPatch({ name: 'changed here' });
    await replication.inSync();
    assert.ok(calls.every((call) => call.event === SYNC_EVENTS.pull));
    await replication.cancel();
  });

  it('(control) a replication that pushes has sent a local write by the time it is in sync', async () => {
    const { ask, calls } = server(fakeCatalogue(3));
    const pushed: unknown[] = [];
    const askOrPush: Ask = async <T,>(event: string, request: unknown): Promise<T> => {
      if (event === SYNC_EVENTS.push) {
        pushed.push(request);
        return { conflicts: [] } as T;
      }
      return ask<T>(event, request);
    };
    const collection = await products();
    const replication = replicateCollection('products', collection, 'trm_control', askOrPush, null, { push: true });
    replication.connected();
    await firstValueFrom(collection.count().$.pipe(filter((count) => count === 2)));
    await replication.inSync();
    await (await collection.findOne('prod_000002').exec())!.incrementalPatch({ name: 'changed here' });
    await replication.inSync();
    assert.equal(pushed.length, 1, 'the write was pushed before inSync() resolved');
    assert.ok(calls.length > 0);
    await replication.cancel();
  });
});
