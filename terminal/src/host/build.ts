import { createHash } from 'node:crypto';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { build } from 'vite';

/** Where the renderer's sources live and where `npm start` keeps its build. */
export const RENDERER_ROOT = fileURLToPath(new URL('../renderer/', import.meta.url));
export const DEFAULT_DIST_DIR = fileURLToPath(new URL('../../dist/', import.meta.url));

/** Written next to index.html: the hash of the sources the build came from. */
const STAMP_FILE = '.source-hash';

/**
 * Files outside src/renderer that end up in the bundle or shape it. A change to any of them
 * makes the next start rebuild; everything else in the repository does not.
 */
const EXTRA_INPUTS = [
  fileURLToPath(import.meta.url),
  fileURLToPath(new URL('../../package.json', import.meta.url)),
  fileURLToPath(new URL('../../../hardware/src/bridge/client.ts', import.meta.url)),
  fileURLToPath(new URL('../../../hardware/src/bridge/protocol.ts', import.meta.url)),
  fileURLToPath(new URL('../../../shared/src/money.ts', import.meta.url)),
  fileURLToPath(new URL('../../../shared/src/countries.ts', import.meta.url)),
  fileURLToPath(new URL('../../../shared/src/sync-protocol.ts', import.meta.url)),
  fileURLToPath(new URL('../../../shared/src/offline-qr.ts', import.meta.url)),
  fileURLToPath(new URL('../../../shared/src/offline-policy.ts', import.meta.url)),
];

async function listFiles(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true });
  const nested = await Promise.all(entries.map((entry) => (entry.isDirectory() ? listFiles(join(directory, entry.name)) : [join(directory, entry.name)])));
  return nested.flat();
}

/**
 * A content hash rather than modification times: a git checkout or a copy resets mtimes, and
 * a build must never be taken for fresh when its sources differ.
 */
export async function rendererSourceHash(): Promise<string> {
  const files = [...(await listFiles(RENDERER_ROOT)), ...EXTRA_INPUTS].sort();
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(relative(RENDERER_ROOT, file)).update('\0');
    hash.update(await readFile(file)).update('\0');
  }
  return hash.digest('hex');
}

/** Builds the renderer into `outDir` with Vite (no config file: everything is here). */
export async function buildRenderer(outDir: string): Promise<void> {
  const sourceHash = await rendererSourceHash();
  await build({
    configFile: false,
    root: RENDERER_ROOT,
    base: '/',
    logLevel: 'warn',
    plugins: [svelte({ configFile: false })],
    build: { outDir, emptyOutDir: true, target: 'chrome120', reportCompressedSize: false },
  });
  await writeFile(join(outDir, STAMP_FILE), `${sourceHash}\n`);
}

/** Builds only when `outDir` holds no build of the current sources. Answers whether it built. */
export async function ensureRendererBuilt(outDir: string): Promise<boolean> {
  const [current, built] = await Promise.all([rendererSourceHash(), readFile(join(outDir, STAMP_FILE), 'utf8').catch(() => '')]);
  if (built.trim() === current) return false;
  await buildRenderer(outDir);
  return true;
}
