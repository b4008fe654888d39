// Builds what is stale of the front ends the sync server serves (front-ends.ts). `npm test` runs
// it first; `npm start` does the same and then watches their sources.
//
// For the tests only, it also builds the kiosk's renderer once into test-artifacts/ (TEST_RENDERER_DIR
// in test/e2e/kiosk.ts): the kiosk's browser test files used each to build it afresh (a Vite build
// of the Svelte app per file, some 20 files); they now take this one while its stamp says it is
// of the current sources.
import { fileURLToPath } from 'node:url';
import { ensureRendererBuilt } from '@tapline/terminal/host';
import { ensureFrontEnds } from './front-ends.ts';

await ensureFrontEnds();
const started = Date.now();
if (await ensureRendererBuilt(fileURLToPath(new URL('../test-artifacts/terminal-renderer/', import.meta.url)))) {
  console.log(`terminal renderer (for the tests) built in ${Date.now() - started} ms`);
}
