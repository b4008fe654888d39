// The production server (issue: one build): sync-server/dist/main.js, built by esbuild and run by
// plain node without tsx, on each database: it migrates a fresh database, serves every page (the
// dashboard, the customer pages, the drop-in, the API docs) and the API, and its bundle imports
// only run-time dependencies. The bundle is built into a folder of its own beside the real one,
// so node_modules and the front ends resolve as they do for sync-server/dist.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { buildServer } from '@tapline/sync-server/build';
import { createPostgresDatabase, databaseTargets, startServerProcess } from '@tapline/sync-server/testing';

const OUT_DIR = fileURLToPath(new URL(`../../sync-server/.build-test-${process.pid}/`, import.meta.url));
const ADMIN_TOKEN = 'production-build-test-admin-token-0123456789';

describe('the production server bundle', () => {
  let built: Awaited<ReturnType<typeof buildServer>>;
  before(async () => {
    built = await buildServer(OUT_DIR);
  });
  after(async () => {
    await rm(OUT_DIR, { recursive: true, force: true });
  });

  it('is one ES module with the SQL and LICENSE beside it, importing only packages the server or shared depends on', async () => {
    const files = (await readdir(OUT_DIR)).sort();
    assert.deepEqual(files, ['LICENSE', 'functions', 'main.js', 'main.js.map', 'migrations']);
    const migrations = await readdir(join(OUT_DIR, 'migrations'));
    const sources = await readdir(fileURLToPath(new URL('../../sync-server/src/db/migrations/', import.meta.url)));
    assert.deepEqual(migrations.sort(), sources.sort());
    const bundle = await readFile(join(OUT_DIR, 'main.js'), 'utf8');
    assert.doesNotMatch(bundle, /from "tsx|from "vite|from "esbuild|from "typescript/, 'no build tool at run time');
    assert.ok(built.packages.includes('fastify') && built.packages.includes('pg'), built.packages.join(', '));
    assert.ok(!built.packages.some((name) => name.startsWith('@tapline/')), 'the workspace code is inside the bundle');
  });

  for (const targetName of ['pglite', 'postgres'] as const) {
    it(`runs under plain node on ${targetName}: migrates, serves every page and the API`, async (t) => {
      const targets = await databaseTargets();
      if (!targets.some((target) => target.name === targetName)) {
        t.diagnostic(`${targetName} is not reachable here`);
        assert.equal(targetName, 'postgres', 'PGlite is always available');
        return;
      }
      const dataDir = await mkdtemp(join(tmpdir(), 'tapline-prod-'));
      const postgres = targetName === 'postgres' ? await createPostgresDatabase() : undefined;
      const env: Record<string, string> = { DATA_DIR: dataDir, ADMIN_TOKEN, NODE_ENV: 'production', LOG_LEVEL: 'warn' };
      if (postgres) env.DATABASE_URL = postgres.url;
      else env.DATABASE_URL = '';
      const server = await startServerProcess(env, { builtMain: join(OUT_DIR, 'main.js') });
      try {
        const get = async (path: string) => {
          const response = await fetch(`${server.url}${path}`);
          return { status: response.status, type: response.headers.get('content-type') ?? '', text: await response.text() };
        };
        const ready = await get('/api/health/ready');
        assert.equal(ready.status, 200, ready.text);
        assert.equal((JSON.parse(ready.text) as { ready: boolean }).ready, true);
        for (const [path, type, marker] of [
          ['/dashboard/', 'text/html', '<div id="app"'],
          ['/sdk/service.js', 'text/javascript', 'Tapline'],
          ['/wallet', 'text/html', 'Your Tapline wallet'],
          ['/wallet/offline-qr', 'text/html', 'Pay where there is no signal'],
          ['/pos', 'text/html', '<form'],
          ['/web/pages/wallet.js', 'text/javascript', 'wallet'],
          ['/docs/', 'text/html', 'swagger'],
          ['/docs/json', 'application/json', '"openapi"'],
        ] as const) {
          const page = await get(path);
          assert.equal(page.status, 200, `${path}: ${page.text.slice(0, 200)}`);
          assert.ok(page.type.startsWith(type), `${path} is ${page.type}`);
          assert.ok(page.text.includes(marker), `${path} has ${marker}`);
        }
        const created = await fetch(`${server.url}/api/admin/wallets`, {
          method: 'POST',
          headers: { authorization: `Bearer admin.${ADMIN_TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({ handle: `prod_${process.pid}`, pin: '2468', currency: 'NGN', country: 'NG', mode: 'test', displayName: 'Prod' }),
        });
        assert.equal(created.status, 201, await created.text());
        const notFound = await get('/api/nothing-here');
        assert.equal(notFound.status, 404);
        assert.equal((JSON.parse(notFound.text) as { code: string }).code, 'route_not_found');
      } finally {
        server.child.kill('SIGTERM');
        await new Promise((resolve) => server.child.once('exit', resolve));
        await postgres?.drop();
        await rm(dataDir, { recursive: true, force: true });
      }
    });
  }
});
