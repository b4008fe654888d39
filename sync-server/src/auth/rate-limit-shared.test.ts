import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../config.ts';
import type { Database } from '../db/database.ts';
import { openDatabase } from '../db/open.ts';
import { createPostgresDatabase, databaseTargets } from '../testing/databases.ts';
import { ADMIN, TEST_ADMIN_TOKEN, TEST_SECRETS_KEY_HEX, buildApp } from '../testing/server.ts';
import { sha256Hex } from './secrets.ts';

const hasPostgres = (await databaseTargets()).some((target) => target.name === 'postgres');

describe('rate limits shared by several server instances (RATE_LIMIT_STORE=postgres)', { skip: hasPostgres ? false : 'needs PostgreSQL: two instances share one database' }, () => {
  const instances: { app: FastifyInstance; db: Database; url: string }[] = [];
  let drop: (() => Promise<void>) | undefined;

  before(async () => {
    const created = await createPostgresDatabase();
    drop = created.drop;
    for (let index = 0; index < 2; index++) {
      const db = await openDatabase({ databaseUrl: created.url, poolSize: 5 });
      const config = loadConfig({ ADMIN_TOKEN: TEST_ADMIN_TOKEN, LOG_LEVEL: 'silent', RATE_LIMIT_STORE: 'postgres' });
      const { app } = await buildApp({ config, db, adminTokenHash: sha256Hex(TEST_ADMIN_TOKEN), secretsKey: Buffer.from(TEST_SECRETS_KEY_HEX, 'hex'), logger: false });
      await app.listen({ port: 0, host: '127.0.0.1' });
      const address = app.server.address();
      instances.push({ app, db, url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` });
    }
  });

  after(async () => {
    for (const instance of instances) {
      await instance.app.close();
      await instance.db.close();
    }
    await drop?.();
  });

  it('counts one key across both instances', async () => {
    const [a, b] = instances;
    const created = await fetch(`${a!.url}/api/admin/merchants`, {
      method: 'POST',
      headers: { ...ADMIN, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Shared', handle: `shared_${process.pid}`, country: 'KE', currency: 'KES' }),
    });
    const { testKey } = (await created.json()) as { testKey: string };
    const statuses: number[] = [];
    for (let index = 0; index < 124; index++) {
      const instance = index % 2 === 0 ? a! : b!;
      const response = await fetch(`${instance.url}/api/merchant/balance`, { headers: { 'x-merchant-api-key': testKey } });
      statuses.push(response.status);
      if (index === 0) assert.equal(response.headers.get('x-ratelimit-remaining'), '119');
      if (index === 1) assert.equal(response.headers.get('x-ratelimit-remaining'), '118', 'the second instance saw the first one\'s count');
    }
    assert.equal(statuses.filter((status) => status === 200).length, 120);
    assert.equal(statuses.filter((status) => status === 429).length, 4);
  });
});
