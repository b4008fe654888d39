// One kiosk screen alone on a page, for the tests that drive a screen before (or apart from) the
// till's flow: a small Vite build of an index.html and a main.ts that mounts the screen with the
// kiosk's own api layer. Served by the terminal host (startKiosk's rendererDir), which forwards
// /api to the server.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after } from 'node:test';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { build } from 'vite';
import { ARTIFACTS } from './kiosk.ts';

/** The kiosk page's sources, for a harness's imports (`${RENDERER}screens/Refund.svelte`). */
export const RENDERER = fileURLToPath(new URL('../../terminal/src/renderer/', import.meta.url));

/**
 * Builds the harness `name` (its page's <body> and its main.ts) and answers the folder to serve;
 * both folders are removed when the file's tests end.
 */
export async function buildScreenHarness(name: string, page: { body: string; main: string }): Promise<string> {
  // The sources inside the repository (test-artifacts/, ignored by git), so that their imports resolve from its node_modules.
  mkdirSync(ARTIFACTS, { recursive: true });
  const root = mkdtempSync(join(ARTIFACTS, `${name}-harness-src-`));
  const outDir = mkdtempSync(join(tmpdir(), `tapline-${name}-harness-`));
  after(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(outDir, { recursive: true, force: true });
  });
  writeFileSync(join(root, 'index.html'), `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>harness</title></head><body>${page.body}<script type="module" src="./main.ts"></script></body></html>`);
  writeFileSync(join(root, 'main.ts'), page.main);
  await build({ configFile: false, root, base: '/', logLevel: 'warn', plugins: [svelte({ configFile: false })], build: { outDir, emptyOutDir: true, target: 'chrome120', reportCompressedSize: false, chunkSizeWarningLimit: 4096 } });
  return outDir;
}
