// The renderer's rebuild is decided from Vite's own module graph: the build records every file it
// read (the renderer, the shared and hardware modules, the bundled packages) with its content
// hash, and a changed one makes the build stale.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { buildRenderer, ensureRendererBuilt, isRendererBuildFresh } from './build.ts';

const dir = mkdtempSync(join(tmpdir(), 'tapline-renderer-build-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const stampFile = join(dir, '.build-inputs.json');
const stamp = () => JSON.parse(readFileSync(stampFile, 'utf8')) as { version: number; inputs: Record<string, string> };

describe('the renderer build and its freshness', () => {
  it('records every file of the module graph, including shared modules a hand-kept list missed', async () => {
    await buildRenderer(dir);
    const inputs = Object.keys(stamp().inputs);
    for (const file of ['App.svelte', 'index.html', 'styles.css', 'lib/pos-sales.ts', 'screens/Sale.svelte', '../../../shared/src/gift-card-rules.ts', '../../../shared/src/gift-card-code.ts', '../../../shared/src/money.ts', '../../../hardware/src/bridge/client.ts', '../host/build.ts', '../../package.json']) {
      assert.ok(inputs.includes(file), `${file} is an input: ${inputs.filter((input) => !input.includes('node_modules')).join(', ')}`);
    }
    assert.ok(inputs.some((input) => input.includes('node_modules/rxdb/')), 'bundled packages are inputs too');
    assert.ok(!inputs.some((input) => input.endsWith('.test.ts')), 'tests are not in the bundle');
    assert.equal(await isRendererBuildFresh(dir), true);
    assert.equal(await ensureRendererBuilt(dir), false, 'a fresh build is not built again');
  });

  it('is stale when any input changed or is gone, or when there is no stamp', async () => {
    const original = readFileSync(stampFile, 'utf8');
    const recorded = stamp();
    // As if shared/src/gift-card-rules.ts had been edited after the build.
    writeFileSync(stampFile, JSON.stringify({ ...recorded, inputs: { ...recorded.inputs, '../../../shared/src/gift-card-rules.ts': '0'.repeat(64) } }));
    assert.equal(await isRendererBuildFresh(dir), false);
    writeFileSync(stampFile, JSON.stringify({ ...recorded, inputs: { ...recorded.inputs, 'screens/Gone.svelte': '0'.repeat(64) } }));
    assert.equal(await isRendererBuildFresh(dir), false);
    writeFileSync(stampFile, JSON.stringify({ ...recorded, version: 1 }));
    assert.equal(await isRendererBuildFresh(dir), false);
    rmSync(stampFile);
    assert.equal(await isRendererBuildFresh(dir), false);
    writeFileSync(stampFile, original);
    assert.equal(await isRendererBuildFresh(dir), true);
  });
});
