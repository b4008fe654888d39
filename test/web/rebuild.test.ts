// `npm start` rebuilds the server's pages when a source changes, and the running server serves
// the new build: a copy of web/src is watched (as start.ts watches the real one), a page's
// source is edited, and the server's answer for that page's script changes after the rebuild.
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { ensureWebBuilt, watchWeb } from '@tapline/web/build';
import { databaseTargets, useTestServer } from '@tapline/sync-server/testing';

// Inside web/ so the copy resolves @tapline/shared and vite as the real sources do.
const WORK = fileURLToPath(new URL(`../../web/.watch-test-${process.pid}/`, import.meta.url));
const SRC = join(WORK, 'src/');
const OUT = join(WORK, 'dist');
mkdirSync(WORK, { recursive: true });
cpSync(fileURLToPath(new URL('../../web/src/', import.meta.url)), SRC, { recursive: true });
await ensureWebBuilt(OUT, SRC);
after(() => rmSync(WORK, { recursive: true, force: true }));

const [target] = await databaseTargets();

describe(`a page source edited while the server runs is served after the rebuild (${target!.name})`, () => {
  const server = useTestServer(target!, { env: { WEB_DIR: OUT } });

  it('rebuilds /web/pages/pay.js after pay.ts changed, and the server answers the new script', async () => {
    const watcher = watchWeb(OUT, SRC, () => undefined);
    try {
      const before = await fetch(`${server().baseUrl}/web/pages/pay.js`).then((response) => response.text());
      assert.doesNotMatch(before, /tapline-rebuild-marker/);
      const file = join(SRC, 'pages/pay.ts');
      writeFileSync(file, `${readFileSync(file, 'utf8')}\ndocument.body.dataset.rebuilt = 'tapline-rebuild-marker';\n`);
      const deadline = Date.now() + 60_000;
      let served = before;
      while (!served.includes('tapline-rebuild-marker') && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        await watcher.settled();
        served = await fetch(`${server().baseUrl}/web/pages/pay.js`).then((response) => response.text());
      }
      assert.match(served, /tapline-rebuild-marker/);
      assert.equal((await fetch(`${server().baseUrl}/sdk/service.js`)).status, 200, 'the drop-in was rebuilt with the pages');
    } finally {
      watcher.close();
    }
  });
});
