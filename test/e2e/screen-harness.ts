// One kiosk screen alone on a page, for the tests that drive a screen before (or apart from) the
// till's flow: a small Vite build of an index.html and a main.ts that mounts the screen with the
// kiosk's own api layer. Served by the terminal host (startKiosk's rendererDir), which forwards
// /api to the server.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, afterEach, before } from 'node:test';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import type { Browser } from 'playwright-core';
import { build } from 'vite';
import type { TestServer } from '@tapline/sync-server/testing';
import { launchChromium } from './browser.ts';
import { ARTIFACTS, type Kiosk, startKiosk } from './kiosk.ts';

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

/** Chromium and a kiosk host serving a harness, for one describe block (useScreenHarness). */
export interface ScreenHarnessRig extends Kiosk {
  browser: Browser;
  /** Script errors of the pages opened with trackedPage(rig.browser, ..., rig.pageErrors): none after each test. */
  pageErrors: string[];
}

/**
 * Chromium and the terminal host serving `rendererDir` (a harness) in front of the test server,
 * started before the block's tests and closed after them; after each test, no page logged a
 * script error. The fields are set once the block's `before` ran: read them inside tests.
 */
export function useScreenHarness(server: () => TestServer, options: { rendererDir: string; previews: string }): ScreenHarnessRig {
  const rig = { pageErrors: [] as string[] } as unknown as ScreenHarnessRig;
  before(async () => {
    rig.browser = await launchChromium();
    Object.assign(rig, await startKiosk({ rendererDir: options.rendererDir, serverUrl: server().baseUrl, previews: options.previews }));
  });
  after(async () => {
    await rig.host?.close();
    await rig.browser?.close();
  });
  afterEach(() => {
    const errors = rig.pageErrors.splice(0);
    assert.deepEqual(errors, [], 'no script errors');
  });
  return rig;
}
