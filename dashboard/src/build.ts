import { fileURLToPath } from 'node:url';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { build } from 'vite';
import { type BuildWatcher, type CachedBuild, ensureBuilt, runBuild, watchAndRebuild } from '@tapline/web/cached-build';

/** The pages' sources, and where `npm start` and the server look for the build by default. */
export const APP_ROOT = fileURLToPath(new URL('./app/', import.meta.url));
export const DEFAULT_DASHBOARD_DIST = fileURLToPath(new URL('../dist/', import.meta.url));

/** Everything the bundle can import (its own sources, the shared package's) and this recipe: the build is kept until one changes. */
const DASHBOARD: CachedBuild = {
  name: 'dashboard',
  sourceDirs: [APP_ROOT, fileURLToPath(new URL('../../shared/src/', import.meta.url))],
  recipe: [fileURLToPath(import.meta.url), fileURLToPath(new URL('../package.json', import.meta.url))],
  async build(outDir) {
    await build({
      configFile: false,
      root: APP_ROOT,
      base: '/dashboard/',
      logLevel: 'warn',
      plugins: [svelte({ configFile: false })],
      build: { outDir, emptyOutDir: true, target: 'chrome110', reportCompressedSize: false, chunkSizeWarningLimit: 1024 },
    });
  },
};

/** `npm start`: rebuilds after a change to any source while the server runs. */
export function watchDashboard(outDir: string = DEFAULT_DASHBOARD_DIST, report?: (message: string) => void): BuildWatcher {
  return watchAndRebuild(DASHBOARD, outDir, report);
}

/** Builds the dashboard into `outDir` (served at /dashboard/). */
export function buildDashboard(outDir: string = DEFAULT_DASHBOARD_DIST): Promise<void> {
  return runBuild(DASHBOARD, outDir);
}

/** Builds only when `outDir` holds no build of the current sources; answers whether it built. */
export function ensureDashboardBuilt(outDir: string = DEFAULT_DASHBOARD_DIST): Promise<boolean> {
  return ensureBuilt(DASHBOARD, outDir);
}
