import { createHash } from 'node:crypto';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { build } from 'vite';

/** The pages' sources, and where `npm start` and the server look for the build by default. */
export const APP_ROOT = fileURLToPath(new URL('./app/', import.meta.url));
export const DEFAULT_DASHBOARD_DIST = fileURLToPath(new URL('../dist/', import.meta.url));
/** Everything the bundle can import: its own sources, the shared package's, and this recipe. */
const SOURCE_DIRS = [APP_ROOT, fileURLToPath(new URL('../../shared/src/', import.meta.url))];
const RECIPE = [fileURLToPath(import.meta.url), fileURLToPath(new URL('../package.json', import.meta.url))];
const STAMP = '.sources.sha256';

async function listFiles(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && !entry.name.endsWith('.test.ts'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** One SHA-256 over the names and contents of every source file: a changed, added or removed file changes it. */
export async function sourcesDigest(): Promise<string> {
  const hash = createHash('sha256');
  const files = [...(await Promise.all(SOURCE_DIRS.map(listFiles))).flat(), ...RECIPE];
  for (const file of files) hash.update(file).update('\0').update(await readFile(file)).update('\0');
  return hash.digest('hex');
}

/** Builds the dashboard into `outDir` (served at /dashboard/). */
export async function buildDashboard(outDir: string = DEFAULT_DASHBOARD_DIST): Promise<void> {
  const digest = await sourcesDigest();
  await build({
    configFile: false,
    root: APP_ROOT,
    base: '/dashboard/',
    logLevel: 'warn',
    plugins: [svelte({ configFile: false })],
    build: { outDir, emptyOutDir: true, target: 'chrome110', reportCompressedSize: false, chunkSizeWarningLimit: 1024 },
  });
  await writeFile(join(outDir, STAMP), `${digest}\n`);
}

/** Builds only when `outDir` holds no build of the current sources; answers whether it built. */
export async function ensureDashboardBuilt(outDir: string = DEFAULT_DASHBOARD_DIST): Promise<boolean> {
  const built = await readFile(join(outDir, STAMP), 'utf8').catch(() => '');
  if (built.trim() === (await sourcesDigest())) return false;
  await buildDashboard(outDir);
  return true;
}
