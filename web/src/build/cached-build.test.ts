// The cached builder the pages' and the dashboard's builds share: a build is redone only when a
// source or recipe file changed, was added or removed, and is put in place whole.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { type CachedBuild, ensureBuilt, isBuildFresh, watchAndRebuild } from './cached-build.ts';

const root = mkdtempSync(join(tmpdir(), 'tapline-cached-build-'));
after(() => rmSync(root, { recursive: true, force: true }));
const sources = join(root, 'src');
const recipe = join(root, 'recipe.json');
const out = join(root, 'dist');
mkdirSync(sources);
writeFileSync(join(sources, 'a.ts'), 'one');
writeFileSync(recipe, '{}');

let builds = 0;
/** A "build" that copies a.ts, so a test can see which sources it read. */
const spec: CachedBuild = {
  name: 'test',
  sourceDirs: [sources],
  recipe: [recipe],
  async build(outDir) {
    builds += 1;
    mkdirSync(outDir, { recursive: true });
    writeFileSync(join(outDir, 'out.txt'), readFileSync(join(sources, 'a.ts')));
  },
};

describe('the cached builder', () => {
  it('builds once, then only after a source or the recipe changed, a file was added or removed', async () => {
    assert.equal(await ensureBuilt(spec, out), true);
    assert.equal(await ensureBuilt(spec, out), false);
    assert.equal(builds, 1);
    writeFileSync(join(sources, 'a.ts'), 'two');
    assert.equal(await isBuildFresh(spec, out), false);
    assert.equal(await ensureBuilt(spec, out), true);
    assert.equal(readFileSync(join(out, 'out.txt'), 'utf8'), 'two');
    writeFileSync(join(sources, 'b.ts'), '');
    assert.equal(await isBuildFresh(spec, out), false);
    await ensureBuilt(spec, out);
    unlinkSync(join(sources, 'b.ts'));
    assert.equal(await isBuildFresh(spec, out), false);
    await ensureBuilt(spec, out);
    writeFileSync(recipe, '{"changed":true}');
    assert.equal(await ensureBuilt(spec, out), true);
    assert.equal(builds, 5);
    // Tests are not sources: editing one rebuilds nothing.
    writeFileSync(join(sources, 'a.test.ts'), 'test');
    assert.equal(await ensureBuilt(spec, out), false);
  });

  it('keeps the previous build when a build fails, and leaves no staging folder', async () => {
    writeFileSync(join(sources, 'a.ts'), 'three');
    const failing: CachedBuild = { ...spec, build: async () => Promise.reject(new Error('syntax error')) };
    await assert.rejects(ensureBuilt(failing, out), /syntax error/);
    assert.equal(readFileSync(join(out, 'out.txt'), 'utf8'), 'two');
    assert.deepEqual(readdirSync(root).filter((name) => name.startsWith('dist.')), []);
  });

  it('rebuilds after a change while watching', async () => {
    const messages: string[] = [];
    const watcher = watchAndRebuild(spec, out, (message) => messages.push(message));
    try {
      writeFileSync(join(sources, 'a.ts'), 'four');
      const deadline = Date.now() + 60_000;
      while (readFileSync(join(out, 'out.txt'), 'utf8') !== 'four' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        await watcher.settled();
      }
      assert.equal(readFileSync(join(out, 'out.txt'), 'utf8'), 'four');
      assert.match(messages.join('\n'), /test rebuilt in \d+ ms/);
    } finally {
      watcher.close();
    }
  });
});
